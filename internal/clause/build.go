package clause

// Building the tree from the placed markers: preamble, paragraphs,
// spans, headings and defined terms.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// build turns the accepted markers into the tree: it adds the preamble,
// falls back to paragraphs when nothing was found, fills headings and terms
// and converts byte offsets to code points.
func (p *parser) build() *Tree {
	s := p.s
	var nodes []tmpNode
	nodes = append(nodes, tmpNode{parent: -1, kind: KindDocument, start: 0, end: 0})
	if len(p.markers) == 0 {
		p.paragraphs(&nodes, 0, 0, len(s), true)
		return p.finish(nodes)
	}
	first := p.markers[0].pos
	if a, b := trimRange(s, 0, first); a < b {
		pre := len(nodes)
		nodes = append(nodes, tmpNode{parent: 0, kind: KindPreamble, start: a, labelEnd: a, end: b})
		if b-a > 1500 {
			p.paragraphs(&nodes, pre, a, b, false)
		}
	}
	base := len(nodes)
	for i := range p.markers {
		m := &p.markers[i]
		par := 0
		if p.parent[i] >= 0 {
			par = base + p.parent[i]
		}
		nodes = append(nodes, tmpNode{
			parent:   par,
			kind:     kindOf(m),
			label:    m.label,
			heading:  m.heading,
			start:    m.pos,
			labelEnd: m.labelEnd,
		})
	}
	for i := base; i < len(nodes); i++ {
		if i+1 < len(nodes) {
			nodes[i].end = nodes[i+1].start
		} else {
			nodes[i].end = len(s)
		}
	}
	return p.finish(nodes)
}

func kindOf(m *marker) Kind {
	switch m.fam {
	case famSchedule:
		return KindSchedule
	case famArticle:
		return KindArticle
	case famSectionKw:
		return KindSection
	case famDecimal:
		if len(m.nums) == 1 {
			return KindSection
		}
		return KindClause
	case famDefinition:
		return KindDefinition
	case famClosing:
		return KindParagraph
	case famHeading:
		return KindSection
	}
	return KindItem
}

// paragraphs appends one paragraph node per blank-line separated paragraph
// of s[a:b] under parent. With headings set, a short heading line followed by
// body paragraphs becomes an unnumbered section holding them.
func (p *parser) paragraphs(nodes *[]tmpNode, parent, a, b int, headings bool) {
	s := p.s
	type para struct{ a, b int }
	var paras []para
	i := a
	for i < b {
		i = skipSpace(s, i)
		if i >= b {
			break
		}
		j := paragraphEnd(s, i, b)
		ta, tb := trimRange(s, i, j)
		if ta < tb {
			paras = append(paras, para{ta, tb})
		}
		i = j
	}
	sec := -1
	for k, pr := range paras {
		if headings {
			text := s[pr.a:pr.b]
			if !strings.Contains(text, "\n") && k+1 < len(paras) && isHeadingLine(text) {
				sec = len(*nodes)
				*nodes = append(*nodes, tmpNode{parent: parent, kind: KindSection, heading: cleanHeading(text), start: pr.a, labelEnd: pr.a, end: pr.b})
				continue
			}
		}
		par := parent
		if sec >= 0 {
			par = sec
		}
		*nodes = append(*nodes, tmpNode{parent: par, kind: KindParagraph, start: pr.a, labelEnd: pr.a, end: pr.b})
	}
}

// paragraphEnd returns where the paragraph starting at i ends: at a blank
// line, or at a run of four or more spaces when the text renders paragraph
// breaks that way, but never before b.
func paragraphEnd(s string, i, b int) int {
	run := 0
	nl := 0
	for k := i; k < b; k++ {
		switch s[k] {
		case '\n':
			nl++
			run = 0
			if nl >= 2 {
				return k
			}
		case ' ', '\t', '\r', '\f':
			run++
			if run >= 4 && nl == 0 {
				return k
			}
		default:
			if nl == 1 && run >= 4 {
				return k
			}
			run, nl = 0, 0
		}
	}
	return b
}

