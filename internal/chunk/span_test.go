package chunk

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

func TestSnapToWords(t *testing.T) {
	text := []rune("as set out in this Section 8.1 Confidentiality shall not apply to information that is public. 4.5 The Reseller shall provide support.")
	at := func(s string) int { return len([]rune(string(text)[:strings.Index(string(text), s)])) }
	cases := []struct {
		name      string
		sp        document.Span
		wantStart string // the text the snapped span starts with
	}{
		{"start inside a clause number moves back", document.Span{Start: at(".5 The"), End: len(text)}, "4.5 The Reseller"},
		{"start inside a word stays (only numbers move)", document.Span{Start: at("onfidentiality"), End: len(text)}, "onfidentiality shall"},
		{"start at a word stays", document.Span{Start: at("The Reseller"), End: len(text)}, "The Reseller"},
	}
	for _, c := range cases {
		got := snapToWords(text, c.sp)
		if !strings.HasPrefix(string(text[got.Start:got.End]), c.wantStart) {
			t.Errorf("%s: snapped span starts %q, want %q", c.name, string(text[got.Start:min(got.End, got.Start+20)]), c.wantStart)
		}
	}
	// An end inside "4.5" moves before it, so the number goes with its clause.
	end := snapToWords(text, document.Span{Start: 0, End: at(".5 The")})
	if s := string(text[end.Start:end.End]); !strings.HasSuffix(s, "is public.") {
		t.Errorf("snapped end: %q", s)
	}
}

func TestUnitsAreNeverTooShortOrMidWord(t *testing.T) {
	text := "SERVICES AGREEMENT\n\n1. Confidentiality\n\n1.1 The Recipient shall not disclose Confidential Information. " +
		"The restrictions above shall not apply to information which is:\n\n(a) public;\n\n(b) already known;\n\n" +
		"(c) independently developed by the Recipient without use of the Confidential Information.\n\n" +
		"2. Term. This Agreement lasts five years from the Effective Date unless terminated earlier as provided here.\n"
	doc := &document.Document{ID: "d", Name: "d.txt", Text: text}
	in := Build(doc, clause.Parse(doc), Options{})
	r := []rune(text)
	tree := clause.Parse(doc)
	for _, u := range in.Units {
		for _, sp := range u.Spans {
			if sp.Len() < minUnit && u.Node > 0 && tree.Nodes[u.Node].Leaf() {
				t.Errorf("leaf unit %q (%v view) is shorter than %d", string(r[sp.Start:sp.End]), u.View, minUnit)
			}
			if sp.Start > 1 && r[sp.Start] == '.' && r[sp.Start-1] >= '0' && r[sp.Start-1] <= '9' {
				t.Errorf("unit starts inside a number: %q", string(r[sp.Start-1:min(sp.End, sp.Start+20)]))
			}
		}
	}
}
