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
	for _, ti := range order {
		term := terms[ti]
		if len(term) < 2 {
			continue
		}
		for from := 0; ; {
			k := strings.Index(s[from:], term)
			if k < 0 {
				break
			}
			a := from + k
			b := a + len(term)
			from = b
			if a > 0 && isWordByte(s[a-1]) {
				continue
			}
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
