package parse

// PDF page geometry (document.Layout) and page rendering.
//
// For a PDF read by pdfium, parsing records each page's displayed size and
// one box per text line: the union of the pdfium "loose" boxes (font ascent
// to descent) of the line's first and last non-space characters, mapped
// through the page's display matrix (rotation, crop box) to points from the
// top-left corner — the coordinates of a rendered page image divided by its
// scale. That is two more pdfium calls per line and five per page; boxes for
// every character would cost ~0.1 s per page (see pdfiumPageLines).
//
// Line boxes are matched to the canonical text by order: the page text that
// layoutLines writes has exactly one non-blank line per pdfLine. pdftotext
// and OCR give no geometry, and a document with such a page gets no layout.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"

	"github.com/pakton/pakton/internal/document"
)

// noGeometry turns the geometry off, for tests that measure its cost.
var noGeometry bool

// pageGeom is what pdfium tells about one page's geometry.
type pageGeom struct {
	w, h  float64      // displayed size, points
	lines []lineGeom   // one per pdfLine, in order
	m     displayTrans // page space → displayed top-left points
	ok    bool         // whether m is known
}

type lineGeom struct {
	box   [4]float64 // x0, y0, x1, y1
	boxed bool
}

// displayTrans is an affine map: x' = a·x + c·y + e, y' = b·x + d·y + f.
type displayTrans struct{ a, b, c, d, e, f float64 }

func (m displayTrans) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// rect maps a page-space rectangle and returns its bounding box.
func (m displayTrans) rect(l, b, r, t float64) [4]float64 {
	x0, y0 := math.Inf(1), math.Inf(1)
	x1, y1 := math.Inf(-1), math.Inf(-1)
	for _, p := range [4][2]float64{{l, b}, {r, b}, {l, t}, {r, t}} {
		x, y := m.apply(p[0], p[1])
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	return [4]float64{x0, y0, x1, y1}
}

// pdfiumPageGeom measures the page and boxes its lines (setting
// lines[j].box). It returns nil when the page size is unknown.
func pdfiumPageGeom(inst pdfium.Pdfium, page requests.Page, tp references.FPDF_TEXTPAGE, lines []pdfLine, indexed bool) *pageGeom {
	if noGeometry {
		return nil
	}
	wr, err := inst.FPDF_GetPageWidthF(&requests.FPDF_GetPageWidthF{Page: page})
	if err != nil {
		return nil
	}
	hr, err := inst.FPDF_GetPageHeightF(&requests.FPDF_GetPageHeightF{Page: page})
	if err != nil || wr.PageWidth <= 0 || hr.PageHeight <= 0 {
		return nil
	}
	g := &pageGeom{w: float64(wr.PageWidth), h: float64(hr.PageHeight)}
	// The display matrix, measured from three points on a device 64 units
	// per point large (FPDF_PageToDevice rounds to whole device units).
	const k, far = 64.0, 1000.0
	sx, sy := int(math.Round(g.w*k)), int(math.Round(g.h*k))
	dev := func(x, y float64) (float64, float64, bool) {
		r, err := inst.FPDF_PageToDevice(&requests.FPDF_PageToDevice{Page: page, SizeX: sx, SizeY: sy, PageX: x, PageY: y})
		if err != nil {
			return 0, 0, false
		}
		return float64(r.DeviceX) / k, float64(r.DeviceY) / k, true
	}
	x0, y0, ok0 := dev(0, 0)
	x1, y1, ok1 := dev(far, 0)
	x2, y2, ok2 := dev(0, far)
	if !(ok0 && ok1 && ok2) || !indexed {
		return g
	}
	g.m = displayTrans{a: (x1 - x0) / far, b: (y1 - y0) / far, c: (x2 - x0) / far, d: (y2 - y0) / far, e: x0, f: y0}
	g.ok = true
	for j := range lines {
		l := &lines[j]
		if l.first < 0 || l.last < l.first {
			continue
		}
		a, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: l.first})
		if err != nil {
			continue
		}
		z := a.Rect
		if l.last != l.first {
			b, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: l.last})
			if err != nil {
				continue
			}
			z.Left, z.Right = min(z.Left, b.Rect.Left), max(z.Right, b.Rect.Right)
			z.Bottom, z.Top = min(z.Bottom, b.Rect.Bottom), max(z.Top, b.Rect.Top)
		}
		if !(z.Right > z.Left) || !(z.Top > z.Bottom) {
			continue
		}
		box := g.m.rect(float64(z.Left), float64(z.Bottom), float64(z.Right), float64(z.Top))
		// Keep boxes on the page: text drawn off the page is clipped.
		box[0], box[1] = clamp(box[0], 0, g.w), clamp(box[1], 0, g.h)
		box[2], box[3] = clamp(box[2], 0, g.w), clamp(box[3], 0, g.h)
		if box[2] > box[0] && box[3] > box[1] {
			l.box, l.boxed = box, true
		}
	}
	return g
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }

