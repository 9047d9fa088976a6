package embed

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/llm/llmtest"
)

// TestWireShape pins what an embeddings request looks like on the wire,
// against the scripted OpenAI server: the path, the JSON body (model, the
// input array, encoding_format "float", dimensions only when asked for, and
// nothing else), the content type and the bearer key only when one is set.
// A change of the HTTP client underneath must keep every one of them.
func TestWireShape(t *testing.T) {
	vec := func(s string) []float32 { return []float32{float32(len(s)), 1} }
	for _, tc := range []struct {
		name     string
		cfg      Config
		wantBody map[string]any
		wantAuth string
	}{
		{"plain", Config{Model: "nomic-embed-text"},
			map[string]any{"model": "nomic-embed-text", "input": []any{"alpha", "beta gamma"}, "encoding_format": "float"}, ""},
		{"key and dimensions", Config{Model: "text-embedding-3-large", APIKey: "sk-test", Dimensions: 2},
			map[string]any{"model": "text-embedding-3-large", "input": []any{"alpha", "beta gamma"}, "encoding_format": "float", "dimensions": 2.0}, "Bearer sk-test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Turn{Endpoint: llmtest.Embeddings, Embed: vec})
			cfg := tc.cfg
			cfg.BaseURL = srv.BaseURL()
			cfg.Timeout = 10 * time.Second
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			vecs, err := c.Embed(context.Background(), []string{"alpha", "beta gamma"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(vecs, [][]float32{{5, 1}, {10, 1}}) {
				t.Errorf("vectors = %v", vecs)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != "POST" || r.Path != "/v1/embeddings" {
				t.Errorf("request %s %s", r.Method, r.Path)
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(body, tc.wantBody) {
				t.Errorf("body = %s\nwant %v", r.Body, tc.wantBody)
			}
			if got := r.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
			if got := r.Header.Get("Authorization"); got != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tc.wantAuth)
			}
		})
	}
}
