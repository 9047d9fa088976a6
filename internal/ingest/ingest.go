// Package ingest adds contracts to a store collection and loads a
// collection's search index back: file → parse → clause tree → retrieval
// units → analyzed index segment → store. The pakton command-line client uses
// this package for "ingest", "search", "docs" and "demo".
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// Artifact names this package stores beside each document.
const (
	// ArtifactSegment is the document's analyzed retrieval units
	// (index.Doc.Encode), what LoadIndex reads.
	ArtifactSegment = "segment"
	// ArtifactSummary is the document's deterministic summary (title,
	// parties, type) as JSON (chunk.DocSummary).
	ArtifactSummary = "summary"
	// ArtifactVectors holds the embeddings of the document's passages
	// (search.Vectors.Encode), present when an embedder was configured.
	ArtifactVectors = "vectors"
	// ArtifactLayout is where the text sits on the pages
	// (document.EncodeLayout: gzipped JSON), present for PDFs read by
	// pdfium (document.Document.Layout).
	ArtifactLayout = "layout"
	// ArtifactSource is the original file's bytes, kept for documents with
	// a layout (PDFs read by pdfium) so their pages can be rendered. It is
	// as large as the file (bounded by Parse.MaxBytes).
	ArtifactSource = "source"
)

// Status is what happened to one file.
type Status string

// File statuses.
const (
	StatusAdded     Status = "added"     // a new document
	StatusReplaced  Status = "replaced"  // the file changed since it was last ingested
	StatusUnchanged Status = "unchanged" // same bytes (SHA-256) as the stored version: not re-ingested
	StatusSkipped   Status = "skipped"   // not a contract pakton reads (unsupported type)
	StatusFailed    Status = "failed"    // could not be read, parsed or stored
)

// Options tune Ingest. The zero value is the default.
type Options struct {
	// Parse is passed to the parser: size limit (MaxBytes, default
	// parse.MaxFileSize), OCR mode and PDF engine.
	Parse parse.Options
	// Workers is the number of files parsed at once (default runtime.NumCPU()).
	Workers int
	// Force re-ingests files whose bytes have not changed, e.g. after
	// changing OCR or PDF engine options.
	Force bool
	// Progress, when set, is called once when the files have been found
	// (Done == 0) and after each file is finished (stored, skipped or
	// failed), from one goroutine at a time. Parse.Progress, when set,
	// receives the parser's messages about slow steps (OCR) prefixed with
	// the document name; it may be called from several goroutines.
	Progress func(Progress)
	// Summarize, when set, writes each document's short summary with a
	// model (the Archivist) for routing and summary augmentation. When it
	// fails, the deterministic summary is used and the file's Reason says so.
	Summarize func(ctx context.Context, doc *document.Document) (string, error)
	// Yield, when set, is called before each file but the first is handed
	// to a parser; it may block while other work runs (a server's job gives
	// its turn to another tenant's: jobs.Yield). An error stops the batch
	// as a cancellation does.
	Yield func(ctx context.Context) error
	// Acquire, when set, is called before a file is read and parsed, and
	// the release it returns once the file is ready to store: a server
	// bounds with it the processor time all its background jobs take
	// together, so that searches keep a core. An error skips the file as a
	// cancellation does.
	Acquire func(ctx context.Context) (release func(), err error)
	// Embedder, when set, embeds every passage through a model server and
	// stores the vectors beside the document (artifact "vectors"), so search
	// can fuse dense and lexical rankings. A failure to embed fails the file.
	Embedder search.Embedder
}

// Progress reports how far an Ingest has got.
type Progress struct {
	Done, Total       int    // files finished, files found
	Bytes, TotalBytes int64  // bytes of the files finished, of all files found
	File              string // the document name of the file just finished
	Status            Status
	Reason            string // why it was skipped or failed
}

// FileResult is the outcome for one file.
type FileResult struct {
	Path   string `json:"path"`         // as found on disk
	Name   string `json:"name"`         // document name: path relative to the directory given, or the base name
	ID     string `json:"id,omitempty"` // document id (store.DocID(Name))
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"` // why it was unchanged, skipped or failed
	Bytes  int64  `json:"bytes"`
	// Err is the error of a failed file; its message names the file.
	Err error `json:"-"`
}

