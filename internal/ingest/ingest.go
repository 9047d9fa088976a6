// Package ingest adds contracts to a store collection and loads a
// collection's search index back: file → parse → clause tree → retrieval
// units → analyzed index segment → store. The pakton command-line client uses
// this package for "ingest", "search", "docs" and "demo".
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/unpack"
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
	// Budget is the memory budget the documents being read, analyzed and
	// waiting to be stored share (budget.go); nil is the process's own
	// budget of DefaultMemory, which every Ingest given none shares.
	Budget *Budget
	// Nice, when positive, lowers the processor priority of the threads
	// that read and analyze files by that much (Linux niceness; nothing
	// elsewhere): a server sets it so that its searches, and the other
	// programs of the machine, come before a large upload (background.go).
	Nice int
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
	// Same, for a file whose bytes another document holds already, is that
	// document's name.
	Same  string `json:"same,omitempty"`
	Bytes int64  `json:"bytes"`
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
		if err := st.CreateCollection(ctx, collection); err != nil {
			return sum, fmt.Errorf("ingest: %w", err)
		}
	}
	existing, dups, err := holdings(ctx, st, collection)
	if err != nil {
		return sum, err
	}

	lim := unpack.DefaultLimits(opt.Parse.MaxBytes)
	arcs := &archives{}
	defer arcs.close()
	items := collect(paths, arcs, lim)
	c := &committer{st: st, collection: collection, opt: opt, items: items,
		results: make([][]FileResult, len(items)), finished: make([]bool, len(items)), total: len(items)}
	for _, it := range items {
		c.totalBytes += it.size
	}
	if opt.Progress != nil {
		opt.Progress(Progress{Total: c.total, TotalBytes: c.totalBytes})
	}

	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	budget := opt.Budget
	if budget == nil {
		budget = processBudget()
	}
	// Prepared documents queue up while a batch is being stored, so parsing
	// goes on during the fsyncs; the memory they hold stays reserved until
	// they are stored, so the queue cannot outgrow the budget.
	p := &preparer{existing: existing, dups: dups, opt: opt, lim: lim, budget: budget}
	out := parallel.Stream(ctx, len(items), workers, max(workers, maxBatch), func(i int) prepOutcome {
		cl := &claim{b: budget}
		// Between files, a long upload gives its turn to another tenant's
		// job (Options.Yield); a file is prepared holding a processor slot
		// (Options.Acquire).
		if i > 0 && opt.Yield != nil && opt.Yield(ctx) != nil {
			return prepOutcome{i, nil, cl}
		}
		if opt.Acquire != nil {
			release, err := opt.Acquire(ctx)
			if err != nil {
				return prepOutcome{i, nil, cl}
			}
			defer release()
		}
		if opt.Nice > 0 {
			var docs []prepared
			inBackground(opt.Nice, func() { docs = p.prepare(ctx, items[i], cl) })
			return prepOutcome{i, docs, cl}
		}
		return prepOutcome{i, p.prepare(ctx, items[i], cl), cl}
	})

	// One goroutine (this one) stores documents and reports progress, so
	// writes and Progress callbacks never overlap. It stores whatever has
	// queued up as one batch (store.PutBatch: one commit for many
	// documents); the documents of one item (an e-mail and its attachments)
	// are always in the same batch.
	for o := range out {
		batch := []prepOutcome{o}
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
		c.commit(ctx, batch)
	}
	for i, ok := range c.finished {
		if ok {
			for _, r := range c.results[i] {
				sum.Files = append(sum.Files, r)
				sum.Bytes += r.Bytes
			}
		}
	}
	sum.Elapsed = time.Since(start)
	if c.fatal != nil {
		return sum, fmt.Errorf("ingest: %w", c.fatal)
	}
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("ingest interrupted after %d of %d files (the documents stored so far are kept): %w", c.done, len(items), err)
	}
	return sum, nil
}

// holdings says what the collection holds already: a stored document of
// the same name (by id), or of the same bytes (by source SHA-256). A local
// store answers both per file without decoding the collection
// (store.FindSource), so adding one file to a large collection costs the
// same as to a small one; a remote store is listed once.
func holdings(ctx context.Context, st *store.Store, collection string) (func(id string) (store.DocInfo, bool, error), *dupIndex, error) {
	dups := &dupIndex{}
	if st.IsRemote() {
		infos, err := st.List(ctx, collection)
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: %w", err)
		}
		byID := make(map[string]store.DocInfo, len(infos))
		for _, in := range infos {
			byID[in.ID] = in
			dups.claim(in.Source.SHA256, in)
		}
		return func(id string) (store.DocInfo, bool, error) {
			in, ok := byID[id]
			return in, ok, nil
		}, dups, nil
	}
	dups.stored = func(sha string) (store.DocInfo, bool, error) {
		ins, err := st.FindSource(ctx, collection, sha)
		if err != nil || len(ins) == 0 {
			return store.DocInfo{}, false, err
		}
		return ins[0], true, nil
	}
	return func(id string) (store.DocInfo, bool, error) {
		in, err := st.Info(ctx, collection, id)
		if errors.Is(err, store.ErrNotFound) {
			return store.DocInfo{}, false, nil
		}
		return in, err == nil, err
	}, dups, nil
}

