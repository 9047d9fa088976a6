package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/names"
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
	// Opened is set when the index was opened from the collection's index
	// file rather than built; Saved when it was built and the file written.
	Opened, Saved bool
	Elapsed       time.Duration
}

// IndexFile is the name of a collection's persisted search index in the
// store's cache (store.CachePath).
const IndexFile = "search.idx"

// LoadIndex builds the search index of a collection from its stored
// segments. See Load.
func LoadIndex(ctx context.Context, st *store.Store, collection string) (*search.Index, error) {
	ix, _, err := Load(ctx, st, collection)
	return ix, err
}

// Load returns the search index of a collection. It opens the collection's
// index file (memory-mapped: milliseconds even for a large collection) when
// the file was built at the collection's current generation; otherwise it
// builds the index from the stored segments and writes the file for the
// next load. A stale index file is never used: the generation changes on
// every Put and Delete. An index with documents left out (LoadReport.Skipped,
// NoVectors) is not written, so the next load tries them again.
func Load(ctx context.Context, st *store.Store, collection string) (*search.Index, LoadReport, error) {
	start := time.Now()
	// The generation is read before the documents, so a file written below
	// can only be newer than its label, never older.
	gen, err := st.Generation(collection)
	if err != nil {
		return nil, LoadReport{}, fmt.Errorf("load index: %w", err)
	}
	path, err := st.CachePath(collection, IndexFile)
	if err != nil {
		return nil, LoadReport{}, fmt.Errorf("load index: %w", err)
	}
	ix, err := search.OpenIndex(path, gen)
	switch {
	case err == nil:
		return ix, LoadReport{Docs: ix.Docs(), Opened: true, Elapsed: time.Since(start)}, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, search.ErrStaleIndex):
	default:
		slog.Warn("search index file unusable; building the index again", "collection", collection, "err", err)
	}
	ix, rep, err := build(ctx, st, collection)
	if err != nil {
		return nil, rep, err
	}
	if ix.Docs() > 0 && len(rep.Skipped) == 0 && len(rep.NoVectors) == 0 {
		err := st.WriteCache(collection, IndexFile, func(w io.Writer) error {
			_, err := ix.WriteTo(w, gen)
			return err
		})
		if err != nil {
			slog.Warn("could not save the search index; the next load builds it again", "collection", collection, "err", err)
		} else {
			rep.Saved = true
		}
	}
	rep.Elapsed = time.Since(start)
	return ix, rep, nil
}

// build builds the search index of a collection from its stored segments, in
// the store's document order (by name), so the index is the same on every
// load. Segments are read and decoded in parallel and added in order as they
// arrive, so only a few decoded segments are held at a time.
//
// A document whose segment is missing or does not decode is analyzed again
// from its stored text and tree (listed in LoadReport.Reanalyzed, with a slog
// warning); one that cannot be read at all is left out of the index with a
// slog warning naming it (LoadReport.Skipped) rather than failing the whole
// collection. The error is for a collection that cannot be listed, or ctx
// being cancelled.
func build(ctx context.Context, st *store.Store, collection string) (*search.Index, LoadReport, error) {
	start := time.Now()
	var rep LoadReport
	infos, err := st.List(collection)
	if err != nil {
		return nil, rep, fmt.Errorf("load index: %w", err)
	}
	type loaded struct {
		i          int
		seg        *index.Doc
		vecs       *search.Vectors
		vecErr     error
		reanalyzed bool
		err        error
	}
	workers := min(runtime.NumCPU(), max(1, len(infos)))
	out := parallel.Stream(ctx, len(infos), workers, 2*workers, func(i int) loaded {
		seg, re, err := loadSegment(st, collection, infos[i])
		var vecs *search.Vectors
		var vecErr error
		if err == nil {
			vecs, vecErr = loadVectors(st, collection, infos[i])
		}
		return loaded{i, seg, vecs, vecErr, re, err}
	})

	ix := search.NewIndex()
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
			in := infos[next]
			next++
			err := l.err
			if err == nil {
				err = ix.AddSegment(l.seg)
			}
			if err != nil {
				slog.Warn("document left out of the search index", "collection", collection, "id", in.ID, "name", in.Name, "err", err)
				rep.Skipped = append(rep.Skipped, fmt.Errorf("document %s (%s) left out of the index: %w", in.ID, in.Name, err))
				continue
			}
			if l.reanalyzed {
				rep.Reanalyzed = append(rep.Reanalyzed, in.ID+" "+in.Name)
			}
			vecErr := l.vecErr
			if vecErr == nil && l.vecs != nil {
				vecErr = ix.AddVectors(in.ID, l.vecs)
			}
			if err := vecErr; err != nil {
				slog.Warn("document searched without its vectors", "collection", collection, "id", in.ID, "name", in.Name, "err", err)
				rep.NoVectors = append(rep.NoVectors, fmt.Errorf("document %s (%s): %w", in.ID, in.Name, err))
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, rep, err
	}
	if n := len(rep.Reanalyzed); n > 0 {
		slog.Warn("documents without a usable stored index segment were analyzed again; store fresh segments with \"pakton docs reindex\"", "collection", collection, "documents", n)
	}
	rep.Docs = ix.Docs()
	rep.Elapsed = time.Since(start)
	return ix, rep, nil
}

