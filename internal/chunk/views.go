package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// Options tune how units are built. The zero value is the default.
type Options struct {
	// MaxUnit is the largest piece of a clause's own text indexed as one unit
	// (code points); longer text is split with the recursive splitter.
	MaxUnit int
	// MaxDescendant caps the descendant-aware view: a clause whose whole
	// subtree is longer is not indexed as one unit.
	MaxDescendant int
	// LeadIn is how much of a parent clause's own text (code points) the
	// ancestor-aware view of a child indexes (default 200; negative = none).
	LeadIn int
	// NoSummary leaves the document summary out of the indexed text.
	NoSummary bool
	// Summary, when set, replaces the deterministic summary line (a model
	// written one, from the Archivist) in routing and summary augmentation.
	Summary string
	// Names, when set, are the document's names already learnt (Names);
	// otherwise Build learns them.
	Names *names.Names
}

func (o Options) withDefaults() Options {
	if o.MaxUnit <= 0 {
		o.MaxUnit = 900
	}
	if o.LeadIn == 0 {
		o.LeadIn = 200
	}
	if o.MaxDescendant <= 0 {
		o.MaxDescendant = 1500
	}
	return o
}

// Build returns the retrieval units of a document: for every clause of its
// tree, the clause's own text alone (split when long), the same text with its
// ancestors' labels and headings and the document summary (ancestor-aware),
// and, for clauses with sub-clauses, the whole subtree when it is small enough
// (descendant-aware). Every unit returns only its source spans.
func Build(doc *document.Document, tree *clause.Tree, opt Options) index.DocInput {
	opt = opt.withDefaults()
	if tree == nil {
		tree = clause.Parse(doc)
	}
	sumLine := Summary(doc).String()
	if opt.Summary != "" {
		sumLine = opt.Summary
	}
	nm := opt.Names
	if nm == nil {
		learnt := Names(doc)
		nm = &learnt
	}
	in := index.DocInput{ID: doc.ID, Name: doc.Name, Header: Summary(doc).String(), Opening: Opening(doc, 1500), About: opt.Summary,
		Names: nm.All()}
	seen := map[[2]uint64]bool{} // near-duplicate suppression by normalized text
	add := func(u index.UnitInput) {
		key, ok := normHash(u.Text)
		if !ok || seen[key] {
			return
		}
		seen[key] = true
		in.Units = append(in.Units, u)
	}
	runes := newDocRunes(doc)
	for id := 1; id < len(tree.Nodes); id++ {
		n := &tree.Nodes[id]
		if n.Own.Empty() {
			continue
		}
		own := unitSpan(runes, tree, id)
		heading := headingOf(tree, id)
		context := ancestorContext(tree, id)
		// The parent's lead-in ("The restrictions above shall not apply to
		// information which:") is what gives a list item its meaning.
		if p := n.Parent; p > 0 && opt.LeadIn > 0 {
			context += "\n" + document.FirstRunes(doc.Masked(tree.Nodes[p].Own), opt.LeadIn)
		}
		if !opt.NoSummary {
			context = sumLine + "\n" + context
		}
		for _, hp := range headedPieces(doc, own, opt.MaxUnit) {
			sp := snapToWords(runes, hp.span)
			heading, context := heading, context
			if hp.heading != "" {
				heading = hp.heading
				context += "\n" + hp.heading
			}
			text := doc.Masked(sp) // page furniture reads as spaces
			if own != n.Own && sp == own {
				// A short clause widened to read as a provision is still
				// matched on its own words.
				text = doc.Masked(n.Own)
			}
			add(index.UnitInput{Text: text, Spans: []document.Span{sp}, Node: id, View: index.ViewPlain, Heading: heading})
			if context != "" {
				add(index.UnitInput{Text: context + "\n" + text, Spans: []document.Span{sp}, Node: id, View: index.ViewAncestors})
			}
		}
		if !n.Leaf() && n.Span.Len() <= opt.MaxDescendant {
			add(index.UnitInput{Text: doc.Masked(n.Span), Spans: []document.Span{n.Span}, Node: id, View: index.ViewDescendant})
		}
	}
	return in
}

