package clause

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// A list numbered from "1." inside section 4's item (a) is (a)'s list: it
// does not restart the sections and swallow the rest of the contract. A
// "1." with a heading after a colon starts the sections again.
func TestListRestartInsideSection(t *testing.T) {
	text := `APPLICATION DEVELOPMENT AGREEMENT

The parties agree as follows: 1. PURPOSE. The Client wishes to have an application developed. 2. COMPENSATION. The Client shall pay the fees. 3. TERM. This Agreement runs for two years.

4. DELIVERABLES.

(a) The Developer shall deliver:

1. a design document;

2. a working build;

3. the source code.

(b) The Client shall review each deliverable within ten days.

5. ACCEPTANCE. The Client accepts a deliverable by notice in writing.

6. GOVERNING LAW. This Agreement is governed by the laws of New York, as follows:

1. ENDORSEMENT. The Client endorses the application.

2. FEES. The Client pays the fees.
`
	tr := Parse(&document.Document{Text: text})
	if err := Check(&document.Document{Text: text}, tr); err != nil {
		t.Fatal(err)
	}
	want := `preamble
section 1 [PURPOSE]
section 2 [COMPENSATION]
section 3 [TERM]
section 4 [DELIVERABLES]
  item (a)
    section 1
    section 2
    section 3
  item (b)
section 5 [ACCEPTANCE]
section 6 [GOVERNING LAW]
section 1 [ENDORSEMENT]
section 2 [FEES]
`
	if got := outline(tr); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A quoted term after a clause number is the clause's own text however wide
// the gap after the number: a tab or a typist's spaces make no definition
// of their own.
func TestQuotedTermAfterWideGap(t *testing.T) {
	var outs []string
	for _, gap := range []string{" ", "      ", "\t"} {
		text := "1. DEFINITIONS\n\n1.1" + gap + "\"Licensed Technology\" shall mean the software.\n\n1.2" + gap + "\"Update\" shall mean a new release.\n\n2. LICENSE\n\n2.1 Grant. The licensor grants a licence.\n"
		outs = append(outs, outline(Parse(&document.Document{Text: text})))
	}
	if outs[1] != outs[0] || outs[2] != outs[0] {
		t.Errorf("the gap changes the tree:\none space:\n%s\nspaces:\n%s\ntab:\n%s", outs[0], outs[1], outs[2])
	}
}

// Numbers a word processor generated and its reader wrote into the text are
// placed by their numbers, as typed ones are: list levels of two lists
// ("1.2" at level 2 of the decimal list, "(a)" at level 1 of a lettered one)
// do not nest one under the other.
func TestGeneratedLabelsPlacedByNumber(t *testing.T) {
	paras := []struct {
		text  string
		label string
		level int
	}{
		{"1.\tDEFINITIONS", "1.", 0},
		{"1.1\t\"Affiliate\" means a controlled entity, including:", "1.1", 1},
		{"(a)\tany subsidiary; and", "(a)", 0},
		{"(b)\tany parent.", "(b)", 0},
		{"1.2\t\"Agreement\" means this agreement.", "1.2", 1},
		{"2.\tLICENSE", "2.", 0},
		{"2.1\tThe licensor grants a licence.", "2.1", 1},
	}
	var b strings.Builder
	var blocks []document.Block
	for i, p := range paras {
		if i > 0 {
			b.WriteString("\n\n")
		}
		start := len([]rune(b.String()))
		b.WriteString(p.text)
		blocks = append(blocks, document.Block{Kind: document.BlockListItem, Span: document.Span{Start: start, End: start + len([]rune(p.text))}, Level: p.level, Label: p.label})
	}
	withBlocks := Parse(&document.Document{Text: b.String(), Blocks: blocks})
	typed := Parse(&document.Document{Text: b.String()})
	if got, want := outline(withBlocks), outline(typed); got != want {
		t.Errorf("generated numbers:\n%s\ntyped numbers:\n%s", got, want)
	}
	if got := outline(withBlocks); !strings.Contains(got, "section 2") || strings.Contains(got, "      ") {
		t.Errorf("tree:\n%s", got)
	}
}

// A reader that writes a list number before the item's paragraph ("a. " and
// then the paragraph of an HTML <li><p>) reports a paragraph block inside
// the line: it opens no node of its own, so the tree is the typed text's.
func TestParagraphBlockAfterListNumber(t *testing.T) {
	text := "1. DEFINITIONS\n\na. \"Content\" means the content.\n\nb. \"Site\" means the web site.\n"
	var blocks []document.Block
	for _, line := range []string{"a. \"Content\" means the content.", "b. \"Site\" means the web site."} {
		i := len([]rune(text[:strings.Index(text, line)]))
		n := len([]rune(line))
		blocks = append(blocks,
			document.Block{Kind: document.BlockListItem, Span: document.Span{Start: i, End: i + n}, Label: line[:2]},
			document.Block{Kind: document.BlockParagraph, Span: document.Span{Start: i + 3, End: i + n}})
	}
	withBlocks := Parse(&document.Document{Text: text, Blocks: blocks})
	typed := Parse(&document.Document{Text: text})
	if got, want := outline(withBlocks), outline(typed); got != want {
		t.Errorf("with the reader's blocks:\n%s\ntyped:\n%s", got, want)
	}
}
