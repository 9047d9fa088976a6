package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/llm/llmtest"
)

// nliFile writes a one-NDA, two-hypothesis ContractNLI file in the dataset's
// own format.
func nliFile(t *testing.T) string {
	t.Helper()
	text := "NON-DISCLOSURE AGREEMENT\n1. The Recipient shall not reverse engineer any sample.\n2. This Agreement is governed by the laws of Ireland.\n"
	f := map[string]any{
		"documents": []any{map[string]any{
			"id": 1, "file_name": "one-nda.pdf", "text": text, "spans": [][]int{{0, 24}, {25, 79}, {80, 132}},
			"annotation_sets": []any{map[string]any{"annotations": map[string]any{
				"nda-1": map[string]any{"choice": "Entailment", "spans": []int{1}},
				"nda-2": map[string]any{"choice": "NotMentioned", "spans": []int{}},
			}}},
		}},
		"labels": map[string]any{
			"nda-1": map[string]any{"hypothesis": "Receiving Party shall not reverse engineer any objects.", "short_description": "No reverse engineering"},
			"nda-2": map[string]any{"hypothesis": "Receiving Party may share some Confidential Information with third parties.", "short_description": "Sharing with third-parties"},
		},
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "nli.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalContractNLIWithoutModel: no model configured is a clear error
// that says how to configure one, never a label.
func TestEvalContractNLIWithoutModel(t *testing.T) {
	noModel(t)
	out, _, err := capture(t, runEval, "contractnli", "--data", nliFile(t))
	if err == nil {
		t.Fatal("eval contractnli without a model succeeded")
	}
	for _, want := range []string{"needs a language model", "--llm-url http://localhost:11434/v1", "PAKTON_LLM_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	if _, _, err := capture(t, runEval, "contractnli", "--data", nliFile(t), "--llm-model", "m"); err == nil || !strings.Contains(err.Error(), "half configured") {
		t.Errorf("half configured: %v", err)
	}
	if _, _, err := capture(t, runEval, "contractnli", "--workers", "0"); err == nil {
		t.Error("--workers 0 accepted")
	}
}

// TestEvalContractNLIWithModel runs the command against the scripted server
// and reads its JSON report.
func TestEvalContractNLIWithModel(t *testing.T) {
	noModel(t)
	classify := llmtest.SystemContains("You classify a hypothesis")
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "researcher", Times: -1, Match: llmtest.SystemContains("You are the Researcher"),
			JSON: map[string]any{"answer": "Clause 1 is the only relevant provision.", "evidence": []any{}}},
		llmtest.Turn{Name: "reverse", Match: llmtest.All(classify, llmtest.Contains("reverse engineer any objects.\n</hypothesis>")),
			JSON: map[string]any{"label": "Entailment", "evidence": []string{"P1"}, "rationale": "Clause 1."}},
		llmtest.Turn{Name: "share", Match: llmtest.All(classify, llmtest.Contains("third parties.\n</hypothesis>")),
			JSON: map[string]any{"label": "Contradiction", "evidence": []string{"P1"}, "rationale": "Wrong on purpose."}},
	)
	jsonOut := filepath.Join(t.TempDir(), "nli-report.json")
	out, errOut, err := capture(t, runEval, "contractnli", "--data", nliFile(t), "--llm-url", srv.BaseURL(), "--llm-model", "scripted", "--workers", "1", "--json", jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ContractNLI (researcher mode): 2 pairs, 2 completed, 0 errors", "accuracy 50.00", "model calls: 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"contractnli 1/2 (1 correct) one-nda.pdf nda-1: Entailment", "contractnli 2/2 (1 correct) one-nda.pdf nda-2: Contradiction (gold NotMentioned)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pairs, Completed, Errors int
		Accuracy                 float64
		WeightedF1               float64 `json:"weighted_f1"`
		F1                       map[string]float64
		Confusion                map[string]map[string]int
		ModelCalls               struct{ Total struct{ Calls int } } `json:"model_calls"`
		Seconds                  float64
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	// E: P 1 R 1 → 100 (support 1); C: never gold → 0; N: R 0 → 0 (support 1).
	if rep.Pairs != 2 || rep.Completed != 2 || rep.Errors != 0 || rep.Accuracy != 50 || rep.WeightedF1 != 50 ||
		rep.F1["entailment"] != 100 || rep.F1["contradiction"] != 0 || rep.F1["neutral"] != 0 ||
		rep.Confusion["neutral"]["contradiction"] != 1 || rep.ModelCalls.Total.Calls != 4 || rep.Seconds <= 0 {
		t.Errorf("report %+v\n%s", rep, data)
	}
}

// TestEvalContractNLIAllFailed: a run in which no pair completes exits with
// an error after printing the report, so it cannot pass for a result.
func TestEvalContractNLIAllFailed(t *testing.T) {
	noModel(t)
	srv := llmtest.NewServer(t, llmtest.Turn{Name: "bad request", Times: -1, Status: 400, ErrorMessage: "model not found"})
	out, _, err := capture(t, runEval, "contractnli", "--data", nliFile(t), "--llm-url", srv.BaseURL(), "--llm-model", "missing", "-q")
	if err == nil || !strings.Contains(err.Error(), "all 2 pairs failed") || !strings.Contains(err.Error(), "model not found") {
		t.Errorf("err %v", err)
	}
	if !strings.Contains(out, "2 pairs, 0 completed, 2 errors") {
		t.Errorf("output:\n%s", out)
	}
}