// prepOutcome is one item as prepared.
type prepOutcome struct {
	i     int
	docs  []prepared // nil when the item was cancelled
	claim *claim     // the memory the item holds until it is stored
}

// committer stores the prepared documents of an ingestion in batches and
// reports progress; one goroutine uses it.
type committer struct {
	st         *store.Store
	collection string
	opt        Options
	items      []item
	results    [][]FileResult // per item, once finished
	finished   []bool
	done       int   // files reported
	total      int   // files found (an e-mail's attachments add to it)
	doneBytes  int64 // bytes of the items finished
	totalBytes int64
	fatal      error // the store is closed: nothing more is stored
}

// commit stores a batch of prepared items in one store commit (one by one
// after a failure, so a failure names its file) and finishes each item
// stored.
func (c *committer) commit(ctx context.Context, batch []prepOutcome) {
	type ref struct{ b, d int } // batch index, document index
	var recs []*store.Record
	var refs []ref
	for bi, o := range batch {
		for di, d := range o.docs {
			if d.rec != nil && ctx.Err() == nil && c.fatal == nil {
				recs = append(recs, d.rec)
				refs = append(refs, ref{bi, di})
			}
		}
	}
	stored := make([]bool, len(batch))
	for _, r := range refs {
		stored[r.b] = true
	}
	errs := make([]error, len(recs))
	if err := c.st.PutBatch(ctx, c.collection, recs); err != nil && len(recs) > 0 {
		for i, rec := range recs {
			errs[i] = c.st.Put(ctx, c.collection, rec)
		}
	}
	for i, r := range refs {
		if err := errs[i]; err != nil {
			if errors.Is(err, store.ErrClosed) {
				c.fatal = err
				batch[r.b].docs[r.d].res.Status = ""
				continue
			}
			res := &batch[r.b].docs[r.d].res
			res.Status, res.Reason = StatusFailed, "cannot store: "+err.Error()
			res.Err = fmt.Errorf("%s: %w", res.Path, err)
		}
	}
	for bi, o := range batch {
		o.claim.done()
		pending := false
		for _, d := range o.docs {
			if d.rec != nil {
				pending = true
			}
		}
		if pending && !stored[bi] {
			continue // interrupted: not stored, not reported
		}
		c.finish(o)
	}
}

// finish records an item's results and reports them.
func (c *committer) finish(o prepOutcome) {
	if len(o.docs) == 0 { // a cancelled job
		return
	}
	var rs []FileResult
	for _, d := range o.docs {
		if d.res.Status != "" {
			rs = append(rs, d.res)
		}
	}
	if len(rs) == 0 {
		return
	}
	c.results[o.i], c.finished[o.i] = rs, true
	c.total += len(rs) - 1 // an e-mail's attachments were found as it was read
	c.doneBytes += c.items[o.i].size
	for _, res := range rs {
		c.done++
		if c.opt.Progress != nil {
			c.opt.Progress(Progress{Done: c.done, Total: c.total, Bytes: c.doneBytes, TotalBytes: c.totalBytes,
				File: res.Name, Status: res.Status, Reason: res.Reason})
		}
	}
}

// dupIndex maps the SHA-256 of file contents to the first document that
// holds them, across the stored documents and the files of this run: a
// stored document holding them comes first (the first of them in List's
// order), then the first file of the run to claim them.
type dupIndex struct {
	mu    sync.Mutex
	bySHA map[string]store.DocInfo
	// stored, when set, finds the first stored document holding sha; a
	// dupIndex without it has the stored documents claimed beforehand.
	stored func(sha string) (store.DocInfo, bool, error)
}

// claim records doc as the holder of sha unless another holds it: then it
// returns that one and false.
func (d *dupIndex) claim(sha string, doc store.DocInfo) (store.DocInfo, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bySHA == nil {
		d.bySHA = map[string]store.DocInfo{}
	}
	if sha == "" {
		return doc, true, nil
	}
	first, ok := d.bySHA[sha]
	if !ok && d.stored != nil {
		in, found, err := d.stored(sha)
		if err != nil {
			return doc, false, err
		}
		if found {
			first, ok = in, true
			d.bySHA[sha] = in
		}
	}
	if ok && first.ID != doc.ID {
		return first, false, nil
	}
	d.bySHA[sha] = doc
	return doc, true, nil
}

// maxBatch is the most documents stored in one commit.
const maxBatch = 32

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
