package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// sample is a small agreement with every kind of definition and reference.
const sample = `MASTER SUPPLY AGREEMENT

This Master Supply Agreement (this "Agreement") is made by and between Acme Widgets, Inc., a Delaware corporation ("Acme"), and Borealis Trading Ltd. (the "Distributor") (each a "Party" and together the "Parties").

ARTICLE 1
DEFINITIONS

1.1 "Affiliate" means any entity that controls a Party.

1.2 "Confidential Information" means all non-public information disclosed by a Party, subject to Section 7.3.

1.3 "Products" or "Product" shall have the meaning set forth in Exhibit A.

ARTICLE 2
SUPPLY

2.1 Orders. The Distributor shall order Products under Sections 2.2 through 2.4 and clauses (a) and (c) of Section 2.5.

2.2 Forecasts. The Distributor shall deliver a forecast (the "Forecast") each month.

2.3 Delivery. Acme shall deliver the Products as set out in Schedule 2.

2.4 Risk. Risk passes on delivery, except as provided in Section 365(n) of the United States Bankruptcy Code.

2.5 Payment. The Distributor shall pay:
(a) the price within thirty days;
(b) interest on late payments; and
(c) all taxes, other than those described in clause (b).

ARTICLE 3
CONFIDENTIALITY

3.1 Exceptions. Confidential Information does not include information disclosed under Section 4.2 of the License Agreement or described in Article 2.

EXHIBIT A
PRODUCTS

Widgets of every size.
`

func extract(t *testing.T, text string) (*document.Document, *clause.Tree, *Doc) {
	t.Helper()
	doc := &document.Document{ID: "d", Name: "d.txt", Format: "text", Text: text}
	tree := clause.Parse(doc)
	return doc, tree, Extract(doc, tree)
}

