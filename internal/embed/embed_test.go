package embed

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-pakton-TEST-0123456789"

// server is a scripted OpenAI-compatible /embeddings endpoint. Each text
// "t<N>" embeds to [N, 1, 2] (or dim(N) numbers when dim is set), so tests can
// check that every vector came back in its text's position.
type server struct {
	t *testing.T
	// script, when non-nil, may answer request number n (0-based) itself by
	// returning true.
	script  func(n int, w http.ResponseWriter, r *http.Request) bool
	reverse bool // return data in reverse order
	base64  bool // return embeddings as base64 strings
	dim     func(text string) int

	mu       sync.Mutex
	requests []request
	auth     []string
	calls    atomic.Int64
}

// request is an embeddings request as the test server decodes it.
type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.calls.Add(1)) - 1
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	if s.script != nil && s.script(n, w, r) {
		return
	}
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	var data []item
	tokens := 0
	for i, text := range req.Input {
		id, _ := strconv.Atoi(strings.TrimPrefix(text, "t"))
		d := 3
		if s.dim != nil {
			d = s.dim(text)
		}
		v := make([]float32, d)
		v[0] = float32(id)
		for j := 1; j < d; j++ {
			v[j] = float32(j)
		}
		var emb any = v
		if s.base64 {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(b)
		}
		data = append(data, item{"embedding", i, emb})
		tokens += len(strings.Fields(text))
	}
	if s.reverse {
		for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
			data[i], data[j] = data[j], data[i]
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// start runs s and returns a Client for it with fast backoff.
func (s *server) start(cfg Config) *Client {
	s.t.Helper()
	hs := httptest.NewServer(s)
	s.t.Cleanup(hs.Close)
	cfg.BaseURL = hs.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "nomic-embed-text"
	}
	c, err := New(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	c.http.BaseDelay = time.Millisecond
	return c
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

// checkOrder verifies that vecs[i] is the embedding of "t<i>".
func checkOrder(t *testing.T, vecs [][]float32, n int) {
	t.Helper()
	if len(vecs) != n {
		t.Fatalf("got %d vectors, want %d", len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) == 0 || v[0] != float32(i) {
			t.Fatalf("vector %d = %v, want the embedding of t%d", i, v, i)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
		wantURL string
	}{
		{"ollama", Config{BaseURL: "http://localhost:11434/v1", Model: "m"}, "", "http://localhost:11434/v1/embeddings"},
		{"trailing slash", Config{BaseURL: "https://api.openai.com/v1/", Model: "m"}, "", "https://api.openai.com/v1/embeddings"},
		{"full endpoint", Config{BaseURL: "http://h:8080/v1/embeddings", Model: "m"}, "", "http://h:8080/v1/embeddings"},
		{"no url", Config{Model: "m"}, "base URL is required", ""},
		{"no scheme", Config{BaseURL: "localhost:11434/v1", Model: "m"}, "http or https", ""},
		{"no model", Config{BaseURL: "http://h/v1"}, "Model is required", ""},
		{"bad dim", Config{BaseURL: "http://h/v1", Model: "m", Dimensions: -1}, "positive integer", ""},
		{"bad batch", Config{BaseURL: "http://h/v1", Model: "m", BatchSize: -3}, "BatchSize", ""},
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
}

func TestNewDefaults(t *testing.T) {
	c, err := New(Config{BaseURL: "http://h/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if c.batchSize != DefaultBatchSize || c.http.MaxRetries != DefaultMaxRetries || c.http.Timeout != DefaultTimeout {
		t.Errorf("defaults: batch %d, retries %d, timeout %v", c.batchSize, c.http.MaxRetries, c.http.Timeout)
	}
	if c.Dim() != 0 || c.Name() != "m" {
		t.Errorf("Dim = %d, Name = %q before any request", c.Dim(), c.Name())
	}
	c, _ = New(Config{BaseURL: "http://h/v1", Model: "m", MaxRetries: -1, Dimensions: 256})
	if c.http.MaxRetries != 0 || c.Dim() != 256 || c.Name() != "m@256" {
		t.Errorf("MaxRetries -1 → %d; Dimensions 256 → Dim %d, Name %q", c.http.MaxRetries, c.Dim(), c.Name())
	}
}

func TestEmbedBatchingAndOrder(t *testing.T) {
	tests := []struct {
		name      string
		n, batch  int
		reverse   bool
		base64    bool
		wantSizes []int
	}{
		{"one batch", 5, 64, false, false, []int{5}},
		{"exact batches", 6, 3, false, false, []int{3, 3}},
		{"ragged batches, reversed", 10, 3, true, false, []int{3, 3, 3, 1}},
		{"batch of one", 3, 1, true, false, []int{1, 1, 1}},
		{"base64", 7, 4, false, true, []int{4, 3}},
		{"base64 reversed", 7, 4, true, true, []int{4, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, reverse: tt.reverse, base64: tt.base64}
			c := s.start(Config{BatchSize: tt.batch})
			vecs, err := c.Embed(context.Background(), texts(tt.n))
			if err != nil {
				t.Fatal(err)
			}
			checkOrder(t, vecs, tt.n)
			if len(s.requests) != len(tt.wantSizes) {
				t.Fatalf("%d requests, want %d", len(s.requests), len(tt.wantSizes))
			}
			next := 0
			for i, r := range s.requests {
				if len(r.Input) != tt.wantSizes[i] {
					t.Errorf("request %d has %d texts, want %d", i, len(r.Input), tt.wantSizes[i])
				}
				for _, text := range r.Input {
					if text != fmt.Sprintf("t%d", next) {
						t.Errorf("request %d sent %q, want t%d", i, text, next)
					}
					next++
				}
				if r.Model != "nomic-embed-text" || r.EncodingFormat != "float" || r.Dimensions != 0 {
					t.Errorf("request %d = %+v", i, r)
				}
			}
			if c.Dim() != 3 {
				t.Errorf("Dim = %d, want 3", c.Dim())
			}
			st := c.Stats()
			if st.Requests != int64(len(tt.wantSizes)) || st.Retries != 0 || st.Texts != int64(tt.n) || st.PromptTokens != int64(tt.n) {
				t.Errorf("Stats = %+v", st)
			}
		})
	}
}

func TestEmbedEmptyInput(t *testing.T) {
	s := &server{t: t}
	c := s.start(Config{})
	for _, in := range [][]string{nil, {}} {
		vecs, err := c.Embed(context.Background(), in)
		if vecs != nil || err != nil {
			t.Errorf("Embed(%#v) = %v, %v; want nil, nil", in, vecs, err)
		}
	}
	if s.calls.Load() != 0 {
		t.Errorf("empty input sent %d requests", s.calls.Load())
	}
}

func TestEmbedSendsDimensionsAndKey(t *testing.T) {
	s := &server{t: t, dim: func(string) int { return 8 }}
	c := s.start(Config{APIKey: testKey, Dimensions: 8})
	if _, err := c.Embed(context.Background(), texts(2)); err != nil {
		t.Fatal(err)
	}
	if s.requests[0].Dimensions != 8 {
		t.Errorf("dimensions sent = %d, want 8", s.requests[0].Dimensions)
	}
	if s.auth[0] != "Bearer "+testKey {
		t.Errorf("Authorization = %q", s.auth[0])
	}

	s = &server{t: t}
	c = s.start(Config{})
	if _, err := c.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	if s.auth[0] != "" {
		t.Errorf("Authorization sent without a key: %q", s.auth[0])
	}
}

// fail writes an error response in the OpenAI shape.
func fail(w http.ResponseWriter, status int, msg string, header ...string) {
	for i := 0; i+1 < len(header); i += 2 {
		w.Header().Set(header[i], header[i+1])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error"}}`, msg)
}

func TestEmbedRetries(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		script     func(n int, w http.ResponseWriter, r *http.Request) bool
		wantErr    []string // empty: success
		wantCalls  int64
		minElapsed time.Duration
	}{
		{
			name: "429 with Retry-After seconds, then success", maxRetries: 3,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == 0 {
					fail(w, 429, "Rate limit reached", "Retry-After", "1")
					return true
				}
				return false
			},
			wantCalls: 2, minElapsed: 900 * time.Millisecond,
		},
		{
			name: "429 with Retry-After date, then success", maxRetries: 3,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == 0 {
					fail(w, 429, "slow down", "Retry-After", time.Now().Add(-time.Second).UTC().Format(http.TimeFormat))
					return true
				}
				return false
			},
			wantCalls: 2,
		},
		{
			name: "503 twice, then success", maxRetries: 4,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n < 2 {
					fail(w, 503, "model is loading")
					return true
				}
				return false
			},
			wantCalls: 3,
		},
		{
			name: "connection dropped, then success", maxRetries: 2,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == 0 {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return true
				}
				return false
			},
			wantCalls: 2,
		},
		{
			name: "500 until retries are exhausted", maxRetries: 2,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				fail(w, 500, "CUDA out of memory")
				return true
			},
			wantErr:   []string{"giving up after 3 attempts", "500 Internal Server Error", "CUDA out of memory", "nomic-embed-text"},
			wantCalls: 3,
		},
		{
			// (A 400 for a text past the model's context is answered by
			// embedding the text's beginning: TestEmbedTooLong.)
			name: "400 is not retried", maxRetries: 4,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				fail(w, 400, "'input' must be a string or an array of strings")
				return true
			},
			wantErr:   []string{"400 Bad Request", "must be a string"},
			wantCalls: 1,
		},
		{
			name: "404 model not found is not retried", maxRetries: 4,
			script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				w.WriteHeader(404)
				w.Write([]byte(`{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`))
				return true
			},
			wantErr:   []string{"404 Not Found", "try pulling it first"},
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, script: tt.script}
			c := s.start(Config{MaxRetries: tt.maxRetries})
			start := time.Now()
			vecs, err := c.Embed(context.Background(), texts(2))
			elapsed := time.Since(start)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				checkOrder(t, vecs, 2)
			} else {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
			}
			if got := s.calls.Load(); got != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", got, tt.wantCalls)
			}
			if st := c.Stats(); st.Requests != tt.wantCalls || st.Retries != tt.wantCalls-1 {
				t.Errorf("Stats = %+v, want %d requests", st, tt.wantCalls)
			}
			if elapsed < tt.minElapsed {
				t.Errorf("returned after %v, before Retry-After (%v)", elapsed, tt.minElapsed)
			}
		})
	}
}

