package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// LoadReport says how a collection's index was loaded.
type LoadReport struct {
	Docs int // documents in the index
	// Reanalyzed names the documents (id and name) whose stored segment was
	// missing or could not be decoded — typically written by another version
	// of pakton — and that were analyzed again from their stored text and
	// clause tree. That is slower; Reindex stores fresh segments.
	Reanalyzed []string
	// Skipped holds one error per document left out of the index, naming it.
	Skipped []error
	// NoVectors holds one error per document whose stored vectors could not
	// be used (it is still searched lexically).
	NoVectors []error
	// Opened is set when the index was up to date and only opened; Saved
	// when documents were added to it or deleted from it (a new commit).
	Opened, Saved bool
	// Added and Deleted count the documents indexed and the documents
	// marked deleted by this load; Segments is the number of segments of
	// the index after it.
	Added, Deleted, Segments int
	// Rebuilt is set when the index on disk was unusable (another format,
	// damaged) and was built again from the stored documents.
	Rebuilt bool
	Elapsed time.Duration
}

// IndexDir is the name of a collection's search index directory in the
// store's cache (store.CacheDir): its segments and commit (index.Dir).
const IndexDir = "index"

// assocAux names a commit's association table among its index files.
const assocAux = "assoc"

// displaysFile names, in a collection's index directory, how each indexed
// document is shown (search.Index.WriteDisplays): kept across commits, each
// display checked against the document it was made for when read.
const displaysFile = "displays"

// legacyIndexFile is the single index file of pakton before segments
// (removed when found).
const legacyIndexFile = "search.idx"

// flushUnits bounds the units of a segment written while indexing, and so
// the memory indexing holds: a document's analysed units are held until
// its segment is written. 2^17 units are about 380 CUAD contracts.
var flushUnits = 1 << 17

