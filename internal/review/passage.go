package review

import (
	"strings"
	"sync"
	"unicode"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// Passage sizes (code points). A clause's own text is one passage unless it
// is longer than maxPassage; then it is cut at sentence ends into pieces of
// about targetPassage.
const (
	maxPassage    = 1200
	targetPassage = 700
	leadInChars   = 200 // how much of a parent's own text gives a list item its context
)

// passage is one candidate location of a provision: a clause's own text (or
// a piece of it), with the words around it that say what it is about.
type passage struct {
	span    document.Span
	node    int
	words   []string // analyzed words of the passage text, in order
	context []string // analyzed words of its ancestors' labels and headings and its own heading
	leadIn  []string // analyzed words of the parent's lead-in, for list items
	rel     float64  // where the passage starts, as a fraction of the document
	ordinal int      // index among the document's passages
	kind    clause.Kind
}

// prepared is a document cut into passages and analyzed, shared by every
// provision's finder.
type prepared struct {
	doc      Doc
	tree     *clause.Tree
	ix       *document.Index
	passages []passage
	feats    [][]uint32 // per passage: hashed feature ids (see features.go)

	runningOnce sync.Once
	running     []document.Span // running lines (answer_pick.go), found on first use
	datesOnce   sync.Once
	dates       map[string]string // defined dates (value.go definedDates), found on first use
}

func prepare(d Doc) *prepared {
	p := &prepared{doc: d, tree: treeOf(d), ix: document.NewIndex(d.Doc.Text)}
	n := p.ix.Len()
	t := p.tree
	for id := 1; id < len(t.Nodes); id++ {
		node := &t.Nodes[id]
		if node.Own.Empty() {
			continue
		}
		ctx := headingWords(t, id)
		var lead []string
		if par := node.Parent; par > 0 && t.Nodes[par].Kind != clause.KindDocument {
			lead = analyze(truncate(p.ix.Slice(t.Nodes[par].Own), leadInChars))
		}
		for _, sp := range cut(p.ix, node.Own) {
			words := analyze(p.ix.Slice(sp))
			if len(words) == 0 {
				continue
			}
			rel := 0.0
			if n > 0 {
				rel = float64(sp.Start) / float64(n)
			}
			p.passages = append(p.passages, passage{span: sp, node: id, words: words, context: ctx, leadIn: lead, rel: rel, ordinal: len(p.passages), kind: node.Kind})
		}
	}
	p.feats = make([][]uint32, len(p.passages))
	for i := range p.passages {
		p.feats[i] = features(&p.passages[i], p.ix.Slice(p.passages[i].span))
	}
	return p
}

// extract turns passage k into an Extract.
func (p *prepared) extract(k int, score float64) Extract {
	ps := &p.passages[k]
	return Extract{
		Span:  ps.span,
		Path:  p.tree.Path(ps.node),
		Node:  ps.node,
		Pages: p.doc.Doc.PagesOf(ps.span),
		Text:  p.ix.Slice(ps.span),
		Score: score,
	}
}

// headingWords returns the analyzed labels and headings of a node and its
// ancestors: what the drafter said the clause is about.
func headingWords(t *clause.Tree, id int) []string {
	var b strings.Builder
	for _, a := range append(t.Ancestors(id), id) {
		n := &t.Nodes[a]
		if n.Heading != "" {
			b.WriteString(n.Heading)
			b.WriteByte(' ')
		}
		if n.Term != "" {
			b.WriteString(n.Term)
			b.WriteByte(' ')
		}
	}
	return analyze(b.String())
}

// cut splits a long span at sentence ends into pieces of about
// targetPassage code points; a short span is returned whole. Leading and
// trailing white space is trimmed from every piece.
func cut(ix *document.Index, sp document.Span) []document.Span {
	sp = trimSpan(ix, sp)
	if sp.Len() <= maxPassage {
		if sp.Empty() {
			return nil
		}
		return []document.Span{sp}
	}
	text := []rune(ix.Slice(sp))
	var out []document.Span
	start := 0
	for start < len(text) {
		end := len(text)
		if end-start > maxPassage {
			end = sentenceBreak(text, start+targetPassage/2, start+targetPassage, start+maxPassage)
		}
		piece := trimSpan(ix, document.Span{Start: sp.Start + start, End: sp.Start + end})
		if !piece.Empty() {
			out = append(out, piece)
		}
		start = end
	}
	return out
}

// sentenceBreak returns the end of the sentence ending nearest after
// target (searching back to lo when none ends before hi), or hi.
func sentenceBreak(text []rune, lo, target, hi int) int {
	isEnd := func(i int) bool {
		if i <= 0 || i >= len(text) {
			return false
		}
		c := text[i-1]
		return (c == '.' || c == ';' || c == ':') && unicode.IsSpace(text[i])
	}
	for i := target; i < hi && i < len(text); i++ {
		if isEnd(i) {
			return i
		}
	}
	for i := target; i > lo; i-- {
		if isEnd(i) {
			return i
		}
	}
	for i := hi; i > lo; i-- {
		if i < len(text) && unicode.IsSpace(text[i]) {
			return i
		}
	}
	return min(hi, len(text))
}

func trimSpan(ix *document.Index, sp document.Span) document.Span {
	s := []rune(ix.Slice(sp))
	a, b := 0, len(s)
	for a < b && unicode.IsSpace(s[a]) {
		a++
	}
	for b > a && unicode.IsSpace(s[b-1]) {
		b--
	}
	return document.Span{Start: sp.Start + a, End: sp.Start + b}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
