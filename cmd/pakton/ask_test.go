package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/report"
)

// noModel clears every source of model configuration for a test.
func noModel(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, v := range []string{config.EnvLLMURL, config.EnvLLMModel, config.EnvLLMAPIKey} {
		t.Setenv(v, "")
	}
}

// TestAskWithoutModel runs "pakton ask" with no model configured: an
// evidence report in Markdown and in JSON.
func TestAskWithoutModel(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "default")
	noModel(t)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}

	out, errOut, err := capture(t, runAsk, "Does a labour strike at the supplier's own plant count as force majeure under the supply agreement?")
	if err != nil {
		t.Fatal(err)
	}
	const supply = "Supply Agreement — Ferrand & Østergaard Components / Calloway Kitchen Appliances, 3 March 2025 (supply-agreement.docx)"
	for _, want := range []string{"# Evidence:", "No language model is configured", "**Documents:** " + supply,
		"[1] " + supply + " — 15 > 15.2", "a strike, lockout or other labour dispute", "Best-matching sentences:", "100.0% verbatim",
		"**Force Majeure** — found in " + supply + " at 15 > 15.1"} {
		if !strings.Contains(out, want) {
			t.Errorf("ask output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "no language model configured") {
		t.Errorf("progress: %q", errOut)
	}

	out, _, err = capture(t, runAsk, "--json", "--doc", "mutual-nda.md", "-k", "2", "how long does confidentiality survive")
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	if r.Mode != report.ModeEvidence || len(r.Sources) != 2 || r.Sources[0].DocName != "mutual-nda.md" || r.Sources[0].Status != report.StatusVerified {
		t.Errorf("ask --json: %+v", r)
	}

	if _, _, err := capture(t, runAsk, "--llm-url", "http://127.0.0.1:1/v1", "what is the cap"); err == nil || !strings.Contains(err.Error(), "half configured") {
		t.Errorf("half a model configuration: err %v", err)
	}
	if _, _, err := capture(t, runAsk); err == nil {
		t.Error("ask with no question succeeded")
	}
}

// TestAskWithModel runs "pakton ask" against the scripted model server:
// flags configure the real client, the report is Markdown on stdout and
// the progress lines go to stderr.
func TestAskWithModel(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "default")
	noModel(t)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	sys := llmtest.SystemContains
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "archivist", Match: sys("You are the Archivist"), JSON: map[string]any{"query": "Can the customer terminate the master services agreement for convenience?", "context": "", "instructions": "", "documents": []string{"master-services-agreement.txt"}, "clarifying_question": ""}},
		llmtest.Turn{Name: "search", Match: llmtest.All(sys("You are the Researcher"), func(r *llmtest.Request) bool { return !llmtest.LastIsTool()(r) }), ToolCalls: []llmtest.ToolCall{{Name: "search_contract", Arguments: `{"query":"terminate for convenience"}`}}},
		llmtest.Turn{Name: "answer", Match: llmtest.All(sys("You are the Researcher"), llmtest.LastIsTool()), JSON: map[string]any{"answer": "Yes, on sixty days' notice.", "evidence": []any{}}},
		llmtest.Turn{Name: "writer", Match: sys("You are the legal writer"), JSON: map[string]any{"title": "Termination for convenience", "summary": "s", "reasoning": "The Customer may terminate for convenience [1].", "answer": "Yes [1].", "gaps": "-",
			"sources": []map[string]any{{"n": 1, "evidence_id": "E1", "quote": "not less than sixty (60) days' prior written notice"}}}},
	)
	out, errOut, err := capture(t, runAsk, "--llm-url", srv.BaseURL(), "--llm-model", "scripted", "--max-turns", "1", "--no-clarify", "can the customer terminate for convenience?")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Termination for convenience", "## Legal Reasoning & Analysis", "not less than sixty (60) days' prior written notice", "100.0% verbatim", "## Model use"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"ask: Archivist: reading the request", "ask: question 1/1", "ask: Researcher: search_contract", "ask: Writer: refining the report"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
}
