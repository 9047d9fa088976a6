package docread

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/store"
)

// DocNames returns what a stored document is called by: the names learnt
// at ingest (ArtifactNames), or, for a document ingested before names were
// learnt, the names learnt from its stored text now.
func DocNames(ctx context.Context, st *store.Store, collection, id string) (names.Names, error) {
	var nm names.Names
	data, err := st.Artifact(ctx, collection, id, ArtifactNames)
	if err == nil {
		if err := json.Unmarshal(data, &nm); err != nil {
			return nm, fmt.Errorf("names of document %s: %w", id, err)
		}
		return nm, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nm, fmt.Errorf("names of document %s: %w", id, err)
	}
	rec, err := st.Document(ctx, collection, id)
	if err != nil {
		return nm, fmt.Errorf("names of document %s: %w", id, err)
	}
	return chunk.Names(rec.Doc), nil
}
