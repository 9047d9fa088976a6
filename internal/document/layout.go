package document

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Layout says where a paginated document's canonical text sits on its
// pages: each page's size and one rectangle per text line with the line's
// span. Only parsers that know the geometry (pdfium) produce one; it is
// enough to draw a highlight over a page image line by line.
//
// Coordinates are PDF points (1/72 inch) from the top-left corner of the
// page as displayed (after the page's rotation and crop box), x to the
// right and y down, as on a rendered page image.
type Layout struct {
	Pages []PageLayout `json:"pages"`
}

// PageLayout is one page of a Layout.
type PageLayout struct {
	Number int       `json:"number"` // 1-based, as in Document.Pages
	Width  float64   `json:"width"`  // points
	Height float64   `json:"height"` // points
	Lines  []LineBox `json:"lines"`  // in text order; empty when the page's text has no geometry
}

// LineBox is one text line: the span of its code points in the canonical
// text (from its first non-space character to its end, without the line
// break) and the rectangle [X0,X1]×[Y0,Y1] the line covers on the page.
//
// In JSON a LineBox is the array [start, end, x0, y0, x1, y1] with the
// coordinates rounded to 0.1 point: a layout has thousands of them.
type LineBox struct {
	Span           Span
	X0, Y0, X1, Y1 float64
}

// MarshalJSON writes the compact array form.
func (l LineBox) MarshalJSON() ([]byte, error) {
	r := func(f float64) float64 { return math.Round(f*10) / 10 }
	return json.Marshal([6]float64{float64(l.Span.Start), float64(l.Span.End), r(l.X0), r(l.Y0), r(l.X1), r(l.Y1)})
}

// UnmarshalJSON reads the compact array form.
func (l *LineBox) UnmarshalJSON(b []byte) error {
	var a [6]float64
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("line box: %w", err)
	}
	*l = LineBox{Span: Span{int(a[0]), int(a[1])}, X0: a[2], Y0: a[3], X1: a[4], Y1: a[5]}
	return nil
}

// Rect is a rectangle on a page, in the coordinates of Layout.
type Rect struct {
	Page           int     `json:"page"`
	X0, Y0, X1, Y1 float64 `json:"-"`
}

// Rects returns the rectangles that cover span s, one per line it touches,
// in text order. A line only partly inside s is cut in proportion to the
// code points inside (a line box has no per-character geometry), which is
// exact at line ends and close elsewhere for body text.
func (l *Layout) Rects(s Span) []Rect {
	var out []Rect
	if l == nil || s.Empty() {
		return nil
	}
	for _, p := range l.Pages {
		for _, ln := range p.Lines {
			in := ln.Span.Intersect(s)
			if in.Empty() {
				continue
			}
			n := float64(ln.Span.Len())
			w := ln.X1 - ln.X0
			out = append(out, Rect{
				Page: p.Number,
				X0:   ln.X0 + w*float64(in.Start-ln.Span.Start)/n,
				X1:   ln.X0 + w*float64(in.End-ln.Span.Start)/n,
				Y0:   ln.Y0, Y1: ln.Y1,
			})
		}
	}
	return out
}

// maxLayoutJSON bounds a decoded layout (gunzipped), against a damaged or
// hostile artifact.
const maxLayoutJSON = 256 << 20

// EncodeLayout returns l as gzipped JSON, the form pakton stores.
func EncodeLayout(l *Layout) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(l); err != nil {
		return nil, fmt.Errorf("encoding layout: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("encoding layout: %w", err)
	}
	return buf.Bytes(), nil
}

// DecodeLayout reads what EncodeLayout wrote.
func DecodeLayout(b []byte) (*Layout, error) {
	raw, err := LayoutJSON(b)
	if err != nil {
		return nil, err
	}
	var l Layout
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("decoding layout: %w", err)
	}
	return &l, nil
}

// LayoutJSON returns the plain JSON of a stored (gzipped) layout without
// decoding it, for serving.
func LayoutJSON(stored []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(stored))
	if err != nil {
		return nil, fmt.Errorf("decoding layout: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxLayoutJSON+1))
	if err != nil {
		return nil, fmt.Errorf("decoding layout: %w", err)
	}
	if len(raw) > maxLayoutJSON {
		return nil, errors.New("decoding layout: too large")
	}
	return raw, nil
}
