package usecase

import (
	"context"

	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/store"
)

// CompareSide loads a stored document as one side of a clause-by-clause
// comparison (internal/compare).
func CompareSide(ctx context.Context, st *store.Store, collection, id string) (compare.Side, error) {
	rec, err := st.Document(ctx, collection, id)
	if err != nil {
		return compare.Side{}, err
	}
	return compare.Side{Doc: rec.Doc, Tree: docread.Tree(rec)}, nil
}
