package tool

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// MediaWiki API answers, formatversion=2, as en.wikipedia.org gives them.
const (
	wikiSearchBody = `{"batchcomplete": true, "continue": {"sroffset": 2, "continue": "-||"},
 "query": {"searchinfo": {"totalhits": 2411},
  "search": [
   {"ns": 0, "title": "Force majeure", "pageid": 226796},
   {"ns": 0, "title": "Act of God", "pageid": 200650}
  ]}}`
	wikiExtractBody = `{"batchcomplete": true,
 "query": {"pages": [
  {"pageid": 200650, "ns": 0, "title": "Act of God", "extract": "An act of God is a legal term for events outside human control.",
   "contentmodel": "wikitext", "pagelanguage": "en", "pagelanguagehtmlcode": "en", "pagelanguagedir": "ltr",
   "touched": "2025-01-01T00:00:00Z", "lastrevid": 1, "length": 9000,
   "fullurl": "https://en.wikipedia.org/wiki/Act_of_God", "editurl": "https://en.wikipedia.org/w/index.php?title=Act_of_God&action=edit",
   "canonicalurl": "https://en.wikipedia.org/wiki/Act_of_God"},
  {"pageid": 226796, "ns": 0, "title": "Force majeure", "extract": "In contract law, force majeure is a common clause in contracts that essentially frees both parties from liability or obligation when an extraordinary event occurs.\nThe clause is often misused.",
   "contentmodel": "wikitext", "pagelanguage": "en", "fullurl": "https://en.wikipedia.org/wiki/Force_majeure"}
 ]}}`
	// The same answer in the legacy format (no formatversion=2), as some
	// older MediaWiki installations give it.
	wikiExtractLegacyBody = `{"batchcomplete": "",
 "query": {"pages": {
  "226796": {"pageid": 226796, "ns": 0, "title": "Force majeure", "extract": "Force majeure intro."},
  "-1": {"ns": 0, "title": "Act of God", "missing": ""}
 }}}`
)

func newWikiServer(t *testing.T, extracts string) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/w/api.php" || q.Get("format") != "json" || q.Get("action") != "query" {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		if !strings.HasPrefix(r.Header.Get("User-Agent"), "pakton") {
			w.WriteHeader(http.StatusForbidden) // Wikimedia's policy: identify the client
			io.WriteString(w, "Please set a user-agent and respect our robot policy")
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch {
		case q.Get("list") == "search" && q.Get("srsearch") == "force majeure":
			if q.Get("srlimit") != "2" {
				http.Error(w, "srlimit "+q.Get("srlimit"), http.StatusBadRequest)
				return
			}
			io.WriteString(w, wikiSearchBody)
		case q.Get("list") == "search" && q.Get("srsearch") == "broken":
			io.WriteString(w, `{"error": {"code": "srsearch-text-disabled", "info": "text search is disabled.", "*": "See https://en.wikipedia.org/w/api.php for API usage."}, "servedby": "mw1"}`)
		case q.Get("list") == "search":
			io.WriteString(w, `{"batchcomplete": true, "query": {"searchinfo": {"totalhits": 0}, "search": []}}`)
		case strings.Contains(q.Get("prop"), "extracts") && q.Get("explaintext") == "1" && q.Get("exintro") == "1" &&
			q.Get("titles") == "Force majeure|Act of God":
			io.WriteString(w, extracts)
		default:
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
		}
	}))
}

func wikiArgs(q string, n int) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"query": q, "max_results": n})
	return b
}

func TestWikipediaSearchAndExtract(t *testing.T) {
	ts := newWikiServer(t, wikiExtractBody)
	defer ts.Close()
	wk, err := NewWikipedia(WikiConfig{URL: ts.URL + "/w/api.php"})
	if err != nil {
		t.Fatal(err)
	}
	if sp := wk.Spec(); sp.Name != "wikipedia" || !json.Valid(sp.Parameters) {
		t.Fatalf("spec = %+v", sp)
	}
	res, err := wk.Call(context.Background(), wikiArgs("force majeure", 2))
	if err != nil {
		t.Fatal(err)
	}
	// Search order, not the extract answer's order.
	want := `Wikipedia articles for "force majeure" (external source, not contract text):

[1] Force majeure
    https://en.wikipedia.org/wiki/Force_majeure
    In contract law, force majeure is a common clause in contracts that essentially frees both parties from liability or obligation when an extraordinary event occurs.
    The clause is often misused.

[2] Act of God
    https://en.wikipedia.org/wiki/Act_of_God
    An act of God is a legal term for events outside human control.`
	if res.Text != want || !res.External {
		t.Errorf("got:\n%s\nwant:\n%s", res.Text, want)
	}
}

func TestWikipediaLegacyFormatAndMissingPage(t *testing.T) {
	ts := newWikiServer(t, wikiExtractLegacyBody)
	defer ts.Close()
	wk, err := NewWikipedia(WikiConfig{URL: ts.URL, MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := wk.Call(context.Background(), json.RawMessage(`{"query":"force majeure"}`))
	if err != nil {
		t.Fatal(err)
	}
	// No fullurl in the answer: built from the base URL. The missing page
	// is left out.
	want := `Wikipedia articles for "force majeure" (external source, not contract text):

[1] Force majeure
    ` + ts.URL + `/wiki/Force_majeure
    Force majeure intro.`
	if res.Text != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Text, want)
	}
}

func TestWikipediaNoResultsAndErrors(t *testing.T) {
	ts := newWikiServer(t, wikiExtractBody)
	defer ts.Close()
	wk, err := NewWikipedia(WikiConfig{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := wk.Call(ctx, wikiArgs("xyzzy plugh", 0))
	if err != nil || res.Text != `No Wikipedia articles match "xyzzy plugh".` || !res.External {
		t.Errorf("no results: %+v, %v", res, err)
	}
	if _, err := wk.Call(ctx, wikiArgs("broken", 0)); err == nil ||
		!strings.Contains(err.Error(), "srsearch-text-disabled") || !strings.Contains(err.Error(), "text search is disabled") {
		t.Errorf("MediaWiki error: %v", err)
	}
	if _, err := wk.Call(ctx, wikiArgs(" ", 0)); err == nil {
		t.Error("empty query accepted")
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	wk, _ = NewWikipedia(WikiConfig{URL: gone.URL})
	if _, err := wk.Call(ctx, wikiArgs("force majeure", 0)); err == nil || !strings.Contains(err.Error(), "wikipedia search") {
		t.Errorf("unreachable: %v", err)
	}
	if _, err := NewWikipedia(WikiConfig{}); err == nil {
		t.Error("no URL accepted")
	}
}
