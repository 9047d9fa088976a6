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
func unitSpan(text runeText, t *clause.Tree, id int) document.Span {
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
func snapToWords(text runeText, sp document.Span) document.Span {
	inWord := func(i int) bool { // a number continues across position i ("8|.1", "2.|7", "1|0")
		if i <= 0 || i >= text.Len() {
			return false
		}
		prev, cur := text.At(i-1), text.At(i)
		return unicode.IsDigit(prev) && (cur == '.' || unicode.IsDigit(cur)) ||
			prev == '.' && unicode.IsDigit(cur) && i >= 2 && unicode.IsDigit(text.At(i-2))
	}
	if inWord(sp.Start) {
		s := sp.Start
		for s > 0 && sp.Start-s <= maxSnap && !unicode.IsSpace(text.At(s-1)) {
			s--
		}
		if sp.Start-s <= maxSnap && (s == 0 || unicode.IsSpace(text.At(s-1))) {
			sp.Start = s
		}
	}
	if inWord(sp.End) {
		e := sp.End
		for e > sp.Start && sp.End-e <= maxSnap && !unicode.IsSpace(text.At(e-1)) {
			e--
		}
		for e > sp.Start && unicode.IsSpace(text.At(e-1)) {
			e--
		}
		if sp.End-e <= maxSnap+1 && e-sp.Start >= minUnit {
			sp.End = e
		}
	}
	return sp
}

// runeText is a text read by code point.
type runeText interface {
	Len() int
	At(i int) rune
}

// runeSlice is a text held as code points.
type runeSlice []rune

func (r runeSlice) Len() int      { return len(r) }
func (r runeSlice) At(i int) rune { return r[i] }

// docRunes reads a document's text by code point through a small window
// decoded on demand: unit edges are looked at a few characters either
// side, so the text is never held as code points (four bytes each).
type docRunes struct {
	doc *document.Document
	n   int
	lo  int    // code point of win[0]
	win []rune // the window
}

func newDocRunes(doc *document.Document) *docRunes {
	return &docRunes{doc: doc, n: doc.Runes()}
}

func (d *docRunes) Len() int { return d.n }

func (d *docRunes) At(i int) rune {
	if i < d.lo || i >= d.lo+len(d.win) {
		// Most reads walk back from a unit's edge: keep more behind i.
		d.lo = max(0, i-48)
		d.win = append(d.win[:0], []rune(d.doc.Slice(document.Span{Start: d.lo, End: min(d.n, i+16)}))...)
	}
	return d.win[i-d.lo]
}
