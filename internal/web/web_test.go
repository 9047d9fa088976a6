package web

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandlerServesFiles(t *testing.T) {
	h := Handler()
	for _, tc := range []struct {
		path, contentType, cache, contains string
	}{
		{"/", "text/html; charset=utf-8", "no-cache", "<title>pakton</title>"},
		{"/index.html", "text/html; charset=utf-8", "no-cache", "<title>pakton</title>"},
		{"/core.js", "text/javascript; charset=utf-8", "no-cache", "function cpIndex"},
		{"/app.js", "text/javascript; charset=utf-8", "no-cache", "function init"},
		{"/app.css", "text/css; charset=utf-8", "no-cache", "mark.hl-cite"},
		{"/favicon.svg", "image/svg+xml", "no-cache", "<svg"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := get(t, h, "GET", tc.path, nil)
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			if got := res.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			if got := res.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if res.Header.Get("ETag") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("missing ETag or nosniff: %v", res.Header)
			}
			if b := body(t, res); !strings.Contains(b, tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
		})
	}
}

// index.html loads every script and app.css by content hash; a request with the
// current hash may be cached for good, and the ETag revalidates the rest.
func TestHandlerCaching(t *testing.T) {
	h := Handler()
	index := body(t, get(t, h, "GET", "/", nil))
	for _, name := range []string{"core.js", "document.js", "app.js", "app.css"} {
		m := regexp.MustCompile(`"/` + regexp.QuoteMeta(name) + `\?v=([0-9a-f]{16})"`).FindStringSubmatch(index)
		if m == nil {
			t.Fatalf("index.html does not load /%s?v=HASH", name)
		}
		res := get(t, h, "GET", "/"+name+"?v="+m[1], nil)
		if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s?v=current: Cache-Control %q", name, got)
		}
		if got := get(t, h, "GET", "/"+name+"?v=0000000000000000", nil).Header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("%s?v=stale: Cache-Control %q, want no-cache", name, got)
		}
		etag := res.Header.Get("ETag")
		if res := get(t, h, "GET", "/"+name, map[string]string{"If-None-Match": etag}); res.StatusCode != http.StatusNotModified {
			t.Errorf("%s with If-None-Match %s: status %d, want 304", name, etag, res.StatusCode)
		}
	}
	res := get(t, h, "GET", "/", nil)
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("index.html Content-Security-Policy %q", csp)
	}
}

func TestHandlerFallback(t *testing.T) {
	h := Handler()
	index := body(t, get(t, h, "GET", "/", nil))
	for _, p := range []string{"/collections/deals", "/documents/abc/clauses", "/anything"} {
		res := get(t, h, "GET", p, nil)
		if res.StatusCode != 200 || body(t, res) != index || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("GET %s: status %d, want index.html", p, res.StatusCode)
		}
	}
	for _, p := range []string{"/missing.js", "/favicon.ico", "/../../etc/passwd.txt"} {
		if res := get(t, h, "GET", p, nil); res.StatusCode != 404 {
			t.Errorf("GET %s: status %d, want 404", p, res.StatusCode)
		}
	}
	// The app never answers for the API, not even for an unknown route.
	for _, p := range []string{"/api", "/api/", "/api/v1/nope", "/api/v1/collections/x/documents"} {
		res := get(t, h, "GET", p, nil)
		b := body(t, res)
		if res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || strings.Contains(b, "<html") {
			t.Errorf("GET %s: status %d %q, want a JSON 404", p, res.StatusCode, b)
		}
	}
	if res := get(t, h, "POST", "/", nil); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: status %d, want 405", res.StatusCode)
	}
	if res := get(t, h, "HEAD", "/app.js", nil); res.StatusCode != 200 || body(t, res) != "" {
		t.Errorf("HEAD /app.js: status %d", res.StatusCode)
	}
}

// Mounted at "/" beside the API, the app does not shadow /api/ routes.
func TestHandlerMountedBesideAPI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/collections", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"collections":[]}`)
	})
	mux.Handle("/", Handler())
	if b := body(t, get(t, mux, "GET", "/api/v1/collections", nil)); b != `{"collections":[]}` {
		t.Errorf("API route answered %q", b)
	}
	if res := get(t, mux, "GET", "/api/v1/unknown", nil); res.StatusCode != 404 {
		t.Errorf("unknown API route: status %d", res.StatusCode)
	}
	if b := body(t, get(t, mux, "GET", "/", nil)); !strings.Contains(b, "<title>pakton</title>") {
		t.Error("app not served at /")
	}
}

// The files are served from the binary: the handler works with the working
// directory somewhere without them.
func TestHandlerEmbedded(t *testing.T) {
	t.Chdir(t.TempDir())
	h := Handler()
	for _, p := range []string{"/", "/app.js", "/app.css"} {
		if res := get(t, h, "GET", p, nil); res.StatusCode != 200 {
			t.Errorf("GET %s from another directory: status %d", p, res.StatusCode)
		}
	}
	want, err := fs.ReadFile(staticFS, "static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	if got := body(t, get(t, h, "GET", "/app.js", nil)); got != string(want) {
		t.Error("/app.js differs from the embedded file")
	}
}

// Every script in static/ is loaded by index.html, app.js last (it starts
// the app once the other files have defined what it calls).
func TestIndexLoadsEveryScript(t *testing.T) {
	index := body(t, get(t, Handler(), "GET", "/", nil))
	names, err := fs.Glob(staticFS, "static/*.js")
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, n := range names {
		tag := `<script src="/` + path.Base(n) + `?v=`
		i := strings.Index(index, tag)
		if i < 0 {
			t.Errorf("index.html does not load %s", path.Base(n))
		}
		last = max(last, i)
	}
	if i := strings.Index(index, `<script src="/app.js?v=`); i != last {
		t.Error("app.js is not the last script index.html loads")
	}
}

// The upload hint names every format pakton reads (docs/INGEST.md), and the
// file picker offers each of them.
func TestUploadHintListsEveryFormat(t *testing.T) {
	index := body(t, get(t, Handler(), "GET", "/", nil))
	i := strings.Index(index, `id="upload-formats"`)
	if i < 0 {
		t.Fatal("index.html has no upload hint")
	}
	hint := index[i : i+strings.Index(index[i:], "</p>")]
	for _, f := range []struct{ hint, ext string }{{"PDF", ".pdf"}, {".docx", ".docx"}, {".doc", ".doc,"}, {"RTF", ".rtf"}, {"ODT", ".odt"},
		{".eml", ".eml"}, {".msg", ".msg"}, {".tif", ".tif"}, {".png", ".png"}, {".jpg", ".jpg"}, {"HTML", ".html"},
		{"text", ".txt"}, {"Markdown", ".md"}, {".zip", ".zip"}} {
		if !strings.Contains(hint, f.hint) || !strings.Contains(index, f.ext) {
			t.Errorf("upload: %q missing from the hint %q or %q from the picker", f.hint, hint, f.ext)
		}
	}
}
