package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrContextOverflow is wrapped by Complete's error when the reply shows
// that the server cut the prompt to fit the model's context window: the
// model answered a prompt pakton did not send.
//
// Servers differ. vLLM, llama.cpp's server and OpenAI refuse such a
// request with an error. Ollama truncates silently (v0.17.4, measured
// against the real server): a prompt of one long message keeps its first
// 4 tokens and its last num_ctx−4, losing the system prompt and the start
// of the evidence; a conversation first loses whole earlier messages. Its
// default window on a machine without a GPU is 4096 tokens. Two signs give
// it away, and Complete checks both:
//
//   - the prompt filled the window: usage.prompt_tokens is at least the
//     context length Ollama reports for the loaded model (GET /api/ps,
//     asked once per client);
//   - the prompt shrank: it holds more than maxRunesPerToken characters
//     per prompt token, more than any tokenizer packs into a token; or,
//     once the window is known, it would need more tokens than the window
//     at the characters per token the server counted for earlier prompts
//     that fit, and was counted at far fewer (whole messages dropped).
var ErrContextOverflow = errors.New("the prompt did not fit the model's context window")

// maxRunesPerToken bounds how many characters of ordinary text one token
// covers (English BPE vocabularies average about 4); a prompt counted at
// fewer tokens than its length over this bound was cut.
const maxRunesPerToken = 10

// minCheckedRunes: shorter prompts are dominated by the chat template's
// tokens and are not checked by the ratio.
const minCheckedRunes = 2000

// windowUnknown and windowNone are the states of Client.window besides a
// known context length.
const (
	windowUnknown = 0
	windowNone    = -1 // the server does not report it (not Ollama)
)

// checkWindow reports ErrContextOverflow when resp shows the prompt was
// cut.
func (c *Client) checkWindow(ctx context.Context, req Request, resp *Response) error {
	if resp == nil || resp.Usage.PromptTokens <= 0 {
		return nil
	}
	got := resp.Usage.PromptTokens
	runes := promptRunes(req)
	if runes >= minCheckedRunes && runes > maxRunesPerToken*got {
		return fmt.Errorf("%w: the server counted %d prompt tokens for %d characters, so it dropped part of the prompt%s",
			ErrContextOverflow, got, runes, c.windowAdvice())
	}
	w := c.contextWindow(ctx)
	if w > 0 && got > w {
		// More tokens than the kept window holds: the model was reloaded
		// with another window since.
		c.window.Store(windowUnknown)
		w = c.contextWindow(ctx)
	}
	if w <= 0 {
		return nil
	}
	if got >= w {
		return fmt.Errorf("%w: the prompt filled the whole %d-token window of %s (%d prompt tokens for %d characters), so the server cut it%s",
			ErrContextOverflow, w, c.cfg.Model, got, runes, c.windowAdvice())
	}
	// Learn how many characters this server's tokenizer puts in a token
	// from prompts that fit for certain (no more characters than the
	// window has tokens) and are long enough for the template's tokens not
	// to matter; keep the largest ratio seen.
	ratio := float64(runes) / float64(got)
	if runes >= minCheckedRunes/2 && runes <= w && ratio <= maxRunesPerToken {
		for {
			old := c.ratio.Load()
			if math.Float64frombits(old) >= ratio || c.ratio.CompareAndSwap(old, math.Float64bits(ratio)) {
				break
			}
		}
	}
	// A prompt that at that ratio needs more tokens than the window, and
	// was counted at far fewer: the server dropped earlier messages.
	if r := math.Float64frombits(c.ratio.Load()); r > 0 && float64(runes) > r*float64(w) && ratio > 1.3*r {
		return fmt.Errorf("%w: at the %.1f characters per token the server counted for earlier prompts, these %d characters need about %d tokens, more than the %d-token window of %s, and the server counted %d: it dropped part of the prompt%s",
			ErrContextOverflow, r, runes, int(float64(runes)/r), w, c.cfg.Model, got, c.windowAdvice())
	}
	return nil
}

func (c *Client) windowAdvice() string {
	return "; give the model a larger context window (Ollama: OLLAMA_CONTEXT_LENGTH=32768 when starting `ollama serve`, or PARAMETER num_ctx in the model's Modelfile)"
}

// promptRunes counts the characters a request sends as prompt text.
func promptRunes(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Content)
		for _, tc := range m.ToolCalls {
			n += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += utf8.RuneCountInString(t.Name) + utf8.RuneCountInString(t.Description) + len(t.Parameters)
	}
	return n
}

// contextWindow returns the context length the server reports for the
// model, or 0 when it reports none. Only Ollama does (GET /api/ps lists
// the loaded models with their context_length); the answer is asked once
// and kept (checkWindow asks again when a prompt exceeds the kept one: the
// model was reloaded with another window).
func (c *Client) contextWindow(ctx context.Context) int {
	w := c.window.Load()
	if w == windowNone {
		return 0
	}
	if w > 0 {
		return int(w)
	}
	n, ok := c.askWindow(ctx)
	switch {
	case !ok:
		c.window.Store(windowNone)
		return 0
	case n > 0:
		c.window.Store(int64(n))
	}
	return n
}

// askWindow asks an Ollama server for the loaded model's context length.
// ok is false when the server is not Ollama (or not reachable so).
func (c *Client) askWindow(ctx context.Context) (n int, ok bool) {
	root, found := strings.CutSuffix(c.cfg.BaseURL, "/v1")
	if !found || c.cfg.Azure {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, root+"/api/ps", nil)
	if err != nil {
		return 0, false
	}
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false
	}
	var ps struct {
		Models *[]struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&ps); err != nil || ps.Models == nil {
		return 0, false
	}
	want := c.cfg.Model
	if !strings.Contains(want, ":") {
		want += ":latest"
	}
	for _, m := range *ps.Models {
		if m.Name == want || m.Model == want || m.Name == c.cfg.Model {
			return m.ContextLength, true
		}
	}
	return 0, true // Ollama, but the model is not loaded (any more): ask again next time
}
