package chunk

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

const sample = `MASTER SERVICES AGREEMENT

This Master Services Agreement is entered into by and between Acme Robotics, Inc. ("Acme") and Borealis Logistics GmbH ("Customer").

ARTICLE 1 DEFINITIONS
1.1 "Services" means the services described in Schedule 1.
1.2 "Fees" means the amounts set out in Schedule 2.

ARTICLE 9 LIMITATION OF LIABILITY
9.1 Neither party shall be liable for indirect or consequential damages.
9.2 Each party's aggregate liability shall not exceed the Fees paid in the twelve months before the claim, except that:
(a) this cap does not apply to breach of confidentiality; and
(b) this cap does not apply to a party's indemnification obligations.
`

func TestBuildReturnsSourceSpansOnly(t *testing.T) {
	doc := &document.Document{ID: "msa", Name: "msa.txt", Text: sample}
	in := Build(doc, nil, Options{})
	if len(in.Units) == 0 {
		t.Fatal("no units")
	}
	ix := document.NewIndex(sample)
	views := map[index.View]int{}
	for _, u := range in.Units {
		views[u.View]++
		for _, sp := range u.Spans {
			if sp.Start < 0 || sp.End > ix.Len() || sp.Empty() {
				t.Fatalf("unit span %v outside the text", sp)
			}
			src := ix.Slice(sp)
			// Every view indexes the source text (plus, maybe, context).
			if !strings.Contains(u.Text, src) {
				t.Fatalf("unit text does not contain its source span %q", src)
			}
		}
	}
	for _, v := range []index.View{index.ViewPlain, index.ViewAncestors, index.ViewDescendant} {
		if views[v] == 0 {
			t.Errorf("no %v units built", v)
		}
	}
	// The ancestor-aware view of item (a) carries the article heading.
	found := false
	for _, u := range in.Units {
		if u.View == index.ViewAncestors && strings.Contains(u.Text, "breach of confidentiality") {
			found = strings.Contains(u.Text, "LIMITATION OF LIABILITY") || strings.Contains(strings.ToLower(u.Text), "limitation of liability")
		}
	}
	if !found {
		t.Error("ancestor-aware view of 9.2(a) lacks its article heading")
	}
}

// Each clause's text is given its heading (or its nearest ancestor's, or its
// defined term) once, on its plain view, so the index counts it once.
func TestBuildHeadings(t *testing.T) {
	doc := &document.Document{ID: "msa", Name: "msa.txt", Text: sample}
	in := Build(doc, nil, Options{})
	got := map[string]string{} // plain unit text prefix → heading
	for _, u := range in.Units {
		if u.View != index.ViewPlain {
			if u.Heading != "" {
				t.Errorf("%v view carries heading %q", u.View, u.Heading)
			}
			continue
		}
		got[u.Text[:min(len(u.Text), 20)]] = u.Heading
	}
	for text, want := range map[string]string{"(a) this cap does no": "LIMITATION OF LIABILITY", "1.2 \"Fees\" means the": "Fees"} {
		if h, ok := got[text]; !ok || !strings.EqualFold(h, want) {
			t.Errorf("plain unit %q: heading %q, want %q (units: %q)", text, h, want, got)
		}
	}
}

func TestSummary(t *testing.T) {
	s := Summary(&document.Document{Text: sample})
	if s.Title != "MASTER SERVICES AGREEMENT" {
		t.Errorf("title %q", s.Title)
	}
	if len(s.Parties) != 2 || !strings.HasPrefix(s.Parties[0], "Acme Robotics") || !strings.HasPrefix(s.Parties[1], "Borealis Logistics") {
		t.Errorf("parties %q", s.Parties)
	}
	if !strings.EqualFold(s.Type, "master services agreement") {
		t.Errorf("type %q", s.Type)
	}
}
