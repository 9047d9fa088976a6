package parse

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium/requests"

	"github.com/pakton/pakton/internal/document"
)

// pdfLineSpec is one line of a generated test page.
type pdfLineSpec struct {
	text string  // PDF string contents, already escaped (WinAnsi bytes)
	size float64 // font size; 11 when zero
	gap  float64 // extra space above the line, in points
}

// pdfPageSpec is one generated page: text lines, or an image.
type pdfPageSpec struct {
	lines []pdfLineSpec
	img   *image.Gray // drawn over the whole page when set
	w, h  float64     // page size; US Letter when zero
}

// buildPDF writes a small valid PDF: Helvetica text with Tj operators,
// optional full-page grayscale images, and a correct xref table.
func buildPDF(t testing.TB, pages []pdfPageSpec) []byte {
	t.Helper()
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("") // filled in below
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range pages {
		w, h := p.w, p.h
		if w == 0 {
			w, h = 612, 792
		}
		var content bytes.Buffer
		res := fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font)
		if p.img != nil {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(p.img.Pix)
			zw.Close()
			b := p.img.Bounds()
			im := add(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream",
				b.Dx(), b.Dy(), z.Len(), z.String()))
			res = fmt.Sprintf("<< /XObject << /Im1 %d 0 R >> >>", im)
			fmt.Fprintf(&content, "q %g 0 0 %g 0 0 cm /Im1 Do Q\n", w, h)
		}
		y := h - 72
		for _, l := range p.lines {
			size := l.size
			if size == 0 {
				size = 11
			}
			y -= l.gap + size*1.25
			fmt.Fprintf(&content, "BT /F1 %g Tf 72 %g Td (%s) Tj ET\n", size, y, l.text)
		}
		c := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
		pg := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Resources %s /Contents %d 0 R >>", pagesObj, w, h, res, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return out.Bytes()
}

// contractPDF is a three-page text PDF with a heading, paragraphs and
// non-ASCII characters.
func contractPDF(t testing.TB) []byte {
	return buildPDF(t, []pdfPageSpec{
		{lines: []pdfLineSpec{
			{text: "SUPPLY AGREEMENT", size: 18},
			{text: "This Agreement is made between Acme Corp. and Widget Ltd.", gap: 12},
			{text: "for the supply of widgets.", size: 11},
			{text: "1. Definitions", gap: 14},
			{text: "\\223Products\\224 means the widgets listed in Schedule A."},
		}},
		{lines: []pdfLineSpec{
			{text: "2. Term"},
			{text: "This Agreement lasts five years from the Effective Date."},
			{text: "Caf\\351 au lait \\(with parentheses\\) and 100\\%."},
		}},
		{lines: []pdfLineSpec{
			{text: "3. Governing Law"},
			{text: "The laws of the State of Delaware govern this Agreement."},
		}},
	})
}

// pdfEngines returns the engines installed here.
func pdfEngines(t *testing.T) []string {
	engines := []string{EnginePDFium}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		engines = append(engines, EnginePDFToText)
	} else {
		t.Log("pdftotext not installed: testing pdfium only")
	}
	return engines
}

// checkDoc verifies the invariants every PDF document must hold.
func checkPDFDoc(t *testing.T, doc *document.Document) {
	t.Helper()
	if !utf8.ValidString(doc.Text) {
		t.Fatalf("text is not valid UTF-8")
	}
	if strings.ContainsAny(doc.Text, "\f\r\x00") {
		t.Errorf("text holds a form feed, CR or NUL: %q", doc.Text)
	}
	n := doc.Runes()
	prev := 0
	for i, p := range doc.Pages {
		if p.Number != i+1 {
			t.Errorf("page %d numbered %d", i+1, p.Number)
		}
		if p.Span.Start != prev || p.Span.End < p.Span.Start {
			t.Errorf("page %d span %v does not follow %d", p.Number, p.Span, prev)
		}
		prev = p.Span.End
	}
	if len(doc.Pages) > 0 && prev != n {
		t.Errorf("pages end at %d, text has %d code points", prev, n)
	}
	if n > 0 && !strings.HasSuffix(doc.Text, "\n") {
		t.Errorf("text does not end with a newline")
	}
	for _, b := range doc.Blocks {
		if b.Span.Empty() || b.Span.End > n {
			t.Errorf("block %v %v out of range", b.Kind, b.Span)
		}
	}
}

