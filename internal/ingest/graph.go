package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/store"
)

// ArtifactGraph is the document's defined terms, term uses and
// cross-references (graph.Doc.Encode, JSON), what DocGraph reads.
const ArtifactGraph = "graph"

// encodeGraph extracts and encodes a record's graph artifact.
func encodeGraph(rec *store.Record) ([]byte, error) {
	b, err := graph.Extract(rec.Doc, rec.Tree).Encode()
	if err != nil {
		return nil, fmt.Errorf("cannot encode graph: %w", err)
	}
	return b, nil
}

// DocGraph returns the graph of a stored document (read with Document or
// Get, its Tree filled in by Tree). A document stored before graphs existed,
// or with a graph of an older extraction version or one that does not fit
// its tree, has it computed from its text and tree instead; computed
// reports that, so callers can suggest "pakton docs reindex".
func DocGraph(st *store.Store, collection string, rec *store.Record) (g *graph.Doc, computed bool, err error) {
	b, ok := rec.Artifacts[ArtifactGraph]
	if !ok {
		b, err = st.Artifact(collection, rec.Doc.ID, ArtifactGraph)
	}
	switch {
	case err == nil:
		g, derr := graph.Decode(b, len(rec.Tree.Nodes))
		if derr == nil && g.Version == graph.Version {
			return g, false, nil
		}
		if derr != nil {
			slog.Warn("stored graph unreadable; computing it again", "collection", collection, "doc", rec.Doc.ID, "err", derr)
		}
	case !errors.Is(err, store.ErrNotFound):
		return nil, false, fmt.Errorf("graph of %s: %w", rec.Doc.Name, err)
	}
	return graph.Extract(rec.Doc, rec.Tree), true, nil
}

// ReadGraph reads a stored document (without its artifacts), its clause
// tree and its graph (DocGraph).
func ReadGraph(st *store.Store, collection, id string) (rec *store.Record, g *graph.Doc, computed bool, err error) {
	rec, err = st.Document(collection, id)
	if err != nil {
		return nil, nil, false, err
	}
	rec.Tree = Tree(rec)
	g, computed, err = DocGraph(st, collection, rec)
	if err != nil {
		return nil, nil, false, err
	}
	return rec, g, computed, nil
}

// CollectionGraph assembles the graph of a collection (or of the documents
// ids names, when not empty) from the stored document graphs. computed
// counts the documents whose graph was not stored and was computed on load.
func CollectionGraph(ctx context.Context, st *store.Store, collection string, ids []string) (g *graph.Graph, computed int, err error) {
	if len(ids) == 0 {
		infos, err := st.List(collection)
		if err != nil {
			return nil, 0, err
		}
		for _, in := range infos {
			ids = append(ids, in.ID)
		}
	}
	var srcs []graph.Source
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		rec, dg, comp, err := ReadGraph(st, collection, id)
		if err != nil {
			return nil, 0, err
		}
		if comp {
			computed++
		}
		srcs = append(srcs, graph.Source{ID: rec.Doc.ID, Name: rec.Doc.Name, Tree: rec.Tree, Graph: dg})
	}
	return graph.Build(srcs), computed, nil
}
