package graph

import (
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// uses counts, per clause node, the occurrences of each defined term outside
// its definitions. A term matches as written (defined terms are capitalised),
// whole words only, also in plural and possessive form; where terms nest
// ("Confidential Information" and "Information"), the longest one wins.
func (x *text) uses(terms []string, defs []Definition) []Use {
	s := x.s
	taken := make([]bool, len(s)) // bytes already matched by a longer term
	for _, d := range defs {
		a, b := x.ix.ByteSpan(d.TermSpan)
		for i := a; i < b && i < len(taken); i++ {
			taken[i] = true
		}
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return len(terms[order[i]]) > len(terms[order[j]]) })
	own := map[string][]document.Span{} // a term's own definition spans
	for _, d := range defs {
		own[Key(d.Term)] = append(own[Key(d.Term)], d.Span)
	}
	keys := make([]string, len(terms))
	for i, t := range terms {
		keys[i] = Key(t)
	}
	type key struct{ node, term int }
	counts := map[key]int{}
	at := x.termStarts(terms)
	for _, ti := range order {
		term := terms[ti]
		from := 0
		for _, a := range at[ti] {
			if x.stopped() {
				return nil
			}
			a := int(a)
			if a < from {
				continue // overlaps the previous occurrence of the term
			}
			b := a + len(term)
			from = b
			b = inflection(s, b)
			if b < len(s) && isWordByte(s[b]) || taken[a] {
				continue
			}
			for i := a; i < b; i++ {
				taken[i] = true
			}
			if inSpans(own[keys[ti]], x.span(a, b)) {
				continue // the defining sentence, not a use
			}
			counts[key{x.nodeAt(a), ti}]++
		}
	}
	out := make([]Use, 0, len(counts))
	for k, c := range counts {
		out = append(out, Use{Node: k.node, Term: k.term, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return out[i].Term < out[j].Term
	})
	return out
}

// termStarts returns, for each term, where it occurs in s starting a word
// (after a byte that is not a word byte), in text order. Terms shorter than
// two bytes are not looked for. It reads s once, walking a trie of the
// terms from each word start, so it costs the length of s times the length
// of the longest term (at most 100 bytes: termText), not the length of s
// times the number of terms: a document of 30,000 inline definitions on one
// line used to cost 30,000 scans of the whole text.
func (x *text) termStarts(terms []string) [][]int32 {
	s := x.s
	type edge struct {
		node int32
		b    byte
	}
	next := map[edge]int32{}
	var ends [][]int32 // per trie node: the terms ending there
	ends = append(ends, nil)
	for ti, t := range terms {
		if len(t) < 2 {
			continue
		}
		n := int32(0)
		for i := 0; i < len(t); i++ {
			c, ok := next[edge{n, t[i]}]
			if !ok {
				c = int32(len(ends))
				ends = append(ends, nil)
				next[edge{n, t[i]}] = c
			}
			n = c
		}
		ends[n] = append(ends[n], int32(ti))
	}
	out := make([][]int32, len(terms))
	if len(ends) == 1 {
		return out
	}
	for a := 0; a < len(s); a++ {
		if a > 0 && isWordByte(s[a-1]) || x.stopped() {
			continue
		}
		n := int32(0)
		for i := a; i < len(s); i++ {
			c, ok := next[edge{n, s[i]}]
			if !ok {
				break
			}
			n = c
			for _, ti := range ends[n] {
				out[ti] = append(out[ti], int32(a))
			}
		}
	}
	return out
}

// inflection extends a match ending at byte b over a plural or possessive
// ending: "Products", "Licensee's", "Parties'".
func inflection(s string, b int) int {
	for _, suf := range []string{"'s", "’s", "es", "s", "'", "’"} {
		if strings.HasPrefix(s[b:], suf) {
			e := b + len(suf)
			if e >= len(s) || !isWordByte(s[e]) {
				return e
			}
		}
	}
	return b
}

func inSpans(spans []document.Span, sp document.Span) bool {
	for _, o := range spans {
		if o.Contains(sp) {
			return true
		}
	}
	return false
}
