package search

import (
	"fmt"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

// headedCorpus builds contracts whose clauses carry headings: n of them have
// an "Audit Rights" clause about books and records, and every one has other
// headed clauses; the last document's records clause has no heading and
// never says "audit".
func headedCorpus(t *testing.T, n int) *Index {
	t.Helper()
	ix := NewIndex()
	fillers := []struct{ head, body string }{
		{"Governing Law", "This agreement is construed under the laws of the State of New York."},
		{"Notices", "Notices shall be sent in writing to the addresses above by courier."},
		{"Payment", "Fees are payable within thirty days of the invoice date in dollars."},
		{"Term", "The agreement lasts two years unless terminated earlier by either side."},
	}
	for d := 0; d <= n; d++ {
		in := index.DocInput{ID: fmt.Sprint("doc", d), Name: fmt.Sprint("doc", d, ".txt")}
		add := func(head, body string) {
			in.Units = append(in.Units, index.UnitInput{Text: head + ". " + body, Spans: []document.Span{{Start: 100 * len(in.Units), End: 100*len(in.Units) + 50}},
				Node: len(in.Units), View: index.ViewPlain, Heading: head})
		}
		for _, f := range fillers {
			add(f.head, f.body)
		}
		if d < n {
			add("Audit Rights", fmt.Sprintf("Licensor may inspect the books and records of Licensee once a year (variant %d).", d))
		} else {
			// No heading, no "audit": only what audit clauses say.
			add("", "Each party shall keep complete books and records, which the other may inspect on notice.")
		}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func TestHeadingBodyAssociations(t *testing.T) {
	ix := headedCorpus(t, 6)
	v := ix.view()
	audit, _ := v.Lookup("audit")
	var got []string
	for _, a := range ix.bodyAssociations(v, audit) {
		got = append(got, v.TermString(a.id))
		if a.w <= 0 || a.w > 1 {
			t.Errorf("weight %v of %q outside (0, 1]", a.w, v.TermString(a.id))
		}
	}
	for _, want := range []string{"book", "record", "inspect"} {
		if !contains(got, want) {
			t.Errorf("body words under \"audit\" %v lack %q", got, want)
		}
	}
	for _, w := range got {
		if index.IsHeadTerm(w) {
			t.Errorf("a heading term %q offered as a body word", w)
		}
	}
	// The question finds the unheaded records clause of the last contract.
	res := searchT(t, ix, Query{Text: "What are the audit rights?", Docs: []string{"doc6"}, K: 1, Stages: Stages{NoFill: true}})
	if len(res.Hits) != 1 || res.Hits[0].Span.Start != 400 {
		t.Fatalf("audit question in doc6: %+v, want the records clause at 400", res.Hits)
	}
	// A question never yields a marked heading term.
	if terms, _, _ := analyzeQuery(index.HeadMark + "audit"); len(terms) != 1 || index.IsHeadTerm(terms[0]) {
		t.Errorf("question terms %q", terms)
	}
}

// A word that heads clauses in too few documents is not read as a heading,
// and an association seen in fewer than headMinDocs documents is not kept.
func TestHeadingAssociationsNeedSeveralDocuments(t *testing.T) {
	ix := headedCorpus(t, 2)
	v := ix.view()
	audit, _ := v.Lookup("audit")
	if got := ix.bodyAssociations(v, audit); len(got) != 0 {
		t.Errorf("\"audit\" heads clauses in 2 documents, got associations %v", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
