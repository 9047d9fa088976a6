package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/family"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/unpack"
)

// prepared is one document's outcome: its result and, when there is
// something to store, its record.
type prepared struct {
	res FileResult
	rec *store.Record
}

// preparer turns items into records; one is shared by the workers of an
// Ingest.
type preparer struct {
	existing func(id string) (store.DocInfo, bool, error) // the stored document of an id
	dups     *dupIndex
	opt      Options
	lim      unpack.Limits
	budget   *Budget
}

// maxNesting bounds e-mails and archives inside e-mails.
const maxNesting = 8

// prepare reads and analyzes one item. A plain file or archive entry gives
// one outcome; an e-mail gives its own and one per attachment (and per
// entry of an attached archive), which the caller stores together, so a
// message is never stored without its attachments. It returns nil when ctx
// was cancelled first: nothing of the item is stored.
func (p *preparer) prepare(ctx context.Context, it item, c *claim) (out []prepared) {
	res := FileResult{Path: it.path, Name: it.name, Status: it.status, Reason: it.reason, Err: it.err}
	if it.status != "" {
		return []prepared{{res: res}}
	}
	if ctx.Err() != nil {
		return nil
	}
	// A parser bug must cost one file, not the batch.
	defer func() {
		if r := recover(); r != nil {
			res.ID = store.DocID(it.name)
			res.Status, res.Reason = StatusFailed, fmt.Sprintf("internal error (please report): %v", r)
			res.Err = fmt.Errorf("%s: panic: %v\n%s", it.path, r, debug.Stack())
			out = []prepared{{res: res}}
		}
	}()
	var (
		data []byte
		err  error
		mod  time.Time
	)
	// The file's bytes are the first memory it takes.
	if err := c.need(ctx, it.size+1<<20, "reading it"); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		res.ID = store.DocID(it.name)
		res.Status, res.Reason, res.Err = StatusFailed, err.Error(), fmt.Errorf("%s: %w", it.path, err)
		return []prepared{{res: res}}
	}
	if it.entry != nil {
		data, err = it.arc.Read(*it.entry)
		mod = it.entry.Modified
	} else {
		var fi interface{ ModTime() time.Time }
		data, fi, err = readFile(it.path, p.opt.Parse.MaxBytes)
		if fi != nil {
			mod = fi.ModTime()
		}
	}
	if err != nil {
		res.ID = store.DocID(it.name)
		res.Status, res.Reason, res.Err = StatusFailed, err.Error(), fmt.Errorf("%s: %w", it.path, err)
		return []prepared{{res: res}}
	}
	src := it.src
	src.ModTime = mod.UTC()
	return p.document(ctx, it.path, it.name, data, src, nil, 0, c)
}

