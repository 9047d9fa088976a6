package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "jina_TEST-secret-key-42"

// score is the scripted cross-encoder: it depends only on the document, so
// tests can predict every score.
func score(doc string) float64 { return float64(len(doc)) / 1000 }

// server is a scripted rerank endpoint in one of the real wire styles. Like
// the real servers it sorts results by descending score and rejects request
// bodies of the other style with 422.
type server struct {
	t        *testing.T
	style    string // "cohere", "jina" or "tei"
	maxBatch int    // tei: reject larger requests (default 32, like TEI)
	// script, when non-nil, may answer request number n itself.
	script func(n int, w http.ResponseWriter, r *http.Request) bool

	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
	calls  atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.calls.Add(1)) - 1
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	if r.URL.Path != "/rerank" && r.URL.Path != "/v1/rerank" {
		http.Error(w, `{"detail":"Not Found"}`, http.StatusNotFound)
		return
	}
	if s.script != nil && s.script(n, w, r) {
		return
	}
	query, _ := body["query"].(string)
	w.Header().Set("Content-Type", "application/json")
	if s.style == "tei" {
		texts, ok := body["texts"].([]any)
		if !ok || query == "" {
			w.WriteHeader(http.StatusUnprocessableEntity)
			w.Write([]byte("Failed to deserialize the JSON body into the target type: missing field `texts` at line 1 column 60"))
			return
		}
		limit := s.maxBatch
		if limit == 0 {
			limit = 32
		}
		if len(texts) > limit {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, `{"error":"batch size %d > maximum allowed batch size %d","error_type":"Validation"}`, len(texts), limit)
			return
		}
		type item struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		var out []item
		for i, t := range texts {
			out = append(out, item{i, score(t.(string))})
		}
		slices.SortFunc(out, func(a, b item) int { return int(1e6 * (b.Score - a.Score)) })
		json.NewEncoder(w).Encode(out)
		return
	}
	docs, ok := body["documents"].([]any)
	if !ok || query == "" {
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"detail":[{"loc":["body","documents"],"msg":"field required"}]}`))
		return
	}
	if model, _ := body["model"].(string); model == "" {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"message":"model is required"}`))
		return
	}
	topN := len(docs)
	if v, ok := body["top_n"].(float64); ok {
		topN = int(v)
	}
	type item struct {
		Index          int               `json:"index"`
		RelevanceScore float64           `json:"relevance_score"`
		Document       map[string]string `json:"document,omitempty"`
	}
	var results []item
	for i, d := range docs {
		it := item{Index: i, RelevanceScore: score(d.(string))}
		if s.style == "jina" && body["return_documents"] != false {
			it.Document = map[string]string{"text": d.(string)}
		}
		results = append(results, it)
	}
	slices.SortFunc(results, func(a, b item) int { return int(1e6 * (b.RelevanceScore - a.RelevanceScore)) })
	results = results[:min(topN, len(results))]
	resp := map[string]any{"results": results}
	if s.style == "jina" {
		resp["model"] = body["model"]
		resp["usage"] = map[string]int{"total_tokens": 42}
	} else {
		resp["id"] = "07734bd2-2473-4f07-94e1-0d9f0e6843cf"
		resp["meta"] = map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"search_units": 1}}
	}
	json.NewEncoder(w).Encode(resp)
}