func TestParsePDFText(t *testing.T) {
	data := contractPDF(t)
	for _, engine := range pdfEngines(t) {
		t.Run(engine, func(t *testing.T) {
			doc, err := Bytes(context.Background(), "contract.pdf", data, Options{PDFEngine: engine})
			if err != nil {
				t.Fatal(err)
			}
			checkPDFDoc(t, doc)
			if doc.Format != "pdf" || doc.Name != "contract.pdf" {
				t.Errorf("format %q name %q", doc.Format, doc.Name)
			}
			if len(doc.Pages) != 3 {
				t.Fatalf("got %d pages, want 3", len(doc.Pages))
			}
			wantOnPage := map[int][]string{
				1: {"SUPPLY AGREEMENT\n", "Acme Corp. and Widget Ltd.\n", "1. Definitions\n", "“Products” means"},
				2: {"2. Term\n", "Café au lait (with parentheses) and 100%.\n"},
				3: {"3. Governing Law\n", "Delaware govern this Agreement.\n"},
			}
			for _, p := range doc.Pages {
				got := doc.Slice(p.Span)
				for _, w := range wantOnPage[p.Number] {
					if !strings.Contains(got, w) {
						t.Errorf("page %d = %q, want it to contain %q", p.Number, got, w)
					}
				}
			}
			if !strings.Contains(doc.Text, "Schedule A.\n\n2. Term") {
				t.Errorf("pages not separated by a blank line: %q", doc.Text)
			}
			if engine == EnginePDFium {
				// Paragraph gaps come from line geometry.
				if !strings.Contains(doc.Text, "SUPPLY AGREEMENT\n\nThis Agreement") ||
					!strings.Contains(doc.Text, "widgets.\n\n1. Definitions\n") ||
					!strings.Contains(doc.Text, "Acme Corp. and Widget Ltd.\nfor the supply") {
					t.Errorf("paragraphs not separated as laid out:\n%s", doc.Text)
				}
				var heads []string
				for _, b := range doc.Blocks {
					if b.Kind == document.BlockHeading {
						heads = append(heads, doc.Slice(b.Span))
					}
				}
				if len(heads) != 1 || heads[0] != "SUPPLY AGREEMENT" {
					t.Errorf("headings = %q, want [SUPPLY AGREEMENT]", heads)
				}
			}
		})
	}
}

func TestParsePDFEngineAuto(t *testing.T) {
	doc, err := Bytes(context.Background(), "c.pdf", contractPDF(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPDFDoc(t, doc)
	if !strings.Contains(doc.Text, "Governing Law") {
		t.Errorf("text = %q", doc.Text)
	}
}

func TestParsePDFErrors(t *testing.T) {
	good := contractPDF(t)
	encrypted, err := os.ReadFile(filepath.Join("testdata", "pdf", "encrypted-aes256.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	encryptedRC4, err := os.ReadFile(filepath.Join("testdata", "pdf", "encrypted-rc4.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		opt  Options
		want error
	}{
		{"not a pdf", []byte("hello, world"), Options{}, ErrCorrupt},
		{"header only", []byte("%PDF-1.7\n"), Options{}, ErrCorrupt},
		{"garbage after header", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0xff, 0x00, 'x'}, 500)...), Options{}, ErrCorrupt},
		{"encrypted aes-256", encrypted, Options{}, ErrEncrypted},
		{"encrypted rc4", encryptedRC4, Options{}, ErrEncrypted},
		{"unknown engine", good, Options{PDFEngine: "mupdf"}, nil},
		{"unknown ocr mode", good, Options{OCR: "maybe"}, nil},
	}
	for _, engine := range pdfEngines(t) {
		for _, tc := range tests {
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				opt := tc.opt
				if opt.PDFEngine == "" {
					opt.PDFEngine = engine
				}
				_, err := Bytes(context.Background(), "x.pdf", tc.data, opt)
				if err == nil {
					t.Fatal("no error")
				}
				if tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("error %q, want %v", err, tc.want)
				}
				if errors.Is(err, ErrEncrypted) && !strings.Contains(err.Error(), "remove the password") {
					t.Errorf("encrypted error %q does not say what to do", err)
				}
			})
		}
	}
}