// document prepares the document named name from data (or, for an
// attached Outlook message, from msg, read already) with its attachments.
func (p *preparer) document(ctx context.Context, where, name string, data []byte, src store.Source, msg *unpack.Message, depth int, c *claim) []prepared {
	res := FileResult{Path: where, Name: name, ID: store.DocID(name), Bytes: int64(len(data))}
	fail := func(reason string, err error) []prepared {
		res.Status, res.Reason, res.Err = StatusFailed, reason, fmt.Errorf("%s: %w", where, err)
		return []prepared{{res: res}}
	}
	if depth > maxNesting {
		return fail(fmt.Sprintf("refused: e-mails and archives nested more than %d deep", maxNesting), unpack.ErrBomb)
	}
	if data == nil && msg == nil {
		return fail("no data", parse.ErrEmpty)
	}
	if unpack.Kind(name) == "zip" {
		return p.attachedArchive(ctx, where, name, data, src, depth, c)
	}
	if msg == nil && parse.Format(name) == "" {
		res.Status, res.Reason = StatusSkipped, unsupportedReason(name)
		return []prepared{{res: res}}
	}
	h := sha256.Sum256(data)
	if msg != nil {
		// An attached Outlook message has no bytes of its own: its
		// identity is its rendered text (below).
		h = sha256.Sum256(nil)
	}
	sha := hex.EncodeToString(h[:])
	prev, had, lerr := p.existing(res.ID)
	if lerr != nil {
		return fail("cannot look up the stored version: "+lerr.Error(), lerr)
	}
	if msg == nil {
		if had && prev.Source.SHA256 == sha && !p.opt.Force {
			res.Status, res.Reason = StatusUnchanged, "same content as the stored version"
			return []prepared{{res: res}}
		}
		// A new name with bytes the collection already holds is the same
		// contract under another name (a copy, a web upload of a file the CLI
		// ingested): one document, not two, or every hit would appear twice.
		if !had && !p.opt.Force {
			first, ok, err := p.dups.claim(sha, store.DocInfo{ID: res.ID, Name: name})
			if err != nil {
				return fail("cannot look up the stored documents: "+err.Error(), err)
			}
			if !ok {
				res.ID = first.ID
				res.Status, res.Reason = StatusUnchanged, fmt.Sprintf("same content as %q, already in the collection", first.Name)
				res.Same = first.Name
				return []prepared{{res: res}}
			}
		}
	}

	popt := p.opt.Parse
	if report := popt.Progress; report != nil {
		popt.Progress = func(msg string) { report(name + ": " + msg) }
	}
	// A document has a deadline for all of its work; the readers, the
	// graph and the passes between them stop when it passes.
	ctx, cancel := context.WithTimeoutCause(ctx, docDeadline(len(data)), errDocDeadline)
	defer cancel()
	late := func(err error) []prepared {
		if context.Cause(ctx) == errDocDeadline && ctx.Err() != nil {
			return fail(fmt.Sprintf("%s: it took longer than %s (the limit is %s plus %s per MB)", parse.ErrTooLarge, docDeadline(len(data)), docTimeout, docTimeoutPerMB), fmt.Errorf("%w: %w", parse.ErrTooLarge, err))
		}
		return nil
	}
	if msg == nil {
		if err := c.need(ctx, parse.ReadMemory(name, data, popt), "reading it"); err != nil {
			if ctx.Err() != nil {
				return late(err)
			}
			return fail(err.Error(), err)
		}
	}
	var (
		doc *document.Document
		err error
	)
	format := parse.Format(name)
	switch {
	case msg != nil:
		doc, err = parse.Message(ctx, msg, p.opt.Parse)
	case format == "email":
		if msg, err = readMessage(name, data); err == nil {
			doc, err = parse.Message(ctx, msg, p.opt.Parse)
		} else {
			err = fmt.Errorf("%w: %v", parse.ErrCorrupt, err)
		}
	default:
		doc, err = parse.Bytes(ctx, path.Base(name), data, popt)
	}
	if err != nil {
		if ctx.Err() != nil {
			return late(err)
		}
		return fail(err.Error(), err)
	}
	if msg != nil && data == nil {
		h := sha256.Sum256([]byte(doc.Text))
		sha = hex.EncodeToString(h[:])
	}
	doc.ID, doc.Name = res.ID, name
	var children []prepared
	if msg != nil {
		// Attachments first, so the message can say where each went.
		var links []string
		var ok bool
		if children, links, ok = p.attachments(ctx, where, name, msg, src, depth, c); !ok {
			return nil // cancelled: nothing of the message is stored
		}
		if doc.Meta != nil && doc.Meta.Message != nil {
			doc.Meta.Message.Documents = links
		}
	}
	src.SHA256, src.Size = sha, int64(len(data))
	if err := c.need(ctx, analysisMemory(doc), "analyzing its text"); err != nil {
		if ctx.Err() != nil {
			return late(err)
		}
		return fail(err.Error(), err)
	}
	rec, err := p.analyze(ctx, doc, data, &res, src)
	if err != nil {
		if ctx.Err() != nil {
			return late(err)
		}
		return fail(err.Error(), err)
	}
	c.keep(heldMemory(rec))
	res.Status = StatusAdded
	if had {
		res.Status = StatusReplaced
	}
	return append([]prepared{{res: res, rec: rec}}, children...)
}

