package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// kindIngest is the job kind that ingests an upload.
const kindIngest = "ingest"

// ingestParams are the parameters of an ingest job.
type ingestParams struct {
	// Upload names the directory under <store>/uploads holding the files.
	Upload string   `json:"upload"`
	Files  []string `json:"files"`
	// Rejected are the files of the upload refused on arrival (wrong
	// type, empty, too large, …), reported as failed results of the job.
	Rejected []jobs.Result `json:"rejected,omitempty"`
}

// uploadTimeout bounds reading one upload request's body.
const uploadTimeout = 15 * time.Minute

func (s *Server) uploadsDir() string { return filepath.Join(s.st.Dir(), "uploads") }

// docJSON is a document's metadata as the API shows it. The server-side
// path of the uploaded file is never shown.
type docJSON struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Format     string    `json:"format"`
	Runes      int       `json:"runes"`
	Pages      int       `json:"pages"`
	Nodes      int       `json:"nodes"`
	SHA256     string    `json:"sha256"`
	Size       int64     `json:"size"`
	IngestedAt time.Time `json:"ingested_at"`
	// Folder is where the document was filed in the directory or archive
	// ingested; Archive and Entry name the archive and the path inside it;
	// Parent is the e-mail the document is attached to.
	Folder  string `json:"folder"`
	Archive string `json:"archive,omitempty"`
	Entry   string `json:"entry,omitempty"`
	Parent  string `json:"parent,omitempty"`
	// Display is how the faces show the document: its title, parties and
	// date ("Distributor Agreement — Airspan Networks / GLS, 31 March
	// 2000"), from the collection's index; "" when it is not indexed yet.
	Display string `json:"display,omitempty"`
}

func toDocJSON(in store.DocInfo) docJSON {
	return docJSON{ID: in.ID, Name: in.Name, Format: in.Format, Runes: in.Runes, Pages: in.Pages, Nodes: in.Nodes,
		SHA256: in.Source.SHA256, Size: in.Source.Size, IngestedAt: in.Source.IngestedAt,
		Folder: docread.DocFolder(in), Archive: in.Source.Archive, Entry: in.Source.Entry, Parent: in.Source.Parent}
}

// storeErr answers a store error: 404 for a missing collection or
// document, 500 otherwise.
// caseErr writes the response for err, the failure of a use case
// (internal/usecase): the one place its kinds of failure become HTTP
// statuses — 409 for a collection with no documents, 404 for a document or
// collection the store does not have (storeErr), 503 while shutting down
// and 500 for anything else (internal).
func (s *Server) caseErr(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, usecase.ErrEmptyCollection) {
		fail(w, http.StatusConflict, "%s", err.Error())
		return
	}
	s.storeErr(w, r, what, err)
}

func (s *Server) storeErr(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalidName) {
		if id := r.PathValue("id"); id != "" {
			if _, gerr := s.st.Generation(r.Context(), r.PathValue("c")); gerr == nil {
				fail(w, http.StatusNotFound, "document %q not found", id)
				return
			}
		}
		collectionNotFound(w, r.PathValue("c"))
		return
	}
	s.internal(w, what, err)
}

func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	pq, ok := parsePage(w, r)
	if !ok {
		return
	}
	infos, err := s.st.List(r.Context(), r.PathValue("c"))
	if err != nil {
		s.storeErr(w, r, "list documents", err)
		return
	}
	if f := r.URL.Query().Get("folder"); f != "" {
		kept := infos[:0]
		for _, in := range infos {
			if usecase.InFolder(docread.DocFolder(in), f) {
				kept = append(kept, in)
			}
		}
		infos = kept
	}
	// The store lists documents by name, then id: the order of this key.
	infos, next := pageOf(infos, func(in store.DocInfo) string { return in.Name + "\x00" + in.ID }, false, pq)
	out := make([]docJSON, len(infos))
	for i, in := range infos {
		out[i] = toDocJSON(in)
	}
	if len(out) > 0 {
		// The index holds every document's names: how each is shown (on
		// every core: a large collection's list names tens of thousands).
		if sn, err := s.coll.Get(r.Context(), r.PathValue("c")); err == nil {
			onEveryCore(r.Context(), len(out), func(i int) { out[i].Display = sn.Index.DocDisplay(out[i].ID) })
		}
	}
	writeJSON(w, http.StatusOK, pageResponse("documents", out, next))
}

