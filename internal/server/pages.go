package server

// Page view of PDF documents: the layout (where each text line sits on its
// page) and page images rendered with pdfium from the stored source PDF.
// Both exist only for documents with the ingest artifacts "layout" and
// "source" (PDFs read by pdfium); any other document answers 404.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/store"
)

// Limits of page rendering.
var (
	// maxRenders bounds the pages rendered at once; more wait for a slot
	// within pageRenderTimeout.
	maxRenders = max(1, runtime.NumCPU())
	// pageRenderTimeout bounds one page image: waiting for a slot, reading
	// the PDF and rendering. A page that takes longer answers 503.
	pageRenderTimeout = 30 * time.Second
)

// defaultPageScale is the scale of a page image when ?scale is not given:
// 1.5 pixels per point (108 dpi).
const defaultPageScale = 1.5

// pageInfo returns a document's info when it has a page view; otherwise it
// answers 404 itself.
func (s *Server) pageInfo(w http.ResponseWriter, r *http.Request, what string) (store.DocInfo, bool) {
	c, id := r.PathValue("c"), r.PathValue("id")
	info, err := s.st.Info(r.Context(), c, id)
	if err != nil {
		s.storeErr(w, r, what, err)
		return info, false
	}
	if !slices.Contains(info.Artifacts, docread.ArtifactLayout) || !slices.Contains(info.Artifacts, docread.ArtifactSource) {
		fail(w, http.StatusNotFound, "document %q has no page view: only PDFs read by pdfium have one (use the text)", id)
		return info, false
	}
	return info, true
}

// docVersion names the stored version of a document, for ETags.
func docVersion(info store.DocInfo) string {
	sha := info.Source.SHA256
	if len(sha) > 16 {
		sha = sha[:16]
	}
	return sha + "-" + strconv.FormatInt(info.Source.IngestedAt.UnixNano(), 36)
}

// notModified answers 304 when the request's If-None-Match holds etag.
func notModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	w.Header().Set("ETag", etag)
	// The key authorizes each request: caches may keep the answer for this
	// user only, and must ask again (cheaply, with the ETag) each time, so a
	// replaced document is never shown stale.
	w.Header().Set("Cache-Control", "private, no-cache")
	for _, m := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if m = strings.TrimSpace(m); m == etag || m == "W/"+etag || m == "*" {
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}

// getLayout answers GET …/documents/{id}/layout: the document.Layout JSON,
// gzipped when the client accepts it (it is stored gzipped).
func (s *Server) getLayout(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	info, ok := s.pageInfo(w, r, "get layout")
	if !ok {
		return
	}
	if notModified(w, r, `"l-`+docVersion(info)+`"`) {
		return
	}
	raw, err := s.st.Artifact(r.Context(), r.PathValue("c"), info.ID, docread.ArtifactLayout)
	if err != nil {
		s.storeErr(w, r, "get layout", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(raw)))
		w.Write(raw)
		return
	}
	body, err := document.LayoutJSON(raw)
	if err != nil {
		s.internal(w, "get layout", err)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, e := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(e), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(q, 64)
			return err == nil && f > 0
		}
		return true
	}
	return false
}

// getPage answers GET …/documents/{id}/pages/{n}.png?scale=S: page n
// (1-based) rendered as PNG at S pixels per point (default 1.5, clamped to
// [0.25, 4] and rounded to a multiple of 0.25).
func (s *Server) getPage(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	num, ok := strings.CutSuffix(r.PathValue("page"), ".png")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || num == "" || num[0] == '+' || num[0] == '-' {
		fail(w, http.StatusBadRequest, "want a page image name like 1.png, not %q", r.PathValue("page"))
		return
	}
	scale := defaultPageScale
	if v := r.URL.Query().Get("scale"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
			fail(w, http.StatusBadRequest, "scale %q: want a number such as 1.5 (pixels per point, 0.25 to 4)", v)
			return
		}
		scale = f
	}
	scale = max(parse.MinRenderScale, min(parse.MaxRenderScale, math.Round(scale*4)/4))

	info, ok := s.pageInfo(w, r, "get page")
	if !ok {
		return
	}
	if n < 1 || n > info.Pages {
		fail(w, http.StatusNotFound, "page %d not found: the document has %d pages", n, info.Pages)
		return
	}
	if notModified(w, r, fmt.Sprintf(`"p-%s-%d-%g"`, docVersion(info), n, scale)) {
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), pageRenderTimeout)
	defer cancel()
	select {
	case s.renders <- struct{}{}:
		defer func() { <-s.renders }()
	case <-ctx.Done():
		s.renderFailed(w, r, ctx.Err())
		return
	}
	data, err := s.st.Artifact(r.Context(), r.PathValue("c"), info.ID, docread.ArtifactSource)
	if err != nil {
		s.storeErr(w, r, "get page", err)
		return
	}
	png, err := parse.RenderPDFPage(ctx, data, n, scale)
	if err != nil {
		s.renderFailed(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(png)))
	w.Write(png)
}

func (s *Server) renderFailed(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case r.Context().Err() != nil:
		// The client went away: nobody reads an answer.
		w.WriteHeader(http.StatusServiceUnavailable)
	case errors.Is(err, context.DeadlineExceeded):
		w.Header().Set("Retry-After", "5")
		fail(w, http.StatusServiceUnavailable, "rendering the page took longer than %v; try again", pageRenderTimeout)
	case errors.Is(err, parse.ErrPageRange):
		fail(w, http.StatusNotFound, "no such page")
	default:
		s.internal(w, "render page", err)
	}
}