// Truncated files must never panic; pdfium may repair them and read what
// is left, or fail with ErrCorrupt (or ErrEmpty when nothing is left).
func TestParsePDFTruncated(t *testing.T) {
	good := contractPDF(t)
	for _, engine := range pdfEngines(t) {
		for _, n := range []int{20, 200, len(good) / 2, len(good) - 40} {
			t.Run(fmt.Sprintf("%s/%d", engine, n), func(t *testing.T) {
				doc, err := Bytes(context.Background(), "x.pdf", good[:n], Options{PDFEngine: engine})
				if err != nil {
					if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrEmpty) {
						t.Errorf("error %q is neither ErrCorrupt nor ErrEmpty", err)
					}
					return
				}
				checkPDFDoc(t, doc)
			})
		}
	}
}

func TestParsePDFPageLimit(t *testing.T) {
	// One content stream and one page dictionary shape repeated: about 60
	// bytes a page.
	var b bytes.Buffer
	n := MaxPDFPages + 1
	b.WriteString("%PDF-1.4\n")
	offsets := []int{b.Len()}
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	offsets = append(offsets, b.Len())
	b.WriteString("2 0 obj\n<< /Type /Pages /Count " + fmt.Sprint(n) + " /Kids [")
	for i := range n {
		fmt.Fprintf(&b, "%d 0 R ", i+3)
	}
	b.WriteString("] >>\nendobj\n")
	for i := range n {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>\nendobj\n", i+3)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	for _, engine := range pdfEngines(t) {
		t.Run(engine, func(t *testing.T) {
			_, err := Bytes(context.Background(), "big.pdf", b.Bytes(), Options{PDFEngine: engine})
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("error %v, want ErrTooLarge", err)
			}
		})
	}
}

func TestParsePDFCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Bytes(ctx, "x.pdf", contractPDF(t), Options{PDFEngine: EnginePDFium})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// scannedPDF renders the pages of a small text PDF with pdfium and wraps
// the images in a new PDF with no text layer: a "scan".
func scannedPDF(t *testing.T) []byte {
	t.Helper()
	text := buildPDF(t, []pdfPageSpec{
		{w: 420, h: 160, lines: []pdfLineSpec{{text: "NOTICE OF TERMINATION", size: 20}, {text: "The license ends on March 3, 2024.", size: 16}}},
		{w: 420, h: 160, lines: []pdfLineSpec{{text: "Signed by the Licensor", size: 20}}},
	})
	var pages []pdfPageSpec
	err := withPDFium(context.Background(), text, func(run *pdfiumRun) error {
		for i := range 2 {
			res, err := run.inst.RenderPageInDPI(&requests.RenderPageInDPI{
				Page:        requests.Page{ByIndex: &requests.PageByIndex{Document: run.doc, Index: i}},
				DPI:         150,
				ImageFormat: requests.RenderImageFormatGrayscale,
			})
			if err != nil {
				return err
			}
			src := res.Result.RenderedImage.(*image.Gray)
			img := image.NewGray(src.Bounds())
			copy(img.Pix, src.Pix)
			img.Stride = src.Stride
			res.CleanupFunc()
			pages = append(pages, pdfPageSpec{w: 420, h: 160, img: img})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return buildPDF(t, pages)
}

func TestParsePDFScanned(t *testing.T) {
	data := scannedPDF(t)

	t.Run("ocr off", func(t *testing.T) {
		_, err := Bytes(context.Background(), "scan.pdf", data, Options{OCR: OCROff, PDFEngine: EnginePDFium})
		if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "2 of 2 pages have no text layer") {
			t.Errorf("error %v, want ErrEmpty naming 2 of 2 pages", err)
		}
	})

	t.Run("no tesseract", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := Bytes(context.Background(), "scan.pdf", data, Options{})
		if !errors.Is(err, ErrMissingTool) {
			t.Fatalf("error %v, want ErrMissingTool", err)
		}
		want := "scanned PDF (2 of 2 pages have no text layer): " + ErrMissingTool.Error() +
			": install the Debian packages tesseract-ocr tesseract-ocr-eng poppler-utils to OCR it"
		if err.Error() != want {
			t.Errorf("error %q\nwant  %q", err, want)
		}
	})

	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract not installed")
	}
	renderers := []struct {
		name string
		path string // PATH for the run; "" keeps it
	}{{"pdftoppm", ""}, {"pdfium render", "tesseract-only"}}
	for _, r := range renderers {
		t.Run("ocr auto/"+r.name, func(t *testing.T) {
			if r.path == "" {
				if _, err := exec.LookPath("pdftoppm"); err != nil {
					t.Skip("pdftoppm not installed")
				}
			} else {
				// A PATH holding only tesseract makes OCR render with pdfium.
				tess, _ := exec.LookPath("tesseract")
				dir := t.TempDir()
				if err := os.Symlink(tess, filepath.Join(dir, "tesseract")); err != nil {
					t.Fatal(err)
				}
				t.Setenv("PATH", dir)
			}
			var progress []string
			var mu = make(chan struct{}, 1)
			opt := Options{Progress: func(m string) { mu <- struct{}{}; progress = append(progress, m); <-mu }}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			doc, err := Bytes(ctx, "scan.pdf", data, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkPDFDoc(t, doc)
			if doc.Format != "pdf-ocr" || len(doc.Pages) != 2 {
				t.Errorf("format %q, %d pages", doc.Format, len(doc.Pages))
			}
			p1, p2 := doc.Slice(doc.Pages[0].Span), doc.Slice(doc.Pages[1].Span)
			if !strings.Contains(p1, "NOTICE OF TERMINATION") || !strings.Contains(p1, "March 3, 2024") {
				t.Errorf("page 1 OCR = %q", p1)
			}
			if !strings.Contains(p2, "Signed by the Licensor") {
				t.Errorf("page 2 OCR = %q", p2)
			}
			if len(progress) != 2 || progress[1] != "OCR page 2/2" {
				t.Errorf("progress = %q", progress)
			}
		})
	}

	t.Run("force on a text pdf", func(t *testing.T) {
		doc, err := Bytes(context.Background(), "c.pdf", contractPDF(t), Options{OCR: OCRForce})
		if err != nil {
			t.Fatal(err)
		}
		checkPDFDoc(t, doc)
		if doc.Format != "pdf-ocr" || !strings.Contains(doc.Text, "Governing Law") {
			t.Errorf("format %q text %q", doc.Format, doc.Text)
		}
	})

	t.Run("cancel during ocr", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := Bytes(ctx, "c.pdf", contractPDF(t), Options{OCR: OCRForce})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("cancellation took %v", d)
		}
	})
}

func FuzzParsePDF(f *testing.F) {
	f.Add(contractPDF(f))
	f.Add(buildPDF(f, []pdfPageSpec{{lines: []pdfLineSpec{{text: "x"}}}}))
	f.Add(buildPDF(f, []pdfPageSpec{{}}))
	if m, _ := filepath.Glob(filepath.Join("testdata", "pdf", "*.pdf")); len(m) > 0 {
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		doc, err := Bytes(ctx, "f.pdf", data, Options{PDFEngine: EnginePDFium, OCR: OCROff})
		if err != nil {
			return
		}
		checkPDFDoc(t, doc)
	})
}