// Summary lists what an Ingest did, file by file in the order found.
type Summary struct {
	Collection string        `json:"collection"`
	Files      []FileResult  `json:"files"`
	Bytes      int64         `json:"bytes"` // bytes of all files read
	Elapsed    time.Duration `json:"elapsed_ns"`
}

// Count returns the number of files with status st.
func (s *Summary) Count(st Status) int {
	n := 0
	for _, f := range s.Files {
		if f.Status == st {
			n++
		}
	}
	return n
}

// Err returns the errors of the failed files joined, or nil when none
// failed.
func (s *Summary) Err() error {
	var errs []error
	for _, f := range s.Files {
		if f.Status == StatusFailed {
			errs = append(errs, f.Err)
		}
	}
	return errors.Join(errs...)
}

// String is a one-line count of the outcome.
func (s *Summary) String() string {
	return fmt.Sprintf("%d files in %.1fs: %d added, %d replaced, %d unchanged, %d skipped, %d failed",
		len(s.Files), s.Elapsed.Seconds(), s.Count(StatusAdded), s.Count(StatusReplaced),
		s.Count(StatusUnchanged), s.Count(StatusSkipped), s.Count(StatusFailed))
}

// Report writes the one-line count and a line per skipped or failed file
// with its reason.
func (s *Summary) Report(w io.Writer) error {
	if _, err := fmt.Fprintln(w, s.String()); err != nil {
		return err
	}
	for _, st := range []Status{StatusSkipped, StatusFailed} {
		for _, f := range s.Files {
			if f.Status == st {
				if _, err := fmt.Fprintf(w, "  %-7s %s: %s\n", st, f.Path, f.Reason); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Ingest adds the files at paths to a collection of st, creating the
// collection if needed. A path may be a file or a directory, walked
// recursively (hidden files and directories are skipped). A document's name
// is its path relative to the directory given (the base name for a file given
// directly), and its id is store.DocID(name): ingesting a changed file again
// replaces its document, an unchanged one is left alone.
//
// A file that cannot be read, parsed or stored is recorded as failed with its
// reason and the batch goes on; Summary.Err joins those errors. The returned
// error is for what stops the whole batch: an unusable store or collection,
// or ctx being cancelled — then the documents already stored stay (each is
// stored atomically) and the Summary lists the files finished so far.
func Ingest(ctx context.Context, st *store.Store, collection string, paths []string, opt Options) (Summary, error) {
	start := time.Now()
	sum := Summary{Collection: collection}
	if collection != store.DefaultCollection {
		if err := st.CreateCollection(collection); err != nil {
			return sum, fmt.Errorf("ingest: %w", err)
		}
	}
	existing := map[string]store.DocInfo{}
	infos, err := st.List(collection)
	if err != nil {
		return sum, fmt.Errorf("ingest: %w", err)
	}
	dups := &dupIndex{}
	for _, in := range infos {
		existing[in.ID] = in
		dups.claim(in.Source.SHA256, in)
	}

	items := collect(paths)
	var totalBytes int64
	for _, it := range items {
		totalBytes += it.size
	}
	if opt.Progress != nil {
		opt.Progress(Progress{Total: len(items), TotalBytes: totalBytes})
	}
	results := make([]FileResult, len(items))
	finished := make([]bool, len(items))

	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	jobs := make(chan int)
	type outcome struct {
		i   int
		res FileResult
		rec *store.Record
	}
	// Prepared documents queue up while a batch is being stored, so parsing
	// goes on during the fsyncs.
	out := make(chan outcome, max(workers, maxBatch))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				release := func() {}
				if opt.Acquire != nil {
					var err error
					if release, err = opt.Acquire(ctx); err != nil {
						out <- outcome{i, FileResult{}, nil}
						continue
					}
				}
				res, rec := prepare(ctx, items[i], existing, dups, opt)
				release()
				out <- outcome{i, res, rec}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range items {
			if i > 0 && opt.Yield != nil && opt.Yield(ctx) != nil {
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	// One goroutine stores documents and reports progress, so writes and
	// Progress callbacks never overlap. It stores whatever has queued up as
	// one batch (store.PutBatch: one commit for many documents).
	done := 0
	var doneBytes int64
	var fatal error
	finish := func(o outcome) {
		res := o.res
		if res.Status == "" { // a cancelled job
			return
		}
		results[o.i], finished[o.i] = res, true
		done++
		doneBytes += res.Bytes
		if opt.Progress != nil {
			opt.Progress(Progress{Done: done, Total: len(items), Bytes: doneBytes, TotalBytes: totalBytes,
				File: res.Name, Status: res.Status, Reason: res.Reason})
		}
	}
	for o := range out {
		batch := []outcome{o}
	fill:
		for len(batch) < maxBatch {
			select {
			case more, ok := <-out:
				if !ok {
					break fill
				}
				batch = append(batch, more)
			default:
				break fill
			}
		}
		var recs []*store.Record
		var stored []int // indices into batch of the documents in recs
		for i, o := range batch {
			if o.rec != nil && ctx.Err() == nil && fatal == nil {
				recs = append(recs, o.rec)
				stored = append(stored, i)
			}
		}
		errs := make([]error, len(recs))
		if err := st.PutBatch(collection, recs); err != nil && len(recs) > 0 {
			// Store them one by one, so a failure names its file.
			for i, rec := range recs {
				errs[i] = st.Put(collection, rec)
			}
		}
		for i, bi := range stored {
			if err := errs[i]; err != nil {
				if errors.Is(err, store.ErrClosed) {
					fatal = err
					batch[bi].res.Status = ""
					continue
				}
				res := &batch[bi].res
				res.Status, res.Reason = StatusFailed, "cannot store: "+err.Error()
				res.Err = fmt.Errorf("%s: %w", res.Path, err)
			}
		}
		for i, o := range batch {
			if o.rec != nil && !slices.Contains(stored, i) {
				continue // interrupted: not stored, not reported
			}
			finish(o)
		}
	}
	for i, ok := range finished {
		if ok {
			sum.Files = append(sum.Files, results[i])
			sum.Bytes += results[i].Bytes
		}
	}
	sum.Elapsed = time.Since(start)
	if fatal != nil {
		return sum, fmt.Errorf("ingest: %w", fatal)
	}
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("ingest interrupted after %d of %d files (the documents stored so far are kept): %w", done, len(items), err)
	}
	return sum, nil
}

// dupIndex maps the SHA-256 of file contents to the first document that
// holds them, across the stored documents and the files of this run.
type dupIndex struct {
	mu    sync.Mutex
	bySHA map[string]store.DocInfo
}

// claim records doc as the holder of sha unless another holds it: then it
// returns that one and false.
func (d *dupIndex) claim(sha string, doc store.DocInfo) (store.DocInfo, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bySHA == nil {
		d.bySHA = map[string]store.DocInfo{}
	}
	if sha == "" {
		return doc, true
	}
	if first, ok := d.bySHA[sha]; ok && first.ID != doc.ID {
		return first, false
	}
	d.bySHA[sha] = doc
	return doc, true
}

// maxBatch is the most documents stored in one commit.
const maxBatch = 32

// prepare reads and analyzes one file into a record to store. It returns a
// nil record when there is nothing to store (unchanged, skipped, failed) and
// a zero status when ctx was cancelled first.
func prepare(ctx context.Context, it item, existing map[string]store.DocInfo, dups *dupIndex, opt Options) (res FileResult, rec *store.Record) {
	res = FileResult{Path: it.path, Name: it.name, Status: it.status, Reason: it.reason, Err: it.err}
	if it.status != "" {
		return res, nil
	}
	if ctx.Err() != nil {
		return FileResult{}, nil
	}
	res.ID = store.DocID(it.name)
	fail := func(reason string, err error) (FileResult, *store.Record) {
		res.Status, res.Reason, res.Err = StatusFailed, reason, fmt.Errorf("%s: %w", it.path, err)
		return res, nil
	}
	// A parser bug must cost one file, not the batch.
	defer func() {
		if r := recover(); r != nil {
			res, rec = fail(fmt.Sprintf("internal error (please report): %v", r), fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()

	data, fi, err := readFile(it.path, opt.Parse.MaxBytes)
	if err != nil {
		return fail(err.Error(), err)
	}
	res.Bytes = int64(len(data))
	h := sha256.Sum256(data)
	sha := hex.EncodeToString(h[:])
	prev, had := existing[res.ID]
	if had && prev.Source.SHA256 == sha && !opt.Force {
		res.Status, res.Reason = StatusUnchanged, "same content as the stored version"
		return res, nil
	}
	// A new name with bytes the collection already holds is the same
	// contract under another name (a copy, a web upload of a file the CLI
	// ingested): one document, not two, or every hit would appear twice.
	if !had && !opt.Force {
		if first, ok := dups.claim(sha, store.DocInfo{ID: res.ID, Name: it.name}); !ok {
			res.ID = first.ID
			res.Status, res.Reason = StatusUnchanged, fmt.Sprintf("same content as %q, already in the collection", first.Name)
			return res, nil
		}
	}

	popt := opt.Parse
	if report := popt.Progress; report != nil {
		popt.Progress = func(msg string) { report(it.name + ": " + msg) }
	}
	doc, err := parse.Bytes(ctx, path.Base(it.name), data, popt)
	if err != nil {
		if ctx.Err() != nil {
			return FileResult{}, nil
		}
		return fail(err.Error(), err)
	}
	doc.ID, doc.Name = res.ID, it.name
	tree := clause.Parse(doc)
	sum := chunk.Summary(doc)
	if opt.Summarize != nil {
		gen, err := opt.Summarize(ctx, doc)
		switch {
		case ctx.Err() != nil:
			return FileResult{}, nil
		case err != nil:
			res.Reason = "model summary failed, deterministic summary used: " + err.Error()
		default:
			sum.Generated = gen
		}
	}
	units := chunk.Build(doc, tree, chunk.Options{Summary: sum.Generated})
	seg := index.AnalyzeDoc(units).Encode()
	summary, err := json.Marshal(sum)
	if err != nil {
		return fail("cannot encode summary: "+err.Error(), err)
	}
	artifacts := map[string][]byte{ArtifactSegment: seg, ArtifactSummary: summary}
	rec0 := &store.Record{Doc: doc, Tree: tree}
	if artifacts[ArtifactGraph], err = encodeGraph(ctx, rec0); err != nil {
		if ctx.Err() != nil {
			return FileResult{}, nil
		}
		return fail(err.Error(), err)
	}
	if doc.Layout != nil {
		layout, err := document.EncodeLayout(doc.Layout)
		if err != nil {
			return fail("cannot encode layout: "+err.Error(), err)
		}
		artifacts[ArtifactLayout] = layout
		artifacts[ArtifactSource] = data
	}
	if opt.Embedder != nil {
		vecs, err := search.EmbedDoc(ctx, opt.Embedder, units)
		if err != nil {
			if ctx.Err() != nil {
				return FileResult{}, nil
			}
			return fail(err.Error(), err)
		}
		artifacts[ArtifactVectors] = vecs.Encode()
	}
	res.Status = StatusAdded
	if had {
		res.Status = StatusReplaced
	}
	return res, &store.Record{
		Doc:  doc,
		Tree: tree,
		Source: store.Source{
			Path: it.path, SHA256: sha, Size: int64(len(data)), ModTime: fi.ModTime().UTC(),
		},
		Artifacts: artifacts,
	}
}

// readFile reads a regular file of at most limit bytes (parse.MaxFileSize
// when limit ≤ 0). Errors wrap parse.ErrTooLarge or parse.ErrEmpty where
// they apply; the caller adds the path.
func readFile(name string, limit int64) ([]byte, os.FileInfo, error) {
	if limit <= 0 {
		limit = parse.MaxFileSize
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open: %s", errText(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read: %s", errText(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("not a regular file (%s)", fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, nil, fmt.Errorf("%w: %s, the limit is %s (--max-size)", parse.ErrTooLarge, sizeText(fi.Size()), sizeText(limit))
	}
	if fi.Size() == 0 {
		return nil, nil, fmt.Errorf("%w (empty file)", parse.ErrEmpty)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read: %s", errText(err))
	}
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("%w: it grew past the limit of %s while being read", parse.ErrTooLarge, sizeText(limit))
	}
	return data, fi, nil
}

// sizeText formats a byte count as "209715200 bytes (200 MiB)".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.0f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.0f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