func TestEmbedTimeout(t *testing.T) {
	s := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	}}
	c := s.start(Config{Timeout: 100 * time.Millisecond, MaxRetries: 1})
	start := time.Now()
	_, err := c.Embed(context.Background(), texts(1))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want a deadline exceeded", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("timed out after %v", time.Since(start))
	}
	if got := s.calls.Load(); got != 2 {
		t.Errorf("server saw %d requests, want 2 (a timed-out attempt is retried)", got)
	}
}

func TestEmbedCancelMidRetry(t *testing.T) {
	first := make(chan struct{})
	var once sync.Once
	s := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
		fail(w, 503, "overloaded")
		once.Do(func() { close(first) })
		return true
	}}
	c := s.start(Config{MaxRetries: 4})
	c.http.BaseDelay = 10 * time.Second // the client is asleep in backoff when cancelled
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-first; time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := c.Embed(ctx, texts(3))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("cancellation took %v", time.Since(start))
	}
	if got := s.calls.Load(); got != 1 {
		t.Errorf("server saw %d requests after cancellation, want 1", got)
	}
}

func TestEmbedDimensionChecks(t *testing.T) {
	tests := []struct {
		name    string
		dims    int // Config.Dimensions
		dim     func(text string) int
		calls   [][]string
		wantErr string
	}{
		{"within a batch", 0, func(s string) int { return map[bool]int{true: 4, false: 3}[s == "t1"] },
			[][]string{texts(3)}, "inconsistent dimensions: embedding 0 has 3, embedding 1 has 4"},
		{"across batches of one call", 0, func(s string) int { return map[bool]int{true: 5, false: 3}[s >= "t2"] },
			[][]string{texts(4)}, "earlier ones had 3"},
		{"across calls", 0, func(s string) int { return map[bool]int{true: 5, false: 3}[s == "t9"] },
			[][]string{texts(2), {"t9"}}, "5-dimensional vectors, earlier ones had 3"},
		{"server ignores dimensions", 256, func(string) int { return 768 },
			[][]string{texts(1)}, "dimensions=256 was requested"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, dim: tt.dim}
			c := s.start(Config{BatchSize: 2, Dimensions: tt.dims})
			var err error
			for _, in := range tt.calls {
				if _, err = c.Embed(context.Background(), in); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestEmbedMalformedResponses(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
	}{
		{"too few", `{"data":[{"index":0,"embedding":[1,2]}]}`, "1 embeddings for 2 texts"},
		{"index out of range", `{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[1]}]}`, "index 2 for 2 texts"},
		{"duplicate index", `{"data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[1]}]}`, "index 1 twice"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`, "is empty"},
		{"bad base64", `{"data":[{"index":0,"embedding":"!!"},{"index":1,"embedding":"!!"}]}`, "base64"},
		{"ragged base64", `{"data":[{"index":0,"embedding":"AAAAAAA="},{"index":1,"embedding":"AAAAAAA="}]}`, "whole number of float32s"},
		{"not json", `<html>gateway</html>`, "decode response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				w.Write([]byte(tt.body))
				return true
			}}
			c := s.start(Config{})
			_, err := c.Embed(context.Background(), texts(2))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestEmbedMissingIndexKeepsOrder(t *testing.T) {
	s := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
		w.Write([]byte(`{"data":[{"embedding":[0,1]},{"embedding":[1,1]},{"embedding":[2,1]}]}`))
		return true
	}}
	vecs, err := s.start(Config{}).Embed(context.Background(), texts(3))
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, vecs, 3)
}

func TestEmbedKeyNeverInErrors(t *testing.T) {
	statuses := []int{401, 403, 429, 500}
	for _, status := range statuses {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			s := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
				// Some proxies echo the credential they rejected.
				fail(w, status, "Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
				return true
			}}
			c := s.start(Config{APIKey: testKey, MaxRetries: 1})
			_, err := c.Embed(context.Background(), texts(1))
			if err == nil {
				t.Fatal("want an error")
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v", err), testKey) {
				t.Fatalf("error leaks the API key: %v", err)
			}
			if !strings.Contains(err.Error(), strconv.Itoa(status)) {
				t.Errorf("error %q lacks the status", err)
			}
			if s.auth[0] != "Bearer "+testKey {
				t.Errorf("Authorization = %q", s.auth[0])
			}
		})
	}
}

func TestEmbedConcurrentUse(t *testing.T) {
	s := &server{t: t}
	c := s.start(Config{BatchSize: 2})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vecs, err := c.Embed(context.Background(), texts(5))
			if err != nil {
				t.Error(err)
				return
			}
			checkOrder(t, vecs, 5)
		}()
	}
	wg.Wait()
	if st := c.Stats(); st.Requests != 24 || st.Texts != 40 {
		t.Errorf("Stats = %+v, want 24 requests and 40 texts", st)
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name            string
		url, model, dim string
		wantOK          bool
		wantDims        int
	}{
		{"unset", "", "", "", false, 0},
		{"url only", "http://localhost:11434/v1", "", "", false, 0},
		{"model only", "", "bge-m3", "", false, 0},
		{"both", "http://localhost:11434/v1", "bge-m3", "", true, 0},
		{"with dim", " http://localhost:11434/v1 ", "bge-m3", "512", true, 512},
		{"bad dim", "http://localhost:11434/v1", "bge-m3", "big", true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PAKTON_EMBED_URL", tt.url)
			t.Setenv("PAKTON_EMBED_MODEL", tt.model)
			t.Setenv("PAKTON_EMBED_DIM", tt.dim)
			t.Setenv("PAKTON_EMBED_API_KEY", "k")
			t.Setenv("OPENAI_API_KEY", "ignored")
			cfg, ok := FromEnv()
			if ok != tt.wantOK || cfg.Dimensions != tt.wantDims || cfg.APIKey != "k" {
				t.Fatalf("FromEnv = %+v, %v", cfg, ok)
			}
			if ok {
				_, err := New(cfg)
				if (err != nil) != (tt.wantDims < 0) {
					t.Errorf("New(FromEnv()) error = %v", err)
				}
			}
		})
	}
}

// TestEmbedTooLong: a server that refuses texts longer than its model's
// context (as Ollama's /v1/embeddings does) gets the refused texts alone,
// then their beginning; the others keep their full text and their place.
func TestEmbedTooLong(t *testing.T) {
	const limit = 100 // characters the scripted model takes
	long := func(i int) string { return fmt.Sprintf("t%d", i) + strings.Repeat(" word", 60) }
	s := &server{t: t}
	s.script = func(n int, w http.ResponseWriter, r *http.Request) bool {
		s.mu.Lock()
		req := s.requests[len(s.requests)-1]
		s.mu.Unlock()
		for _, text := range req.Input {
			if len(text) > limit {
				fail(w, 400, "the input length exceeds the context length")
				return true
			}
		}
		return false
	}
	c := s.start(Config{BatchSize: 8})
	in := texts(8)
	in[2], in[5] = long(2), long(5)
	vecs, err := c.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if (i != 2 && i != 5) && v[0] != float32(i) {
			t.Errorf("vector %d is %v", i, v)
		}
	}
	if st := c.Stats(); st.Truncated != 2 || st.Texts != 8 {
		t.Errorf("stats %+v, want 2 truncated of 8", st)
	}
	for _, req := range s.requests {
		for _, text := range req.Input {
			if strings.HasPrefix(text, "t2 ") && len(text) <= limit && !strings.HasPrefix(long(2), text) {
				t.Errorf("truncated text %q is not the beginning of the original", text)
			}
		}
	}

	// Other refusals are errors, and a text refused even when short is one.
	s2 := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
		fail(w, 400, "the input length exceeds the context length")
		return true
	}}
	if _, err := s2.start(Config{}).Embed(context.Background(), []string{long(1)}); err == nil || !strings.Contains(err.Error(), "even cut to its first") {
		t.Errorf("always refused: %v", err)
	}
	s3 := &server{t: t, script: func(n int, w http.ResponseWriter, r *http.Request) bool {
		fail(w, 400, "invalid model name")
		return true
	}}
	if _, err := s3.start(Config{}).Embed(context.Background(), texts(4)); err == nil || len(s3.requests) != 1 {
		t.Errorf("a refusal for another reason: err %v after %d requests, want 1", err, len(s3.requests))
	}
}