// onEveryCore calls f(i) for i < n on every core, in chunks.
func onEveryCore(ctx context.Context, n int, f func(i int)) {
	const chunk = 512
	parallel.Each(ctx, (n+chunk-1)/chunk, runtime.GOMAXPROCS(0), func(k int) {
		for i := k * chunk; i < min(n, (k+1)*chunk); i++ {
			f(i)
		}
	})
}

// documentJSON is a document with its clause tree and, unless ?text=0, its
// canonical text. Spans everywhere are code points of that text.
type documentJSON struct {
	Document docJSON         `json:"document"`
	Details  detailsJSON     `json:"details"`
	Text     *string         `json:"text,omitempty"`
	Pages    []document.Page `json:"pages"`
	Tree     *clause.Tree    `json:"tree"`
	// Furniture marks running headers, footers and page numbers (the web
	// app's text view hides them unless asked); Paragraphs are where a
	// reader's paragraphs start (document.Paragraphs). Both come with the
	// text only.
	Furniture  []document.Furniture `json:"furniture,omitempty"`
	Paragraphs []int                `json:"paragraphs,omitempty"`
}

// detailsJSON is what `pakton docs show` prints (usecase.Details) without
// what document already holds and the server-side path.
type detailsJSON struct {
	Display     string           `json:"display"`
	Title       string           `json:"title,omitempty"`
	Parties     []string         `json:"parties,omitempty"`
	Type        string           `json:"type,omitempty"`
	Names       []names.Name     `json:"names,omitempty"`
	Meta        *document.Meta   `json:"meta,omitempty"`
	Attachments []usecase.DocRef `json:"attachments,omitempty"`
	Parent      *usecase.DocRef  `json:"parent,omitempty"`
	Duplicates  []usecase.DocRef `json:"duplicates,omitempty"`
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c, id := r.PathValue("c"), r.PathValue("id")
	d, rec, err := usecase.Describe(r.Context(), s.st, c, id)
	if err != nil {
		s.storeErr(w, r, "get document", err)
		return
	}
	doc := toDocJSON(d.DocInfo)
	doc.Display = d.Display
	out := documentJSON{Document: doc, Pages: rec.Doc.Pages, Tree: docread.Tree(rec),
		Details: detailsJSON{Display: d.Display, Title: d.Title, Parties: d.Parties, Type: d.Type, Names: d.Names, Meta: d.Meta,
			Attachments: d.Attachments, Parent: d.Parent, Duplicates: d.Duplicates}}
	if out.Pages == nil {
		out.Pages = []document.Page{}
	}
	if t := r.URL.Query().Get("text"); t != "0" && t != "false" {
		out.Text = &rec.Doc.Text
		out.Furniture = rec.Doc.Furniture
		out.Paragraphs = rec.Doc.Paragraphs(nodeStarts(out.Tree))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c, id := r.PathValue("c"), r.PathValue("id")
	var err error
	if r.URL.Query().Get("now") == "true" {
		err = s.st.Delete(r.Context(), c, id)
	} else {
		_, err = s.st.Trash(r.Context(), c, id, time.Now())
	}
	if err != nil {
		s.storeErr(w, r, "delete document", err)
		return
	}
	s.coll.Refresh(r.Context(), c)
	if _, err := s.st.PurgeTrash(r.Context(), c, time.Now(), false); err != nil {
		s.log.Warn("emptying the trash of what its window has passed", "collection", c, "err", err)
	}
	w.WriteHeader(http.StatusNoContent)
}

// listTrash answers GET …/collections/{c}/trash: the removed documents
// the trash keeps for the undo window, most recent first.
func (s *Server) listTrash(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	list, err := s.st.ListTrash(r.Context(), r.PathValue("c"))
	if err != nil {
		s.storeErr(w, r, "trash", err)
		return
	}
	if list == nil {
		list = []store.TrashEntry{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"trash": list})
}

// restoreDocument answers POST …/collections/{c}/trash/{id}/restore: the
// removed document goes back into the collection (409 when the name was
// ingested again since).
func (s *Server) restoreDocument(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c, id := r.PathValue("c"), r.PathValue("id")
	e, err := s.st.Restore(r.Context(), c, id)
	if errors.Is(err, store.ErrNewerVersion) {
		fail(w, http.StatusConflict, "%s: %v; it stays in the trash", e.Name, store.ErrNewerVersion)
		return
	}
	if err != nil {
		s.storeErr(w, r, "restore document", err)
		return
	}
	s.coll.Refresh(r.Context(), c)
	writeJSON(w, http.StatusOK, map[string]any{"restored": e})
}

// uploadError is a rejected upload: its status and message.
type uploadError struct {
	status int
	msg    string
}

func (e *uploadError) Error() string { return e.msg }

func rejected(status int, format string, args ...any) error {
	return &uploadError{status, fmt.Sprintf(format, args...)}
}

// upload saves the files of a multipart request under <store>/uploads and
// queues one ingestion job for them. A file that is too large, of the wrong
// type, empty, with content that does not match its type, repeated, or past
// the file limit is refused on its own: the job reports it as failed with
// its reason and the other files go on, as they do in the CLI. Only when no
// file is left is the upload refused (with every file's reason); a
// malformed or oversized request is refused whole.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, k auth.Key) {
	c := r.PathValue("c")
	if !auth.ValidCollection(c) {
		collectionNotFound(w, c)
		return
	}
	if s.beingDeleted(w, c) || s.jobLimitReached(w, k) {
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(uploadTimeout))
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxRequestBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		fail(w, http.StatusBadRequest, "want a multipart/form-data body with one or more file parts: %v", err)
		return
	}
	if err := os.MkdirAll(s.uploadsDir(), 0o700); err != nil {
		s.internal(w, "upload", err)
		return
	}
	tmp, err := os.MkdirTemp(s.uploadsDir(), ".tmp-")
	if err != nil {
		s.internal(w, "upload", err)
		return
	}
	files, refused, err := s.receive(mr, tmp)
	if err == nil && len(files) == 0 && len(refused) > 0 {
		os.RemoveAll(tmp)
		status := http.StatusBadRequest
		if len(refused) == 1 {
			var ue *uploadError
			if errors.As(refused[0].err, &ue) {
				status = ue.status
			}
		}
		writeJSON(w, status, map[string]any{"error": "none of the files can be ingested: " + refused[0].res.Reason, "rejected": results(refused)})
		return
	}
	if err != nil {
		os.RemoveAll(tmp)
		var ue *uploadError
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &ue):
			fail(w, ue.status, "%s", ue.msg)
		case errors.As(err, &mbe):
			fail(w, http.StatusRequestEntityTooLarge, "upload larger than the limit of %d bytes per request", mbe.Limit)
		case errors.As(err, new(*storeWriteError)):
			// The server's fault (a full disk, say): 500, and the
			// message names no server path.
			s.internal(w, "upload", err)
		default:
			fail(w, http.StatusBadRequest, "cannot read the upload: %v", err)
		}
		return
	}
	name := jobs.NewID()
	if err := os.Rename(tmp, filepath.Join(s.uploadsDir(), name)); err != nil {
		os.RemoveAll(tmp)
		s.internal(w, "upload", err)
		return
	}
	j, err := s.submitJob(s.jobs, kindIngest, c, k, ingestParams{Upload: name, Files: files, Rejected: results(refused)})
	if err != nil {
		os.RemoveAll(filepath.Join(s.uploadsDir(), name))
		s.submitFailed(w, "upload", k, err)
		return
	}
	w.Header().Set("Location", "/api/v1/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, map[string]any{"job": s.jobJSON(j)})
}