func (s *server) start(cfg Config) *Client {
	s.t.Helper()
	hs := httptest.NewServer(s)
	s.t.Cleanup(hs.Close)
	cfg.BaseURL = hs.URL + "/v1"
	c, err := New(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	c.http.BaseDelay = time.Millisecond
	return c
}

func docs(n int) []string {
	out := make([]string, n)
	for i := range out {
		// Lengths differ, so scores differ and the server's sort reorders them.
		out[i] = fmt.Sprintf("clause %d %s", i, strings.Repeat("x", (i*7)%11))
	}
	return out
}

func checkScores(t *testing.T, got []float64, docs []string) {
	t.Helper()
	if len(got) != len(docs) {
		t.Fatalf("got %d scores for %d documents", len(got), len(docs))
	}
	for i, d := range docs {
		if got[i] != score(d) {
			t.Fatalf("score %d = %v, want %v (scores out of order?)", i, got[i], score(d))
		}
	}
}

func TestRerankStyles(t *testing.T) {
	tests := []struct {
		name        string
		server      string // the server's style
		style       string // Config.Style
		model       string
		n           int
		wantCalls   int64
		wantStyle   string   // Client.Style() afterwards
		wantFields  []string // body fields of the last request
		absentField []string
	}{
		{"cohere", "cohere", "cohere", "rerank-v3.5", 5, 1, "cohere", []string{"model", "query", "documents", "top_n"}, []string{"texts", "return_documents"}},
		{"jina", "jina", "jina", "jina-reranker-v2-base-multilingual", 5, 1, "jina", []string{"model", "query", "documents", "top_n", "return_documents"}, []string{"texts"}},
		{"tei", "tei", "tei", "", 5, 1, "tei", []string{"query", "texts", "truncate"}, []string{"documents", "model"}},
		{"tei with model set", "tei", "TEI", "BAAI/bge-reranker-base", 3, 1, "tei", []string{"query", "texts"}, []string{"documents"}},
		{"auto finds cohere", "cohere", "auto", "rerank-v3.5", 5, 1, "cohere", []string{"documents"}, []string{"texts"}},
		{"auto finds jina", "jina", "", "jina-reranker-v2", 5, 1, "cohere", []string{"documents"}, []string{"texts"}},
		{"auto falls back to tei", "tei", "auto", "", 5, 2, "tei", []string{"texts", "truncate"}, []string{"documents"}},
		{"auto batches against tei", "tei", "auto", "", 70, 4, "tei", []string{"texts"}, []string{"documents"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, style: tt.server}
			c := s.start(Config{Style: tt.style, Model: tt.model, APIKey: testKey})
			in := docs(tt.n)
			got, err := c.Rerank(context.Background(), "termination for convenience", in)
			if err != nil {
				t.Fatal(err)
			}
			checkScores(t, got, in)
			if n := s.calls.Load(); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
			if c.Style() != tt.wantStyle {
				t.Errorf("Style = %q, want %q", c.Style(), tt.wantStyle)
			}
			last := s.bodies[len(s.bodies)-1]
			for _, f := range tt.wantFields {
				if _, ok := last[f]; !ok {
					t.Errorf("request lacks %q: %v", f, last)
				}
			}
			for _, f := range tt.absentField {
				if _, ok := last[f]; ok {
					t.Errorf("request has %q: %v", f, last)
				}
			}
			if last["query"] != "termination for convenience" {
				t.Errorf("query = %v", last["query"])
			}
			if s.auth[0] != "Bearer "+testKey {
				t.Errorf("Authorization = %q", s.auth[0])
			}
		})
	}
}

func TestRerankAutoDetectionIsSticky(t *testing.T) {
	s := &server{t: t, style: "tei"}
	c := s.start(Config{})
	for range 3 {
		got, err := c.Rerank(context.Background(), "q", docs(4))
		if err != nil {
			t.Fatal(err)
		}
		checkScores(t, got, docs(4))
	}
	if n := s.calls.Load(); n != 4 {
		t.Errorf("server saw %d requests, want 4 (one failed probe, then tei only)", n)
	}
}

