package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// storeIndex puts the corpus into a store collection — each file as a
// document named by its corpus path, with the method's segment as its
// stored artifact, as ingest stores it — and loads the collection's search
// index back from the store (ingest.Load), so a run measures retrieval on
// what the store returns: the embedded store or a Weaviate cluster. Files
// already stored with the same bytes and the same segment are not written
// again. It returns the
// index, the texts by store id, and the corpus path of every store id.
func storeIndex(ctx context.Context, opt Options, files []string) (*search.Index, map[string]string, map[string]string, error) {
	st, coll := opt.Store, opt.Collection
	if coll == "" {
		coll = "legalbench-" + opt.Method.Name()
	}
	if err := st.CreateCollection(ctx, coll); err != nil {
		return nil, nil, nil, err
	}
	have, err := st.List(ctx, coll)
	if err != nil {
		return nil, nil, nil, err
	}
	stored := map[string]string{} // id -> sha256 of the file
	for _, in := range have {
		stored[in.ID] = in.Source.SHA256
	}
	paths := map[string]string{}
	texts := make(map[string]string, len(files))
	type item struct {
		rec *store.Record
		err error
	}
	out := make([]item, len(files))
	parallel.Each(ctx, len(files), runtime.GOMAXPROCS(0), func(i int) {
		rel := files[i]
		in, text, err := loadDoc(opt, rel)
		if err != nil {
			out[i].err = err
			return
		}
		id := store.DocID(rel)
		sum := sha256.Sum256([]byte(text))
		hexSum := hex.EncodeToString(sum[:])
		in.ID = id
		seg := index.AnalyzeDoc(in)
		enc := seg.Encode()
		// Skip a document stored with the same text and the same
		// segment (a segment from another version of pakton is
		// replaced, so the run measures this version).
		if stored[id] == hexSum+"/"+opt.Method.Name() {
			if sums, err := st.Sums(ctx, coll, id); err == nil {
				segSum := sha256.Sum256(enc)
				if sums["artifacts/"+docread.ArtifactSegment+".bin"] == hex.EncodeToString(segSum[:]) {
					return
				}
			}
		}
		out[i].rec = &store.Record{
			Doc:       &document.Document{ID: id, Name: rel, Format: "text", Text: text},
			Source:    store.Source{Path: rel, SHA256: hexSum + "/" + opt.Method.Name(), Size: int64(len(text)), ModTime: time.Unix(0, 0).UTC()},
			Artifacts: map[string][]byte{docread.ArtifactSegment: enc},
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	for _, rel := range files {
		id := store.DocID(rel)
		paths[id] = rel
	}
	// The collection must hold exactly this run's corpus: corpus-wide
	// statistics (and corpus-scope results) depend on every document.
	for _, in := range have {
		if _, ok := paths[in.ID]; !ok {
			if err := st.Delete(ctx, coll, in.ID); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	total := 0
	for _, it := range out {
		if it.rec != nil {
			total++
		}
	}
	batch := &store.Batch{Store: st, Collection: coll, Size: 32}
	if opt.Progress != nil {
		batch.Flushed = func(put int) { opt.Progress("store", put, total) }
	}
	for i, it := range out {
		if it.err != nil {
			return nil, nil, nil, it.err
		}
		if it.rec != nil {
			err := batch.Add(ctx, it.rec)
			out[i] = item{}
			if err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if err := batch.Flush(ctx); err != nil {
		return nil, nil, nil, err
	}
	ix, rep, err := ingest.Load(ctx, st, coll)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(rep.Skipped) > 0 {
		return nil, nil, nil, fmt.Errorf("eval: %d documents could not be loaded from the store: %v", len(rep.Skipped), rep.Skipped[0])
	}
	// Texts for the report's mid-token check, from the files (the stored
	// texts are checksummed against the same bytes).
	for _, rel := range files {
		_, text, err := loadDoc(opt, rel)
		if err != nil {
			return nil, nil, nil, err
		}
		texts[store.DocID(rel)] = text
	}
	return ix, texts, paths, nil
}