// refusal is one file of an upload refused on arrival.
type refusal struct {
	res jobs.Result
	err error
}

func results(rs []refusal) []jobs.Result {
	out := make([]jobs.Result, len(rs))
	for i, r := range rs {
		out[i] = r.res
	}
	return out
}

// receive streams the file parts of an upload into dir, checking count,
// sizes, names and content. It returns the saved (sanitized) names and the
// files refused, each with its reason; an error only when the request
// itself cannot be read or the server cannot write.
func (s *Server) receive(mr *multipart.Reader, dir string) (names []string, refused []refusal, err error) {
	seen := map[string]bool{}
	fields := 0
	refuse := func(part *multipart.Part, name string, err error) {
		io.Copy(io.Discard, part) // bounded by the request limit
		part.Close()
		if name == "" {
			name = part.FileName()
		}
		refused = append(refused, refusal{jobs.Result{Name: name, Status: string(ingest.StatusFailed), Reason: err.Error()}, err})
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if part.FileName() == "" {
			// A plain form field: ignored, but bounded.
			fields++
			if fields > 100 {
				return nil, nil, rejected(http.StatusBadRequest, "too many form fields")
			}
			io.Copy(io.Discard, io.LimitReader(part, 64<<10))
			part.Close()
			continue
		}
		if len(names)+len(refused) >= s.cfg.MaxFiles {
			refuse(part, "", rejected(http.StatusRequestEntityTooLarge, "too many files: at most %d per upload", s.cfg.MaxFiles))
			continue
		}
		name, err := SafeName(part.FileName())
		if err != nil {
			refuse(part, "", err)
			continue
		}
		if seen[strings.ToLower(name)] {
			refuse(part, name, rejected(http.StatusBadRequest, "file %q appears twice in this upload", name))
			continue
		}
		seen[strings.ToLower(name)] = true
		if err := s.saveFile(part, dir, name); err != nil {
			var ue *uploadError
			if !errors.As(err, &ue) {
				return nil, nil, err // the server's disk or the request itself
			}
			os.Remove(filepath.Join(dir, name))
			refuse(part, name, err)
			continue
		}
		part.Close()
		names = append(names, name)
	}
	if len(names) == 0 && len(refused) == 0 {
		return nil, nil, rejected(http.StatusBadRequest, "no files in the upload (send multipart/form-data file parts)")
	}
	return names, refused, nil
}

