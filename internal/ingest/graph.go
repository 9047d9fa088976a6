package ingest

import (
	"context"
	"fmt"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/store"
)

// encodeGraph extracts and encodes a record's graph artifact.
func encodeGraph(ctx context.Context, rec *store.Record) ([]byte, error) {
	g, err := docread.ExtractGraph(ctx, rec)
	if err != nil {
		return nil, err
	}
	b, err := g.Encode()
	if err != nil {
		return nil, fmt.Errorf("cannot encode graph: %w", err)
	}
	return b, nil
}
