package clause

import (
	"fmt"
	"unicode"

	"github.com/pakton/pakton/internal/document"
)

// Check verifies the tree invariants against doc's text and returns the
// first violation: ids in document order, parent and child links agree, Own
// lies inside Span, children's spans lie inside their parent's span in order
// and without overlap, Own spans never overlap, and together the Own spans
// cover every non-white-space code point of the text.
func Check(doc *document.Document, t *Tree) error {
	if t == nil || len(t.Nodes) == 0 {
		return fmt.Errorf("empty tree")
	}
	runes := []rune(doc.MaskedText()) // furniture counts as white space
	n := len(runes)
	if t.Nodes[0].Parent != -1 || t.Nodes[0].Kind != KindDocument {
		return fmt.Errorf("node 0 is not a root")
	}
	for i := range t.Nodes {
		nd := &t.Nodes[i]
		if nd.ID != i {
			return fmt.Errorf("node %d has id %d", i, nd.ID)
		}
		if nd.Span.Start < 0 || nd.Span.End > n || nd.Span.End < nd.Span.Start {
			return fmt.Errorf("node %d span %v outside text of %d", i, nd.Span, n)
		}
		if !nd.Span.Contains(nd.Own) || nd.Own.End < nd.Own.Start {
			return fmt.Errorf("node %d own %v not inside span %v", i, nd.Own, nd.Span)
		}
		if nd.Leaf() && i > 0 && nd.Own != nd.Span {
			return fmt.Errorf("leaf %d own %v != span %v", i, nd.Own, nd.Span)
		}
		if i > 0 {
			if nd.Parent < 0 || nd.Parent >= i {
				return fmt.Errorf("node %d parent %d not before it", i, nd.Parent)
			}
			if nd.Depth != t.Nodes[nd.Parent].Depth+1 {
				return fmt.Errorf("node %d depth %d, parent depth %d", i, nd.Depth, t.Nodes[nd.Parent].Depth)
			}
		}
		prev := nd.Own
		for k, c := range nd.Children {
			if c <= i || c >= len(t.Nodes) || t.Nodes[c].Parent != i {
				return fmt.Errorf("node %d child %d does not point back", i, c)
			}
			cs := t.Nodes[c].Span
			if !nd.Span.Contains(cs) {
				return fmt.Errorf("node %d child %d span %v outside %v", i, c, cs, nd.Span)
			}
			if (k > 0 || !prev.Empty()) && cs.Start < prev.End {
				return fmt.Errorf("node %d child %d span %v overlaps previous %v", i, c, cs, prev)
			}
			prev = cs
		}
	}
	// Own spans are disjoint and cover all non-space code points.
	owner := make([]int32, n)
	for i := range owner {
		owner[i] = -1
	}
	for i := range t.Nodes {
		o := t.Nodes[i].Own
		for k := o.Start; k < o.End; k++ {
			if owner[k] >= 0 {
				return fmt.Errorf("code point %d owned by nodes %d and %d", k, owner[k], i)
			}
			owner[k] = int32(i)
		}
	}
	for k, r := range runes {
		if owner[k] < 0 && !unicode.IsSpace(r) {
			return fmt.Errorf("code point %d (%q) owned by no node", k, r)
		}
	}
	return nil
}
