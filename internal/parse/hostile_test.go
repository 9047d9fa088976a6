package parse

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/parse/pdftest"
)

// deepListHTML returns HTML with depth nested lists and then items more
// list items at the deepest level.
func deepListHTML(depth, items int) []byte {
	var b strings.Builder
	b.WriteString("<html><body>")
	for range depth {
		b.WriteString("<ul><li>x")
	}
	for range items {
		b.WriteString("<li>x")
	}
	return []byte(b.String())
}

// Deeply nested lists used to be indented two spaces per level with no
// cap: 19 MB of HTML became 493 MB of text. The text must stay linear in
// the size of the file.
func TestHTMLDeepListsStayLinear(t *testing.T) {
	for _, tc := range []struct {
		name         string
		depth, items int
	}{
		{"shallow", 3, 20_000},
		{"deep", 240, 20_000},
		{"deepest the HTML parser allows", 250, 5_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := deepListHTML(tc.depth, tc.items)
			doc, err := Bytes(context.Background(), "deep.html", data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := utf8.RuneCountInString(doc.Text); n > 4*len(data) {
				t.Fatalf("%d bytes of HTML became %d characters of text (more than 4 per byte)", len(data), n)
			}
			if want := strings.Repeat(" ", 2*min(tc.depth-1, maxHTMLIndent)) + "▪ x"; !strings.HasSuffix(doc.Text, want) {
				t.Fatalf("last item %q, want %q", doc.Text[max(0, len(doc.Text)-40):], want)
			}
		})
	}
}

// A one-page PDF with more text operations than a page can hold is
// refused by the per-page character cap, and its worker does not keep the
// memory. (The cap is lowered so the test is quick; the slow suite runs
// the full-size attacks in a child process and measures its peak memory.)
func TestPDFManyTextOperationsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts pdfium")
	}
	defer func(n int) { maxPDFPageChars = n }(maxPDFPageChars)
	maxPDFPageChars = 2_000
	data := pdftest.ManyTextOps(5_000)
	_, err := Bytes(context.Background(), "ops.pdf", data, Options{PDFEngine: EnginePDFium})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "characters") {
		t.Fatalf("err = %v, want ErrTooLarge naming the characters on the page", err)
	}
	assertPDFWorkersSmall(t)
	// The pool still reads ordinary PDFs.
	doc, err := Bytes(context.Background(), "ok.pdf", pdftest.OnePage("The Supplier shall deliver."), Options{PDFEngine: EnginePDFium})
	if err != nil || !strings.Contains(doc.Text, "The Supplier shall deliver.") {
		t.Fatalf("ordinary PDF after a hostile one: %v %q", err, doc.Text)
	}
}

// A PDF that takes longer than its deadline fails with ErrTooLarge naming
// the time, and its worker is replaced.
func TestPDFDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts pdfium")
	}
	defer func(open, page time.Duration) { pdfOpenTimeout, pdfPageTimeout = open, page }(pdfOpenTimeout, pdfPageTimeout)
	pdfOpenTimeout, pdfPageTimeout = time.Millisecond, time.Millisecond
	_, err := Bytes(context.Background(), "slow.pdf", pdftest.ManyTextOps(100_000), Options{PDFEngine: EnginePDFium})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "took longer") {
		t.Fatalf("err = %v, want ErrTooLarge for the deadline", err)
	}
	pdfOpenTimeout, pdfPageTimeout = 30*time.Second, time.Second
	if _, err := Bytes(context.Background(), "ok.pdf", pdftest.OnePage("Term"), Options{PDFEngine: EnginePDFium}); err != nil {
		t.Fatalf("ordinary PDF after a deadline: %v", err)
	}
}

// assertPDFWorkersSmall fails when pdfium workers hold more memory than an
// idle worker may keep.
func assertPDFWorkersSmall(t *testing.T) {
	t.Helper()
	if live := pdfiumLiveBytes.Load(); live > pdfiumKeepBelow*int64(pdfiumWorkers(pdfMemoryLimit())) {
		t.Fatalf("pdfium workers hold %d MiB after the file", live>>20)
	}
}

func TestPDFiumMemoryLimit(t *testing.T) {
	const page = 1 << 16
	m := newPDFiumMemory(4 * page)
	defer m.Free()
	b := m.Reallocate(page)
	if len(b) != page {
		t.Fatalf("len %d", len(b))
	}
	b[page-1] = 7
	b = m.Reallocate(3 * page)
	if len(b) != 3*page || b[page-1] != 7 {
		t.Fatalf("grow lost contents or size: len %d", len(b))
	}
	if b := m.Reallocate(5 * page); b != nil {
		t.Fatalf("grow past the limit returned %d bytes", len(b))
	}
}

// An HTML file built to keep the parser busy stops at its deadline.
func TestHTMLDeadline(t *testing.T) {
	defer func(d, perMB time.Duration) { htmlTimeout, htmlTimeoutPerMB = d, perMB }(htmlTimeout, htmlTimeoutPerMB)
	htmlTimeout, htmlTimeoutPerMB = time.Millisecond, 0
	_, err := Bytes(context.Background(), "deep.html", deepListHTML(240, 100_000), Options{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "took longer") {
		t.Fatalf("err = %v, want ErrTooLarge for the deadline", err)
	}
}

// An HTML file with more elements than the limit is refused before it is
// parsed into a tree.
func TestHTMLElementLimit(t *testing.T) {
	defer func(n int) { maxHTMLElements = n }(maxHTMLElements)
	maxHTMLElements = 1_000
	_, err := Bytes(context.Background(), "many.html", deepListHTML(2, 2_000), Options{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "elements") {
		t.Fatalf("err = %v, want ErrTooLarge for the element count", err)
	}
	if _, err := Bytes(context.Background(), "few.html", deepListHTML(2, 500), Options{}); err != nil {
		t.Fatal(err)
	}
}
