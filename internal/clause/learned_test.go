package clause

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

func TestLearnedKeywords(t *testing.T) {
	body := "1. Party A is responsible for the construction and operation of the system and bears its cost.\n" +
		"2. Party B shall provide the land and the utilities the project needs, at no charge to Party A.\n\n"
	for _, c := range []struct {
		name, text string
		want       []string // top-level article labels
	}{
		{"word numbers", "COOPERATION AGREEMENT\n\nItem One, Investment Construction Projects\n" + body + "Item Two, Operation of the Project\n" + body +
			"Item Three Cost and Operation Target\n" + body + "Term Four Force Majeure\n" + body + "Term Five Settlement of Disputes\n" + body + "Term Six Agreement and Others\n" + body,
			[]string{"Item One", "Item Two", "Item Three", "Term Four", "Term Five", "Term Six"}},
		{"not rising", "Intro\n\nItem Two, Alpha Terms\n" + body + "Item One, Beta Terms\n" + body + "Item Three, Gamma Terms\n" + body, nil},
		{"page headers", "Intro\n\nPage 1\n" + body + "Page 2\n" + body + "Page 3\n" + body, nil},
		{"twice is not enough", "Intro\n\nRule One, Alpha Terms\n" + body + "Rule Two, Beta Terms\n" + body, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := Parse(&document.Document{Text: c.text})
			var got []string
			for _, id := range tr.Nodes[0].Children {
				if n := tr.Nodes[id]; n.Kind == KindArticle {
					got = append(got, n.Label)
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("articles %q, want %q", got, c.want)
			}
			if err := Check(&document.Document{Text: c.text}, tr); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCoverHeadingNotAParent(t *testing.T) {
	// A PDF's cover sets the party name in a large font (a heading block);
	// the preamble follows, and the articles long after are not inside it.
	cover := "ACME Pharmaceuticals, Inc.\n"
	preamble := strings.Repeat("This Manufacturing Agreement is made between the parties named above, who agree as follows.\n", 20)
	text := cover + "\n" + preamble + "\nARTICLE 1\nDEFINITIONS\n1.1 Terms. Words have meanings.\n\nARTICLE 2\nSUPPLY\n2.1 Orders. Orders are placed.\n"
	doc := &document.Document{Text: text, Blocks: []document.Block{
		{Kind: document.BlockHeading, Span: document.Span{Start: 0, End: len([]rune(cover)) - 1}},
	}}
	tr := Parse(doc)
	if err := Check(doc, tr); err != nil {
		t.Fatal(err)
	}
	for _, n := range tr.Nodes {
		if n.Label == "ARTICLE 2" {
			if n.Parent != 0 {
				t.Errorf("ARTICLE 2 is under %q, want the document root", tr.Nodes[n.Parent].Heading)
			}
			return
		}
	}
	t.Fatal("no ARTICLE 2")
}

func TestTitleHeadingAbovePreambleNotAParent(t *testing.T) {
	// A PDF sets the agreement's title in a large font right above a
	// preamble of a few hundred words; the articles after the preamble are
	// not inside the title, as the same agreement's text reads.
	title := "Cooperation Agreement\n"
	preamble := strings.Repeat("Party A and Party B agree to cooperate on the project described below.\n", 14)
	text := title + preamble + "\nARTICLE 1\nPROJECT\n1.1 Scope. The project is built.\n\nARTICLE 2\nTERM\n2.1 Term. Ten years.\n"
	doc := &document.Document{Text: text, Blocks: []document.Block{
		{Kind: document.BlockHeading, Span: document.Span{Start: 0, End: len([]rune(title)) - 1}},
	}}
	tr := Parse(doc)
	if err := Check(doc, tr); err != nil {
		t.Fatal(err)
	}
	if len(preamble) >= 1500 {
		t.Fatalf("preamble of %d bytes: the test needs one shorter than a cover page", len(preamble))
	}
	for _, n := range tr.Nodes {
		if n.Label == "ARTICLE 1" && n.Parent != 0 {
			t.Errorf("ARTICLE 1 is under %q, want the document root", tr.Nodes[n.Parent].Heading)
		}
	}
}
