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

// An HTML heading whose outline number its writer glued to its words
// ("2.1OVERVIEW.": LibreOffice's HTML export) is that numbered clause, as
// "2.1 OVERVIEW." would be; in running text a number glued to capitals
// ("1.5MW of capacity") stays text.
func TestNumberGluedToHeading(t *testing.T) {
	glued := "1.DEFINITIONS.\n\nWords used here.\n\n1.1Term. The term.\n\n1.2OVERVIEW.  As set forth herein.\n\n1.3\"Term\" means the term.\n\n2.PROMOTION.\n\n2.1OTHER THINGS. Text.\n\n2.2to provide the Services.\n"
	spaced := "1. DEFINITIONS.\n\nWords used here.\n\n1.1 Term. The term.\n\n1.2 OVERVIEW.  As set forth herein.\n\n1.3 \"Term\" means the term.\n\n2. PROMOTION.\n\n2.1 OTHER THINGS. Text.\n\n2.2. to provide the Services.\n"
	var blocks []document.Block
	for _, line := range strings.Split(glued, "\n\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] < '0' || line[0] > '9' {
			continue
		}
		i := len([]rune(glued[:strings.Index(glued, line)]))
		blocks = append(blocks, document.Block{Kind: document.BlockHeading, Span: document.Span{Start: i, End: i + len([]rune(line))}, Level: strings.Count(line[:3], ".") - 1})
	}
	got := Parse(&document.Document{Text: glued, Blocks: blocks})
	want := Parse(&document.Document{Text: spaced})
	var g, w []string
	for i := 1; i < len(got.Nodes); i++ {
		g = append(g, got.Path(i))
	}
	for i := 1; i < len(want.Nodes); i++ {
		w = append(w, want.Path(i))
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("glued headings:\n%s\nspaced:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	plain := Parse(&document.Document{Text: "1. Capacity\n\n1.5MW of capacity is reserved.\n"})
	for i := 1; i < len(plain.Nodes); i++ {
		if strings.Contains(plain.Path(i), "1.5") {
			t.Errorf("running text read as clause %q", plain.Path(i))
		}
	}
}

// A heading whose number its reader generated from the outline ("2.1",
// then a tab and words in lower case, as Word, ODF and RTF outline
// numbering give) is that numbered clause, as the typed "2.1." is.
func TestGeneratedHeadingNumberBeforeLowerCase(t *testing.T) {
	paras := []struct{ text, label string }{
		{"1.\tDEFINITIONS", "1."},
		{"1.1\tWords have their meanings.", "1.1"},
		{"2.\tSERVICES", "2."},
		{"2.1\tto carry out the Development Work;", "2.1"},
		{"2.2\tto provide the Services; and", "2.2"},
		{"3.\tDURATION", "3."},
		{"3.1\tThis Agreement shall commence on the date.", "3.1"},
	}
	var b strings.Builder
	var blocks []document.Block
	for i, p := range paras {
		if i > 0 {
			b.WriteString("\n\n")
		}
		start := len([]rune(b.String()))
		b.WriteString(p.text)
		blocks = append(blocks, document.Block{Kind: document.BlockHeading, Span: document.Span{Start: start, End: start + len([]rune(p.text))}, Level: strings.Count(p.label, "."), Label: p.label})
	}
	got := outline(Parse(&document.Document{Text: b.String(), Blocks: blocks}))
	typed := strings.NewReplacer("2.1\t", "2.1. ", "2.2\t", "2.2. ").Replace(b.String())
	if want := outline(Parse(&document.Document{Text: typed})); got != want || !strings.Contains(got, "section 2") {
		t.Errorf("generated numbers:\n%s\ntyped numbers:\n%s", got, want)
	}
}
