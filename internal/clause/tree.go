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
		n := &t.Nodes[a]
		switch {
		case n.Label != "":
			parts = append(parts, n.Label)
		case n.Heading != "":
			parts = append(parts, n.Heading)
		case n.Term != "":
			parts = append(parts, "\""+n.Term+"\"")
		}
	}
	return strings.Join(parts, " > ")
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
