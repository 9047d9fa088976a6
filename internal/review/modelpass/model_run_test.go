package modelpass_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/modelpass"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// TestRunWithModelPass runs a review with the model pass over the example
// contracts: one model failure keeps that contract's offline cell and marks
// the row, and the resumed run asks the model only for what failed.
func TestRunWithModelPass(t *testing.T) {
	st := reviewtest.Store(t, "deal")
	rev := reviewtest.Reviewer(t)
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "one failure", Status: http.StatusServiceUnavailable, ErrorMessage: "overloaded",
			Match: llmtest.Contains(`<provision name="Source Code Escrow">`)},
		llmtest.Turn{Name: "not found", Times: -1, JSON: map[string]any{"found": false, "quotes": []any{}, "value": "Not found", "confidence": 0.1}},
	)
	chat, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pass, err := modelpass.New(chat, rev, filepath.Join(dir, "model-cache"))
	if err != nil {
		t.Fatal(err)
	}
	run := &review.Run{Store: st, Collection: "deal", Reviewer: rev, Refiner: pass, Dir: dir, Concurrency: 2}
	est, err := run.Estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	contracts := len(reviewtest.Contracts(t))
	provisions := len(rev.Playbook().Provisions)
	if est.Calls < 2*contracts*provisions || len(srv.Requests()) != 0 {
		t.Fatalf("estimate = %+v after %d requests; want at least %d calls and no request", est, len(srv.Requests()), 2*contracts*provisions)
	}

	tab, stats, err := run.Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Failed != 1 {
		t.Fatalf("stats = %+v, want exactly one row whose model pass failed", stats)
	}
	for _, row := range tab.Rows {
		for _, c := range row.Cells {
			failed := row.Error != "" && c.Provision == "Source Code Escrow"
			if failed && (c.Method == review.MethodModel || len(c.Notes) == 0) {
				t.Errorf("%s: failed cell = %+v, want the offline cell with a note", row.DocName, c)
			}
			if !failed && c.Method != review.MethodModel {
				t.Errorf("%s / %s: method %q, want model", row.DocName, c.Provision, c.Method)
			}
		}
		if row.Error != "" && !strings.Contains(row.Error, "model pass failed") {
			t.Errorf("row error = %q", row.Error)
		}
	}
	first := len(srv.Requests())

	// Resume: four rows are kept; the fifth is reviewed again and only its
	// failed cell reaches the model (the others are cached).
	est, err = run.Estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if est.Calls != 2 {
		t.Errorf("estimate before resuming = %+v, want 2 calls (the failed cell)", est)
	}
	if _, stats, err = run.Table(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stats.Reused != contracts-1 || stats.Failed != 0 {
		t.Errorf("resumed stats = %+v", stats)
	}
	if n := len(srv.Requests()) - first; n != 2 {
		t.Errorf("the resumed run made %d requests, want 2", n)
	}
}
