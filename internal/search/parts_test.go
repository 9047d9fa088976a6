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
