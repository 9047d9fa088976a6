// Package clause builds a contract's clause tree: articles, sections,
// clauses, sub-clauses, list items, definitions and schedules, each with its
// label, heading, path and exact span of the canonical text.
package clause

import (
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// Kind names what a node is.
type Kind string

// Node kinds.
const (
	KindDocument   Kind = "document"   // the root
	KindPreamble   Kind = "preamble"   // title, parties, recitals before the first numbered part
	KindArticle    Kind = "article"    // Article IV, ARTICLE 4, PART 2
	KindSection    Kind = "section"    // 1. / Section 2.3 / § 4
	KindClause     Kind = "clause"     // 1.1, 2.3.1
	KindItem       Kind = "item"       // (a), (i), (A), bullets
	KindDefinition Kind = "definition" // "X" means ...
	KindSchedule   Kind = "schedule"   // Schedule, Exhibit, Annex, Appendix
	KindParagraph  Kind = "paragraph"  // unnumbered paragraph
)

// Node is one element of the tree. Span covers the node and all its
// descendants. Own is the node's own text: the part of Span before its first
// child (for a leaf, Own == Span). The Own spans of all nodes never overlap,
// and together they cover every non-whitespace code point of the document.
type Node struct {
	ID       int           `json:"id"`
	Parent   int           `json:"parent"` // -1 for the root
	Children []int         `json:"children,omitempty"`
	Kind     Kind          `json:"kind"`
	Label    string        `json:"label,omitempty"`   // e.g. "5.2(a)", "Article IV", "Schedule 1"
	Heading  string        `json:"heading,omitempty"` // e.g. "Limitation of Liability"
	Term     string        `json:"term,omitempty"`    // the defined term, for definitions
	Depth    int           `json:"depth"`
	Span     document.Span `json:"span"`
	Own      document.Span `json:"own"`
}

// Tree is a parsed document. Nodes[0] is the root; nodes are in document order.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Root returns the root node.
func (t *Tree) Root() *Node { return &t.Nodes[0] }

// Ancestors returns the ids of n's ancestors from the root's first child down
// to n's parent (the root itself is not included).
func (t *Tree) Ancestors(id int) []int {
	var out []int
	for p := t.Nodes[id].Parent; p > 0; p = t.Nodes[p].Parent {
		out = append(out, p)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Path returns the human-readable path of a node, e.g.
// "Article 5 > 5.2 > (a)". Nodes without a label contribute their heading.
func (t *Tree) Path(id int) string {
	var parts []string
	for _, a := range append(t.Ancestors(id), id) {
		if id <= 0 {
			break
		}
		if nm := t.name(a); nm != "" {
			parts = append(parts, nm)
		}
	}
	return strings.Join(parts, " > ")
}

// SpanPath returns the clause path that cites a span of the text: the path
// of the deepest node holding all of it, followed, when the span runs over
// two or more of that node's children without covering the whole node, by
// the range of them it touches ("9 > 9.3–9.4"). A citation's clause number
// so matches the text it shows: a passage that is 9.3 Insurance and 9.4 is
// cited as both, not as 9.4.
func (t *Tree) SpanPath(sp document.Span) string {
	if len(t.Nodes) == 0 {
		return ""
	}
	if sp.Empty() {
		return t.Path(t.At(sp.Start))
	}
	id := 0
	var touched []int
	for {
		// Down to the deepest node holding the whole span.
		for descended := true; descended; {
			descended = false
			for _, c := range t.Nodes[id].Children {
				if t.Nodes[c].Span.Contains(sp) {
					id, descended = c, true
					break
				}
			}
		}
		touched = touched[:0]
		for _, c := range t.Nodes[id].Children {
			// A few code points of a child (the white space or a stray
			// character at its edge) do not make the span cite it, nor
			// does a child without a name (a preamble).
			if t.Nodes[c].Span.Intersect(sp).Len() >= minCited && t.name(c) != "" {
				touched = append(touched, c)
			}
		}
		if len(touched) != 1 || t.Nodes[id].Own.Intersect(sp).Len() >= minCited {
			break
		}
		// The span is that one child's, give or take its edges.
		sp = sp.Intersect(t.Nodes[touched[0]].Span)
	}
	n := &t.Nodes[id]
	whole := sp.Start <= n.Span.Start+minCited && sp.End >= n.Span.End-minCited
	path := t.Path(id)
	if len(touched) < 2 || whole {
		return path
	}
	r := t.name(touched[0]) + "–" + t.name(touched[len(touched)-1])
	if path == "" {
		return r
	}
	return path + " > " + r
}

// minCited is how many code points of a clause a span must hold to cite it.
const minCited = 3

// name is what a node is called in a path: its label, heading or term.
func (t *Tree) name(id int) string {
	n := &t.Nodes[id]
	switch {
	case n.Label != "":
		return n.Label
	case n.Heading != "":
		return n.Heading
	case n.Term != "":
		return "\"" + n.Term + "\""
	}
	return ""
}

// Leaf reports whether the node has no children.
func (n *Node) Leaf() bool { return len(n.Children) == 0 }

// At returns the id of the deepest node whose span contains code point pos,
// or 0 (the root) when none does.
func (t *Tree) At(pos int) int {
	id := 0
	for {
		next := -1
		for _, c := range t.Nodes[id].Children {
			sp := t.Nodes[c].Span
			if sp.Start <= pos && pos < sp.End {
				next = c
				break
			}
		}
		if next < 0 {
			return id
		}
		id = next
	}
}
