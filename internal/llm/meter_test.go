package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
)

func TestMeter(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Turn{Text: "a", Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10}},
		llmtest.Turn{Text: "b", Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 20}},
		llmtest.Turn{Text: "c", Usage: &llmtest.Usage{PromptTokens: 50, CompletionTokens: 5}},
		llmtest.Turn{Status: 400},
	)
	m := &llm.Meter{}
	c := m.Wrap(newClient(t, srv, nil))
	ctx := context.Background()
	for _, step := range []string{"researcher", "researcher", "archivist", "writer"} {
		_, _ = c.Complete(ctx, llm.Request{Step: step, Messages: user("q")})
	}
	s := m.Summary()
	if s.Total.Calls != 4 || s.Total.Errors != 1 || s.Total.PromptTokens != 350 || s.Total.CompletionTokens != 35 || s.Total.Duration <= 0 {
		t.Errorf("total %+v", s.Total)
	}
	if len(s.Steps) != 3 || s.Steps[0].Step != "archivist" || s.Steps[1].Step != "researcher" || s.Steps[2].Step != "writer" {
		t.Fatalf("steps %+v", s.Steps)
	}
	if r := s.Steps[1]; r.Calls != 2 || r.PromptTokens != 300 || r.CompletionTokens != 30 || len(r.Models) != 1 || r.Models[0] != "test-model" {
		t.Errorf("researcher %+v", r)
	}
	if w := s.Steps[2]; w.Errors != 1 || w.Calls != 1 {
		t.Errorf("writer %+v", w)
	}
	if c.Model() != "test-model" {
		t.Errorf("Model() = %q", c.Model())
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back llm.Summary
	if err := json.Unmarshal(b, &back); err != nil || back.Total.Calls != 4 {
		t.Errorf("JSON round trip %s: %v", b, err)
	}
}

func TestPaperCost(t *testing.T) {
	tests := []struct {
		turns, parsing, depth, nl int
		want                      int
	}{
		// No clarifying turn, no LLM parsing, one round, raw spans:
		// 1 (extraction) + 0 + 1×(2+1+0) = 4.
		{0, 0, 1, 0, 4},
		// Two clarifying turns, LLM parsing, three rounds with NL answers:
		// (2+1) + 1 + 3×(2+1+1) = 16.
		{2, 1, 3, 1, 16},
		// Default five rounds, NL answers, no clarification: 1 + 5×4 = 21.
		{0, 0, 5, 1, 21},
		// No rounds at all: just the Archivist.
		{1, 0, 0, 1, 2},
	}
	for _, tt := range tests {
		if got := llm.PaperCost(tt.turns, tt.parsing, tt.depth, tt.nl); got != tt.want {
			t.Errorf("PaperCost(%d, %d, %d, %d) = %d, want %d", tt.turns, tt.parsing, tt.depth, tt.nl, got, tt.want)
		}
	}
}
