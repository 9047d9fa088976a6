package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const testWebKey = "BSAkey-0123456789abcdef"

// Response bodies in each provider's real format (trimmed to the fields a
// real answer carries around the ones pakton reads).
const (
	searxngBody = `{"query": "force majeure pandemic", "number_of_results": 0,
 "results": [
  {"url": "https://www.law.cornell.edu/wex/force_majeure", "title": "force majeure | Wex | LII",
   "content": "A &quot;force majeure&quot; clause is a contractual provision that frees both parties\nfrom obligation...",
   "engine": "duckduckgo", "parsed_url": ["https", "www.law.cornell.edu", "/wex/force_majeure", "", "", ""],
   "template": "default.html", "engines": ["duckduckgo", "google"], "positions": [1, 2], "score": 4.0, "category": "general"},
  {"url": "https://en.wikipedia.org/wiki/Force_majeure", "title": "Force majeure - Wikipedia",
   "content": "In contract law, <b>force majeure</b> is a common clause...", "engine": "google",
   "parsed_url": ["https", "en.wikipedia.org", "/wiki/Force_majeure", "", "", ""], "engines": ["google"],
   "positions": [2], "score": 1.0, "category": "general"},
  {"url": "https://example.com/3", "title": "Third", "content": "", "engine": "bing", "engines": ["bing"], "score": 0.5}
 ],
 "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["force majeure covid"], "unresponsive_engines": []}`

	braveBody = `{"query": {"original": "force majeure pandemic", "show_strict_warning": false,
  "is_navigational": false, "is_news_breaking": false, "spellcheck_off": true, "country": "us",
  "bad_results": false, "should_fallback": false, "postal_code": "", "city": "", "header_country": "",
  "more_results_available": true, "state": ""},
 "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}], "top": [], "side": []},
 "type": "search",
 "web": {"type": "search", "results": [
   {"title": "Force Majeure and <strong>Pandemics</strong>", "url": "https://www.example-law.com/fm-pandemic",
    "is_source_local": false, "is_source_both": false,
    "description": "Courts have split on whether a <strong>pandemic</strong> is an &quot;act of God&quot;.",
    "page_age": "2021-03-04T00:00:00", "profile": {"name": "Example Law", "url": "https://www.example-law.com/",
    "long_name": "example-law.com", "img": "https://imgs.search.brave.com/x"}, "language": "en",
    "family_friendly": true, "type": "search_result", "subtype": "generic",
    "meta_url": {"scheme": "https", "netloc": "example-law.com", "hostname": "www.example-law.com",
    "favicon": "https://imgs.search.brave.com/y", "path": "› fm-pandemic"}, "age": "March 4, 2021"},
   {"title": "Second", "url": "https://example.org/2", "description": "two", "type": "search_result"}
 ], "family_friendly": true}}`

	tavilyBody = `{"query": "force majeure pandemic", "follow_up_questions": null, "answer": null, "images": [],
 "results": [
  {"title": "Is COVID-19 a force majeure event?", "url": "https://www.example.com/covid-fm",
   "content": "Whether COVID-19 excuses performance depends on the clause's wording.", "score": 0.98,
   "raw_content": null},
  {"title": "Force majeure", "url": "https://en.wikipedia.org/wiki/Force_majeure",
   "content": "Force majeure is a clause that...", "score": 0.91, "raw_content": null}
 ],
 "response_time": 1.67}`
)

func webArgs(q string, n int) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"query": q, "max_results": n})
	return b
}