// loadSegment reads and decodes one document's segment; when it is missing
// or does not decode, it analyzes the stored document again.
func loadSegment(st *store.Store, collection string, info store.DocInfo) (seg *index.Doc, reanalyzed bool, err error) {
	data, err := st.Artifact(collection, info.ID, ArtifactSegment)
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
	rec, gerr := st.Get(collection, info.ID)
	if gerr != nil {
		return nil, false, errors.Join(err, gerr)
	}
	seg, _, _ = analyze(rec)
	return seg, true, nil
}

// loadVectors reads a document's stored vectors: nil when it has none.
func loadVectors(st *store.Store, collection string, info store.DocInfo) (*search.Vectors, error) {
	if !slices.Contains(info.Artifacts, ArtifactVectors) {
		return nil, nil
	}
	data, err := st.Artifact(collection, info.ID, ArtifactVectors)
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
	tree := Tree(rec)
	sum := chunk.Summary(rec.Doc)
	var stored chunk.DocSummary
	if json.Unmarshal(rec.Artifacts[ArtifactSummary], &stored) == nil {
		sum.Generated = stored.Generated // a model-written summary is kept
	}
	nm := chunk.Names(rec.Doc)
	seg = index.AnalyzeDoc(chunk.Build(rec.Doc, tree, chunk.Options{Summary: sum.Generated, Names: &nm}))
	summary, _ = json.Marshal(sum) // structs of strings: cannot fail
	namesJSON, _ = json.Marshal(nm)
	return seg, summary, namesJSON
}

// DocNames returns what a stored document is called by: the names learnt
// at ingest (ArtifactNames), or, for a document ingested before names were
// learnt, the names learnt from its stored text now.
func DocNames(st *store.Store, collection, id string) (names.Names, error) {
	var nm names.Names
	data, err := st.Artifact(collection, id, ArtifactNames)
	if err == nil {
		if err := json.Unmarshal(data, &nm); err != nil {
			return nm, fmt.Errorf("names of document %s: %w", id, err)
		}
		return nm, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nm, fmt.Errorf("names of document %s: %w", id, err)
	}
	rec, err := st.Document(collection, id)
	if err != nil {
		return nm, fmt.Errorf("names of document %s: %w", id, err)
	}
	return chunk.Names(rec.Doc), nil
}

// Reindex stores a fresh segment and summary for every document of a
// collection, analyzed from the stored text and clause tree (the source
// files are not read again). Run it after upgrading pakton when the index
// format or the retrieval units changed. progress, when set, is called after
// each document. It returns the number of documents rewritten.
func Reindex(ctx context.Context, st *store.Store, collection string, progress func(done, total int, name string)) (int, error) {
	infos, err := st.List(collection)
	if err != nil {
		return 0, fmt.Errorf("reindex: %w", err)
	}
	n := 0
	for i, in := range infos {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		rec, err := st.Get(collection, in.ID)
		if err != nil {
			return n, fmt.Errorf("reindex %s: %w", in.Name, err)
		}
		rec.Tree = Tree(rec)
		seg, summary, namesJSON := analyze(rec)
		rec.Artifacts[ArtifactSegment] = seg.Encode()
		rec.Artifacts[ArtifactSummary] = summary
		rec.Artifacts[ArtifactNames] = namesJSON
		if rec.Artifacts[ArtifactGraph], err = encodeGraph(ctx, rec); err != nil {
			return n, fmt.Errorf("reindex %s: %w", in.Name, err)
		}
		if err := st.Put(collection, rec); err != nil {
			return n, fmt.Errorf("reindex %s: %w", in.Name, err)
		}
		n++
		if progress != nil {
			progress(i+1, len(infos), in.Name)
		}
	}
	return n, nil
}
