package search

import (
	"slices"
	"testing"
)

func TestQuestionParts(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{`Consider "TickTick: To Do List with Reminder, Day Planner"'s privacy policy; who sees my data?`,
			[]string{`Consider "TickTick: To Do List with Reminder, Day Planner"'s privacy policy`, ` who sees my data`}},
		{"Consider the \u201cAcme: Supply\u201d Agreement; is liability capped?",
			[]string{"Consider the \u201cAcme: Supply\u201d Agreement", " is liability capped"}},
		{`an open "quote: never closed; what now?`, []string{`an open "quote`, ` never closed`, ` what now`}},
		{"a \"quote across\nlines: no", []string{"a \"quote across", "lines", " no"}},
		{"plain; two: parts!", []string{"plain", " two", " parts"}},
		{"", nil},
	} {
		if got := questionParts(c.q); !slices.Equal(got, c.want) {
			t.Errorf("questionParts(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	// The analyzed words agree: the quoted name's words are in one part.
	_, breaks, _ := analyzeQuery(`Consider "TickTick: To Do List"'s policy; who sees my data`)
	n := 0
	for _, b := range breaks {
		if b {
			n++
		}
	}
	if n != 2 {
		t.Errorf("analyzeQuery: %d parts, want 2 (%v)", n, breaks)
	}
	ws := analyzeWords(`Consider "TickTick: To Do List"'s policy; who sees my data`)
	parts := 0
	for _, w := range ws {
		if w.brk {
			parts++
		}
	}
	if parts != 2 {
		t.Errorf("analyzeWords: %d parts, want 2", parts)
	}
}

// TestNamingPartsOnce: a question names its contract once. The part that
// names it is left out whole; another part loses only the words that part
// already said, not a run of its own the contract's opening happens to
// share; of two parts that would each be left out, the one with more
// naming words is, the earlier of equals.
func TestNamingPartsOnce(t *testing.T) {
	for _, c := range []struct {
		q        string
		ref      []string // the terms referenceTerms would return
		framing  []string // self-reference terms
		want     []string // the terms left out
		wantKept []string
	}{
		{`Consider "Acme"'s privacy policy; does it share my purchase information with others?`,
			[]string{"acm", "privaci", "purchas", "inform", "other"}, []string{"polici"},
			[]string{"consid", "acm", "privaci", "polici"}, []string{"share", "purchas", "inform", "other"}},
		{`Consider "Acme"'s privacy policy; does Acme sell my data?`,
			[]string{"acm", "privaci"}, []string{"polici"},
			[]string{"consid", "acm", "privaci", "polici", "acm"}, []string{"sell", "data"}},
		{`Consider "Acme"'s privacy policy; what does Acme do with collected data?`,
			[]string{"acm", "privaci", "collect", "data"}, []string{"polici"},
			[]string{"consid", "acm", "privaci", "polici", "acm"}, []string{"collect", "data"}},
		// one part only: the naming words alone
		{`What is the governing law of the Acme Supply Agreement?`,
			[]string{"acm", "suppli"}, []string{"agreement"},
			[]string{"acm", "suppli"}, []string{"govern", "law", "agreement"}},
	} {
		terms, breaks, _ := analyzeQuery(c.q)
		ref := map[int]bool{}
		for i, tm := range terms {
			if slices.Contains(c.ref, tm) {
				ref[i] = true
			}
		}
		self := func(i int) bool { return slices.Contains(c.framing, terms[i]) }
		out := namingParts(ref, terms, breaks, self)
		var left, kept []string
		for i, tm := range terms {
			if out[i] {
				left = append(left, tm)
			} else {
				kept = append(kept, tm)
			}
		}
		if !slices.Equal(left, c.want) || !slices.Equal(kept, c.wantKept) {
			t.Errorf("%q (terms %v): left out %v, kept %v; want %v, %v", c.q, terms, left, kept, c.want, c.wantKept)
		}
	}
}