// attachments prepares the attachments of message msg (the file where,
// named name), each a document of its own, and says where each went: its
// name, or the name of the document it is the same as; false when one was
// cancelled.
func (p *preparer) attachments(ctx context.Context, where, name string, msg *unpack.Message, src store.Source, depth int, c *claim) ([]prepared, []string, bool) {
	var children []prepared
	links := make([]string, len(msg.Attachments))
	for i, a := range msg.Attachments {
		cname := name + "/" + a.Name
		csrc := store.Source{Path: src.Path, Archive: src.Archive, Folder: src.Folder, Parent: name, ModTime: src.ModTime}
		if src.Entry != "" {
			csrc.Entry = src.Entry + "/" + a.Name
		}
		var got []prepared
		if a.Refused != "" {
			r := FileResult{Path: where + "/" + a.Name, Name: cname, ID: store.DocID(cname), Status: StatusFailed, Reason: "refused: " + a.Refused}
			r.Err = fmt.Errorf("%s: %s", r.Path, r.Reason)
			got = []prepared{{res: r}}
		} else {
			got = p.document(ctx, where+"/"+a.Name, cname, a.Data, csrc, a.Message, depth+1, c)
			if got == nil {
				return nil, nil, false
			}
		}
		if len(got) > 0 {
			switch r := got[0].res; {
			case r.Status == StatusAdded || r.Status == StatusReplaced || r.Status == StatusUnchanged && r.Same == "":
				links[i] = r.Name
			case r.Same != "":
				links[i] = r.Same
			}
		}
		children = append(children, got...)
	}
	return children, links, true
}

// attachedArchive prepares the entries of a ZIP archive attached to an
// e-mail (or nested in one), read in memory within the limits.
func (p *preparer) attachedArchive(ctx context.Context, where, name string, data []byte, src store.Source, depth int, c *claim) []prepared {
	a, err := unpack.OpenZip(bytes.NewReader(data), int64(len(data)), p.lim)
	if err != nil {
		r := FileResult{Path: where, Name: name, ID: store.DocID(name), Status: StatusFailed, Reason: err.Error(), Bytes: int64(len(data))}
		r.Err = fmt.Errorf("%s: %w", where, err)
		return []prepared{{res: r}}
	}
	var out []prepared
	for _, e := range a.Entries {
		cname := name + "/" + e.Name
		cwhere := where + "/" + e.Name
		csrc := src
		csrc.Folder = docread.FolderOf(cname)
		csrc.Entry = path.Join(src.Entry, e.Name)
		csrc.ModTime = e.Modified.UTC()
		if e.Refused != "" {
			r := FileResult{Path: cwhere, Name: cname, ID: store.DocID(cname), Status: StatusFailed, Reason: "refused: " + e.Refused}
			r.Err = fmt.Errorf("%s: %s: %w", cwhere, r.Reason, unpack.ErrRefused)
			out = append(out, prepared{res: r})
			continue
		}
		b, err := a.Read(e)
		if err != nil {
			r := FileResult{Path: cwhere, Name: cname, ID: store.DocID(cname), Status: StatusFailed, Reason: err.Error()}
			r.Err = fmt.Errorf("%s: %w", cwhere, err)
			out = append(out, prepared{res: r})
			continue
		}
		got := p.document(ctx, cwhere, cname, b, csrc, nil, depth+1, c)
		if got == nil {
			return nil
		}
		out = append(out, got...)
	}
	return out
}

func readMessage(name string, data []byte) (*unpack.Message, error) {
	if unpack.Kind(name) == "msg" {
		return unpack.ReadMSG(data)
	}
	return unpack.ReadEML(data)
}