func newWeb(t *testing.T, cfg WebConfig) *WebSearch {
	t.Helper()
	w, err := NewWebSearch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWebSearchSearXNG(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/searx/search" ||
			r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "force majeure pandemic" {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		if r.Header.Get("Authorization") != "" {
			http.Error(w, "no key was configured", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, searxngBody)
	}))
	defer ts.Close()

	ws := newWeb(t, WebConfig{URL: ts.URL + "/searx/"})
	if sp := ws.Spec(); sp.Name != "web_search" || !json.Valid(sp.Parameters) {
		t.Fatalf("spec = %+v", sp)
	}
	res, err := ws.Call(context.Background(), webArgs("  force majeure pandemic ", 2))
	if err != nil {
		t.Fatal(err)
	}
	want := `Web search results for "force majeure pandemic" (searxng; external source, not contract text):

[1] force majeure | Wex | LII
    https://www.law.cornell.edu/wex/force_majeure
    A "force majeure" clause is a contractual provision that frees both parties from obligation...

[2] Force majeure - Wikipedia
    https://en.wikipedia.org/wiki/Force_majeure
    In contract law, force majeure is a common clause...`
	if res.Text != want || !res.External || len(res.Evidence) != 0 {
		t.Errorf("got:\n%s\nwant:\n%s", res.Text, want)
	}
}

func TestWebSearchBrave(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("q") != "force majeure pandemic" ||
			r.URL.Query().Get("count") != "5" {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		if r.Header.Get("X-Subscription-Token") != testWebKey || r.Header.Get("Accept") != "application/json" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"type":"ErrorResponse","error":{"id":"x","status":401,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."},"time":1}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, braveBody)
	}))
	defer ts.Close()

	ws := newWeb(t, WebConfig{URL: ts.URL, Style: "Brave", Key: testWebKey})
	res, err := ws.Call(context.Background(), json.RawMessage(`{"query":"force majeure pandemic"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(brave; external source",
		"[1] Force Majeure and Pandemics\n    https://www.example-law.com/fm-pandemic\n    Courts have split on whether a pandemic is an \"act of God\".",
		"[2] Second\n    https://example.org/2\n    two",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, testWebKey) {
		t.Error("result shows the key")
	}
}

func TestWebSearchTavily(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
			APIKey     string `json:"api_key"`
		}
		if r.Method != http.MethodPost || r.URL.Path != "/search" || r.Header.Get("Content-Type") != "application/json" ||
			json.NewDecoder(r.Body).Decode(&body) != nil || body.Query != "force majeure pandemic" || body.MaxResults != 3 {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		if body.APIKey != "" {
			http.Error(w, "the key belongs in the Authorization header", http.StatusBadRequest)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testWebKey {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`)
			return
		}
		io.WriteString(w, tavilyBody)
	}))
	defer ts.Close()

	ws := newWeb(t, WebConfig{URL: ts.URL, Style: StyleTavily, Key: testWebKey, MaxResults: 3})
	res, err := ws.Call(context.Background(), json.RawMessage(`{"query":"force majeure pandemic"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "[1] Is COVID-19 a force majeure event?\n    https://www.example.com/covid-fm\n    Whether COVID-19") ||
		!strings.Contains(res.Text, "[2] Force majeure\n    https://en.wikipedia.org/wiki/Force_majeure") || !res.External {
		t.Errorf("result:\n%s", res.Text)
	}
	// A wrong key: the provider's message, without the key.
	bad := newWeb(t, WebConfig{URL: ts.URL, Style: StyleTavily, Key: "tvly-wrong-key-9876", MaxResults: 3})
	_, err = bad.Call(context.Background(), json.RawMessage(`{"query":"force majeure pandemic"}`))
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "missing or invalid API key") {
		t.Errorf("err = %v", err)
	}
}

func TestWebSearchErrorsNeverLeakKey(t *testing.T) {
	// A server that echoes the credentials it got, in the URL, headers and
	// body of its error; and one that is gone.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"error":{"detail":"token %s%s is not allowed"}}`,
			r.Header.Get("X-Subscription-Token"), r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()

	for _, style := range []string{StyleSearXNG, StyleBrave, StyleTavily} {
		for _, base := range []string{echo.URL, gone.URL} {
			ws := newWeb(t, WebConfig{URL: base, Style: style, Key: testWebKey})
			_, err := ws.Call(context.Background(), webArgs("q", 1))
			if err == nil {
				t.Fatalf("%s %s: no error", style, base)
			}
			if strings.Contains(err.Error(), testWebKey) {
				t.Errorf("%s: error leaks the key: %v", style, err)
			}
			if !strings.Contains(err.Error(), "web_search ("+style+")") {
				t.Errorf("%s: error does not say which tool failed: %v", style, err)
			}
			if base == echo.URL && !strings.Contains(err.Error(), "HTTP 403") {
				t.Errorf("%s: error lacks the status: %v", style, err)
			}
		}
	}
	// SearxNG's 403 usually means the JSON format is disabled: say so.
	ws := newWeb(t, WebConfig{URL: echo.URL})
	if _, err := ws.Call(context.Background(), webArgs("q", 1)); err == nil || !strings.Contains(err.Error(), "search.formats") {
		t.Errorf("searxng 403 hint missing: %v", err)
	}
}

func TestWebSearchLimits(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("q") {
		case "huge":
			io.WriteString(w, `{"results":[{"title":"`)
			chunk := strings.Repeat("a", 64<<10)
			for range 64 { // 4 MiB
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			io.WriteString(w, `"}]}`)
		case "slow":
			select {
			case <-r.Context().Done():
			case <-time.After(60 * time.Second):
			}
		case "html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>Welcome to SearxNG</body></html>")
		default:
			io.WriteString(w, `{"results":[]}`)
		}
	}))
	defer ts.Close()

	// The timeout is generous so the other calls finish on a loaded
	// machine; the slow answer takes a minute, so only the timeout can end
	// that call.
	ws := newWeb(t, WebConfig{URL: ts.URL, Timeout: Duration(3 * time.Second)})
	ctx := context.Background()
	if _, err := ws.Call(ctx, webArgs("huge", 1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge: %v", err)
	}
	start := time.Now()
	if _, err := ws.Call(ctx, webArgs("slow", 1)); err == nil || time.Since(start) > 45*time.Second {
		t.Errorf("slow: %v after %s", err, time.Since(start))
	}
	if _, err := ws.Call(ctx, webArgs("html", 1)); err == nil || !strings.Contains(err.Error(), "text/html") {
		t.Errorf("html: %v", err)
	}
	res, err := ws.Call(ctx, webArgs("nothing", 1))
	if err != nil || res.Text != `No web results for "nothing".` || !res.External {
		t.Errorf("no results: %+v, %v", res, err)
	}
	for _, args := range []string{`{"query":"  "}`, `{}`, `not json`} {
		if _, err := ws.Call(ctx, json.RawMessage(args)); err == nil {
			t.Errorf("%s accepted", args)
		}
	}
}

func TestWebSearchConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg       WebConfig
		style, ok string // ok: "" = must fail, else the expected base URL
	}{
		{WebConfig{URL: "http://localhost:8888/"}, StyleSearXNG, "http://localhost:8888"},
		{WebConfig{URL: "https://api.search.brave.com", Key: "k"}, StyleBrave, "https://api.search.brave.com"},
		{WebConfig{Style: "brave", Key: "k"}, StyleBrave, "https://api.search.brave.com"},
		{WebConfig{Style: "tavily", Key: "k"}, StyleTavily, "https://api.tavily.com"},
		{WebConfig{Style: "tavily"}, StyleTavily, ""},        // no key
		{WebConfig{}, StyleSearXNG, ""},                      // no URL
		{WebConfig{URL: "x", Style: "bing"}, "bing", ""},     // unknown style
		{WebConfig{URL: "localhost:8888"}, StyleSearXNG, ""}, // no scheme
	} {
		ws, err := NewWebSearch(tc.cfg)
		if tc.ok == "" {
			if err == nil {
				t.Errorf("%+v accepted", tc.cfg)
			}
			continue
		}
		if err != nil || ws.style != tc.style || ws.base != tc.ok {
			t.Errorf("%+v → %+v, %v", tc.cfg, ws, err)
		}
	}
}