// LoadIndex returns the search index of a collection. See Load.
func LoadIndex(ctx context.Context, st *store.Store, collection string) (*search.Index, error) {
	ix, _, err := Load(ctx, st, collection)
	return ix, err
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Progress, when set, is called as documents are indexed (done of
	// total) while the index catches up with the store.
	Progress func(done, total int)
	// Shard, when set, opens the collection as server Shard.K of Shard.N
	// of a sharded collection (shared.go): the segments it scores whole,
	// stats files of the others. The caller sets the index's
	// search.Sharding.
	Shard *Shard
	// NoOpen skips opening the index for searching once it was brought up
	// to date: LoadWith then returns a nil Index (an index that was already
	// up to date is still opened, which checks it), and the report's Docs
	// and Segments are the new commit's. For a command that indexes and
	// exits: opening maps every segment and merges their dictionaries, at
	// the end of a 100× CUAD ingest the process's largest memory (before
	// the merges), for nothing.
	NoOpen bool
}

// Load returns the search index of a collection: the segments of its
// index directory (memory-mapped: milliseconds even for a large
// collection), brought up to date with the store first. The index's commit
// records the store generation it reflects; when the store has moved on
// (documents put or deleted by this or another process), Load indexes the
// new and changed documents only — in new segments, a few hundred documents
// each — and marks the deleted and replaced ones deleted, then commits. So
// adding one contract to a large collection costs that contract, and a
// search sees it right after. An index of another format, or damaged, is
// built again from the stored documents. Documents that could not be read
// are left out (LoadReport.Skipped) and tried again at the next load.
func Load(ctx context.Context, st *store.Store, collection string) (*search.Index, LoadReport, error) {
	return LoadWith(ctx, st, collection, LoadOptions{})
}

// LoadWith is Load with options.
func LoadWith(ctx context.Context, st *store.Store, collection string, opt LoadOptions) (*search.Index, LoadReport, error) {
	start := time.Now()
	var rep LoadReport
	// The generation is read before the documents, so a commit labelled
	// with it can only be newer than its label, never older.
	gen, err := st.Generation(ctx, collection)
	if err != nil {
		return nil, rep, fmt.Errorf("load index: %w", err)
	}
	d, err := openIndexDir(ctx, st, collection)
	if err != nil {
		return nil, rep, err
	}
	opened := func(c index.Commit) (*search.Index, LoadReport, error) {
		snap, err := openSnapshot(d, c, opt.Shard)
		if err != nil {
			return nil, rep, fmt.Errorf("load index: %w", err)
		}
		rep.Docs, rep.Opened, rep.Segments = snap.LiveDocs(), true, len(c.Segments)
		rep.Elapsed = time.Since(start)
		return openIndex(d, snap, c), rep, nil
	}
	// On a cluster, the commit another process published, when current.
	if c, ok, err := fetchShared(ctx, st, collection, d, gen, opt.Shard); err != nil {
		slog.Warn("search index: could not use the cluster's; building it here", "collection", collection, "err", err)
	} else if ok {
		return opened(c)
	}
	if c, err := d.Commit(); err == nil && c.Label == gen && (gen != 0 || len(c.Segments) > 0) {
		if ix, rep, err := opened(c); err == nil || !errors.Is(err, index.ErrBadIndex) && !errors.Is(err, fs.ErrNotExist) {
			return ix, rep, err
		}
	}
	rep.Opened = false
	_, c, err := syncIndex(ctx, st, collection, d, opt, &rep)
	if err != nil {
		return nil, rep, err
	}
	if err := publishShared(ctx, st, collection, d, c); err != nil {
		slog.Warn("search index: could not publish it to the cluster; other servers build their own", "collection", collection, "err", err)
	}
	if opt.NoOpen {
		rep.Docs, rep.Segments = commitDocs(c), len(c.Segments)
		rep.Elapsed = time.Since(start)
		return nil, rep, nil
	}
	snap, err := openSnapshot(d, c, opt.Shard)
	if err != nil {
		return nil, rep, fmt.Errorf("load index: %w", err)
	}
	rep.Docs, rep.Segments = snap.LiveDocs(), len(c.Segments)
	rep.Elapsed = time.Since(start)
	return openIndex(d, snap, c), rep, nil
}

// openIndex is the index of snap (commit c of d): with the association
// table written for it and the displays kept beside it.
func openIndex(d *index.Dir, snap *index.Snapshot, c index.Commit) *search.Index {
	ix := search.Open(snap, openTable(d, c))
	path := filepath.Join(d.Path(), displaysFile)
	ix.SetDisplays(func() ([]byte, error) { return os.ReadFile(path) })
	return ix
}

// KeepDisplays writes how each document of ix, the collection's index, is
// shown into the collection's index directory, so the next process to load
// the index reads the displays instead of making them (search.Index.SetDisplays).
// It is worth it after ix made many of them (search.Index.DisplaysMade).
func KeepDisplays(ctx context.Context, st *store.Store, collection string, ix *search.Index) error {
	d, err := openIndexDir(ctx, st, collection)
	if err != nil {
		return err
	}
	err = atomicfile.WriteFunc(filepath.Join(d.Path(), displaysFile), 0o644, func(w io.Writer) error { return ix.WriteDisplays(w) })
	if err != nil {
		return fmt.Errorf("keep the displays of %s: %w", collection, err)
	}
	return nil
}

// commitDocs counts the live documents of a commit's segments.
func commitDocs(c index.Commit) int {
	n := 0
	for _, s := range c.Segments {
		n += s.Docs - len(s.Deleted)
	}
	return n
}

// openIndexDir opens a collection's index directory, removing the single
// index file of older versions.
func openIndexDir(ctx context.Context, st *store.Store, collection string) (*index.Dir, error) {
	cache, err := st.CacheDir(ctx, collection)
	if err != nil {
		return nil, fmt.Errorf("load index: %w", err)
	}
	os.Remove(filepath.Join(cache, legacyIndexFile))
	d, err := index.OpenDir(filepath.Join(cache, IndexDir))
	if err != nil {
		return nil, fmt.Errorf("load index: %w", err)
	}
	return d, nil
}

// openTable opens the association table written for commit c, if any.
func openTable(d *index.Dir, c index.Commit) *index.AssocTable {
	t, err := index.OpenAssocTable(d.AuxPath(c.ID, assocAux))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("search index: association table unusable; learning as questions come", "dir", d.Path(), "err", err)
		}
		return nil
	}
	return t
}

// docVersion is what the index records of a stored document: the checksums
// of the artifacts it indexes, so a document whose segment or vectors
// changed is indexed again, and one stored again unchanged is not.
func docVersion(in store.DocInfo) string {
	return in.ArtifactSums[docread.ArtifactSegment] + "+" + in.ArtifactSums[docread.ArtifactVectors]
}

