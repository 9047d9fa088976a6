package learnq

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
)

// TestBuiltinReadsAndWritesBack: the shipped model loads, has groups and
// per-word words, and writes back to the very bytes shipped (weights are
// written exactly, so the product expands as the generator learnt).
func TestBuiltinReadsAndWritesBack(t *testing.T) {
	m := Builtin()
	if m.Groups() < 10 || len(m.words) < 10 {
		t.Fatalf("the shipped model has %d groups and %d words learnt per word; want some of each", m.Groups(), len(m.words))
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != BuiltinText() {
		t.Fatal("the shipped model does not write back to the bytes shipped")
	}
	heading := false
	for _, g := range m.groups {
		for _, w := range g.words {
			heading = heading || index.IsHeadTerm(w.Term)
		}
	}
	if !heading {
		t.Fatal("the shipped model learnt no heading word")
	}
}

// TestWriteReadRoundTrip: a trained model reads back equal.
func TestWriteReadRoundTrip(t *testing.T) {
	var ex []Example
	for i, doc := range []string{"a", "b", "c", "d"} {
		units, gold := agreement(doc, 3+i)
		ex = append(ex, Example{Question: []string{"type", "consider"}, Doc: doc, Units: units, Gold: []document.Span{gold}})
	}
	m := Train(ex)
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range [][]string{{"type", "consider"}, {"consider"}, {"other"}} {
		if a, b := m.Expand(q), back.Expand(q); !slices.Equal(a, b) {
			t.Fatalf("Expand(%v): written %v, read back %v", q, a, b)
		}
	}
	if len(m.Expand([]string{"type", "consider"})) == 0 {
		t.Fatal("the trained model adds nothing to its own question")
	}
	if _, err := Read(strings.NewReader("not a model\n")); err == nil {
		t.Fatal("Read accepted a file without the header")
	}
}

// TestBuiltinChangesAQuestionsTerms: a merger-agreement question worded
// like a group of the development questions gets the words learnt for it
// in a search with the shipped model, and none with NoLearnt.
func TestBuiltinChangesAQuestionsTerms(t *testing.T) {
	ctx := context.Background()
	ix := search.NewIndex()
	texts := []string{
		"MERGER AGREEMENT between Acme Holdings and Borealis Foods.",
		"Conversion of Shares. Each share of common stock shall be converted into the right to receive the Merger Consideration, $35.00 in cash, without interest.",
		"Governing Law. This Agreement is governed by the laws of Delaware.",
		"Notices. All notices shall be in writing.",
	}
	var units []index.UnitInput
	pos := 0
	for _, s := range texts {
		h, _, _ := strings.Cut(s, ".")
		units = append(units, index.UnitInput{Text: s, Heading: h, View: index.ViewPlain, Spans: []document.Span{{Start: pos, End: pos + len(s)}}})
		pos += len(s) + 2
	}
	if err := ix.Add(index.DocInput{ID: "merger", Name: "merger.txt", Header: texts[0], Units: units}); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Text: "What is the Type of Consideration?", Explain: true}
	p, err := ix.Plan(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(Builtin().Expand(p.Words)) == 0 {
		t.Fatalf("the shipped model adds nothing to %v (a MAUD development question's words)", p.Words)
	}
	res, err := ix.SearchWith(ctx, search.Models{Learnt: Builtin()}, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Explain.Learned) == 0 {
		t.Fatal("a search with the shipped model added no learnt word the index knows")
	}
	q.NoLearnt = true
	if res, err = ix.SearchWith(ctx, search.Models{Learnt: Builtin()}, q, nil); err != nil {
		t.Fatal(err)
	}
	if len(res.Explain.Learned) != 0 {
		t.Fatalf("with NoLearnt the search added %v", res.Explain.Learned)
	}
}
