package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
)

func newClient(t *testing.T, srv *llmtest.Server, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: srv.BaseURL(), Model: "test-model", RetryBaseDelay: 10_000_000, RetryMaxDelay: 2_000_000_000}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSmoke(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "hello", Text: "Hello there."},
		llmtest.Turn{Name: "tools", Match: llmtest.HasTool("search"), ToolCalls: []llmtest.ToolCall{{Name: "search", Arguments: `{"q":"term"}`}}},
		llmtest.Turn{Name: "json", JSON: map[string]any{"answer": "yes"}},
	)
	c := newClient(t, srv, nil)
	ctx := context.Background()
	r, err := c.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil || r.Message.Content != "Hello there." {
		t.Fatalf("got %+v, %v", r, err)
	}
	r, err = c.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "find"}},
		Tools: []llm.ToolSpec{{Name: "search", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}}})
	if err != nil || len(r.Message.ToolCalls) != 1 {
		t.Fatalf("got %+v, %v", r, err)
	}
	r, err = c.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "j"}},
		Schema: &llm.Schema{Name: "a", Schema: json.RawMessage(`{"type":"object"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	for _, q := range srv.Requests() {
		t.Logf("%s %s", q.Path, q.Body)
	}
}