// analyze builds a parsed document's clause tree, retrieval units, index
// segment, summary, graph and optional vectors into a record.
func (p *preparer) analyze(ctx context.Context, doc *document.Document, data []byte, res *FileResult, src store.Source) (*store.Record, error) {
	// Each pass is linear in the text, which the parse limits bound; the
	// document's deadline and the job's cancellation are checked between
	// them (and inside graph extraction, the longest).
	if over := tooManyTerms(doc.Text); over > 0 {
		return nil, fmt.Errorf("%w: it holds more than %s distinct words, more than the %s one document may hold", parse.ErrTooLarge, thousands(over), thousands(MaxDocTerms))
	}
	tree := clause.Parse(doc)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sum := chunk.Summary(doc)
	if p.opt.Summarize != nil {
		gen, err := p.opt.Summarize(ctx, doc)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			res.Reason = "model summary failed, deterministic summary used: " + err.Error()
		default:
			sum.Generated = gen
		}
	}
	nm := chunk.Names(doc)
	units := chunk.Build(doc, tree, chunk.Options{Summary: sum.Generated, Names: &nm})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	analyzed := index.AnalyzeDoc(units)
	if n := len(analyzed.Vocab); n > MaxDocTerms {
		return nil, fmt.Errorf("%w: it holds %s distinct words, more than the %s one document may hold", parse.ErrTooLarge, thousands(n), thousands(MaxDocTerms))
	}
	seg := analyzed.Encode()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	summary, err := json.Marshal(sum)
	if err != nil {
		return nil, fmt.Errorf("cannot encode summary: %w", err)
	}
	namesJSON, err := json.Marshal(nm)
	if err != nil {
		return nil, fmt.Errorf("cannot encode names: %w", err)
	}
	artifacts := map[string][]byte{docread.ArtifactSegment: seg, docread.ArtifactSummary: summary, docread.ArtifactNames: namesJSON,
		docread.ArtifactFamily: family.SignWithParties(doc.MaskedText(), family.Parties(nm)).Encode()}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec0 := &store.Record{Doc: doc, Tree: tree}
	if artifacts[docread.ArtifactGraph], err = encodeGraph(ctx, rec0); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	artifacts[docread.ArtifactReview] = encodeReview(rec0)
	if doc.Layout != nil {
		layout, err := document.EncodeLayout(doc.Layout)
		if err != nil {
			return nil, fmt.Errorf("cannot encode layout: %w", err)
		}
		artifacts[docread.ArtifactLayout] = layout
		artifacts[docread.ArtifactSource] = data
	}
	if p.opt.Embedder != nil {
		vecs, err := search.EmbedDoc(ctx, p.opt.Embedder, units)
		if err != nil {
			return nil, err
		}
		artifacts[docread.ArtifactVectors] = vecs.Encode()
	}
	return &store.Record{Doc: doc, Tree: tree, Source: src, Artifacts: artifacts}, nil
}

// MaxDocTerms is the most distinct index terms one document may have: the
// longest contract of the benchmark corpora (1 MB) has 3,468; a text of
// made-up words (a line of a million numbered definitions) would make the
// collection's vocabulary, and every pass over it (word associations), as
// large as the text.
const MaxDocTerms = 100_000

// tooManyTerms counts the distinct index terms of a text over a mebibyte
// in one pass over its words, before the passes that build its units, and
// returns the count it passed (twice MaxDocTerms) when the text holds more,
// else 0. The units hold the words of the text, so such a text would be
// refused by the count of its segment's vocabulary anyway, after every
// pass; with the margin of twice the limit, no text the segment's count
// accepts is refused here. A text of a mebibyte or less is not counted
// (it cannot hold enough distinct words to matter).
func tooManyTerms(text string) int {
	const over = 2 * MaxDocTerms
	if len(text) <= 1<<20 {
		return 0
	}
	seen := make(map[string]struct{}, 1<<12)
	index.ForEachWord(text, func(w string, _ bool) {
		if len(seen) > over || index.IsStopWord(w) {
			return
		}
		seen[index.Stem(w)] = struct{}{}
	})
	if len(seen) > over {
		return over
	}
	return 0
}

// A document's deadline: docTimeout plus docTimeoutPerMB of its file, for
// everything from parsing to its record (the parsers' and the graph's own
// deadlines are shorter). Generous on a busy machine; a file that needs
// more is built to keep a server busy.
var (
	docTimeout      = 2 * time.Minute
	docTimeoutPerMB = 2 * time.Second
)

// errDocDeadline is the cancellation cause when a document's deadline passes.
var errDocDeadline = errors.New("document deadline")

func docDeadline(size int) time.Duration {
	return docTimeout + time.Duration(size>>20)*docTimeoutPerMB
}

// analysisMemory estimates the most memory analyzing a parsed document
// takes (the clause tree, retrieval units, analyzed segment, signature and
// graph, with the text): about ten times its text, measured on the bomb
// kit's largest texts (docs/INGEST.md).
func analysisMemory(doc *document.Document) int64 {
	return 10*int64(len(doc.Text)) + 256*int64(len(doc.Blocks)) + 1<<20
}

// heldMemory estimates what a prepared record holds until it is stored:
// its text, clause tree and artifacts.
func heldMemory(rec *store.Record) int64 {
	n := int64(len(rec.Doc.Text)) + 128*int64(len(rec.Doc.Blocks))
	if rec.Tree != nil {
		n += 160 * int64(len(rec.Tree.Nodes))
	}
	for _, a := range rec.Artifacts {
		n += int64(len(a))
	}
	return n
}

// thousands writes n with thousands separators: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