// createUpload creates an uploaded file (a variable so tests can fill the
// disk).
var createUpload = func(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// storeWriteError is a failure to write an upload to the server's disk, as
// opposed to a failure to read it from the client.
type storeWriteError struct{ err error }

func (e *storeWriteError) Error() string { return "writing the upload: " + e.err.Error() }
func (e *storeWriteError) Unwrap() error { return e.err }

// writeErrWriter marks the errors of writes to w as storeWriteErrors.
type writeErrWriter struct{ w io.Writer }

func (x writeErrWriter) Write(p []byte) (int, error) {
	n, err := x.w.Write(p)
	if err != nil {
		err = &storeWriteError{err}
	}
	return n, err
}

// saveFile writes one part to dir/name, bounded by MaxFileBytes, checking
// that its content matches the type its extension claims.
func (s *Server) saveFile(part io.Reader, dir, name string) error {
	head := make([]byte, 1024)
	n, err := io.ReadFull(part, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	head = head[:n]
	if n == 0 {
		return rejected(http.StatusBadRequest, "file %q is empty", name)
	}
	if err := Sniff(name, head); err != nil {
		return err
	}
	f, err := createUpload(filepath.Join(dir, name))
	if err != nil {
		return &storeWriteError{err}
	}
	defer f.Close()
	if _, err := f.Write(head); err != nil {
		return &storeWriteError{err}
	}
	limit := s.cfg.MaxFileBytes - int64(n)
	written, err := io.Copy(writeErrWriter{f}, io.LimitReader(part, limit+1))
	if err != nil {
		return err
	}
	if written > limit {
		return rejected(http.StatusRequestEntityTooLarge, "file %q is larger than the limit of %d bytes per file", name, s.cfg.MaxFileBytes)
	}
	if err := f.Sync(); err != nil {
		return &storeWriteError{err}
	}
	return nil
}

// SafeName turns a client's file name into the name a document is stored
// under. It keeps the user's name — letters of every script, digits,
// punctuation such as "," and "&" — so "Vertrag Müller.txt" stays itself
// and "Antares Pharma, Inc..pdf" uploaded through the web is the same
// document as the file the CLI ingested. It takes the last path element
// only ("../../etc/passwd.txt" becomes "passwd.txt"), drops leading dots
// and spaces, and replaces what no file name should hold — control
// characters and / \ : * ? " < > | — with '_'. When it had to replace
// anything, a short hash of the client's name goes before the extension
// ("a_b (3f2a9c).txt"), so two names that differ only in replaced
// characters stay two documents. At most 200 bytes, keeping the
// extension, which must be one pakton reads. The name is never used as a
// path on its own: uploads are saved inside a directory the server creates.
//
// The name is first put in Unicode NFC, so a name typed with a composed "ü"
// and one with "u" and a combining diaeresis (macOS file names) are one
// document, not two that look the same. Invisible and bidirectional
// formatting characters — a right-to-left override that shows
// "invoice\u202Efdp.txt" as "invoicetxt.pdf", zero-width spaces, a byte
// order mark — are replaced like control characters; a zero-width joiner
// or non-joiner between two letters, which some scripts spell with, is
// kept.
func SafeName(client string) (string, error) {
	client = norm.NFC.String(client)
	base := path.Base(strings.ReplaceAll(client, "\\", "/"))
	ext := path.Ext(base)
	if base == ".." || base == "." || base == "/" {
		ext = ""
	}
	stem, lossy := safeChars(strings.TrimSuffix(base, ext))
	stem = strings.TrimLeft(strings.TrimSpace(stem), ". ")
	ext, lossyExt := safeChars(ext)
	if len(ext) > 10 {
		ext = ""
	}
	if lossy || lossyExt {
		h := sha256.Sum256([]byte(client))
		stem = strings.TrimSpace(stem) + " (" + hex.EncodeToString(h[:3]) + ")"
	}
	if len(stem)+len(ext) > 200 {
		stem = strings.TrimSpace(strings.ToValidUTF8(stem[:200-len(ext)], ""))
	}
	if stem == "" {
		stem = "upload"
	}
	n := stem + ext
	if !ingest.Readable(n) {
		return "", rejected(http.StatusUnsupportedMediaType, "file %q: unsupported type (pakton reads %s)", n, ingest.SupportedTypes)
	}
	return n, nil
}

// joinerBetweenLetters reports whether r at byte i of s is a zero-width
// joiner or non-joiner between two letters: a character of the word, in
// the scripts that spell with it (Persian, the Indic scripts), not a trick.
func joinerBetweenLetters(s string, i int, r rune) bool {
	if r != 0x200C && r != 0x200D {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
	return (unicode.IsLetter(before) || unicode.Is(unicode.M, before)) && unicode.IsLetter(after)
}

// safeChars replaces control characters, invalid UTF-8 and the characters
// file systems reserve with '_', and reports whether it replaced any.
func safeChars(s string) (string, bool) {
	var b strings.Builder
	lossy := false
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"),
			unicode.IsControl(r), r == 0x2028, r == 0x2029,
			unicode.Is(unicode.Cf, r) && !joinerBetweenLetters(s, i, r),
			strings.ContainsRune(`/\:*?"<>|`, r):
			b.WriteByte('_')
			lossy = true
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), lossy
}

// Sniff checks that the first bytes of a file match the format its name
// claims (ingest.ContentMatches: "%PDF-" for PDF, a zip header for DOCX,
// ODT and ZIP archives, a compound-file header for Outlook messages, text
// for HTML, text and e-mail files, …). Anything else is refused before it
// reaches a parser.
func Sniff(name string, head []byte) error {
	if !ingest.ContentMatches(name, head) {
		what := parse.Format(name)
		if what == "" {
			what = "a ZIP archive"
		}
		return rejected(http.StatusUnsupportedMediaType, "file %q: its content is not %s", name, what)
	}
	return nil
}

// runIngest is the ingest job: it ingests the upload's directory into the
// collection. Ingest skips files already stored with the same bytes, so a
// job resumed after a restart only does what is left.
func (s *Server) runIngest(ctx context.Context, j jobs.Job, rep jobs.Reporter) error {
	var p ingestParams
	if err := json.Unmarshal(j.Params, &p); err != nil || !jobs.ValidID(p.Upload) {
		return fmt.Errorf("bad job parameters")
	}
	dir := filepath.Join(s.uploadsDir(), p.Upload)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("the uploaded files are no longer on the server; upload them again")
	}
	clean := func(reason string) string { return strings.ReplaceAll(reason, dir+string(filepath.Separator), "") }
	// Files refused on arrival come first, once (a resumed job has them).
	pre := len(p.Rejected)
	if len(j.Results) < pre {
		for _, r := range p.Rejected[len(j.Results):] {
			rep.Result(r)
		}
	}
	opt := ingest.Options{Parse: s.cfg.Parse, Workers: s.cfg.IngestWorkers, Embedder: s.cfg.Embedder, Yield: jobs.Yield, Acquire: s.acquireCPU, Budget: s.memory, Nice: s.cfg.IngestNice,
		Progress: func(pr ingest.Progress) {
			rep.Progress(jobs.Progress{Done: pre + pr.Done, Total: pre + pr.Total, Current: pr.File})
			if pr.Done > 0 {
				rep.Result(jobs.Result{Name: pr.File, ID: store.DocID(pr.File), Status: string(pr.Status), Reason: clean(pr.Reason)})
			}
		}}
	// Each file is given on its own, so an uploaded archive is read as a
	// data room: its entries are named by their paths inside it.
	paths := make([]string, 0, len(p.Files))
	for _, f := range p.Files {
		if f == "" || f != filepath.Base(f) {
			continue // names were made safe on arrival; anything else is not ours
		}
		paths = append(paths, filepath.Join(dir, f))
	}
	if len(paths) == 0 {
		paths = []string{dir}
	}
	sum, err := ingest.Ingest(ctx, s.st, j.Collection, paths, opt)
	// Searches see the new documents by the time the job is reported done.
	s.coll.Refresh(ctx, j.Collection)
	if err != nil {
		return errors.New(clean(err.Error()))
	}
	if n := sum.Count(ingest.StatusFailed) + sum.Count(ingest.StatusSkipped); n == len(sum.Files) && n > 0 {
		return fmt.Errorf("none of the %d files could be ingested", n+pre)
	}
	return nil
}

// jobFinished removes an upload's files once its job is final.
func (s *Server) jobFinished(j jobs.Job) { s.removeJobFiles(j) }

// removeJobFiles removes the uploaded files of an ingest job, if any are
// left. The job manager calls it before it removes a finished job, so a job
// file outlives its uploads.
func (s *Server) removeJobFiles(j jobs.Job) error {
	if j.Kind != kindIngest {
		return nil
	}
	var p ingestParams
	if json.Unmarshal(j.Params, &p) == nil && jobs.ValidID(p.Upload) {
		return os.RemoveAll(filepath.Join(s.uploadsDir(), p.Upload))
	}
	return nil
}

// removeOrphanUploads removes upload directories no unfinished job refers
// to: partial uploads and files of jobs finished while their cleanup was
// cut short.
func (s *Server) removeOrphanUploads() {
	ents, err := os.ReadDir(s.uploadsDir())
	if err != nil {
		return
	}
	live := map[string]bool{}
	for _, j := range s.jobs.List("") {
		var p ingestParams
		if j.Kind == kindIngest && !j.State.Final() && json.Unmarshal(j.Params, &p) == nil {
			live[p.Upload] = true
		}
	}
	for _, e := range ents {
		if !live[e.Name()] {
			os.RemoveAll(filepath.Join(s.uploadsDir(), e.Name()))
		}
	}
}

// nodeStarts returns where the clause tree's nodes (not its root) start.
func nodeStarts(t *clause.Tree) []int {
	if t == nil || len(t.Nodes) < 2 {
		return nil
	}
	out := make([]int, 0, len(t.Nodes)-1)
	for _, n := range t.Nodes[1:] {
		out = append(out, n.Span.Start)
	}
	return out
}
