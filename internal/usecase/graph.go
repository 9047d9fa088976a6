package usecase

import (
	"context"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/store"
)

// CollectionGraph assembles the graph of a collection (or of the documents
// ids names, when not empty) from the stored document graphs. computed
// counts the documents whose graph was not stored and was computed on load.
func CollectionGraph(ctx context.Context, st *store.Store, collection string, ids []string) (g *graph.Graph, computed int, err error) {
	if len(ids) == 0 {
		infos, err := st.List(ctx, collection)
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
		rec, dg, comp, err := docread.ReadGraph(ctx, st, collection, id)
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
