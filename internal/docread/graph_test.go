package docread

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/store"
)

// A graph that outlives its deadline is refused as too large, with the
// limit named; the caller's own cancellation stays the caller's error.
func TestGraphDeadline(t *testing.T) {
	doc := &document.Document{ID: "a", Name: "a.txt", Format: "text", Text: "1. Definitions. \"Affiliate\" means any entity that controls a party.\n2. Term. The Affiliate may terminate under Section 1.\n"}
	rec := &store.Record{Doc: doc, Tree: clause.Parse(doc)}
	if _, err := ExtractGraph(context.Background(), rec); err != nil {
		t.Fatalf("within the deadline: %v", err)
	}
	defer func(a, b time.Duration) { graphTimeout, graphTimeoutPerMB = a, b }(graphTimeout, graphTimeoutPerMB)
	graphTimeout, graphTimeoutPerMB = 0, 0
	_, err := ExtractGraph(context.Background(), rec)
	if !errors.Is(err, parse.ErrTooLarge) || !strings.Contains(err.Error(), "defined terms and cross-references took longer than") {
		t.Fatalf("past the deadline: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	graphTimeout = time.Hour
	if _, err := ExtractGraph(ctx, rec); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
}