// syncIndex brings a collection's index directory up to date with the
// store (see Load), holding the directory's lock. It returns the new
// commit (the snapshot only when nothing had to change).
func syncIndex(ctx context.Context, st *store.Store, collection string, d *index.Dir, opt LoadOptions, rep *LoadReport) (*index.Snapshot, index.Commit, error) {
	unlock, err := d.Lock()
	if err != nil {
		return nil, index.Commit{}, fmt.Errorf("load index: %w", err)
	}
	defer unlock()
	gen, err := st.Generation(ctx, collection)
	if err != nil {
		return nil, index.Commit{}, fmt.Errorf("load index: %w", err)
	}
	c, err := d.Commit()
	var snap *index.Snapshot
	if err == nil {
		snap, err = openSnapshot(d, c, opt.Shard)
	}
	if err != nil {
		if !errors.Is(err, index.ErrBadIndex) {
			return nil, c, fmt.Errorf("load index: %w", err)
		}
		slog.Warn("search index unusable (another format, or damaged); building it again from the stored documents", "collection", collection, "err", err)
		if c, err = d.Reset(c); err != nil {
			return nil, c, fmt.Errorf("load index: %w", err)
		}
		if snap, err = d.Snapshot(c); err != nil {
			return nil, c, fmt.Errorf("load index: %w", err)
		}
		rep.Rebuilt = true
	}
	if c.Label == gen && (gen != 0 || len(c.Segments) > 0) {
		return snap, c, nil // another process caught it up meanwhile
	}
	// What changed in the store since the index last reflected it: a commit
	// labelled with generation L holds every document as it was at L, and a
	// stored version is immutable, so a live document whose revision is at or
	// below L is held at that version and only later ones are compared (a
	// label ahead of the store, or none, compares them all). This keeps
	// adding or deleting one document from decoding the whole manifest.
	since := uint64(0)
	if c.Label <= gen && !rep.Rebuilt {
		since = c.Label
	}
	remove, add, err := changes(ctx, st, collection, snap, since)
	if err != nil {
		return nil, c, fmt.Errorf("load index: %w", err)
	}
	rep.Deleted = len(remove)
	if len(add) == 0 {
		if len(remove) > 0 {
			c, err = d.Apply(c, nil, remove, gen)
			rep.Saved = true
		} else {
			c, err = d.SetLabel(c, gen)
		}
		if err != nil {
			return nil, c, fmt.Errorf("load index: %w", err)
		}
		return nil, c, nil
	}
	// Index the new and changed documents, a segment of at most flushUnits
	// units at a time. The deletions go with the first commit, the label
	// with the last (an intermediate commit reflects no generation).
	seg := index.NewBuilder()
	pending := remove
	commit := func(last bool) error {
		label := uint64(0)
		if last && len(rep.Skipped) == 0 {
			label = gen
		}
		var err error
		if c, err = d.Apply(c, []*index.Segment{seg}, pending, label); err != nil {
			return err
		}
		rep.Saved = true
		pending = nil
		seg = index.NewBuilder()
		return nil
	}
	err = loadDocs(ctx, st, collection, add, rep, func(in store.DocInfo, doc *index.Doc, vecs *index.Vectors) error {
		if err := seg.Add(doc, docVersion(in)); err != nil {
			return err
		}
		rep.Added++
		if opt.Progress != nil {
			opt.Progress(rep.Added, len(add))
		}
		if vecs != nil {
			if err := seg.AddVectors(in.ID, vecs); err != nil {
				slog.Warn("document searched without its vectors", "collection", collection, "id", in.ID, "name", in.Name, "err", err)
				rep.NoVectors = append(rep.NoVectors, fmt.Errorf("document %s (%s): %w", in.ID, in.Name, err))
			}
		}
		if seg.NumUnits() >= flushUnits {
			return commit(false)
		}
		return nil
	})
	if err == nil {
		err = commit(true)
	}
	if err != nil {
		return nil, c, fmt.Errorf("load index: %w", err)
	}
	if n := len(rep.Reanalyzed); n > 0 {
		slog.Warn("documents without a usable stored index segment were analyzed again; store fresh segments with \"pakton docs reindex\"", "collection", collection, "documents", n)
	}
	return nil, c, nil
}