// lineBoxes copies the lines' boxes.
func lineBoxes(lines []pdfLine) []lineGeom {
	out := make([]lineGeom, len(lines))
	for j, l := range lines {
		out[j] = lineGeom{box: l.box, boxed: l.boxed}
	}
	return out
}

// buildLayout returns the layout of an assembled PDF, or nil when a page has
// no geometry (pdftotext, OCR, a page pdfium could not read).
func buildLayout(pages []pdfPageText, spans []document.Page) *document.Layout {
	if len(pages) == 0 || len(pages) != len(spans) {
		return nil
	}
	out := &document.Layout{Pages: make([]document.PageLayout, len(pages))}
	for i, p := range pages {
		if p.geom == nil || p.ocr {
			return nil
		}
		pl := document.PageLayout{Number: i + 1, Width: round1(p.geom.w), Height: round1(p.geom.h), Lines: []document.LineBox{}}
		// The k-th non-blank line of the page text is pdfLine k.
		var boxes []document.LineBox
		k, pos := 0, spans[i].Span.Start
		for line := range strings.SplitSeq(strings.TrimSuffix(p.text, "\n"), "\n") {
			n := utf8.RuneCountInString(line)
			if strings.TrimSpace(line) != "" {
				if k < len(p.geom.lines) && p.geom.lines[k].boxed {
					lead := utf8.RuneCountInString(line) - utf8.RuneCountInString(strings.TrimLeftFunc(line, unicode.IsSpace))
					b := p.geom.lines[k].box
					boxes = append(boxes, document.LineBox{Span: document.Span{Start: pos + lead, End: pos + n}, X0: b[0], Y0: b[1], X1: b[2], Y1: b[3]})
				}
				k++
			}
			pos += n + 1
		}
		if p.text != "" && k == len(p.geom.lines) { // otherwise the match is off: no boxes
			pl.Lines = append(pl.Lines, boxes...)
		}
		out.Pages[i] = pl
	}
	return out
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// Limits of RenderPDFPage.
const (
	MinRenderScale  = 0.25
	MaxRenderScale  = 4
	MaxRenderPixels = 16 << 20 // per page image
)

// RenderPDFPage renders page n (1-based) of a PDF with pdfium at scale
// (1 = 72 dpi, one pixel per point; clamped to [MinRenderScale,
// MaxRenderScale] and lowered so the image has at most MaxRenderPixels)
// and returns it as PNG. A page outside the document is an error wrapping
// ErrPageRange. Cancelling ctx stops the render (its worker is replaced).
func RenderPDFPage(ctx context.Context, data []byte, n int, scale float64) ([]byte, error) {
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: no %%PDF- header in the first 1024 bytes", ErrCorrupt)
	}
	if math.IsNaN(scale) {
		scale = 1
	}
	scale = clamp(scale, MinRenderScale, MaxRenderScale)
	var out []byte
	err := withPDFium(ctx, data, func(run *pdfiumRun) error {
		inst, doc := run.inst, run.doc
		count, err := pdfiumPageCount(inst, doc)
		if err != nil {
			return err
		}
		if n < 1 || n > count {
			return fmt.Errorf("%w: page %d of %d", ErrPageRange, n, count)
		}
		size, err := inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: doc, Index: n - 1})
		if err != nil {
			return fmt.Errorf("%w: page %d: %v", ErrCorrupt, n, err)
		}
		if px := size.Width * size.Height * scale * scale; px > MaxRenderPixels {
			scale *= math.Sqrt(MaxRenderPixels / px)
		}
		dpi := max(1, int(72*scale))
		r, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{
			Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: n - 1}},
			DPI:  dpi,
		})
		if err != nil {
			return fmt.Errorf("%w: rendering page %d: %v", ErrCorrupt, n, err)
		}
		defer r.Cleanup()
		var buf bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, r.Result.RenderedImage); err != nil {
			return fmt.Errorf("encoding page %d: %w", n, err)
		}
		out = buf.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ErrPageRange is returned by RenderPDFPage for a page the PDF does not have.
var ErrPageRange = errors.New("no such page")
