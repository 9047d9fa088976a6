package parse

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/pakton/pakton/internal/document"
)

// checkLayout verifies the invariants of a PDF layout: one page entry per
// page, boxes inside their page, line spans inside their page's span, in
// order, not overlapping, and together covering every non-space code point
// of the page's text.
func checkLayout(t *testing.T, doc *document.Document) {
	t.Helper()
	l := doc.Layout
	if l == nil {
		t.Fatal("no layout")
	}
	if len(l.Pages) != len(doc.Pages) {
		t.Fatalf("layout has %d pages, document %d", len(l.Pages), len(doc.Pages))
	}
	text := []rune(doc.Text)
	for i, p := range l.Pages {
		ps := doc.Pages[i].Span
		if p.Number != i+1 || p.Width <= 0 || p.Height <= 0 {
			t.Errorf("page %d: number %d, size %gx%g", i+1, p.Number, p.Width, p.Height)
		}
		covered := map[int]bool{}
		prev := ps.Start
		for _, ln := range p.Lines {
			if ln.Span.Empty() || ln.Span.Start < prev || !ps.Contains(ln.Span) {
				t.Errorf("page %d: line %v out of order or outside the page %v", p.Number, ln.Span, ps)
			}
			prev = ln.Span.End
			if !(0 <= ln.X0 && ln.X0 < ln.X1 && ln.X1 <= p.Width && 0 <= ln.Y0 && ln.Y0 < ln.Y1 && ln.Y1 <= p.Height) {
				t.Errorf("page %d: line %v box (%g,%g)-(%g,%g) not inside %gx%g", p.Number, ln.Span, ln.X0, ln.Y0, ln.X1, ln.Y1, p.Width, p.Height)
			}
			if strings.ContainsRune(string(text[ln.Span.Start:ln.Span.End]), '\n') {
				t.Errorf("page %d: line %v spans a line break", p.Number, ln.Span)
			}
			for r := ln.Span.Start; r < ln.Span.End; r++ {
				covered[r] = true
			}
		}
		missed := 0
		for r := ps.Start; r < ps.End; r++ {
			if !unicode.IsSpace(text[r]) && !covered[r] {
				missed++
			}
		}
		if missed > 0 {
			t.Errorf("page %d: %d non-space code points in no line box", p.Number, missed)
		}
	}
}

func TestPDFLayout(t *testing.T) {
	doc, err := Bytes(context.Background(), "c.pdf", contractPDF(t), Options{PDFEngine: EnginePDFium})
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, doc)
	// "2. Term" is the first line of page 2: the generator sets it at
	// x = 72 with its baseline 72 + 11·1.25 points below the top.
	p2 := doc.Layout.Pages[1]
	if len(p2.Lines) != 3 {
		t.Fatalf("page 2 has %d line boxes, want 3: %+v", len(p2.Lines), p2.Lines)
	}
	first := p2.Lines[0]
	if got := doc.Slice(first.Span); got != "2. Term" {
		t.Errorf("first line of page 2 = %q", got)
	}
	base := 72 + 11*1.25
	if first.X0 < 71 || first.X0 > 73.5 || first.Y0 > base-6 || first.Y0 < base-14 || first.Y1 < base || first.Y1 > base+5 {
		t.Errorf("box of %q = (%g,%g)-(%g,%g); want x0 ≈ 72, the baseline %g inside", "2. Term", first.X0, first.Y0, first.X1, first.Y1, base)
	}
	// Rects of a span inside one line: one rect, cut in proportion.
	sp := document.Span{Start: first.Span.Start + 3, End: first.Span.End}
	rs := doc.Layout.Rects(sp)
	if len(rs) != 1 || rs[0].Page != 2 || rs[0].X1 != first.X1 || rs[0].X0 <= first.X0 {
		t.Errorf("Rects(%v) = %+v", sp, rs)
	}
	// A span across the page break touches the last line of page 1 and the
	// first of page 2.
	p1 := doc.Layout.Pages[0]
	last := p1.Lines[len(p1.Lines)-1]
	rs = doc.Layout.Rects(document.Span{Start: last.Span.End - 2, End: first.Span.Start + 2})
	if len(rs) != 2 || rs[0].Page != 1 || rs[1].Page != 2 {
		t.Errorf("Rects across the page break = %+v", rs)
	}
	// The stored form round-trips.
	enc, err := document.EncodeLayout(doc.Layout)
	if err != nil {
		t.Fatal(err)
	}
	back, err := document.DecodeLayout(enc)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Pages) != 3 || back.Pages[1].Lines[0].Span != first.Span || back.Pages[1].Width != 612 {
		t.Errorf("decoded layout differs: %+v", back.Pages[1])
	}
}

