package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// LoadIndex builds the search index of a collection from its stored
// segments, in the store's document order (by name). Segments are read and
// decoded in parallel and added in order, so the index is the same on every
// load.
//
// A document whose segment cannot be read or decoded is left out of the index
// with a slog warning naming it, rather than failing the whole collection;
// a document stored without a segment (by an older pakton) is re-analyzed
// from its text and tree. The error is for a collection that cannot be
// listed, or ctx being cancelled.
func LoadIndex(ctx context.Context, st *store.Store, collection string) (*search.Index, error) {
	ix, _, err := loadIndex(ctx, st, collection)
	return ix, err
}

// loadIndex is LoadIndex that also returns the per-document problems.
func loadIndex(ctx context.Context, st *store.Store, collection string) (*search.Index, []error, error) {
	infos, err := st.List(collection)
	if err != nil {
		return nil, nil, fmt.Errorf("load index: %w", err)
	}
	segs := make([]*search.Segment, len(infos))
	errs := make([]error, len(infos))
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), max(1, len(infos))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(infos) || ctx.Err() != nil {
					return
				}
				segs[i], errs[i] = loadSegment(st, collection, infos[i])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ix := search.NewIndex()
	var problems []error
	for i, seg := range segs {
		if errs[i] == nil {
			errs[i] = ix.AddSegment(seg)
		}
		if errs[i] != nil {
			err := fmt.Errorf("document %s (%s) left out of the index: %w", infos[i].ID, infos[i].Name, errs[i])
			slog.Warn("document left out of the search index", "collection", collection, "id", infos[i].ID, "name", infos[i].Name, "err", errs[i])
			problems = append(problems, err)
		}
	}
	return ix, problems, nil
}

// loadSegment reads and decodes one document's segment, re-analyzing the
// document when it has none.
func loadSegment(st *store.Store, collection string, info store.DocInfo) (*search.Segment, error) {
	data, err := st.Artifact(collection, info.ID, ArtifactSegment)
	if errors.Is(err, store.ErrNotFound) {
		rec, gerr := st.Get(collection, info.ID)
		if gerr != nil {
			return nil, gerr
		}
		slog.Info("document has no stored segment; analyzing it again", "collection", collection, "id", info.ID, "name", info.Name)
		return search.AnalyzeDoc(chunk.Build(rec.Doc, rec.Tree, chunk.Options{})), nil
	}
	if err != nil {
		return nil, err
	}
	seg, err := search.DecodeSegment(data)
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if seg.ID != info.ID {
		return nil, fmt.Errorf("segment: %w: it belongs to document %q", search.ErrBadSegment, seg.ID)
	}
	return seg, nil
}