// changes compares the store's documents changed since generation since
// (all of them when since is 0) with what snapshot snap holds: the
// documents to remove from the index (deleted, or replaced by a version
// indexed again), sorted, and those to add.
func changes(ctx context.Context, st *store.Store, collection string, snap *index.Snapshot, since uint64) ([]string, []store.DocInfo, error) {
	infos, inStore, err := st.Changes(ctx, collection, since)
	if err != nil {
		return nil, nil, err
	}
	// What the index holds: its live documents and their versions.
	held := map[string]string{}
	for i, seg := range snap.Segments() {
		for doc := range int32(seg.NumDocs()) {
			if !snap.Deleted(i, doc) {
				held[seg.DocID(doc)] = seg.DocVersion(doc)
			}
		}
	}
	if since != 0 {
		// A live document the index does not hold at all is compared too
		// (nothing should leave one, but the check costs no decoding).
		listed := make(map[string]bool, len(infos))
		for _, in := range infos {
			listed[in.ID] = true
		}
		var missing bool
		for id := range inStore {
			if _, ok := held[id]; !ok && !listed[id] {
				missing = true
				break
			}
		}
		if missing {
			if infos, inStore, err = st.Changes(ctx, collection, 0); err != nil {
				return nil, nil, err
			}
		}
	}
	var remove []string
	var add []store.DocInfo
	for _, in := range infos {
		v, ok := held[in.ID]
		if ok && v == docVersion(in) {
			continue
		}
		if ok {
			remove = append(remove, in.ID) // replaced: indexed again below
		}
		add = append(add, in)
	}
	for id := range held {
		if !inStore[id] {
			remove = append(remove, id)
		}
	}
	slices.Sort(remove)
	return remove, add, nil
}

