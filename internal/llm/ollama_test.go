package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/ollamatest"
)

// The real-server tests (PAKTON_OLLAMA=1): the client against `ollama
// serve` with the tiny random-weight models of internal/llm/ollamatest.

// ollamaClient returns a client for the server's OpenAI-compatible API.
func ollamaClient(t *testing.T, srv *ollamatest.Server, model string, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: srv.URL + "/v1", Model: model, Timeout: 2 * time.Minute,
		RetryBaseDelay: 50 * time.Millisecond, RetryMaxDelay: time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wireSchema uses every schema feature pakton's prompts send: nested
// objects, enums of strings, arrays with item enums and bounds, required
// properties, additionalProperties false, booleans and numbers.
const wireSchema = `{"type":"object","properties":{` +
	`"label":{"type":"string","enum":["Entailment","Contradiction","NotMentioned"]},` +
	`"evidence":{"type":"array","items":{"type":"string","enum":["P1","P2","P3"]},"maxItems":2},` +
	`"found":{"type":"boolean"},` +
	`"confidence":{"type":"number"},` +
	`"quotes":{"type":"array","items":{"type":"object","properties":{` +
	`"passage":{"type":"string"},"text":{"type":"string","minLength":1}},` +
	`"required":["passage","text"],"additionalProperties":false}},` +
	`"rationale":{"type":"string"}},` +
	`"required":["label","evidence","found","confidence","quotes","rationale"],"additionalProperties":false}`

func TestOllamaWire(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 8192})
	t.Logf("ollama %s at %s", srv.Version, srv.URL)
	c := ollamaClient(t, srv, srv.ChatModel, nil)
	ctx := context.Background()

	t.Run("structured output honours the schema", func(t *testing.T) {
		schema, err := llm.ParseSchema(json.RawMessage(wireSchema))
		if err != nil {
			t.Fatal(err)
		}
		valid := 0
		for i := 0; i < 4; i++ {
			var out map[string]any
			resp, err := llm.CompleteJSON(ctx, c, llm.Request{Step: "wire",
				Messages: user(fmt.Sprintf("Classify hypothesis %d against passages P1-P3.", i)),
				Schema:   &llm.Schema{Name: "wire", Schema: json.RawMessage(wireSchema)}}, &out)
			if err != nil {
				// A reply the grammar let through that our validator
				// refuses must be reported as invalid JSON, nothing else.
				if !errors.Is(err, llm.ErrInvalidJSON) {
					t.Fatalf("reply %d: %v", i, err)
				}
				t.Logf("reply %d refused by validation: %v", i, err)
				continue
			}
			if err := schema.Validate(out); err != nil {
				t.Fatalf("CompleteJSON accepted an invalid reply %v: %v", out, err)
			}
			t.Logf("reply %d: %d+%d tokens: %.200s", i, resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Message.Content)
			if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
				t.Errorf("reply %d: usage %+v", i, resp.Usage)
			}
			valid++
		}
		if valid == 0 {
			t.Error("no reply matched the schema: the server did not constrain decoding to it")
		}
	})

	t.Run("json modes", func(t *testing.T) {
		for _, mode := range []string{llm.JSONModeObject, llm.JSONModeNone} {
			cm := ollamaClient(t, srv, srv.ChatModel, func(cfg *llm.Config) { cfg.JSONMode = mode })
			var out map[string]any
			_, err := llm.CompleteJSON(ctx, cm, llm.Request{Messages: user("Reply in JSON."),
				Schema: &llm.Schema{Name: "wire", Schema: json.RawMessage(wireSchema)}}, &out)
			// Without the schema on the wire, an untrained model cannot be
			// expected to match it: only the kind of failure is checked.
			if err != nil && !errors.Is(err, llm.ErrInvalidJSON) {
				t.Errorf("%s: %v", mode, err)
			}
		}
	})

	t.Run("streaming delivers the reply and its usage", func(t *testing.T) {
		var mu sync.Mutex
		var deltas []string
		resp, err := c.Complete(ctx, llm.Request{Messages: user("Say something."), MaxTokens: 64,
			Stream: func(d string) { mu.Lock(); deltas = append(deltas, d); mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(deltas, "") != resp.Message.Content {
			t.Errorf("deltas %q do not add up to the reply %q", deltas, resp.Message.Content)
		}
		if resp.Usage.PromptTokens == 0 {
			t.Errorf("streamed reply has no usage: %+v (finish %q)", resp.Usage, resp.FinishReason)
		}
		if resp.FinishReason == "" {
			t.Error("streamed reply has no finish reason")
		}
	})

	t.Run("token accounting", func(t *testing.T) {
		prompt := strings.Repeat("The Supplier shall deliver the goods. ", 20)
		resp, err := c.Complete(ctx, llm.Request{Messages: user(prompt), MaxTokens: 8})
		if err != nil {
			t.Fatal(err)
		}
		// Between one token per byte and one per word, plus the template.
		if resp.Usage.PromptTokens < len(strings.Fields(prompt)) || resp.Usage.PromptTokens > len(prompt)+200 {
			t.Errorf("prompt tokens %d for a %d-byte prompt", resp.Usage.PromptTokens, len(prompt))
		}
		if resp.Usage.CompletionTokens < 1 || resp.Usage.CompletionTokens > 8 {
			t.Errorf("completion tokens %d with max_tokens 8", resp.Usage.CompletionTokens)
		}
		if resp.Usage.CompletionTokens == 8 && resp.FinishReason != "length" {
			t.Errorf("a reply cut at max_tokens has finish reason %q", resp.FinishReason)
		}
	})

	t.Run("tools are accepted", func(t *testing.T) {
		resp, err := c.Complete(ctx, llm.Request{Messages: user("Search the contract for the cap."),
			Tools: []llm.ToolSpec{searchTool}, MaxTokens: 64})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range resp.Message.ToolCalls {
			if tc.Name != "search" || !json.Valid([]byte(tc.Arguments)) {
				t.Errorf("malformed tool call %+v", tc)
			}
		}
	})

	t.Run("context window smaller than the prompt", func(t *testing.T) {
		// Ollama cuts such a prompt silently; the client must notice.
		if err := srv.Create(ctx, "small-window", ollamatest.ChatSpec{}, map[string]string{"num_ctx": "512"}); err != nil {
			t.Fatal(err)
		}
		cs := ollamaClient(t, srv, "small-window", nil)
		long := strings.Repeat("The Supplier shall deliver the goods on time. ", 60)
		for name, msgs := range map[string][]llm.Message{
			// The runner keeps 4 tokens and the tail: the window is full.
			"one long message": {{Role: llm.RoleSystem, Content: "You are careful."}, {Role: llm.RoleUser, Content: long}},
			// The server drops the earlier messages: far fewer tokens.
			"a conversation": {{Role: llm.RoleSystem, Content: "You are careful."}, {Role: llm.RoleUser, Content: long},
				{Role: llm.RoleAssistant, Content: "Noted."}, {Role: llm.RoleUser, Content: "And the price?"}},
		} {
			resp, err := cs.Complete(ctx, llm.Request{Messages: msgs, MaxTokens: 8})
			if !errors.Is(err, llm.ErrContextOverflow) {
				t.Errorf("%s: err %v (usage %+v), want ErrContextOverflow", name, err, resp)
			} else {
				t.Logf("%s: %v", name, err)
			}
		}
		// A prompt that fits is answered.
		if _, err := cs.Complete(ctx, llm.Request{Messages: user("hello"), MaxTokens: 8}); err != nil {
			t.Errorf("short prompt: %v", err)
		}

		// A conversation just over a 2048-token window loses its first
		// long message: the ratio of characters to tokens stays
		// plausible, but not against what the server counted before.
		if err := srv.Create(ctx, "window-2k", ollamatest.ChatSpec{}, map[string]string{"num_ctx": "2048"}); err != nil {
			t.Fatal(err)
		}
		c2 := ollamaClient(t, srv, "window-2k", nil)
		sentence := "The Supplier shall deliver the goods on time. "
		if _, err := c2.Complete(ctx, llm.Request{Messages: user(strings.Repeat(sentence, 30)), MaxTokens: 8}); err != nil {
			t.Fatalf("a prompt that fits: %v", err)
		}
		resp, err := c2.Complete(ctx, llm.Request{MaxTokens: 8, Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are careful."},
			{Role: llm.RoleUser, Content: strings.Repeat(sentence, 200)},
			{Role: llm.RoleAssistant, Content: "Noted."},
			{Role: llm.RoleUser, Content: strings.Repeat(sentence, 100)}}})
		if !errors.Is(err, llm.ErrContextOverflow) {
			t.Errorf("conversation over the window: err %v (reply %+v), want ErrContextOverflow", err, resp)
		} else {
			t.Logf("conversation over a 2048-token window: %v", err)
		}
	})

	t.Run("llama architecture on the llama.cpp runner", func(t *testing.T) {
		// Ollama runs the llama architecture with llama.cpp's runner (its
		// own tokenizer and grammar sampler), qwen3 with its own engine.
		if err := srv.Create(ctx, "tiny-llama", ollamatest.ChatSpec{Arch: "llama"}, map[string]string{"num_ctx": "8192"}); err != nil {
			t.Fatal(err)
		}
		cl := ollamaClient(t, srv, "tiny-llama", nil)
		var out map[string]any
		resp, err := llm.CompleteJSON(ctx, cl, llm.Request{Messages: user("Classify the hypothesis."),
			Schema: &llm.Schema{Name: "wire", Schema: json.RawMessage(wireSchema)}}, &out)
		if err != nil && !errors.Is(err, llm.ErrInvalidJSON) {
			t.Fatal(err)
		}
		if err == nil && (resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0) {
			t.Errorf("usage %+v", resp.Usage)
		}
		if _, err := cl.Complete(ctx, llm.Request{Messages: user("hello"), MaxTokens: 16,
			Stream: func(string) {}}); err != nil {
			t.Errorf("streamed reply: %v", err)
		}
	})

	t.Run("unknown model", func(t *testing.T) {
		cm := ollamaClient(t, srv, "no-such-model", nil)
		_, err := cm.Complete(ctx, llm.Request{Messages: user("hello")})
		var se *llm.StatusError
		if !errors.As(err, &se) || se.StatusCode != 404 || !strings.Contains(err.Error(), "no-such-model") {
			t.Errorf("err %v, want a 404 naming the model", err)
		}
		if se != nil && se.Retryable() {
			t.Error("a missing model is retried")
		}
	})
}

// TestOllamaInterruptions covers calls that do not finish: a cancelled
// request, a call that outlives its timeout, and a server that dies while
// it streams. The endless variant of the model keeps every call in flight
// until it is interrupted.
func TestOllamaInterruptions(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 4096})
	ctx := context.Background()
	if err := srv.Create(ctx, "endless", ollamatest.ChatSpec{Endless: true}, map[string]string{"num_ctx": "4096"}); err != nil {
		t.Fatal(err)
	}
	endless := ollamaClient(t, srv, "endless", nil)

	t.Run("cancelled request", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		got := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			_, err := endless.Complete(cctx, llm.Request{Messages: user("Talk."), MaxTokens: 100000,
				Stream: func(string) {
					select {
					case got <- struct{}{}:
					default:
					}
				}})
			done <- err
		}()
		select {
		case <-got:
		case err := <-done:
			t.Fatalf("the call ended before any text: %v", err)
		case <-time.After(2 * time.Minute):
			t.Fatal("no text within 2 minutes")
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Complete did not return after its context was cancelled")
		}
		// The server is still usable: the next call is answered.
		short := ollamaClient(t, srv, srv.ChatModel, nil)
		if _, err := short.Complete(ctx, llm.Request{Messages: user("hello"), MaxTokens: 4}); err != nil {
			t.Errorf("call after a cancelled one: %v", err)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		// A model of its own: Ollama may go on generating for a request
		// whose client gave up, and hold its one slot (seen once: the next
		// request to the same model waited two minutes).
		if err := srv.Create(ctx, "endless-timeout", ollamatest.ChatSpec{Endless: true, Seed: 2}, map[string]string{"num_ctx": "4096"}); err != nil {
			t.Fatal(err)
		}
		slow := ollamaClient(t, srv, "endless-timeout", func(cfg *llm.Config) { cfg.Timeout = 2 * time.Second })
		_, err := slow.Complete(ctx, llm.Request{Messages: user("Talk."), MaxTokens: 100000})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "PAKTON_LLM_TIMEOUT") {
			t.Errorf("err %v, want a timeout naming PAKTON_LLM_TIMEOUT", err)
		}
	})

	t.Run("server dies mid-call", func(t *testing.T) {
		got := make(chan struct{}, 1)
		done := make(chan error, 1)
		var resp *llm.Response
		go func() {
			var err error
			resp, err = endless.Complete(ctx, llm.Request{Messages: user("Talk."), MaxTokens: 100000,
				Stream: func(string) {
					select {
					case got <- struct{}{}:
					default:
					}
				}})
			done <- err
		}()
		select {
		case <-got:
		case <-time.After(2 * time.Minute):
			t.Fatal("no text within 2 minutes")
		}
		srv.Kill()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "stream broke after partial reply") {
				t.Errorf("err %v, want a broken stream", err)
			}
			if resp == nil || resp.Message.Content == "" {
				t.Errorf("the partial reply was lost: %+v", resp)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Complete did not return after the server died")
		}
		// With the server gone, a new call fails after its retries with a
		// connection error naming the server.
		_, err := endless.Complete(ctx, llm.Request{Messages: user("hello")})
		if err == nil || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "giving up after") {
			t.Errorf("call to a dead server: %v", err)
		}
	})
}
