// Package embedtest provides a scripted OpenAI-compatible embeddings server
// for tests. It is test-only code: import it from _test.go files, never from
// the product. pakton never computes embeddings itself.
package embedtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Server answers POST /v1/embeddings the way an OpenAI-compatible server
// does. Its "model" is a scripted table: each word of Concepts adds one to
// its concept's dimension, so words of one concept ("cancel", "terminate")
// embed alike while sharing no letters. Every vector also gets a small
// constant component, so no text embeds to zero.
type Server struct {
	*httptest.Server
	Concepts map[string]int
	Dim      int
	requests atomic.Int64
}

// NewServer starts a server (closed when the test ends).
func NewServer(t testing.TB, concepts map[string]int) *Server {
	t.Helper()
	dim := 1
	for _, d := range concepts {
		dim = max(dim, d+2)
	}
	s := &Server{Concepts: concepts, Dim: dim}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL returns the base URL to configure, ending in /v1.
func (s *Server) BaseURL() string { return s.Server.URL + "/v1" }

// Requests returns how many embedding requests the server answered.
func (s *Server) Requests() int64 { return s.requests.Load() }

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	s.requests.Add(1)
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, 0, len(req.Input))
	for i, text := range req.Input {
		v := make([]float32, s.Dim)
		v[s.Dim-1] = 0.01
		for _, w := range strings.Fields(strings.ToLower(text)) {
			if d, ok := s.Concepts[strings.Trim(w, ".,;:?!()\"'")]; ok {
				v[d]++
			}
		}
		data = append(data, item{"embedding", i, v})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
}
