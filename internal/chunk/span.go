package chunk

import (
	"unicode"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// minUnit is the shortest text (code points) a unit returns: a heading or a
// list item of a few words ("(i) already publicly known;", ".") quotes
// nothing a reader can check a provision against.
const minUnit = 40

// maxSnap bounds how far a unit's edges move to reach a word boundary.
const maxSnap = 12

// unitSpan is the span a clause's units return: its own text with its
// edges moved out of numbers, and, for a leaf shorter than minUnit (a list
// item of a few words, a stray "."), widened over its next siblings (else its
// previous ones) to read as a provision. A short clause with sub-clauses (a
// heading) keeps its span; search never returns such a span first.
func unitSpan(text []rune, t *clause.Tree, id int) document.Span {
	n := &t.Nodes[id]
	sp := snapToWords(text, n.Own)
	if sp.Len() >= minUnit || !n.Leaf() || n.Parent < 0 {
		return sp
	}
	sibs := t.Nodes[n.Parent].Children
	i := 0
	for i < len(sibs) && sibs[i] != id {
		i++
	}
	for j := i + 1; j < len(sibs) && sp.Len() < minUnit; j++ {
		sp.End = max(sp.End, t.Nodes[sibs[j]].Span.End)
	}
	for j := i - 1; j >= 0 && sp.Len() < minUnit; j-- {
		sp.Start = min(sp.Start, t.Nodes[sibs[j]].Span.Start)
	}
	return snapToWords(text, sp)
}

// snapToWords moves a span's edges out of numbers: a start inside a clause
// number or amount ("2|.7 Non-Arms Length", "Section 8|.1", "$10,000,000|.00")
// moves back to the start of the word, and an end inside one moves back before
// it, so the number goes with the clause it numbers. Edges that would move
// more than maxSnap code points stay.
func snapToWords(text []rune, sp document.Span) document.Span {
	inWord := func(i int) bool { // a number continues across position i ("8|.1", "2.|7", "1|0")
		if i <= 0 || i >= len(text) {
			return false
		}
		prev, cur := text[i-1], text[i]
		return unicode.IsDigit(prev) && (cur == '.' || unicode.IsDigit(cur)) ||
			prev == '.' && unicode.IsDigit(cur) && i >= 2 && unicode.IsDigit(text[i-2])
	}
	if inWord(sp.Start) {
		s := sp.Start
		for s > 0 && sp.Start-s <= maxSnap && !unicode.IsSpace(text[s-1]) {
			s--
		}
		if sp.Start-s <= maxSnap && (s == 0 || unicode.IsSpace(text[s-1])) {
			sp.Start = s
		}
	}
	if inWord(sp.End) {
		e := sp.End
		for e > sp.Start && sp.End-e <= maxSnap && !unicode.IsSpace(text[e-1]) {
			e--
		}
		for e > sp.Start && unicode.IsSpace(text[e-1]) {
			e--
		}
		if sp.End-e <= maxSnap+1 && e-sp.Start >= minUnit {
			sp.End = e
		}
	}
	return sp
}
