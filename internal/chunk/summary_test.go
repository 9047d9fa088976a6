package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// TestSummaryTitleAfterContents: a document that opens with a table of
// contents under its own heading gets the title of its title block, as the
// names learner reads it, not the contents' heading.
func TestSummaryTitleAfterContents(t *testing.T) {
	var b strings.Builder
	b.WriteString("LICENSE AGREEMENT                 TABLE OF CONTENTS\n\n")
	for i := 1; b.Len() < 3*headLimit; i++ {
		fmt.Fprintf(&b, "%d.  SECTION HEADING NUMBER %d ........................ %d\n", i, i, i+2)
	}
	b.WriteString("\nKESTREL MAPPING CORP. LICENSE AGREEMENT\n\nThis License Agreement is made by and between Kestrel Mapping Corp. (\"Kestrel\") and Lumen Atlas GmbH (\"Licensee\").\n\n1. Grant.")
	s := Summary(&document.Document{Text: b.String()})
	if s.Title != "KESTREL MAPPING CORP. LICENSE AGREEMENT" || s.Type != "license agreement" {
		t.Errorf("title %q type %q", s.Title, s.Type)
	}
}

// TestSummaryPretzelTime reads the summary of the CUAD franchise agreement
// that opens with 14 KB of contents (skipped without ../shared/data).
func TestSummaryPretzelTime(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "MRSFIELDSORIGINALCOOKIESINC_01_29_1998-EX-10-FRANCHISE AGREEMENT.txt"))
	if err != nil {
		t.Skip("../shared/data not present")
	}
	s := Summary(&document.Document{Text: string(text)})
	if s.Title != "PRETZEL TIME, INC. FRANCHISE AGREEMENT" {
		t.Errorf("title %q", s.Title)
	}
}