// pieces splits a span into parts of at most max code points with the
// recursive splitter, so long clauses still yield passage-sized units.
func pieces(doc *document.Document, sp document.Span, max int) []document.Span {
	if sp.Len() <= max {
		return []document.Span{sp}
	}
	if sp.Len() > maxSplitWindow {
		return windowPieces(doc, sp, max)
	}
	text := []rune(doc.Masked(sp))
	parts := Recursive(text, max, nil)
	for i := range parts {
		parts[i].Start += sp.Start
		parts[i].End += sp.Start
	}
	return parts
}

// maxSplitWindow is the longest text (code points) the splitter reads at
// once. A clause longer than this (a whole contract on one line, a hostile
// paragraph of megabytes) is split a window at a time, so the splitter's
// code points and pieces stay a few megabytes whatever the clause. Windows
// end at multiples of maxSplitWindow of the document's text (moved back
// after the last space or line break), so two clauses sharing a long tail
// (a short clause widened over its sibling) get the same pieces there, and
// their units the same texts, which are indexed once.
const maxSplitWindow = 1 << 20

func windowPieces(doc *document.Document, sp document.Span, size int) []document.Span {
	var out []document.Span
	for start := sp.Start; start < sp.End; {
		end := min(sp.End, (start/maxSplitWindow+1)*maxSplitWindow)
		text := []rune(doc.Masked(document.Span{Start: start, End: end}))
		if end < sp.End {
			// Cut after the last white space of the window's second half
			// (of the whole window, wherever the clause starts in it).
			half := max(0, (start/maxSplitWindow)*maxSplitWindow+maxSplitWindow/2-start)
			for k := len(text) - 1; k > half; k-- {
				if unicode.IsSpace(text[k]) {
					text = text[:k+1]
					end = start + k + 1
					break
				}
			}
		}
		for _, p := range Recursive(text, size, nil) {
			out = append(out, document.Span{Start: p.Start + start, End: p.End + start})
		}
		start = end
	}
	return out
}

// ancestorContext is the labels and headings of a node's ancestors, outermost
// first, e.g. "Article 9 Limitation of Liability > 9.2".
func ancestorContext(t *clause.Tree, id int) string {
	var parts []string
	for _, a := range t.Ancestors(id) {
		n := &t.Nodes[a]
		p := strings.TrimSpace(n.Label + " " + n.Heading)
		if n.Term != "" && n.Heading == "" {
			p = strings.TrimSpace(p + " " + n.Term)
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	n := &t.Nodes[id]
	if n.Heading != "" {
		parts = append(parts, n.Heading)
	}
	return strings.Join(parts, " > ")
}

// normKey is text reduced to lower-case words, for duplicate detection.
func normKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// normHash is a 128-bit hash of normKey(s), computed without building it
// (units are many and long), and false when normKey(s) is empty.
func normHash(s string) ([2]uint64, bool) {
	a, b := uint64(14695981039346656037), uint64(0x9E3779B97F4A7C15)
	byteIn := func(c byte) {
		a = (a ^ uint64(c)) * 1099511628211
		b = (b ^ uint64(c)) * 0x100000001B3
		b ^= b >> 29
	}
	var buf [utf8.UTFMax]byte
	words, inWord := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			if words > 0 {
				byteIn(' ')
			}
			words++
			inWord = true
		}
		for _, c := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			byteIn(c)
		}
	}
	return [2]uint64{a, b}, words > 0
}

// headingOf is what a clause is called: its heading, else its defined term,
// else the nearest ancestor's.
func headingOf(t *clause.Tree, id int) string {
	for a := id; a > 0; a = t.Nodes[a].Parent {
		n := &t.Nodes[a]
		if n.Heading != "" {
			return n.Heading
		}
		if n.Term != "" {
			return n.Term
		}
	}
	return ""
}