func TestRerankBatching(t *testing.T) {
	tests := []struct {
		style     string
		n, batch  int
		wantSizes []int
	}{
		{"cohere", 10, 4, []int{4, 4, 2}},
		{"tei", 33, 0, []int{32, 1}},
		{"jina", 3, 3, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.style, func(t *testing.T) {
			s := &server{t: t, style: tt.style}
			c := s.start(Config{Style: tt.style, Model: "m", BatchSize: tt.batch})
			in := docs(tt.n)
			got, err := c.Rerank(context.Background(), "q", in)
			if err != nil {
				t.Fatal(err)
			}
			checkScores(t, got, in)
			var sizes []int
			for _, b := range s.bodies {
				field := "documents"
				if tt.style == "tei" {
					field = "texts"
				}
				sizes = append(sizes, len(b[field].([]any)))
				if tt.style != "tei" && int(b["top_n"].(float64)) != len(b[field].([]any)) {
					t.Errorf("top_n = %v for %d documents", b["top_n"], len(b[field].([]any)))
				}
			}
			if !slices.Equal(sizes, tt.wantSizes) {
				t.Errorf("batch sizes = %v, want %v", sizes, tt.wantSizes)
			}
		})
	}
}

func TestRerankEmpty(t *testing.T) {
	s := &server{t: t, style: "cohere"}
	got, err := s.start(Config{Model: "m"}).Rerank(context.Background(), "q", nil)
	if got != nil || err != nil || s.calls.Load() != 0 {
		t.Errorf("Rerank(nil) = %v, %v after %d requests", got, err, s.calls.Load())
	}
}

