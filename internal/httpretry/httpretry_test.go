package httpretry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 2 ", 2 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"0", 0},
		{"-4", 0},
		{"soon", 0},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := &Client{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{0, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 0, 100 * time.Millisecond, 200 * time.Millisecond},
		{3, 0, 400 * time.Millisecond, 800 * time.Millisecond},
		{10, 0, 500 * time.Millisecond, time.Second}, // capped
		{0, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond},
		{0, time.Hour, time.Second, time.Second}, // Retry-After capped
	}
	for _, tt := range tests {
		for range 50 {
			if got := c.backoff(tt.attempt, tt.retryAfter); got < tt.lo || got > tt.hi {
				t.Fatalf("backoff(%d, %v) = %v, want in [%v, %v]", tt.attempt, tt.retryAfter, got, tt.lo, tt.hi)
			}
		}
	}
}

func TestServerMessage(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"openai", `{"error":{"message":"model not found","type":"invalid_request_error"}}`, "model not found"},
		{"ollama", `{"error":"model \"x\" not found, try pulling it first"}`, `model "x" not found, try pulling it first`},
		{"tei", `{"error":"Input validation error","error_type":"Validation"}`, "Input validation error"},
		{"vllm", `{"object":"error","message":"bad input","code":400}`, "bad input"},
		{"fastapi", `{"detail":"Not Found"}`, "Not Found"},
		{"fastapi list", `{"detail":[{"loc":["body","query"],"msg":"field required"}]}`, `[{"loc":["body","query"],"msg":"field required"}]`},
		{"plain", "upstream\n  connect error\n", "upstream connect error"},
		{"empty", "", ""},
		{"long", strings.Repeat("é", 400), strings.Repeat("é", maxMessageRunes) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverMessage([]byte(tt.body)); got != tt.want {
				t.Errorf("serverMessage = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStatusRetryable(t *testing.T) {
	for code, want := range map[int]bool{
		400: false, 401: false, 403: false, 404: false, 408: true, 413: false, 422: false,
		429: true, 500: true, 501: false, 502: true, 503: true, 504: true, 505: false,
	} {
		if got := (&StatusError{StatusCode: code}).Retryable(); got != want {
			t.Errorf("Retryable(%d) = %v, want %v", code, got, want)
		}
	}
}

// scripted serves the given statuses in order, then 200 {"ok":true}.
func scripted(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i < len(statuses) {
			w.WriteHeader(statuses[i])
			w.Write([]byte(`{"error":"status ` + http.StatusText(statuses[i]) + `"}`))
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestPostJSONRetries(t *testing.T) {
	tests := []struct {
		name       string
		statuses   []int
		maxRetries int
		wantErr    string // empty: success
		wantCalls  int64
	}{
		{"ok first time", nil, 3, "", 1},
		{"503 then ok", []int{503}, 3, "", 2},
		{"429 429 then ok", []int{429, 429}, 3, "", 3},
		{"500 exhausted", []int{500, 500, 500}, 2, "giving up after 3 attempts: server returned 500", 3},
		{"no retries configured", []int{503}, 0, "server returned 503", 1},
		{"400 not retried", []int{400}, 3, "server returned 400 Bad Request: status Bad Request", 1},
		{"501 not retried", []int{501}, 3, "server returned 501", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := scripted(t, tt.statuses...)
			c := &Client{MaxRetries: tt.maxRetries, BaseDelay: time.Millisecond}
			body, err := c.PostJSON(context.Background(), srv.URL, map[string]string{"a": "b"})
			if tt.wantErr == "" {
				if err != nil || string(body) != `{"ok":true}` {
					t.Fatalf("PostJSON = %q, %v", body, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want containing %q", err, tt.wantErr)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", got, tt.wantCalls)
			}
			req, retries := c.Counts()
			if req != tt.wantCalls || retries != tt.wantCalls-1 {
				t.Errorf("Counts = %d, %d; want %d, %d", req, retries, tt.wantCalls, tt.wantCalls-1)
			}
		})
	}
}

func TestPostJSONStatusErrorUnwraps(t *testing.T) {
	srv, _ := scripted(t, 404)
	_, err := (&Client{}).PostJSON(context.Background(), srv.URL, nil)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 {
		t.Fatalf("error %v does not unwrap to a 404 StatusError", err)
	}
}

func TestPostJSONDeadlineShortCircuit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := (&Client{MaxRetries: 3}).PostJSON(ctx, srv.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "would pass the deadline") {
		t.Fatalf("error = %v, want a deadline short-circuit", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("waited %v for a retry that could not finish in time", time.Since(start))
	}
}

func TestPostJSONRedactsKey(t *testing.T) {
	const key = "sk-test-SECRET-123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + key + `"}}`))
	}))
	defer srv.Close()
	_, err := (&Client{APIKey: key}).PostJSON(context.Background(), srv.URL, nil)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("error = %v, want the key redacted", err)
	}
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		base, path, want, wantErr string
	}{
		{"http://localhost:11434/v1", "embeddings", "http://localhost:11434/v1/embeddings", ""},
		{" https://api.jina.ai/v1/ ", "rerank", "https://api.jina.ai/v1/rerank", ""},
		{"http://tei:8080", "rerank", "http://tei:8080/rerank", ""},
		{"http://tei:8080/rerank", "rerank", "http://tei:8080/rerank", ""},
		{"http://h/v1/embeddings/", "embeddings", "http://h/v1/embeddings", ""},
		{"", "rerank", "", "required"},
		{"localhost:8080", "rerank", "", "http or https"},
		{"ftp://h/v1", "rerank", "", "http or https"},
		{"http://h/%zz", "rerank", "", "invalid URL escape"},
	}
	for _, tt := range tests {
		got, err := Endpoint(tt.base, tt.path)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Endpoint(%q) error = %v, want containing %q", tt.base, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Endpoint(%q, %q) = %q, %v; want %q", tt.base, tt.path, got, err, tt.want)
		}
	}
}
