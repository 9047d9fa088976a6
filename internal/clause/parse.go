package clause

import (
	"log/slog"

	"github.com/pakton/pakton/internal/document"
)

// Parse builds the clause tree of doc's canonical text. It never fails: a
// document without recognisable structure becomes a root with one paragraph
// node per blank-line-separated paragraph.
//
// Nodes open at numbering found at a line start (or after a wide run of
// spaces, which is how many text extractions render a line break): 1., 1.1,
// (a), a), (i), (A), Article IV, Section 2.3, § 4, Schedule 1, Exhibit A and
// definitions such as `"X" means`. Which list a number continues is decided by
// the sequence of numbers seen so far, so cross-references, dates, amounts and
// a table of contents are not mistaken for structure. doc.Blocks, when
// present, add layout breaks and list labels the text may not show.
func Parse(doc *document.Document) *Tree {
	return ParseWith(doc, Options{})
}

// catchPanics is switched off by the tests so that a bug fails them.
var catchPanics = true

// Options adjusts Parse. The zero value is what Parse uses.
type Options struct {
	// LineStartsOnly disables inline markers: numbering in running text
	// ("... as follows: (a) foo; (b) bar" or a whole contract on one line)
	// then never opens a node.
	LineStartsOnly bool
}

// ParseWith is Parse with options.
func ParseWith(doc *document.Document, opts Options) (t *Tree) {
	// Page furniture reads as white space (same code points, so every
	// offset holds): a page number or a running header never opens a node
	// or becomes a heading.
	text := doc.MaskedText()
	p := &parser{s: text, blocks: doc.Blocks, noInline: opts.LineStartsOnly}
	defer func() {
		// A bug here must not take down ingestion: fall back to the
		// paragraph tree, which needs none of the numbering logic.
		if !catchPanics {
			return
		}
		if r := recover(); r != nil {
			slog.Error("clause: parser failed, using paragraphs", "doc", doc.Name, "panic", r)
			q := &parser{s: text, ix: document.NewIndex(text)}
			nodes := []tmpNode{{parent: -1, kind: KindDocument}}
			q.paragraphs(&nodes, 0, 0, len(q.s), false)
			t = q.finish(nodes)
		}
	}()
	return p.parse()
}

type parser struct {
	s      string
	blocks []document.Block
	ix     *document.Index

	markers []marker // accepted, in document order
	parent  []int    // parent marker index, -1 for top level
	read    []interp // chosen reading of each accepted marker

	learned map[string]bool // part keywords the document teaches (learned.go)

	bodyStarted bool // an article, section or numbered clause was accepted
	noInline    bool // only line-start markers open nodes
}

// tmpNode is a node before code-point conversion: byte offsets.
type tmpNode struct {
	parent   int
	kind     Kind
	label    string
	heading  string
	term     string
	start    int // byte offset of the node's first character
	labelEnd int
	end      int // byte offset where the node's own region ends (exclusive)
}

func (p *parser) parse() *Tree {
	p.ix = document.NewIndex(p.s)
	cands := p.scan()
	cands = dropTOC(p.s, cands)
	// A schedule label can be a line of a list of schedules or a
	// cross-reference that wrapped to a line start; the body numbering
	// that continues inside it gives it away (see listedSchedules). Such
	// labels are dropped and the markers placed again.
	rejected := map[int]bool{}
	for range 4 {
		p.markers, p.parent, p.read, p.bodyStarted = nil, nil, nil, false
		for i := range cands {
			if !rejected[cands[i].pos] {
				p.add(cands[i])
			}
		}
		bad := p.listedSchedules(cands)
		if len(bad) == 0 {
			break
		}
		for _, pos := range bad {
			rejected[pos] = true
		}
	}
	return p.build()
}