func TestDefinitions(t *testing.T) {
	doc, tree, g := extract(t, sample)
	got := map[string]DefinitionKind{}
	for _, d := range g.Definitions {
		got[d.Term] = d.Kind
		if !tree.Nodes[d.Node].Span.Contains(d.Span) || !d.Span.Contains(d.TermSpan) {
			t.Errorf("%q: span %v term span %v not inside node %d %v", d.Term, d.Span, d.TermSpan, d.Node, tree.Nodes[d.Node].Span)
		}
		if doc.Slice(d.TermSpan) != d.Term {
			t.Errorf("%q: term span holds %q", d.Term, doc.Slice(d.TermSpan))
		}
	}
	want := map[string]DefinitionKind{
		"Agreement": DefInline, "Acme": DefParty, "Distributor": DefParty, "Party": DefInline, "Parties": DefInline,
		"Affiliate": DefMeans, "Confidential Information": DefMeans, "Products": DefMeans, "Product": DefMeans,
		"Forecast": DefInline,
	}
	for term, kind := range want {
		if got[term] != kind {
			t.Errorf("definition of %q: got kind %q, want %q", term, got[term], kind)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d terms %v, want %d", len(got), got, len(want))
	}
	ci := g.Definition("confidential information")
	if len(ci) != 1 || !strings.Contains(doc.Slice(ci[0].Span), "non-public information") {
		t.Errorf("Confidential Information: %+v", ci)
	}
}

func TestUses(t *testing.T) {
	_, tree, g := extract(t, sample)
	uses := map[string]int{}
	for _, u := range g.Uses {
		uses[g.Terms[u.Term]] += u.Count
		if u.Node < 0 || u.Node >= len(tree.Nodes) {
			t.Fatalf("use in node %d of %d", u.Node, len(tree.Nodes))
		}
	}
	// "Products" is defined with "Product"; plural forms count for both
	// spellings once, the longest match winning.
	for term, want := range map[string]int{"Distributor": 3, "Confidential Information": 1, "Acme": 1, "Products": 2, "Affiliate": 0} {
		if uses[term] != want {
			t.Errorf("uses of %q = %d, want %d (all: %v)", term, uses[term], want, uses)
		}
	}
}

func TestReferences(t *testing.T) {
	doc, tree, g := extract(t, sample)
	var got []string
	for _, r := range g.References {
		target := "-"
		if r.Target >= 0 {
			target = tree.Path(r.Target)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s", doc.Slice(r.Span), r.Label, r.Status, target, r.External))
		if r.Text != doc.Slice(r.Span) {
			t.Errorf("reference text %q, span holds %q", r.Text, doc.Slice(r.Span))
		}
	}
	want := []string{
		"Section 7.3|Section 7.3|unresolved|-|",
		"Exhibit A|Exhibit A|resolved|EXHIBIT A|",
		"Sections 2.2|Section 2.2|resolved|ARTICLE 2 > 2.2|",
		"2.2 through 2.4|Section 2.3|resolved|ARTICLE 2 > 2.3|",
		"2.4|Section 2.4|resolved|ARTICLE 2 > 2.4|",
		"clauses (a)|Clause (a)|resolved|ARTICLE 2 > 2.5 > (a)|",
		"(c)|Clause (c)|resolved|ARTICLE 2 > 2.5 > (c)|",
		"Section 2.5|Section 2.5|resolved|ARTICLE 2 > 2.5|",
		"Schedule 2|Schedule 2|unresolved|-|",
		"Section 365(n)|Section 365(n)|external|-|United States Bankruptcy Code",
		"clause (b)|Clause (b)|resolved|ARTICLE 2 > 2.5 > (b)|",
		"Section 4.2|Section 4.2|external|-|License Agreement",
		"Article 2|Article 2|resolved|ARTICLE 2|",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("references:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReferenceForms(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // labels found
	}{
		{"section sign", "Payment is due under § 4.2 and §§ 5(a)-(c).", []string{"Section 4.2", "Section 5(a)", "Section 5(b)", "Section 5(c)"}},
		{"article roman", "as provided in Article IV and Articles II or III", []string{"Article 4", "Article 2", "Article 3"}},
		{"quoted exhibit", `attached as Exhibit "D" and Schedule B-1`, []string{"Exhibit D", "Schedule B-1"}},
		{"sub-items", "subject to Section 4.1(a)(ii) and (iii)", []string{"Section 4.1(a)(ii)", "Section 4.1(a)(iii)"}},
		{"not a list", "under Section 9 and 30 days later", []string{"Section 9"}},
		{"plural list", "which Sections 5, 6 and 11 survive", []string{"Section 5", "Section 6", "Section 11"}},
		{"ordinary words", "in part or in whole, the sections of the exhibit", nil},
		{"statute", "pursuant to 15 U.S.C. § 78j", []string{"Section 78j"}},
		{"paragraph", "as stated in paragraph 3 above", []string{"Paragraph 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, g := extract(t, tt.text)
			var got []string
			for _, r := range g.References {
				got = append(got, r.Label)
			}
			if strings.Join(got, ";") != strings.Join(tt.want, ";") {
				t.Errorf("%q: got %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestExtractEmpty(t *testing.T) {
	for _, text := range []string{"", " ", "\"", "Section", "§", "(the \"", "\"A\" means"} {
		_, _, g := extract(t, text)
		if g == nil {
			t.Fatalf("%q: nil", text)
		}
	}
}

func TestLookup(t *testing.T) {
	doc, tree, _ := extract(t, sample)
	tests := []struct {
		ref  string
		from int
		want []string // target paths, "-" for none
	}{
		{"Section 2.3", 0, []string{"ARTICLE 2 > 2.3"}},
		{"2.5(b)", 0, []string{"ARTICLE 2 > 2.5 > (b)"}},
		{"Sections 2.2 through 2.4", 0, []string{"ARTICLE 2 > 2.2", "ARTICLE 2 > 2.3", "ARTICLE 2 > 2.4"}},
		{"Exhibit A", 0, []string{"EXHIBIT A"}},
		{"Article II", 0, []string{"ARTICLE 2"}},
		{"Section 9.9", 0, []string{"-"}},
		{"Section 4.2 of the License Agreement", 0, []string{"-"}},
		{"what is this", 0, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range Lookup(doc, tree, tt.ref, tt.from) {
			if r.Target < 0 {
				got = append(got, "-")
			} else {
				got = append(got, tree.Path(r.Target))
			}
		}
		if strings.Join(got, ";") != strings.Join(tt.want, ";") {
			t.Errorf("Lookup(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
	// A bare "(b)" is read from the clause it is written in.
	var item int
	for id, n := range tree.Nodes {
		if n.Label == "(c)" {
			item = id
		}
	}
	if refs := Lookup(doc, tree, "(b)", item); len(refs) != 1 || tree.Path(refs[0].Target) != "ARTICLE 2 > 2.5 > (b)" {
		t.Errorf("Lookup((b)) from %s: %+v", tree.Path(item), refs)
	}
}

func TestEncodeDecode(t *testing.T) {
	_, tree, g := extract(t, sample)
	b, err := g.Encode()
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(g)
	for name, data := range map[string][]byte{"gzip": b, "plain JSON (older stores)": plain} {
		d, err := Decode(data, len(tree.Nodes))
		if err != nil || len(d.Definitions) != len(g.Definitions) || len(d.References) != len(g.References) || len(d.Uses) != len(g.Uses) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Decode(b, 3); err == nil {
		t.Error("a graph for a bigger tree decoded against 3 nodes")
	}
	for _, bad := range [][]byte{nil, []byte("{"), {0x1f, 0x8b, 0}, []byte(`{"definitions":[{"node":-5}]}`)} {
		if _, err := Decode(bad, len(tree.Nodes)); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}

// TestExternalDefinedTerm: a reference into a document the contract
// defines a term for is external; one into the agreement itself is not.
func TestExternalDefinedTerm(t *testing.T) {
	text := "This Yield Agreement (this \"Agreement\") incorporates the 1992 ISDA Master Agreement (the \"ISDA Form\").\n\n" +
		"1. Terms\n\n1.1 Section 5(a) of the ISDA Form does not apply. Section 1.2 of the Agreement applies.\n\n1.2 Notices are written.\n"
	_, _, g := extract(t, text)
	var got []string
	for _, r := range g.References {
		got = append(got, r.Label+"|"+string(r.Status)+"|"+r.External)
	}
	if want := "Section 5(a)|external|ISDA Form;Section 1.2|resolved|"; strings.Join(got, ";") != want {
		t.Errorf("references %q, want %q", strings.Join(got, ";"), want)
	}
}

// "Section 5" names section 5, not an item "5." of a list inside section 4
// that comes before it.
func TestReferenceToSectionNotListItem(t *testing.T) {
	text := `1. SCOPE. The Supplier supplies the goods.

2. PRICE. The Buyer pays the price.

3. DELIVERY. The Supplier delivers the goods.

4. DELIVERABLES.

(a) The Supplier shall deliver:

1. a design;

2. a build;

3. a manual;

4. the source code; and

5. a test report.

(b) The Buyer shall review them.

5. LIABILITY. Each party's liability is limited.

6. TERMINATION. Either party may terminate for breach of Section 5.
`
	_, tree, g := extract(t, text)
	found := false
	for _, r := range g.References {
		if r.Label != "Section 5" {
			continue
		}
		found = true
		if r.Target < 0 || tree.Path(r.Target) != "5" {
			got := "-"
			if r.Target >= 0 {
				got = tree.Path(r.Target)
			}
			t.Errorf("Section 5 resolves to %q, want \"5\"", got)
		}
	}
	if !found {
		t.Errorf("no reference to Section 5 in %v", g.References)
	}
}

// "Section 5" never names an item numbered 5 inside a numbered section,
// even when the document has no section 5 of its own; "Section 4(5)" and
// "Section 4(a)(5)" do name it.
func TestReferenceToMissingSectionNotListItem(t *testing.T) {
	text := `1. SCOPE. The Supplier supplies the goods.

2. PRICE. The Buyer pays the price.

3. DELIVERY. The Supplier delivers the goods.

4. DELIVERABLES.

(a) The Supplier shall deliver:

1. A design;

2. A build;

3. A manual;

4. The source code; and

5. A test report.

(b) The Buyer shall review them and may reject them under Section 5, Section 4(a)(5) or Section 2.
`
	_, tree, g := extract(t, text)
	var got []string
	for _, r := range g.References {
		target := "-"
		if r.Target >= 0 {
			target = tree.Path(r.Target)
		}
		got = append(got, r.Label+"|"+string(r.Status)+"|"+target)
	}
	want := "Section 5|unresolved|-;Section 4(a)(5)|resolved|4 > (a) > 5;Section 2|resolved|2"
	if strings.Join(got, ";") != want {
		t.Errorf("references %q, want %q", strings.Join(got, ";"), want)
	}
}

// A definition is recorded where the text defines a term, not where a
// clause's heading quotes a party's name or a clause opens with one.
func TestDefinitionOnlyWhereDefined(t *testing.T) {
	text := `This Agreement is made between Acme Inc., a Delaware corporation ("Acme"), and Borealis Ltd. (the "Distributor").

1. Definitions

1.1 "Products" means the goods in the catalogue.

1.2 "Term" is the period in Section 2.

1.3 Territory shall mean Canada.

2. General

2.1 Notices are written.

2.2 "Distributor" is an independent contractor of Acme.

2.3 Distributor shall include, in its agreements with its customers, the terms of Section 2.1.

2.4 Whenever Distributor refers to the Trademarks, it shall name Acme as their owner.

2.5 "Distributor"
Distributor is an independent contractor.
`
	_, tree, g := extract(t, text)
	var got []string
	for _, d := range g.Definitions {
		got = append(got, d.Term+"|"+string(d.Kind)+"|"+tree.Path(d.Node))
	}
	want := "Acme|party|;Distributor|party|;Products|means|1 > 1.1;Term|means|1 > 1.2;Territory|means|1 > 1.3"
	if strings.Join(got, ";") != want {
		t.Errorf("definitions %q, want %q", strings.Join(got, ";"), want)
	}
}
