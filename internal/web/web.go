// Package web is pakton's browser app: upload contracts and watch them
// ingest, browse a document with its clause tree, search, ask a question and
// watch the agents work, and click a citation to see the exact cited text
// highlighted in the document.
//
// The app is hand-written static files (static/index.html, app.css and
// several classic scripts, one per part of the app, listed in index.html and
// described in core.js) embedded in the binary; there is no build step. It is a client of
// the JSON API under /api/v1 (internal/server), which mounts Handler at "/".
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var staticFS embed.FS

// asset is one embedded file ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string // strong validator: quoted prefix of the SHA-256
	version     string // unquoted, for cache-busting query strings
}

// assetTypes are the content types of the files the app ships; a file of
// another type is not served.
var assetTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
}

// contentSecurityPolicy allows only the app's own files and API: no inline
// script or style, no frames, so contract text that slips into the page as
// markup could not run or load anything.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler returns the web app. It serves the embedded files by name, and
// index.html for every other path that does not look like a file, so the app
// can be opened at any path. Paths under /api/ are never answered with the
// app: an API route the API server does not know gets a JSON 404 here.
//
// index.html is revalidated on every load (Cache-Control: no-cache, with an
// ETag); it references its scripts and app.css with a content hash in the query
// string, and a request carrying the current hash may be cached for a year.
func Handler() http.Handler {
	assets, err := loadAssets(staticFS)
	if err != nil {
		// The files are embedded at build time; failing here is a build defect.
		panic("web: " + err.Error())
	}
	return &handler{assets: assets}
}

type handler struct {
	assets map[string]*asset // by URL path, e.g. "/app.js"
}

func loadAssets(fsys fs.FS) (map[string]*asset, error) {
	sub, err := fs.Sub(fsys, "static")
	if err != nil {
		return nil, err
	}
	out := map[string]*asset{}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ct, ok := assetTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		out["/"+p] = newAsset(b, ct)
		return nil
	})
	if err != nil {
		return nil, err
	}
	index, ok := out["/index.html"]
	if !ok {
		return nil, fs.ErrNotExist
	}
	// Point index.html at the current versions of the scripts and styles it
	// loads.
	body := index.body
	for name, a := range out {
		if ext := path.Ext(name); ext == ".js" || ext == ".css" {
			body = bytes.ReplaceAll(body, []byte(`"`+name+`"`), []byte(`"`+name+`?v=`+a.version+`"`))
		}
	}
	out["/index.html"] = newAsset(body, index.contentType)
	return out, nil
}

func newAsset(b []byte, contentType string) *asset {
	sum := sha256.Sum256(b)
	v := hex.EncodeToString(sum[:8])
	return &asset{body: b, contentType: contentType, etag: `"` + v + `"`, version: v}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/api" || strings.HasPrefix(p, "/api/") {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"no such API route"}` + "\n"))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a, ok := h.assets[p]
	switch {
	case ok && p != "/index.html":
		if r.URL.Query().Get("v") == a.version {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
	case ok || !strings.Contains(path.Base(p), "."):
		// index.html itself, "/", or an app path such as /collections/x.
		a = h.assets["/index.html"]
		w.Header().Set("Cache-Control", "no-cache")
	default:
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.contentType)
	hd.Set("ETag", a.etag)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	if a.contentType == assetTypes[".html"] {
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Frame-Options", "DENY")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatch(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Length", strconv.Itoa(len(a.body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(a.body)
}

// etagMatch reports whether an If-None-Match header names etag (or is "*").
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		t = strings.TrimPrefix(t, "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