// TestPDFLayoutOnlyPDFium: pdftotext gives no geometry, so no layout.
func TestPDFLayoutOnlyPDFium(t *testing.T) {
	for _, engine := range pdfEngines(t) {
		if engine == EnginePDFium {
			continue
		}
		doc, err := Bytes(context.Background(), "c.pdf", contractPDF(t), Options{PDFEngine: engine})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Layout != nil {
			t.Errorf("%s: layout %+v, want none", engine, doc.Layout)
		}
	}
	doc, err := Bytes(context.Background(), "a.txt", []byte("plain text\n"), Options{})
	if err != nil || doc.Layout != nil {
		t.Errorf("text document: layout %v, err %v", doc.Layout, err)
	}
}

func TestRenderPDFPage(t *testing.T) {
	data := contractPDF(t)
	out, err := RenderPDFPage(context.Background(), data, 2, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 918 || b.Dy() != 1188 {
		t.Errorf("page image %dx%d, want 918x1188", b.Dx(), b.Dy())
	}
	for _, n := range []int{0, 4, -1} {
		if _, err := RenderPDFPage(context.Background(), data, n, 1); !errors.Is(err, ErrPageRange) {
			t.Errorf("page %d: err %v, want ErrPageRange", n, err)
		}
	}
	if _, err := RenderPDFPage(context.Background(), []byte("not a pdf"), 1, 1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("not a PDF: err %v", err)
	}
}

// TestPDFLayoutCUAD measures the layout on the shared CUAD PDFs (when
// PAKTON_CUAD_PDF names their directory): the invariants hold, and the
// extra parse time and stored size are logged.
func TestPDFLayoutCUAD(t *testing.T) {
	dir := os.Getenv("PAKTON_CUAD_PDF")
	if dir == "" {
		t.Skip("set PAKTON_CUAD_PDF to the CUAD pdf directory")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	// Without geometry first (this also warms the pdfium pool).
	noGeometry = true
	var base time.Duration
	for range 2 {
		base = 0
		for _, f := range files {
			data, _ := os.ReadFile(f)
			start := time.Now()
			if _, err := Bytes(context.Background(), filepath.Base(f), data, Options{PDFEngine: EnginePDFium}); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			base += time.Since(start)
		}
	}
	noGeometry = false
	var pages, lines, stored, pdfBytes int
	var took time.Duration
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		doc, err := Bytes(context.Background(), filepath.Base(f), data, Options{PDFEngine: EnginePDFium})
		took += time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		checkLayout(t, doc)
		enc, _ := document.EncodeLayout(doc.Layout)
		stored += len(enc)
		pdfBytes += len(data)
		for _, p := range doc.Layout.Pages {
			pages++
			lines += len(p.Lines)
		}
	}
	t.Logf("%d PDFs, %d pages, %d line boxes: parse %v without geometry, %v with (%+.1f ms/page); layout artifacts %d bytes (%.0f B/page); source PDFs %d bytes",
		len(files), pages, lines, base, took, float64((took-base).Microseconds())/1000/float64(pages), stored, float64(stored)/float64(pages), pdfBytes)
}
