package parse

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/parse/pdftest"
)

// A font that maps its semicolon glyph to U+037E GREEK QUESTION MARK (SEC
// filings' fonts do) shows a semicolon, and Unicode normalization makes it
// one: the text reads ";", so the clause parser ends an item at "; and
// (iii)" and a search for the typed text finds it. The page's text keeps
// its code-point count.
func TestPDFGreekQuestionMarkIsSemicolon(t *testing.T) {
	line := "upon: (i) prompt notice of the claim; and (ii) sole control of the defense;"
	data := pdftest.OnePageMapped(map[byte]rune{';': 0x037E}, line)
	for _, engine := range []string{EnginePDFium, EnginePDFToText} {
		t.Run(engine, func(t *testing.T) {
			if _, err := exec.LookPath("pdftotext"); engine == EnginePDFToText && err != nil {
				t.Skip("pdftotext is not installed")
			}
			doc, err := Bytes(context.Background(), "mapped.pdf", data, Options{PDFEngine: engine, OCR: OCROff})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(doc.Text); got != line {
				t.Errorf("text %+q, want %+q", got, line)
			}
		})
	}
	// The map is what the extractor reads: without canonicalRune the text
	// would hold U+037E.
	if got := cleanPlainText("claim\u037e and\u0387"); got != "claim; and\u00b7\n" {
		t.Errorf("cleanPlainText: %+q", got)
	}
}

// A line pdfium reports twice from one starting point (a SEC filing draws
// "copy of the letters from the OTS approving the MHC Application" twice,
// 0.004 pt apart) is read once; the same words elsewhere on the page, or
// drawn a line lower, are kept.
func TestDropOverprinted(t *testing.T) {
	line := func(text string, x, base float64) pdfLine {
		return pdfLine{text: text, x: x, base: base, size: 11, placed: true}
	}
	lines := []pdfLine{
		line("(k) the Agent shall receive: (i) a", 72, 720),
		line("copy of the letters approving the Application", 77.914, 419.785),
		line("copy of the letters approving the Application", 77.914, 419.788),
		line("and authorizing the use of the Prospectus; (ii) a copy", 72, 406),
		line("[***]", 72, 392),
		line("[***]", 72, 378),
		line("[***]", 300, 378),
		{text: "unplaced"},
		{text: "unplaced"},
	}
	var got []string
	for _, l := range dropOverprinted(lines) {
		got = append(got, l.text)
	}
	want := []string{
		"(k) the Agent shall receive: (i) a",
		"copy of the letters approving the Application",
		"and authorizing the use of the Prospectus; (ii) a copy",
		"[***]", "[***]", "[***]", "unplaced", "unplaced",
	}
	if !slices.Equal(got, want) {
		t.Errorf("lines\n%q\nwant\n%q", got, want)
	}
}
