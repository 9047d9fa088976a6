package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"github.com/pakton/pakton/internal/parse/pdftest"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// docIDOf returns the id of the document named name in a collection.
func (e *env) docIDOf(collection, key, name string) string {
	e.t.Helper()
	_, body := e.json("GET", "/api/v1/collections/"+collection+"/documents", key, nil)
	for _, d := range decode[struct{ Documents []docJSON }](e.t, body).Documents {
		if d.Name == name {
			return d.ID
		}
	}
	e.t.Fatalf("no document %q in %s", name, body)
	return ""
}

// get sends a GET with extra headers and returns the response, body read.
func (e *env) get(path, key string, hdr map[string]string) (*http.Response, []byte) {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	// A Transport that leaves Accept-Encoding alone.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestPageView(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("alpha")
	e.ingest("alpha", key,
		file{"lease.pdf", string(pdftest.OnePage("LEASE", "1. Rent", "The tenant pays rent monthly."))},
		file{"a.txt", contract("Alpha Ltd", "three years")})
	pdf, txt := e.docIDOf("alpha", key, "lease.pdf"), e.docIDOf("alpha", key, "a.txt")
	base := "/api/v1/collections/alpha/documents/"

	// The layout, plain and gzipped.
	resp, body := e.get(base+pdf+"/layout", key, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("layout: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Encoding"), body)
	}
	var l document.Layout
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatal(err)
	}
	_, dbody := e.json("GET", base+pdf, key, nil)
	text := decode[struct{ Text string }](t, dbody).Text
	if len(l.Pages) != 1 || l.Pages[0].Width != 612 || len(l.Pages[0].Lines) != 3 {
		t.Fatalf("layout %s", body)
	}
	ln := l.Pages[0].Lines[2]
	if got := string([]rune(text)[ln.Span.Start:ln.Span.End]); got != "The tenant pays rent monthly." {
		t.Errorf("third line box covers %q", got)
	}
	if !strings.HasPrefix(string(body), `{"pages":[{"number":1,"width":612,"height":792,"lines":[[`) {
		t.Errorf("layout JSON shape: %.120s", body)
	}
	resp, zbody := e.get(base+pdf+"/layout", key, map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("layout with Accept-Encoding gzip: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	} else if zr, err := gzip.NewReader(bytes.NewReader(zbody)); err != nil {
		t.Error(err)
	} else if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, body) {
		t.Error("gzipped layout differs from the plain one")
	}
	etag := resp.Header.Get("ETag")
	if resp, _ := e.get(base+pdf+"/layout", key, map[string]string{"If-None-Match": etag}); resp.StatusCode != 304 {
		t.Errorf("layout with its ETag: %d, want 304", resp.StatusCode)
	}

	// Page images.
	resp, body = e.get(base+pdf+"/pages/1.png?scale=1", key, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("page 1: %d %s %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
		t.Errorf("page Cache-Control %q, want private", cc)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 612 || b.Dy() != 792 {
		t.Errorf("page at scale 1: %dx%d, want 612x792", b.Dx(), b.Dy())
	}
	if resp2, _ := e.get(base+pdf+"/pages/1.png?scale=1", key, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp2.StatusCode != 304 {
		t.Errorf("page with its ETag: %d, want 304", resp2.StatusCode)
	}
	if resp, body := e.get(base+pdf+"/pages/1.png", key, nil); resp.StatusCode != 200 {
		t.Errorf("page at the default scale: %d %s", resp.StatusCode, body)
	} else if img, err := png.Decode(bytes.NewReader(body)); err != nil || img.Bounds().Dx() != 918 {
		t.Errorf("default scale: %v %v", img.Bounds(), err)
	}

	for _, c := range []struct {
		path string
		code int
	}{
		{pdf + "/pages/2.png", 404},
		{pdf + "/pages/0.png", 404},
		{pdf + "/pages/99999999999999999999.png", 400},
		{pdf + "/pages/-1.png", 400},
		{pdf + "/pages/one.png", 400},
		{pdf + "/pages/1.jpg", 400},
		{pdf + "/pages/1", 400},
		{pdf + "/pages/1.png?scale=abc", 400},
		{pdf + "/pages/1.png?scale=-2", 400},
		{txt + "/pages/1.png", 404},
		{txt + "/layout", 404},
		{"nosuchdoc/layout", 404},
		{"nosuchdoc/pages/1.png", 404},
	} {
		resp, body := e.get(base+c.path, key, nil)
		if resp.StatusCode != c.code {
			t.Errorf("GET %s: %d %s, want %d", c.path, resp.StatusCode, body, c.code)
		}
	}
	// A huge scale is clamped, not refused.
	if resp, body := e.get(base+pdf+"/pages/1.png?scale=1000", key, nil); resp.StatusCode != 200 {
		t.Errorf("scale=1000: %d %s", resp.StatusCode, body)
	} else if img, err := png.Decode(bytes.NewReader(body)); err != nil || img.Bounds().Dx() != 612*4 {
		t.Errorf("scale=1000: %v %v, want 4x", img.Bounds(), err)
	}
}
