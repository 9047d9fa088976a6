package names

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// contentsOpened returns a contract whose table of contents (its entries
// with leaders in the given style) fills more than headChars before the
// title block and the preamble.
func contentsOpened(leader string) string {
	var b strings.Builder
	b.WriteString("LICENSE AGREEMENT\n\n                TABLE OF CONTENTS\n\n")
	for i := 1; b.Len() < 2*headChars; i++ {
		fmt.Fprintf(&b, "%d.  SECTION HEADING NUMBER %d%s%d\n", i, i, leader, i+2)
	}
	b.WriteString("EXHIBIT A   FORM OF NOTICE" + leader + "A\n\n")
	b.WriteString("KESTREL MAPPING CORP. LICENSE AGREEMENT\n\nThis License Agreement is made by and between Kestrel Mapping Corp., a Delaware corporation (\"Kestrel\"), and Lumen Atlas GmbH (\"Licensee\").\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "%d. Clause %d. The licensee shall keep the records the licensor asks for, and shall give notice in writing.\n\n", i, i)
	}
	return b.String()
}

func TestPartiesAfterTableOfContents(t *testing.T) {
	for _, leader := range []string{" ........................ ", " . . . . . . . . . . . . ", "....."} {
		text := contentsOpened(leader)
		n := Learn(text, "License.txt")
		var got []string
		for _, p := range n.Parties {
			got = append(got, p.Name)
		}
		if want := []string{"Kestrel Mapping Corp.", "Lumen Atlas GmbH"}; !slices.Equal(got, want) {
			t.Errorf("leader %q: parties %q, want %q", leader, got, want)
		}
		if !strings.Contains(n.Title, "LICENSE AGREEMENT") {
			t.Errorf("leader %q: title %q", leader, n.Title)
		}
	}
}

func TestNoContentsNoSkip(t *testing.T) {
	// A heading that is not followed by entries, or entries without a
	// heading, leave the head as the document's first bytes.
	text := "INDEX\n\nThis Agreement is made by and between Quill Partners, LLC (\"Quill\") and Orion Data Corp. (\"Orion\").\n\n1. Terms .... see Schedule 1."
	if s, e, ok := openingContents(text, headChars); ok {
		t.Errorf("found contents [%d,%d) in a text without entries", s, e)
	}
	if got := PreambleHead(text, headChars); got != text {
		t.Errorf("head changed: %q", got)
	}
	long := strings.Repeat("1. Heading ......... 3\n", 600)
	if _, _, ok := openingContents(long, headChars); ok {
		t.Error("found contents without a heading")
	}
}
