package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// TestReviewWithModel runs "pakton review" against the scripted model
// server: the dry run prints the calls without making any, the review uses
// the model for every cell, and a fresh re-run answers from the cache.
func TestReviewWithModel(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "deal")
	srv := llmtest.NewServer(t, llmtest.Turn{Name: "not found", Times: -1, Optional: true,
		JSON: map[string]any{"found": false, "quotes": []any{}, "value": "Not found", "confidence": 0.1}})
	t.Setenv("PAKTON_LLM_URL", srv.BaseURL())
	t.Setenv("PAKTON_LLM_MODEL", "scripted")
	pb := filepath.Join(dir, "small.yaml")
	os.WriteFile(pb, reviewtest.PlaybookYAML, 0o644)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cells := 5 * 4

	stdout, _, err := capture(t, runReview, "--playbook", pb, "--out", out, "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "20 cells") || !strings.Contains(stdout, "Model pass: ") || len(srv.Requests()) != 0 {
		t.Fatalf("dry run (%d requests):\n%s", len(srv.Requests()), stdout)
	}

	stdout, stderr, err := capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json")
	if err != nil {
		t.Fatalf("review: %v\n%s\n%s", err, stdout, stderr)
	}
	if n := len(srv.Requests()); n != 2*cells {
		t.Errorf("%d model requests, want %d (extraction and follow-up per cell, no risk questions for Not found)", n, 2*cells)
	}
	if !strings.Contains(stdout, "Model pass (model=scripted;") || !strings.Contains(stderr, "(model, ") {
		t.Errorf("no model summary or per-cell progress:\n%s\n%s", stdout, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "review.json"))
	if n := len(regexp.MustCompile(`"method":\s*"model"`).FindAll(raw, -1)); n != cells {
		t.Errorf("review.json holds %d model cells, want %d", n, cells)
	}

	// Starting afresh redoes the rows but not the model calls.
	before := len(srv.Requests())
	stdout, _, err = capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json", "--resume=false")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Errorf("the re-run made %d model requests, want 0 (cached)", n)
	}
	if !strings.Contains(stdout, "0 calls") || !strings.Contains(stdout, "40 answers from the cache") {
		t.Errorf("re-run summary:\n%s", stdout)
	}
	stdout, _, _ = capture(t, runReview, "--playbook", pb, "--out", out, "--dry-run")
	if !strings.Contains(stdout, "Model pass: 0 calls") {
		t.Errorf("dry run after the review:\n%s", stdout)
	}
}
