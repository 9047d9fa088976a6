package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a time source tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestLimiter(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	l := newLimiter(2, 4)
	l.setClock(clk.Now)
	for i := range 4 {
		if ok, _ := l.allow("a", 1); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, retry := l.allow("a", 1)
	if ok || retry != 500*time.Millisecond {
		t.Errorf("after the burst: ok=%v retry=%v, want refused for 500ms", ok, retry)
	}
	if ok, _ := l.allow("b", 1); !ok {
		t.Error("another caller refused")
	}
	clk.Advance(500 * time.Millisecond)
	if ok, _ := l.allow("a", 1); !ok {
		t.Error("refused after refilling one token")
	}
	if ok, _ := l.allow("a", 1); ok {
		t.Error("allowed beyond the refill")
	}
	clk.Advance(time.Hour) // never more than the burst
	for range 4 {
		l.allow("a", 1)
	}
	if ok, _ := l.allow("a", 1); ok {
		t.Error("bucket grew beyond its burst")
	}
	// A cost above the burst passes on a full bucket, then waits a full refill.
	clk.Advance(2 * time.Second)
	if ok, _ := l.allow("a", 10); !ok {
		t.Error("a cost above the burst never passes")
	}
	if ok, retry := l.allow("a", 10); ok || retry != 2*time.Second {
		t.Errorf("second costly request: ok=%v retry=%v", ok, retry)
	}
	// Idle buckets are dropped.
	clk.Advance(sweepEvery)
	l.allow("c", 1)
	if n := l.size(); n != 1 {
		t.Errorf("%d buckets after the idle ones refilled, want 1", n)
	}
	// Many callers at once stay bounded.
	for i := range maxBuckets + 100 {
		l.allow(fmt.Sprint("ip", i), 1)
	}
	if n := l.size(); n > maxBuckets {
		t.Errorf("%d buckets, want at most %d", n, maxBuckets)
	}
}

// TestRateLimit: a key's burst passes, then 429 with Retry-After and a JSON
// error until time refills it; asks and uploads count more; keys are
// independent; requests without a valid key are limited by address; health
// checks are never limited.
func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Rate, c.Burst = 2, 10 })
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	e.srv.limiter.setClock(clk.Now)
	keyA, keyB := e.key("alpha"), e.key("bravo")

	// Two asks (5 each) spend the burst of 10.
	for range 2 {
		if code, body := e.json("POST", "/api/v1/collections/alpha/ask", keyA, map[string]any{"question": "q?"}); code == 429 {
			t.Fatalf("ask within the burst: %d %s", code, body)
		}
	}
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/v1/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+keyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("over the limit: %d Retry-After=%q Content-Type=%q", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"))
	}
	code, body := e.json("GET", "/api/v1/whoami", keyA, nil)
	if code != 429 || !strings.Contains(decode[apiError](t, body).Error, "rate limit") {
		t.Errorf("over the limit: %d %s", code, body)
	}
	// An upload (10) waits for a full bucket: 5 s at 2/s.
	clk.Advance(time.Second)
	req, _ = http.NewRequest("POST", e.ts.URL+"/api/v1/collections/alpha/documents", strings.NewReader(""))
	req.Header.Set("Authorization", "Bearer "+keyA)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "4" {
		t.Errorf("upload with 2 tokens: %v %v Retry-After=%q, want 429 after 4 s", err, resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	// Another key is not affected.
	if code, _ := e.json("GET", "/api/v1/whoami", keyB, nil); code != 200 {
		t.Errorf("another key: %d", code)
	}
	// Health checks are never limited.
	for range 30 {
		for _, path := range []string{"/healthz", "/readyz"} {
			if code, _ := e.do("GET", path, "", nil, ""); code != 200 {
				t.Fatalf("%s: %d", path, code)
			}
		}
	}
	// Time refills the bucket, up to the burst.
	clk.Advance(time.Minute)
	for i := range 10 {
		if code, _ := e.json("GET", "/api/v1/whoami", keyA, nil); code != 200 {
			t.Fatalf("request %d after refilling: %d", i+1, code)
		}
	}
	if code, _ := e.json("GET", "/api/v1/whoami", keyA, nil); code != 429 {
		t.Errorf("request 11 after refilling: %d, want 429", code)
	}
	// Requests without a valid key share their address's bucket.
	for i := range 10 {
		if code, _ := e.json("GET", "/api/v1/whoami", "pk_notakey", nil); code != 401 {
			t.Fatalf("bad key %d: %d, want 401", i+1, code)
		}
	}
	if code, _ := e.json("GET", "/api/v1/whoami", "pk_notakey", nil); code != 429 {
		t.Errorf("bad key over the limit: %d, want 429", code)
	}
}

// TestRateLimitNoAuth: without keys each remote address has its bucket.
func TestRateLimitNoAuth(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.NoAuth, c.Rate, c.Burst = true, 1, 2 })
	e.srv.limiter.setClock((&fakeClock{t: time.Unix(1e9, 0)}).Now)
	get := func(remote string) int {
		r := httptest.NewRequest("GET", "http://127.0.0.1/api/v1/whoami", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		e.srv.Handler().ServeHTTP(w, r)
		return w.Code
	}
	for _, want := range []int{200, 200, 429} {
		if code := get("127.0.0.1:5000"); code != want {
			t.Errorf("127.0.0.1: %d, want %d", code, want)
		}
	}
	if code := get("127.0.0.1:6000"); code != 429 {
		t.Errorf("same address, other port: %d, want 429", code)
	}
	if code := get("[::1]:5000"); code != 200 {
		t.Errorf("another address: %d, want 200", code)
	}
}

// TestRateLimitDisabled: a negative rate turns limiting off.
func TestRateLimitDisabled(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Rate, c.Burst = -1, 1 })
	k := e.key("alpha")
	for i := range 200 {
		if code, _ := e.json("GET", "/api/v1/whoami", k, nil); code != 200 {
			t.Fatalf("request %d: %d", i+1, code)
		}
	}
}

// TestRateLimitDefaults: the zero Config limits each key to DefaultRate
// with DefaultBurst.
func TestRateLimitDefaults(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Rate, c.Burst = 0, 0 })
	if l := e.srv.limiter; l == nil || l.rate != DefaultRate || l.burst != DefaultBurst {
		t.Errorf("default limiter %+v", l)
	}
}
