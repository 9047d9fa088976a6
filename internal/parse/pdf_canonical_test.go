package parse

import (
	"context"
	"os/exec"
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
