package llmtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pakton/pakton/internal/llm/llmtest"
)

// recorder captures the failures the server reports instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestUnmatchedAndUnusedFail(t *testing.T) {
	rec := &recorder{}
	t.Run("script", func(t *testing.T) {
		rec.TB = t
		srv := llmtest.NewServer(rec,
			llmtest.Turn{Name: "archivist", Match: llmtest.SystemContains("ARCHIVIST")},
			llmtest.Turn{Name: "never", Text: "x"},
		)
		resp := post(t, srv.BaseURL()+"/chat/completions", map[string]any{
			"model": "m", "messages": []any{map[string]any{"role": "system", "content": "WRITER"}, map[string]any{"role": "user", "content": "hello"}},
		})
		resp.Body.Close()
		// The unmatched request is answered by "never" (no predicate), so
		// "archivist" stays unused.
		if resp.StatusCode != 200 {
			t.Errorf("status %d", resp.StatusCode)
		}
		resp = post(t, srv.BaseURL()+"/chat/completions", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "again"}}})
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("unmatched request got status %d", resp.StatusCode)
		}
	})
	joined := strings.Join(rec.errs, "\n")
	if !strings.Contains(joined, `matched no scripted turn`) || !strings.Contains(joined, `"again"`) ||
		!strings.Contains(joined, `turn 0 "archivist" was never used`) {
		t.Errorf("reported failures:\n%s", joined)
	}
}

func TestContentPartsAndEmbeddings(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "parts", Match: llmtest.Contains("hello world"), Text: "ok"},
		llmtest.Turn{Name: "embed", Endpoint: llmtest.Embeddings, Embed: func(s string) []float32 { return []float32{float32(len(s)), 1} }},
	)
	resp := post(t, srv.BaseURL()+"/chat/completions", map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hello "}, map[string]any{"type": "text", "text": "world"}}},
	}})
	resp.Body.Close()
	resp = post(t, srv.BaseURL()+"/embeddings", map[string]any{"model": "e", "input": []string{"abc", "de"}})
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Data) != 2 || out.Data[1].Embedding[0] != 2 {
		t.Errorf("embeddings %+v, %v", out, err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Input[0] != "abc" {
		t.Errorf("requests %+v", reqs)
	}
}