// trimRange returns [a, b) without leading and trailing white space.
func trimRange(s string, a, b int) (int, int) {
	for a < b {
		r, w := utf8.DecodeRuneInString(s[a:])
		if !unicode.IsSpace(r) {
			break
		}
		a += w
	}
	for b > a {
		r, w := utf8.DecodeLastRuneInString(s[:b])
		if !unicode.IsSpace(r) {
			break
		}
		b -= w
	}
	return a, b
}

// finish computes spans, headings and terms and converts to code points.
func (p *parser) finish(nodes []tmpNode) *Tree {
	s := p.s
	n := len(nodes)
	children := make([][]int, n)
	for i := 1; i < n; i++ {
		children[nodes[i].parent] = append(children[nodes[i].parent], i)
	}
	spanEnd := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		e := nodes[i].end
		if c := children[i]; len(c) > 0 {
			e = max(e, spanEnd[c[len(c)-1]])
		}
		spanEnd[i] = e
	}
	t := &Tree{Nodes: make([]Node, n)}
	ra, rb := trimRange(s, 0, len(s))
	for i := range nodes {
		tn := &nodes[i]
		nd := &t.Nodes[i]
		nd.ID = i
		nd.Parent = tn.parent
		nd.Children = children[i]
		nd.Kind = tn.kind
		nd.Label = tn.label
		nd.Heading = tn.heading
		if i == 0 {
			nd.Span = p.ix.RuneSpan(ra, rb)
			nd.Own = document.Span{Start: nd.Span.Start, End: nd.Span.Start}
			if len(children[0]) == 0 {
				nd.Own = nd.Span
			}
			continue
		}
		nd.Depth = t.Nodes[tn.parent].Depth + 1
		ownEnd := tn.end
		if c := children[i]; len(c) > 0 {
			ownEnd = nodes[c[0]].start
		}
		oa, ob := trimRange(s, tn.start, ownEnd)
		sa, sb := trimRange(s, tn.start, spanEnd[i])
		nd.Own = p.ix.RuneSpan(oa, ob)
		nd.Span = p.ix.RuneSpan(sa, sb)
		p.describe(nd, tn, ob, len(children[i]) > 0)
	}
	return t
}

// describe fills a numbered node's heading and, for definitions, its term.
func (p *parser) describe(nd *Node, tn *tmpNode, ownEnd int, hasChildren bool) {
	if tn.kind == KindPreamble || tn.kind == KindParagraph && tn.label == "" && tn.heading == "" {
		return
	}
	s := p.s
	if tn.kind == KindDefinition && tn.label == "" {
		nd.Term = tn.heading
		nd.Heading = ""
		return
	}
	if nd.Heading != "" {
		return
	}
	a := tn.labelEnd
	if a > ownEnd {
		return
	}
	body := s[a:ownEnd]
	body = strings.TrimLeft(body, " \t\r\n\f.:-–—")
	if term, ok := definitionTerm(body); ok {
		nd.Kind = KindDefinition
		nd.Term = term
		return
	}
	if tn.label != "" && tn.kind != KindArticle && tn.kind != KindSchedule {
		if term, ok := bareDefinitionTerm(body); ok {
			nd.Kind = KindDefinition
			nd.Term = term
			return
		}
	}
	nd.Heading = headingOf(body, hasChildren, tn.kind != KindItem)
	if nd.Heading != "" {
		// "1.1 Definitions. "Affiliate" means ..." keeps its heading; a
		// definition after a heading is still a definition.
		rest := strings.TrimLeft(body[min(len(body), len(nd.Heading)):], " \t\r\n.:-–—")
		if term, ok := definitionTerm(rest); ok && nd.Kind != KindArticle && nd.Kind != KindSchedule {
			nd.Kind = KindDefinition
			nd.Term = term
		}
	}
}