// loadDocs reads and decodes the segments (and vectors) of docs in
// parallel and hands them to add in order, holding only a few decoded ones
// at a time. A document whose segment is missing or does not decode is
// analyzed again from its stored text and tree (LoadReport.Reanalyzed, with
// a slog warning); one that cannot be read at all is left out with a slog
// warning naming it (LoadReport.Skipped). The error is add's, or ctx's.
func loadDocs(ctx context.Context, st *store.Store, collection string, docs []store.DocInfo, rep *LoadReport, add func(store.DocInfo, *index.Doc, *index.Vectors) error) error {
	type loaded struct {
		i          int
		seg        *index.Doc
		vecs       *index.Vectors
		vecErr     error
		reanalyzed bool
		err        error
	}
	workers := min(runtime.NumCPU(), max(1, len(docs)))
	sctx, cancel := context.WithCancel(ctx)
	out := parallel.Stream(sctx, len(docs), workers, 2*workers, func(i int) loaded {
		seg, re, err := loadSegment(ctx, st, collection, docs[i])
		var vecs *index.Vectors
		var vecErr error
		if err == nil {
			vecs, vecErr = loadVectors(ctx, st, collection, docs[i])
		}
		return loaded{i, seg, vecs, vecErr, re, err}
	})
	defer func() { // stop handing out documents; let the calls under way finish
		cancel()
		for range out {
		}
	}()

	pending := map[int]loaded{}
	next := 0
	for l := range out {
		pending[l.i] = l
		for {
			l, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			in := docs[next]
			next++
			if l.err != nil {
				slog.Warn("document left out of the search index", "collection", collection, "id", in.ID, "name", in.Name, "err", l.err)
				rep.Skipped = append(rep.Skipped, fmt.Errorf("document %s (%s) left out of the index: %w", in.ID, in.Name, l.err))
				continue
			}
			if l.reanalyzed {
				rep.Reanalyzed = append(rep.Reanalyzed, in.ID+" "+in.Name)
			}
			if err := l.vecErr; err != nil {
				slog.Warn("document searched without its vectors", "collection", collection, "id", in.ID, "name", in.Name, "err", err)
				rep.NoVectors = append(rep.NoVectors, fmt.Errorf("document %s (%s): %w", in.ID, in.Name, err))
			}
			if err := add(in, l.seg, l.vecs); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// loadSegment reads and decodes one document's segment; when it is missing
// or does not decode, it analyzes the stored document again.
func loadSegment(ctx context.Context, st *store.Store, collection string, info store.DocInfo) (seg *index.Doc, reanalyzed bool, err error) {
	data, err := st.Artifact(ctx, collection, info.ID, docread.ArtifactSegment)
	if err == nil {
		seg, err = index.DecodeDoc(data)
		if err == nil && seg.ID != info.ID {
			err = fmt.Errorf("%w: it belongs to document %q", index.ErrBadDoc, seg.ID)
		}
		if err == nil {
			return seg, false, nil
		}
		slog.Debug("stored segment unusable; analyzing the document again", "collection", collection, "id", info.ID, "err", err)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	rec, gerr := st.Get(ctx, collection, info.ID)
	if gerr != nil {
		return nil, false, errors.Join(err, gerr)
	}
	seg, _, _ = analyze(rec)
	return seg, true, nil
}

// loadVectors reads a document's stored vectors: nil when it has none.
func loadVectors(ctx context.Context, st *store.Store, collection string, info store.DocInfo) (*index.Vectors, error) {
	if !slices.Contains(info.Artifacts, docread.ArtifactVectors) {
		return nil, nil
	}
	data, err := st.Artifact(ctx, collection, info.ID, docread.ArtifactVectors)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return index.DecodeVectors(data)
}

// analyze builds a stored document's segment, summary and names from its
// text and clause tree.
func analyze(rec *store.Record) (seg *index.Doc, summary, namesJSON []byte) {
	tree := docread.Tree(rec)
	sum := chunk.Summary(rec.Doc)
	var stored chunk.DocSummary
	if json.Unmarshal(rec.Artifacts[docread.ArtifactSummary], &stored) == nil {
		sum.Generated = stored.Generated // a model-written summary is kept
	}
	nm := chunk.Names(rec.Doc)
	seg = index.AnalyzeDoc(chunk.Build(rec.Doc, tree, chunk.Options{Summary: sum.Generated, Names: &nm}))
	summary, _ = json.Marshal(sum) // structs of strings: cannot fail
	namesJSON, _ = json.Marshal(nm)
	return seg, summary, namesJSON
}

// Reindex stores a fresh segment and summary for every document of a
// collection, analyzed from the stored text and clause tree (the source
// files are not read again). Run it after upgrading pakton when the index
// format or the retrieval units changed. progress, when set, is called after
// each document. It returns the number of documents rewritten.
func Reindex(ctx context.Context, st *store.Store, collection string, progress func(done, total int, name string)) (int, error) {
	infos, err := st.List(ctx, collection)
	if err != nil {
		return 0, fmt.Errorf("reindex: %w", err)
	}
	n := 0
	for i, in := range infos {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		rec, err := st.Get(ctx, collection, in.ID)
		if err != nil {
			return n, fmt.Errorf("reindex %s: %w", in.Name, err)
		}
		rec.Tree = docread.Tree(rec)
		seg, summary, namesJSON := analyze(rec)
		rec.Artifacts[docread.ArtifactSegment] = seg.Encode()
		rec.Artifacts[docread.ArtifactSummary] = summary
		rec.Artifacts[docread.ArtifactNames] = namesJSON
		if rec.Artifacts[docread.ArtifactGraph], err = encodeGraph(ctx, rec); err != nil {
			return n, fmt.Errorf("reindex %s: %w", in.Name, err)
		}
		rec.Artifacts[docread.ArtifactReview] = encodeReview(rec)
		if err := st.Put(ctx, collection, rec); err != nil {
			return n, fmt.Errorf("reindex %s: %w", in.Name, err)
		}
		n++
		if progress != nil {
			progress(i+1, len(infos), in.Name)
		}
	}
	return n, nil
}

// inMemory builds a collection's index as one segment in memory from the
// stored documents, in the store's order or in the order of the document
// ids given, without touching its index directory: what the segments on
// disk must answer like (tests, checks).
func inMemory(ctx context.Context, st *store.Store, collection string, order ...string) (*search.Index, error) {
	infos, err := st.List(ctx, collection)
	if err != nil {
		return nil, err
	}
	if order != nil {
		byID := map[string]store.DocInfo{}
		for _, in := range infos {
			byID[in.ID] = in
		}
		infos = infos[:0]
		for _, id := range order {
			if in, ok := byID[id]; ok {
				infos = append(infos, in)
			}
		}
	}
	ix := search.NewIndex()
	var rep LoadReport
	err = loadDocs(ctx, st, collection, infos, &rep, func(in store.DocInfo, doc *index.Doc, vecs *index.Vectors) error {
		if err := ix.AddSegment(doc); err != nil {
			return err
		}
		if vecs != nil {
			ix.AddVectors(in.ID, vecs)
		}
		return nil
	})
	return ix, err
}