func TestRerankErrors(t *testing.T) {
	reply := func(status int, body string, header ...string) func(int, http.ResponseWriter, *http.Request) bool {
		return func(n int, w http.ResponseWriter, r *http.Request) bool {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(status)
			w.Write([]byte(body))
			return true
		}
	}
	tests := []struct {
		name      string
		style     string
		script    func(int, http.ResponseWriter, *http.Request) bool
		wantErr   []string
		wantCalls int64
	}{
		{"missing result", "cohere", reply(200, `{"results":[{"index":0,"relevance_score":0.9}]}`), []string{"scored 1 of 2"}, 1},
		{"duplicate index", "cohere", reply(200, `{"results":[{"index":1,"relevance_score":0.9},{"index":1,"relevance_score":0.1}]}`), []string{"index 1 appears twice"}, 1},
		{"index out of range", "tei", reply(200, `[{"index":0,"score":1},{"index":5,"score":0}]`), []string{"index 5 for 2"}, 1},
		{"no score", "tei", reply(200, `[{"index":0},{"index":1}]`), []string{"no relevance_score or score"}, 1},
		{"no results field", "cohere", reply(200, `{"data":[]}`), []string{`no "results"`}, 1},
		{"html", "cohere", reply(200, `<html>proxy</html>`), []string{"neither a JSON object nor an array"}, 1},
		{"401 not retried", "jina", reply(401, `{"detail":"Invalid API key: `+testKey+`"}`), []string{"401 Unauthorized", "Invalid API key"}, 1},
		{"400 not retried", "cohere", reply(400, `{"message":"invalid request: documents must not be empty"}`), []string{"400 Bad Request", "documents must not be empty"}, 1},
		{"503 exhausted", "tei", reply(503, `{"error":"Model is overloaded","error_type":"Overloaded"}`), []string{"giving up after 3 attempts", "503", "Model is overloaded"}, 3},
		{"auto: auth failure is not a style problem", "auto", reply(403, `{"message":"forbidden"}`), []string{"403 Forbidden"}, 1},
		{"auto: both styles rejected", "auto", reply(404, `{"detail":"Not Found"}`), []string{"cohere/jina request failed", "tei request failed", "404"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, style: "cohere", script: tt.script}
			c := s.start(Config{Style: tt.style, Model: "m", MaxRetries: 2, APIKey: testKey})
			_, err := c.Rerank(context.Background(), "q", []string{"a", "b"})
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the API key: %v", err)
			}
			if n := s.calls.Load(); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestRerankRetryAfterThenSuccess(t *testing.T) {
	s := &server{t: t, style: "jina", script: func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"detail":"rate limit exceeded"}`))
			return true
		}
		return false
	}}
	c := s.start(Config{Style: "jina", Model: "m"})
	start := time.Now()
	got, err := c.Rerank(context.Background(), "q", docs(3))
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, got, docs(3))
	if time.Since(start) < 900*time.Millisecond {
		t.Errorf("retried after %v, before Retry-After", time.Since(start))
	}
	if c.Requests() != 2 {
		t.Errorf("Requests = %d, want 2", c.Requests())
	}
}

func TestRerankTimeoutAndCancel(t *testing.T) {
	hang := func(n int, w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	}
	t.Run("timeout", func(t *testing.T) {
		s := &server{t: t, style: "tei", script: hang}
		c := s.start(Config{Style: "tei", Timeout: 100 * time.Millisecond, MaxRetries: -1})
		_, err := c.Rerank(context.Background(), "q", docs(2))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want deadline exceeded", err)
		}
		if s.calls.Load() != 1 {
			t.Errorf("server saw %d requests with retries disabled", s.calls.Load())
		}
	})
	t.Run("cancel mid-retry", func(t *testing.T) {
		s := &server{t: t, style: "cohere", script: func(n int, w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusBadGateway)
			return true
		}}
		c := s.start(Config{Style: "cohere", Model: "m"})
		c.http.BaseDelay = 10 * time.Second
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err := c.Rerank(ctx, "q", docs(2))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		if time.Since(start) > 2*time.Second || s.calls.Load() != 1 {
			t.Errorf("cancelled after %v and %d requests", time.Since(start), s.calls.Load())
		}
	})
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
		wantURL string
	}{
		{"tei root", Config{BaseURL: "http://localhost:8080", Style: "tei"}, "", "http://localhost:8080/rerank"},
		{"jina", Config{BaseURL: "https://api.jina.ai/v1/", Model: "m", Style: "jina"}, "", "https://api.jina.ai/v1/rerank"},
		{"full endpoint", Config{BaseURL: "http://h/v1/rerank", Model: "m"}, "", "http://h/v1/rerank"},
		{"auto without model", Config{BaseURL: "http://h"}, "", "http://h/rerank"},
		{"no url", Config{Model: "m"}, "base URL is required", ""},
		{"bad style", Config{BaseURL: "http://h", Style: "voyage"}, "must be auto, cohere, jina or tei", ""},
		{"cohere needs model", Config{BaseURL: "http://h", Style: "cohere"}, "Model is required", ""},
		{"bad batch", Config{BaseURL: "http://h", BatchSize: -1}, "BatchSize", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.url != tt.wantURL {
				t.Errorf("url = %q, want %q", c.url, tt.wantURL)
			}
		})
	}
	c, _ := New(Config{BaseURL: "http://h", Model: "bge"})
	if c.batchSize != DefaultBatchSize || c.http.MaxRetries != DefaultMaxRetries || c.http.Timeout != DefaultTimeout ||
		c.Name() != "bge" || c.Style() != "auto" {
		t.Errorf("defaults: %+v, name %q, style %q", c, c.Name(), c.Style())
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("PAKTON_RERANK_URL", "")
	if _, ok := FromEnv(); ok {
		t.Error("FromEnv ok with no URL")
	}
	t.Setenv("PAKTON_RERANK_URL", " http://localhost:8080 ")
	t.Setenv("PAKTON_RERANK_MODEL", "BAAI/bge-reranker-v2-m3")
	t.Setenv("PAKTON_RERANK_API_KEY", "k")
	t.Setenv("PAKTON_RERANK_STYLE", "tei")
	cfg, ok := FromEnv()
	want := Config{BaseURL: "http://localhost:8080", Model: "BAAI/bge-reranker-v2-m3", APIKey: "k", Style: "tei"}
	if !ok || cfg != want {
		t.Errorf("FromEnv = %+v, %v; want %+v", cfg, ok, want)
	}
	if _, err := New(cfg); err != nil {
		t.Error(err)
	}
}
