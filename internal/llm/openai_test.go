package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
)

const testKey = "sk-test-SECRET-1234567890"

// newClient returns a client for srv with fast retries.
func newClient(t *testing.T, srv *llmtest.Server, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{
		BaseURL: srv.BaseURL(), Model: "test-model", APIKey: testKey,
		RetryBaseDelay: 10 * time.Millisecond, RetryMaxDelay: 2 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func user(s string) []llm.Message { return []llm.Message{{Role: llm.RoleUser, Content: s}} }

var searchTool = llm.ToolSpec{
	Name: "search", Description: "Search the contract.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}

func TestComplete(t *testing.T) {
	temp := 0.2
	tests := []struct {
		name  string
		turns []llmtest.Turn
		req   llm.Request
		cfg   func(*llm.Config)
		check func(t *testing.T, resp *llm.Response, deltas []string, reqs []*llmtest.Request)
	}{
		{
			name:  "plain completion",
			turns: []llmtest.Turn{{Text: "The term is five years.", Usage: &llmtest.Usage{PromptTokens: 11, CompletionTokens: 6}}},
			req: llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are careful."}, {Role: llm.RoleUser, Content: "How long?"}},
				Temperature: &temp, MaxTokens: 64},
			check: func(t *testing.T, resp *llm.Response, _ []string, reqs []*llmtest.Request) {
				if resp.Message.Content != "The term is five years." || resp.Message.Role != llm.RoleAssistant || resp.FinishReason != "stop" {
					t.Errorf("reply %+v", resp)
				}
				if resp.Usage != (llm.Usage{PromptTokens: 11, CompletionTokens: 6}) {
					t.Errorf("usage %+v", resp.Usage)
				}
				r := reqs[0]
				if r.Model != "test-model" || r.MaxTokens != 64 || r.Temperature == nil || *r.Temperature != 0.2 || r.Stream {
					t.Errorf("request %s", r.Body)
				}
				if r.System() != "You are careful." || r.LastUser() != "How long?" {
					t.Errorf("messages %+v", r.Messages)
				}
			},
		},
		{
			name:  "config temperature is the default",
			turns: []llmtest.Turn{{Text: "ok"}},
			cfg:   func(c *llm.Config) { c.Temperature = &temp },
			req:   llm.Request{Messages: user("x")},
			check: func(t *testing.T, _ *llm.Response, _ []string, reqs []*llmtest.Request) {
				if reqs[0].Temperature == nil || *reqs[0].Temperature != 0.2 {
					t.Errorf("temperature not sent: %s", reqs[0].Body)
				}
			},
		},
		{
			name:  "streaming text",
			turns: []llmtest.Turn{{Text: "Either party may terminate on 30 days' notice.", ChunkRunes: 5}},
			req:   llm.Request{Messages: user("terminate?")},
			check: func(t *testing.T, resp *llm.Response, deltas []string, reqs []*llmtest.Request) {
				want := "Either party may terminate on 30 days' notice."
				if resp.Message.Content != want || strings.Join(deltas, "") != want || len(deltas) < 5 {
					t.Errorf("content %q, deltas %q", resp.Message.Content, deltas)
				}
				if !reqs[0].Stream || !reqs[0].IncludeUsage {
					t.Errorf("stream options not sent: %s", reqs[0].Body)
				}
				if resp.Usage.CompletionTokens == 0 || resp.FinishReason != "stop" {
					t.Errorf("usage %+v finish %q", resp.Usage, resp.FinishReason)
				}
			},
		},
		{
			name: "streaming tool calls assembled",
			turns: []llmtest.Turn{{ChunkRunes: 3, ToolCalls: []llmtest.ToolCall{
				{ID: "call_a", Name: "search", Arguments: `{"query":"termination notice"}`},
				{ID: "call_b", Name: "search", Arguments: `{"query":"governing law"}`},
			}}},
			req: llm.Request{Messages: user("find"), Tools: []llm.ToolSpec{searchTool}},
			check: func(t *testing.T, resp *llm.Response, deltas []string, _ []*llmtest.Request) {
				want := []llm.ToolCall{
					{ID: "call_a", Name: "search", Arguments: `{"query":"termination notice"}`},
					{ID: "call_b", Name: "search", Arguments: `{"query":"governing law"}`},
				}
				if !equalCalls(resp.Message.ToolCalls, want) || resp.FinishReason != "tool_calls" || len(deltas) != 0 {
					t.Errorf("tool calls %+v finish %q deltas %q", resp.Message.ToolCalls, resp.FinishReason, deltas)
				}
			},
		},
		{
			name: "tool calls and the tool round trip",
			turns: []llmtest.Turn{
				{Name: "call", Match: llmtest.HasTool("search"), ToolCalls: []llmtest.ToolCall{{Name: "search", Arguments: `{"query":"x"}`}}},
			},
			req: llm.Request{Tools: []llm.ToolSpec{searchTool}, Messages: []llm.Message{
				{Role: llm.RoleUser, Content: "q"},
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_0", Name: "search", Arguments: `{"query":"y"}`}}},
				{Role: llm.RoleTool, ToolCallID: "call_0", Content: "<passage>text</passage>"},
			}},
			check: func(t *testing.T, resp *llm.Response, _ []string, reqs []*llmtest.Request) {
				if len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "search" ||
					resp.Message.ToolCalls[0].Arguments != `{"query":"x"}` || resp.Message.ToolCalls[0].ID == "" {
					t.Errorf("tool calls %+v", resp.Message.ToolCalls)
				}
				m := reqs[0].Messages
				if len(m) != 3 || len(m[1].ToolCalls) != 1 || m[1].ToolCalls[0].ID != "call_0" || m[2].ToolCallID != "call_0" || m[2].Content != "<passage>text</passage>" {
					t.Errorf("messages on the wire %+v", m)
				}
				var tools []struct {
					Type     string `json:"type"`
					Function struct {
						Name, Description string
						Parameters        map[string]any
					} `json:"function"`
				}
				if err := json.Unmarshal(reqs[0].ToolSchemas, &tools); err != nil || len(tools) != 1 || tools[0].Type != "function" ||
					tools[0].Function.Description != "Search the contract." || tools[0].Function.Parameters["type"] != "object" {
					t.Errorf("tools on the wire %s (%v)", reqs[0].ToolSchemas, err)
				}
			},
		},
		{
			name:  "json_schema response format",
			turns: []llmtest.Turn{{JSON: map[string]any{"answer": "yes"}}},
			req: llm.Request{Messages: user("q"), Schema: &llm.Schema{Name: "verdict", Strict: true,
				Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`)}},
			check: func(t *testing.T, resp *llm.Response, _ []string, reqs []*llmtest.Request) {
				var rf struct {
					Type       string `json:"type"`
					JSONSchema struct {
						Name   string         `json:"name"`
						Strict bool           `json:"strict"`
						Schema map[string]any `json:"schema"`
					} `json:"json_schema"`
				}
				if err := json.Unmarshal(reqs[0].ResponseFormat, &rf); err != nil || rf.Type != "json_schema" ||
					rf.JSONSchema.Name != "verdict" || !rf.JSONSchema.Strict || rf.JSONSchema.Schema["type"] != "object" {
					t.Errorf("response_format %s", reqs[0].ResponseFormat)
				}
				if resp.Message.Content != `{"answer":"yes"}` {
					t.Errorf("content %q", resp.Message.Content)
				}
			},
		},
		{
			name:  "json_object fallback puts the schema in the prompt",
			turns: []llmtest.Turn{{JSON: map[string]any{"answer": "yes"}}},
			cfg:   func(c *llm.Config) { c.JSONMode = llm.JSONModeObject },
			req:   llm.Request{Messages: user("q"), Schema: &llm.Schema{Name: "verdict", Schema: json.RawMessage(`{"type":"object","required":["answer"]}`)}},
			check: func(t *testing.T, _ *llm.Response, _ []string, reqs []*llmtest.Request) {
				if reqs[0].ResponseFormatType() != "json_object" || !strings.Contains(reqs[0].System(), `"required":["answer"]`) {
					t.Errorf("request %s", reqs[0].Body)
				}
			},
		},
		{
			name: "429 then success honours Retry-After",
			turns: []llmtest.Turn{
				{Name: "busy", Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"1"}}},
				{Name: "ok", Text: "done"},
			},
			req: llm.Request{Messages: user("q")},
			check: func(t *testing.T, resp *llm.Response, _ []string, reqs []*llmtest.Request) {
				if resp.Message.Content != "done" || len(reqs) != 2 {
					t.Errorf("content %q after %d requests", resp.Message.Content, len(reqs))
				}
			},
		},
		{
			name: "dropped connection is retried",
			turns: []llmtest.Turn{
				{Name: "drop", Drop: true},
				{Name: "ok", Text: "done"},
			},
			req: llm.Request{Messages: user("q")},
			check: func(t *testing.T, resp *llm.Response, _ []string, reqs []*llmtest.Request) {
				if resp.Message.Content != "done" || len(reqs) != 2 {
					t.Errorf("content %q after %d requests", resp.Message.Content, len(reqs))
				}
			},
		},
		{
			name: "503 then streamed success",
			turns: []llmtest.Turn{
				{Name: "down", Status: http.StatusServiceUnavailable},
				{Name: "ok", Text: "streamed"},
			},
			req: llm.Request{Messages: user("q")},
			check: func(t *testing.T, resp *llm.Response, deltas []string, reqs []*llmtest.Request) {
				if resp.Message.Content != "streamed" || len(reqs) != 2 {
					t.Errorf("content %q after %d requests", resp.Message.Content, len(reqs))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.turns...)
			c := newClient(t, srv, tt.cfg)
			var deltas []string
			req := tt.req
			if strings.Contains(tt.name, "stream") {
				req.Stream = func(d string) { deltas = append(deltas, d) }
			}
			start := time.Now()
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if strings.Contains(tt.name, "Retry-After") && time.Since(start) < time.Second {
				t.Errorf("retried after %v, before the server's Retry-After of 1s", time.Since(start))
			}
			tt.check(t, resp, deltas, srv.Requests())
		})
	}
}

func equalCalls(a, b []llm.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCompleteErrors(t *testing.T) {
	tests := []struct {
		name     string
		turns    []llmtest.Turn
		cfg      func(*llm.Config)
		stream   bool
		requests int // requests the server should see
		check    func(t *testing.T, err error)
	}{
		{
			name:     "500 retries exhausted",
			turns:    []llmtest.Turn{{Status: 500, Times: 3, ErrorMessage: "model crashed"}},
			cfg:      func(c *llm.Config) { c.MaxRetries = 2 },
			requests: 3,
			check: func(t *testing.T, err error) {
				var se *llm.StatusError
				if !errors.As(err, &se) || se.StatusCode != 500 || !strings.Contains(err.Error(), "model crashed") ||
					!strings.Contains(err.Error(), "3 attempts") {
					t.Errorf("error %v", err)
				}
			},
		},
		{
			name:     "400 is not retried",
			turns:    []llmtest.Turn{{Status: 400, ErrorMessage: "bad schema"}},
			requests: 1,
			check: func(t *testing.T, err error) {
				var se *llm.StatusError
				if !errors.As(err, &se) || se.StatusCode != 400 || se.Retryable() {
					t.Errorf("error %v", err)
				}
			},
		},
		{
			name:     "timeout",
			turns:    []llmtest.Turn{{Delay: 5 * time.Second, Text: "late"}},
			cfg:      func(c *llm.Config) { c.Timeout = 200 * time.Millisecond },
			requests: 1,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timeout") {
					t.Errorf("error %v", err)
				}
			},
		},
		{
			name:     "streaming timeout",
			turns:    []llmtest.Turn{{Text: "slow slow slow", ChunkRunes: 1, ChunkDelay: 100 * time.Millisecond}},
			cfg:      func(c *llm.Config) { c.Timeout = 300 * time.Millisecond },
			stream:   true,
			requests: 1,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error %v", err)
				}
			},
		},
		{
			name:     "malformed wire JSON",
			turns:    []llmtest.Turn{{RawBody: `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":nope}}]}`}},
			requests: 1,
			check: func(t *testing.T, err error) {
				if !strings.Contains(err.Error(), "json") {
					t.Errorf("error %v", err)
				}
			},
		},
		{
			name:     "API key never in errors",
			turns:    []llmtest.Turn{{Status: 401, ErrorMessage: "Incorrect API key provided: " + testKey}},
			requests: 1,
			check: func(t *testing.T, err error) {
				if strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[redacted]") {
					t.Errorf("error %v", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.turns...)
			c := newClient(t, srv, tt.cfg)
			req := llm.Request{Messages: user("q")}
			if tt.stream {
				req.Stream = func(string) {}
			}
			_, err := c.Complete(context.Background(), req)
			if err == nil {
				t.Fatal("Complete succeeded")
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error contains the API key: %v", err)
			}
			tt.check(t, err)
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("server saw %d requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestAPIKeySent(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	if _, err := newClient(t, srv, nil).Complete(context.Background(), llm.Request{Messages: user("q")}); err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(t, srv, func(c *llm.Config) { c.APIKey = "" }).Complete(context.Background(), llm.Request{Messages: user("q")}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization %q", got)
	}
	if got := reqs[1].Header.Get("Authorization"); got != "" {
		t.Errorf("keyless client sent Authorization %q", got)
	}
}

func TestAzure(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	c := newClient(t, srv, func(c *llm.Config) {
		c.BaseURL = srv.URL // the resource endpoint, https://NAME.openai.azure.com in production
		c.Model = "my-gpt4o"
		c.Azure = true
		c.APIVersion = "2024-10-21"
	})
	if _, err := c.Complete(context.Background(), llm.Request{Messages: user("q")}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/openai/deployments/my-gpt4o/chat/completions" {
		t.Errorf("path %s", r.Path)
	}
	if got := r.Query["api-version"]; len(got) != 1 || got[0] != "2024-10-21" {
		t.Errorf("api-version %v", got)
	}
	if r.Header.Get("api-key") != testKey || r.Header.Get("Authorization") != "" {
		t.Errorf("headers api-key=%q Authorization=%q", r.Header.Get("api-key"), r.Header.Get("Authorization"))
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "one two three four five six seven", ChunkRunes: 4, ChunkDelay: 50 * time.Millisecond})
	c := newClient(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got strings.Builder
	start := time.Now()
	resp, err := c.Complete(ctx, llm.Request{Messages: user("q"), Stream: func(d string) {
		got.WriteString(d)
		if got.Len() >= 8 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("cancellation took %v", time.Since(start))
	}
	if resp == nil || !strings.HasPrefix("one two three four five six seven", resp.Message.Content) || resp.Message.Content == "" {
		t.Errorf("partial response %+v", resp)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("cancelled stream was retried")
	}
}

func TestCancelWhileWaitingToRetry(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Status: 429, Header: http.Header{"Retry-After": {"30"}}})
	c := newClient(t, srv, func(c *llm.Config) { c.RetryMaxDelay = time.Minute })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, llm.Request{Messages: user("q")})
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("error %v after %v", err, time.Since(start))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []llm.Config{
		{Model: "m"},
		{BaseURL: "http://localhost:1/v1"},
		{BaseURL: "localhost:11434", Model: "m"},
		{BaseURL: "http://localhost:1/v1", Model: "m", JSONMode: "yaml"},
	} {
		if _, err := llm.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// TestContextOverflow: a reply whose token count shows the prompt was cut
// to fit the model's window is an error, ErrContextOverflow, never an
// answer. Ollama cuts silently (see ollama_test.go for the real server).
func TestContextOverflow(t *testing.T) {
	long := strings.Repeat("The Supplier shall deliver the goods on time. ", 100) // 4600 characters
	tests := []struct {
		name   string
		window int // GET /api/ps context length; 0: not Ollama
		usage  []int
		want   []bool // overflow per call
	}{
		{"fewer tokens than any tokenizer makes", 0, []int{300}, []bool{true}},
		{"a plausible count, no window known", 0, []int{1100}, []bool{false}},
		{"the prompt filled the window", 1024, []int{1024}, []bool{true}},
		{"the prompt fit", 1024, []int{1023}, []bool{false}},
		// A count past the kept window means the model was reloaded with
		// a larger one: asked again, 2048 now, and 1500 fits.
		{"window grew", 1024, []int{900, 1500}, []bool{false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var turns []llmtest.Turn
			for _, u := range tc.usage {
				turns = append(turns, llmtest.Turn{Text: "ok", Usage: &llmtest.Usage{PromptTokens: u, CompletionTokens: 1}})
			}
			srv := llmtest.NewServer(t, turns...)
			srv.SetContextWindow(tc.window)
			c := newClient(t, srv, nil)
			for i := range tc.usage {
				if i == 1 {
					srv.SetContextWindow(2 * tc.window)
				}
				resp, err := c.Complete(context.Background(), llm.Request{Messages: user(long)})
				if got := errors.Is(err, llm.ErrContextOverflow); got != tc.want[i] {
					t.Errorf("call %d: err %v, want overflow %v", i, err, tc.want[i])
				}
				if err != nil && (resp == nil || !strings.Contains(err.Error(), "OLLAMA_CONTEXT_LENGTH")) {
					t.Errorf("call %d: err %v lacks the advice, or the reply was lost", i, err)
				}
			}
		})
	}
}

// TestContextOverflowDroppedMessages: once the window is known, the
// characters per token the server counted for prompts that fit tell when a
// longer conversation was counted at too few tokens — Ollama dropped its
// earlier messages — even when the ratio alone looks plausible.
func TestContextOverflowDroppedMessages(t *testing.T) {
	sentence := "The Supplier shall deliver the goods on time. "
	fits := strings.Repeat(sentence, 30)  // 1380 characters
	long := strings.Repeat(sentence, 160) // 7360 characters
	srv := llmtest.NewServer(t,
		llmtest.Turn{Text: "ok", Usage: &llmtest.Usage{PromptTokens: 420, CompletionTokens: 1}},  // 3.3 characters per token
		llmtest.Turn{Text: "ok", Usage: &llmtest.Usage{PromptTokens: 1950, CompletionTokens: 1}}, // 3.8: fits
		llmtest.Turn{Text: "ok", Usage: &llmtest.Usage{PromptTokens: 1060, CompletionTokens: 1}}, // 6.9: dropped
	)
	srv.SetContextWindow(2048)
	c := newClient(t, srv, nil)
	ctx := context.Background()
	if _, err := c.Complete(ctx, llm.Request{Messages: user(fits)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(ctx, llm.Request{Messages: user(long)}); err != nil {
		t.Errorf("a long prompt counted at a plausible ratio: %v", err)
	}
	_, err := c.Complete(ctx, llm.Request{Messages: user(long)})
	if !errors.Is(err, llm.ErrContextOverflow) || !strings.Contains(err.Error(), "dropped part of the prompt") {
		t.Errorf("err %v, want ErrContextOverflow for dropped messages", err)
	}
}
