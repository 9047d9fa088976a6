package clause

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// outline renders a tree compactly for comparison: one line per node below
// the root, indented by depth, "kind label [heading] {term}".
func outline(t *Tree) string {
	var b strings.Builder
	for _, n := range t.Nodes[1:] {
		b.WriteString(strings.Repeat("  ", n.Depth-1))
		b.WriteString(string(n.Kind))
		if n.Label != "" {
			b.WriteString(" " + n.Label)
		}
		if n.Heading != "" {
			b.WriteString(" [" + n.Heading + "]")
		}
		if n.Term != "" {
			b.WriteString(" {" + n.Term + "}")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func parseText(t *testing.T, text string) (*document.Document, *Tree) {
	t.Helper()
	doc := &document.Document{Name: t.Name(), Text: text}
	tr := Parse(doc)
	if err := Check(doc, tr); err != nil {
		t.Fatalf("invariant: %v\n%s", err, outline(tr))
	}
	return doc, tr
}

func dedent(s string) string {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t\t")
	}
	return strings.Join(lines, "\n")
}

func TestParseOutline(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{
			name: "decimal hierarchy with items and romans",
			text: `
		SERVICES AGREEMENT

		This Agreement is made between Acme Inc. ("Acme") and Beta LLC ("Beta").

		1. DEFINITIONS. In this Agreement:
		1.1 "Affiliate" means any entity controlling a party.
		1.2 "Services" shall mean the services in Schedule 1.
		2. SERVICES
		2.1 Scope. Beta shall provide the Services.
		2.1.1 Beta shall:
		(a) act diligently;
		(b) comply with:
		(i) all laws; and
		(ii) all policies;
		(c) report monthly.
		2.2 Fees. Acme shall pay the fees.
		`,
			want: `
		preamble
		section 1 [DEFINITIONS]
		  definition 1.1 {Affiliate}
		  definition 1.2 {Services}
		section 2 [SERVICES]
		  clause 2.1 [Scope]
		    clause 2.1.1
		      item (a)
		      item (b)
		        item (i)
		        item (ii)
		      item (c)
		  clause 2.2 [Fees]
		`,
		},
		{
			name: "articles and sections",
			text: `
		ARTICLE I
		DEFINITIONS
		Section 1.1 Terms. Terms have the meanings below.
		Section 1.2 Construction. Headings are for convenience.
		ARTICLE II
		TERM
		Section 2.1 Term. This Agreement lasts one year, as set out in
		Section 2.3 of the Master Agreement.
		Section 2.2 Renewal. It renews.
		`,
			want: `
		article ARTICLE I [DEFINITIONS]
		  section Section 1.1 [Terms]
		  section Section 1.2 [Construction]
		article ARTICLE II [TERM]
		  section Section 2.1 [Term]
		  section Section 2.2 [Renewal]
		`,
		},
		{
			name: "upper-case keywords, arabic numbers, PART",
			text: `
		PART 1 GENERAL
		ARTICLE 4 PAYMENT
		SECTION 4.1 Invoices. Monthly.
		SECTION 4.2 Late payment. Interest accrues.
		PART 2 SPECIAL
		§ 1 Scope. This part applies to software.
		§ 2 Licence. A licence is granted.
		`,
			want: `
		article PART 1 [GENERAL]
		  article ARTICLE 4 [PAYMENT]
		    section SECTION 4.1 [Invoices]
		    section SECTION 4.2 [Late payment]
		article PART 2 [SPECIAL]
		  section § 1 [Scope]
		  section § 2 [Licence]
		`,
		},
		{
			name: "letter (i) after (h) is a letter",
			text: `
		1. Covenants. The Supplier shall:
		(a) one;
		(b) two;
		(c) three;
		(d) four;
		(e) five;
		(f) six;
		(g) seven;
		(h) eight;
		(i) nine; and
		(j) ten.
		`,
			want: `
		section 1 [Covenants]
		  item (a)
		  item (b)
		  item (c)
		  item (d)
		  item (e)
		  item (f)
		  item (g)
		  item (h)
		  item (i)
		  item (j)
		`,
		},
		{
			name: "roman (v) after (iv), letter (v) after (u) context",
			text: `
		1. Terms.
		(a) first:
		(i) alpha;
		(ii) beta;
		(iii) gamma;
		(iv) delta;
		(v) epsilon;
		(b) second.
		`,
			want: `
		section 1 [Terms]
		  item (a)
		    item (i)
		    item (ii)
		    item (iii)
		    item (iv)
		    item (v)
		  item (b)
		`,
		},
		{
			name: "other list styles",
			text: `
		1. Scope
		a) first item
		b) second item
		2. Options
		A. The first option.
		B. The second option.
		I. Roman one.
		II. Roman two.
		3. Numbers
		(1) one;
		(2) two.
		`,
			want: `
		section 1 [Scope]
		  item a)
		  item b)
		section 2 [Options]
		  item A.
		  item B.
		    item I.
		    item II.
		section 3 [Numbers]
		  item (1)
		  item (2)
		`,
		},
		{
			name: "schedules with restarting numbering",
			text: `
		1. Supply. The Supplier supplies the Products.
		2. Price. The price is in Schedule 1.

		SCHEDULE 1
		PRICES
		1. Base price. USD 10.
		2. Discounts. None.

		Exhibit A - Form of Order
		1. Order number.
		`,
			want: `
		section 1 [Supply]
		section 2 [Price]
		schedule SCHEDULE 1 [PRICES]
		  section 1 [Base price]
		  section 2 [Discounts]
		schedule Exhibit A [Form of Order]
		  section 1
		`,
		},
		{
			name: "table of contents is not structure",
			text: `
		TABLE OF CONTENTS
		1. Definitions 1
		2. Term 3
		3. Payment 4
		4. Miscellaneous 5

		1. Definitions. Words have meanings.
		2. Term. One year.
		3. Payment. Monthly.
		4. Miscellaneous. Nothing else.
		`,
			want: `
		preamble
		section 1 [Definitions]
		section 2 [Term]
		section 3 [Payment]
		section 4 [Miscellaneous]
		`,
		},
		{
			name: "table of contents with a heading and entries sharing lines",
			text: `
		TABLE OF CONTENTS Page
		ARTICLE I DEFINITIONS Section 1.01. Definitions 1 ARTICLE II TERM
		Section 2.01. Term 4 Section 2.02. Renewal 4
		SCHEDULE A - Products SCHEDULE B - Prices

		This Agreement is made between A and B.

		ARTICLE I
		DEFINITIONS
		Section 1.01. Definitions. Words have meanings.
		ARTICLE II
		TERM
		Section 2.01. Term. One year.
		Section 2.02. Renewal. It renews.
		`,
			want: `
		preamble
		article ARTICLE I [DEFINITIONS]
		  section Section 1.01 [Definitions]
		article ARTICLE II [TERM]
		  section Section 2.01 [Term]
		  section Section 2.02 [Renewal]
		`,
		},
		{
			name: "dates, amounts and cross-references at line starts",
			text: `
		1. Payment. The Buyer shall pay on March
		1. 2019 the amount of USD
		1.5 million as set out in
		Section 2.3 of the Loan Agreement and
		(a) of the Schedule.
		2. Delivery. Delivery is
		3 days after payment.
		`,
			want: `
		section 1 [Payment]
		section 2 [Delivery]
		`,
		},
		{
			name: "definitions without numbers, and a parenthetical is not one",
			text: `
		This Agreement is between Acme Corp. (the "Company") and Bob (the "Consultant").

		1. Definitions
		"Affiliate" means an entity under common control.
		“Confidential Information” shall mean non-public information.
		Territory: means the world.
		2. Engagement. The Company engages the Consultant (the "Engagement").
		`,
			want: `
		preamble
		section 1 [Definitions]
		  definition {Affiliate}
		  definition {Confidential Information}
		  definition {Territory}
		section 2 [Engagement]
		`,
		},
		{
			name: "an item label wrapped to the end of its line",
			text: `
		1. Licence
		1.1 Grant. Acme grants a licence to use the Content on the Sites: (i) for publication; (ii) for promotion; and (iii)
		for such other purposes as the parties agree.
		1.2 Delivery. Acme delivers the Content.
		`,
			want: `
		section 1 [Licence]
		  clause 1.1 [Grant]
		    item (i)
		    item (ii)
		    item (iii)
		  clause 1.2 [Delivery]
		`,
		},
		{
			name: "unstructured text falls back to paragraphs",
			text: `
		Dear Sir,

		We agree to keep your information confidential.

		Yours, Bob
		`,
			want: `
		paragraph
		paragraph
		paragraph
		`,
		},
		{
			name: "unnumbered headings group paragraphs",
			text: `
		Confidentiality

		We keep your information confidential.

		Governing Law

		The laws of England apply.
		`,
			want: `
		section [Confidentiality]
		  paragraph
		section [Governing Law]
		  paragraph
		`,
		},
		{
			name: "SEC exhibit number is not a schedule",
			text: `
		Exhibit 10.31
		LICENSE AGREEMENT
		1. Grant. A licence is granted.
		2. Fees. None.
		IN WITNESS WHEREOF the parties have signed.
		`,
			want: `
		preamble
		section 1 [Grant]
		section 2 [Fees]
		paragraph
		`,
		},
		{
			name: "wide space runs act as line breaks",
			text: "AGREEMENT     1. Term. One year.     2. Fees. None.     2.1 Invoices. Monthly.",
			want: `
		preamble
		section 1 [Term]
		section 2 [Fees]
		  clause 2.1 [Invoices]
		`,
		},
		{
			name: "inline enumerations and a contract on one line",
			text: "SUPPLY AGREEMENT This Agreement is made by A and B. 1. Products. A. Product. A sells. B. Pricing. B pays. 2. Term. The term is one year, except that: (a) either party may end it; (b) the buyer may renew it under Section 2(a) and (b) of the Master Agreement; and (c) nothing else applies. 3. Notices. All notices go to ATTN: Tim Orr 4. Entire Agreement. This is all.",
			want: `
		preamble
		section 1 [Products]
		  item A. [Product]
		  item B. [Pricing]
		section 2 [Term]
		  item (a)
		  item (b)
		  item (c)
		section 3 [Notices]
		section 4 [Entire Agreement]
		`,
		},
		{
			name: "article sections numbered under article number",
			text: `
		ARTICLE 5
		INDEMNITY
		5.1 General. Each party indemnifies.
		5.2 Procedure. Notify promptly.
		ARTICLE 6
		TERM
		6.1 Term. One year.
		`,
			want: `
		article ARTICLE 5 [INDEMNITY]
		  clause 5.1 [General]
		  clause 5.2 [Procedure]
		article ARTICLE 6 [TERM]
		  clause 6.1 [Term]
		`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := dedent(tc.text)
			_, tr := parseText(t, text)
			got := outline(tr)
			want := strings.TrimPrefix(dedent(tc.want), "\n")
			if strings.TrimSpace(got) != strings.TrimSpace(want) {
				t.Errorf("outline mismatch\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func TestSpansAndOwn(t *testing.T) {
	text := "Intro.\n\n1. Scope. Text one.\n(a) first;\n(b) second.\n\n2. End.  \n"
	doc, tr := parseText(t, text)
	var sec1 *Node
	for i := range tr.Nodes {
		if tr.Nodes[i].Label == "1" {
			sec1 = &tr.Nodes[i]
		}
	}
	if sec1 == nil {
		t.Fatalf("no section 1:\n%s", outline(tr))
	}
	if got := doc.Slice(sec1.Own); got != "1. Scope. Text one." {
		t.Errorf("own = %q", got)
	}
	if got := doc.Slice(sec1.Span); got != "1. Scope. Text one.\n(a) first;\n(b) second." {
		t.Errorf("span = %q", got)
	}
	last := tr.Nodes[len(tr.Nodes)-1]
	if got := doc.Slice(last.Span); got != "2. End." {
		t.Errorf("last span = %q", got)
	}
	if p := tr.Path(tr.At(sec1.Span.End - 2)); p != "1 > (b)" {
		t.Errorf("path = %q", p)
	}
}

func TestUnicodeSpans(t *testing.T) {
	text := "Vertrag über Lieferung — 日本\n\n1. Geltungsbereich. Für alle Lieferungen.\n2. Preise. € 100.\n"
	doc, tr := parseText(t, text)
	for _, n := range tr.Nodes {
		if n.Label == "2" {
			if got := doc.Slice(n.Span); got != "2. Preise. € 100." {
				t.Errorf("span text = %q", got)
			}
		}
	}
}

func TestBlocks(t *testing.T) {
	// A DOCX parser reports list items whose numbering is not in the text.
	text := "Scope\nThe supplier supplies.\nPrices are fixed.\nDiscounts apply.\n"
	doc := &document.Document{Text: text, Blocks: []document.Block{
		{Kind: document.BlockHeading, Span: document.Span{Start: 0, End: 5}, Level: 0},
		{Kind: document.BlockListItem, Span: document.Span{Start: 6, End: 28}, Level: 0, Label: "1."},
		{Kind: document.BlockListItem, Span: document.Span{Start: 29, End: 46}, Level: 0, Label: "2."},
		{Kind: document.BlockListItem, Span: document.Span{Start: 47, End: 63}, Level: 1, Label: "(a)"},
	}}
	tr := Parse(doc)
	if err := Check(doc, tr); err != nil {
		t.Fatal(err)
	}
	want := "section [Scope]\n  section 1\n  section 2\n    item (a)\n"
	if got := outline(tr); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestEmptyAndWhitespace(t *testing.T) {
	for _, text := range []string{"", " ", "\n\n\t", "x", "1.", "(a)", "ARTICLE", "\"", "Section 1"} {
		doc := &document.Document{Text: text}
		tr := Parse(doc)
		if err := Check(doc, tr); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func TestJSON(t *testing.T) {
	_, tr := parseText(t, "1. Term. One year.\n2. Fees. None.\n")
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back Tree
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Nodes) != len(tr.Nodes) || back.Nodes[1].Heading != "Term" || back.Nodes[1].Span != tr.Nodes[1].Span {
		t.Errorf("round trip lost data: %s", b)
	}
	if !strings.Contains(string(b), `"kind":"section"`) {
		t.Errorf("json: %s", b)
	}
}

func TestRender(t *testing.T) {
	doc, tr := parseText(t, "AGREEMENT\n\n1. Term. One year and then some more words so that the preview gets cut off somewhere.\n(a) sub item.\n")
	doc.Pages = []document.Page{{Number: 1, Span: document.Span{Start: 0, End: doc.Runes()}}}
	var b strings.Builder
	if err := Render(&b, doc, tr, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"document [0,", "  preamble [0,9) p.1  | AGREEMENT", "  section 1 \"Term\" [11,", "    item (a) ", "…"} {
		if !strings.Contains(out, want) {
			t.Errorf("render output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != len(tr.Nodes) {
		t.Errorf("%d lines for %d nodes", n, len(tr.Nodes))
	}
}

func TestMain(m *testing.M) {
	catchPanics = false
	os.Exit(m.Run())
}

// TestSpanPath checks that a span is cited by every clause it runs over.
func TestSpanPath(t *testing.T) {
	// 9 [0,100): own [0,10); 9.1 [10,40); 9.2 [40,70) with (a) [50,60), (b)
	// [60,70); 9.3 [70,100). 10 [100,150): 10.1 [110,150).
	sp := func(a, b int) document.Span { return document.Span{Start: a, End: b} }
	tree := &Tree{Nodes: []Node{
		{ID: 0, Parent: -1, Children: []int{1, 6}, Kind: KindDocument, Span: sp(0, 150)},
		{ID: 1, Parent: 0, Children: []int{2, 3, 5}, Kind: KindSection, Label: "9", Heading: "Insurance", Span: sp(0, 100), Own: sp(0, 10)},
		{ID: 2, Parent: 1, Kind: KindClause, Label: "9.1", Span: sp(10, 40), Own: sp(10, 40)},
		{ID: 3, Parent: 1, Children: []int{4, 7}, Kind: KindClause, Label: "9.2", Span: sp(40, 70), Own: sp(40, 50)},
		{ID: 4, Parent: 3, Kind: KindItem, Label: "(a)", Span: sp(50, 60), Own: sp(50, 60)},
		{ID: 5, Parent: 1, Kind: KindClause, Label: "9.3", Span: sp(70, 100), Own: sp(70, 100)},
		{ID: 6, Parent: 0, Children: []int{8}, Kind: KindSection, Label: "10", Span: sp(100, 150), Own: sp(100, 110)},
		{ID: 7, Parent: 3, Kind: KindItem, Label: "(b)", Span: sp(60, 70), Own: sp(60, 70)},
		{ID: 8, Parent: 6, Kind: KindClause, Label: "10.1", Span: sp(110, 150), Own: sp(110, 150)},
	}}
	tests := []struct {
		sp   document.Span
		want string
	}{
		{sp(72, 98), "9 > 9.3"},
		{sp(41, 100), "9 > 9.2–9.3"},
		{sp(10, 100), "9 > 9.1–9.3"},
		{sp(0, 100), "9"},
		{sp(52, 68), "9 > 9.2 > (a)–(b)"},
		{sp(71, 140), "9–10"},
		{sp(98, 140), "10"}, // two code points of 9.3 cite nothing
	}
	for _, tc := range tests {
		if got := tree.SpanPath(tc.sp); got != tc.want {
			t.Errorf("SpanPath(%v) = %q, want %q", tc.sp, got, tc.want)
		}
	}
}
