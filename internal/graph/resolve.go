package graph

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// references finds the cross-references, one per target, in text order.
func (x *text) references() []Reference {
	s := x.s
	ix := newLabelIndex(x.t)
	var out []Reference
	done := 0 // end of the last reference read: its words are not read again
	for _, m := range refWords(s) {
		if x.stopped() {
			return nil
		}
		if m[0] < done {
			continue
		}
		kw, ok := parseKeyword(strings.TrimSpace(s[m[0]:m[1]]))
		if !ok {
			continue
		}
		if x.starts[x.ix.Rune(m[0])] {
			continue // the label of a clause or schedule, not a reference to it
		}
		first, ok := parseLabel(s, m[1], kw.class)
		if !ok || x.from < 0 && kw.class == classAttach && attachmentHeading(s, m[0], first.b) {
			continue
		}
		type item struct {
			l     label
			text  string
			a, b  int
			label string
		}
		items := []item{{l: first, a: m[0], b: first.b, label: first.text}}
		prev := first
		end := first.b
		for {
			j, isRange, ok := connector(s, end)
			if !ok {
				break
			}
			if _, _, again := refWordAt(s, j); again {
				break // "Section 4 and Article 5": the next word opens its own reference
			}
			next, ok := parseLabel(s, j, kw.class)
			if !ok || !sameShape(first, next, kw) || next.shape == shapeParen && opensItem(s, next.b) {
				break
			}
			lt := next.text
			if next.shape == shapeParen && strings.Contains(prev.text, "(") {
				lt = prev.base() + next.text // "Section 4.1(a) and (c)", "(a)(ii) and (iii)"
			} else if next.shape == shapeParen && prev.shape == shapeNumber {
				lt = prev.text + next.text // "Section 4.1 (a) or (b)" read as 4.1(a), 4.1(b)
			}
			if isRange {
				pl := label{text: items[len(items)-1].label, shape: prev.shape}
				nl := label{text: lt, shape: prev.shape}
				if prev.shape == shapeNumber && strings.Contains(lt, "(") {
					pl.shape, nl.shape = shapeParen, shapeParen
				}
				for _, mid := range expandRange(pl, nl) {
					items = append(items, item{l: next, a: prev.a, b: next.b, label: mid})
				}
			}
			items = append(items, item{l: next, a: next.a, b: next.b, label: lt})
			if lt != next.text {
				next.text, next.shape = lt, prev.shape
			}
			prev = next
			end = next.b
		}
		end = subdivision(s, end)
		done = end
		scope, external := x.qualifier(s, end, ix)
		if external == "" && kw.class != classAttach {
			external = instrumentBefore(s, m[0])
		}
		if external == "" && kw.class != classAttach {
			external = instrumentAfter(s, end, m[0])
		}
		for _, it := range items {
			r := Reference{Text: s[it.a:it.b], Span: x.span(it.a, it.b), Node: x.nodeAt(it.a), Target: -1}
			r.Label = displayLabel(kw, it.label)
			switch {
			case external != "":
				r.Status, r.External = External, external
			default:
				r.Target, r.Status = ix.resolve(kw, it.label, r.Node, scope)
				if r.Status == Unresolved && scope == 0 {
					// The text shows the unit starting, unless what it
					// shows is the number of a list item already in the
					// tree (ix.sub), which "Section 5" does not name.
					if b := x.anchor(kw, it.label); b >= 0 {
						if id := x.t.At(x.bodyIx.Rune(b)); !ix.sub[id] || strings.Trim(x.t.Nodes[id].Label, ". ") != it.label {
							r.Target, r.Status = id, Within
						}
					}
				}
			}
			out = append(out, r)
			if len(out) == MaxReferences {
				return out
			}
		}
	}
	return out
}

// refWordAt reports whether a reference word starts at byte i.
func refWordAt(s string, i int) (keyword, int, bool) {
	e, ok := refWordAtLower(s, i)
	if !ok {
		return keyword{}, i, false
	}
	kw, ok := parseKeyword(strings.TrimSpace(s[i:e]))
	return kw, e, ok
}

// displayLabel names a reference's target the way a reader would:
// "Section 4.1(a)", "Exhibit A", "Article 4".
func displayLabel(kw keyword, l string) string {
	switch kw.class {
	case classAttach:
		return strings.ToUpper(kw.word[:1]) + kw.word[1:] + " " + strings.ToUpper(l)
	case classArticle:
		return strings.ToUpper(kw.word[:1]) + kw.word[1:] + " " + l
	}
	return strings.ToUpper(kw.word[:1]) + kw.word[1:] + " " + l
}

// labelIndex finds nodes of a clause tree by their full label.
type labelIndex struct {
	t       *clause.Tree
	full    []string // per node: "4.1(a)", "a" for Exhibit A, "4" for Article IV
	class   []refClass
	word    []string // per node: "exhibit", "schedule", … for attachments
	inAttch []int    // per node: the attachment node it is inside, or 0
	sub     []bool   // per node: an item numbered inside a numbered section
	byLabel map[string][]int
}

var labelWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(section|sec\.|clause|article|part|schedule|exhibit|annex|appendix|attachment|addendum|paragraph|§)\s*`)
})

func newLabelIndex(t *clause.Tree) *labelIndex {
	ix := &labelIndex{t: t, full: make([]string, len(t.Nodes)), class: make([]refClass, len(t.Nodes)),
		word: make([]string, len(t.Nodes)), inAttch: make([]int, len(t.Nodes)), sub: make([]bool, len(t.Nodes)),
		byLabel: map[string][]int{}}
	for id, n := range t.Nodes {
		if id == 0 {
			continue
		}
		ix.inAttch[id] = ix.inAttch[n.Parent]
		l := strings.TrimSpace(n.Label)
		if l == "" {
			continue
		}
		word := ""
		if m := labelWords().FindString(l); m != "" {
			word = strings.ToLower(strings.TrimSpace(strings.TrimRight(m, ". ")))
			l = l[len(m):]
		}
		l = strings.Trim(l, "\"“”'. :-–—")
		l = strings.ToLower(strings.ReplaceAll(l, " ", ""))
		switch n.Kind {
		case clause.KindSchedule:
			ix.class[id], ix.word[id] = classAttach, word
			ix.inAttch[id] = id
		case clause.KindArticle:
			ix.class[id] = classArticle
			if v, ok := romanValue(strings.ToUpper(l)); ok && strings.Trim(strings.ToUpper(l), "IVXL") == "" {
				l = strconv.Itoa(v)
			}
		default:
			ix.class[id] = classSection
			if strings.HasPrefix(l, "(") {
				if p := n.Parent; p > 0 && ix.full[p] != "" && ix.class[p] == classSection {
					l = ix.full[p] + l
				}
			} else if p := n.Parent; digits(l) && ix.subItem(p) {
				// "4 > (a) > 5": an item numbered 5 of a list inside
				// section 4 is "Section 4(a)(5)", never "Section 5".
				l = ix.full[p] + "(" + l + ")"
				ix.sub[id] = true
			}
		}
		ix.full[id] = l
		key := strconv.Itoa(int(ix.class[id])) + ":" + l
		ix.byLabel[key] = append(ix.byLabel[key], id)
	}
	return ix
}

// subItem reports whether a node numbered 1, 2, 3 … under node p is an
// item of a list inside a numbered section rather than one of the
// document's sections: p or one of its ancestors, below any article or
// attachment, is a section whose label holds an arabic number ("4",
// "2.05", "4(a)").
func (ix *labelIndex) subItem(p int) bool {
	for ; p > 0; p = ix.t.Nodes[p].Parent {
		if ix.full[p] == "" {
			continue
		}
		if ix.class[p] != classSection {
			return false
		}
		if strings.ContainsAny(ix.full[p], "0123456789") {
			return true
		}
	}
	return false
}

// digits reports whether l is a number of arabic digits.
func digits(l string) bool {
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return l != ""
}

// resolve finds the node a reference label names, seen from node src and
// within node scope (0: the whole document).
func (ix *labelIndex) resolve(kw keyword, l string, src, scope int) (int, Status) {
	if kw.class == classAttach {
		best := -1
		for _, id := range ix.byLabel[strconv.Itoa(int(classAttach))+":"+l] {
			// Several schedules share a label when a list of exhibits
			// precedes them: the longest is the schedule itself.
			if best < 0 || ix.t.Nodes[id].Span.Len() > ix.t.Nodes[best].Span.Len() ||
				ix.word[id] == kw.word && ix.word[best] != kw.word {
				best = id
			}
		}
		if best < 0 {
			return -1, Unresolved
		}
		return best, Resolved
	}
	if strings.HasPrefix(l, "(") {
		if id := ix.nearest(l, src, scope); id > 0 {
			return id, Resolved
		}
		return -1, Unresolved
	}
	classes := []refClass{classSection, classArticle}
	if kw.class == classArticle {
		classes = []refClass{classArticle, classSection}
	}
	for try, exact := l, true; try != ""; try, exact = shorter(try), false {
		for _, c := range classes {
			if id := ix.pick(ix.byLabel[strconv.Itoa(int(c))+":"+try], src, scope); id > 0 {
				if exact {
					return id, Resolved
				}
				return id, Within
			}
		}
	}
	return -1, Unresolved
}

// shorter drops a label's last "(x)" group or number component: "4.1(a)"
// → "4.1" → "4"; "4" → "".
func shorter(l string) string {
	if k := strings.LastIndexByte(l, '('); k > 0 {
		return l[:k]
	}
	if k := strings.LastIndexByte(l, '.'); k > 0 {
		return l[:k]
	}
	return ""
}

// pick chooses among nodes with the same label: inside scope when one is
// given; else in the same schedule as the reference; else in the body.
func (ix *labelIndex) pick(ids []int, src, scope int) int {
	if len(ids) == 0 {
		return -1
	}
	if scope > 0 {
		for _, id := range ids {
			if ix.inside(id, scope) {
				return id
			}
		}
		return -1
	}
	// "Section 5" names the section numbered 5, not an item "5." of a
	// list inside section 4: of the nodes so labelled, the shallowest.
	shallowest := func(ok func(id int) bool) int {
		best := -1
		for _, id := range ids {
			if ok(id) && (best < 0 || ix.t.Nodes[id].Depth < ix.t.Nodes[best].Depth) {
				best = id
			}
		}
		return best
	}
	if id := shallowest(func(id int) bool { return ix.inAttch[id] == ix.inAttch[src] }); id > 0 {
		return id
	}
	if id := shallowest(func(id int) bool { return ix.inAttch[id] == 0 }); id > 0 {
		return id
	}
	return ids[0]
}

// inside reports whether node id lies within node anc.
func (ix *labelIndex) inside(id, anc int) bool {
	for ; id > 0; id = ix.t.Nodes[id].Parent {
		if id == anc {
			return true
		}
	}
	return anc == 0
}

// nearest resolves a bare "(a)" from node src: the closest node labelled so
// among src's own sub-items, then its siblings' and ancestors'.
func (ix *labelIndex) nearest(l string, src, scope int) int {
	want := strings.ToLower(l)
	if scope > 0 {
		return ix.findBelow(scope, want, 3)
	}
	for anc := src; anc >= 0; anc = ix.t.Nodes[anc].Parent {
		if id := ix.findBelow(anc, want, 3); id > 0 {
			return id
		}
		if anc == 0 {
			break
		}
	}
	return -1
}

func (ix *labelIndex) findBelow(id int, want string, depth int) int {
	if depth == 0 {
		return -1
	}
	for _, c := range ix.t.Nodes[id].Children {
		if strings.ToLower(strings.TrimSpace(ix.t.Nodes[c].Label)) == want {
			return c
		}
	}
	for _, c := range ix.t.Nodes[id].Children {
		if k := ix.findBelow(c, want, depth-1); k > 0 {
			return k
		}
	}
	return -1
}

// lineStart reports whether byte i starts a line: after a line break, or
// after a run of spaces where extraction flattened one.
func lineStart(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return j == 0 || s[j-1] == '\n' || i-j >= 2
}

// attachmentHeading reports whether the attachment word at byte a with
// its label ending at byte b is the heading of the attachment ("EXHIBIT A
// TO TRANSPORTATION SERVICE AGREEMENT") rather than a reference to it: it
// starts a line, in capitals or followed by a line end, a dash or a colon.
func attachmentHeading(s string, a, b int) bool {
	if !lineStart(s, a) {
		return false
	}
	word := s[a:min(len(s), a+4)]
	if strings.ToUpper(word) == word {
		return true
	}
	j := b
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j >= len(s) || s[j] == '\n' || j-b >= 2 || strings.HasPrefix(s[j:], "-") || strings.HasPrefix(s[j:], "–") ||
		strings.HasPrefix(s[j:], "—") || strings.HasPrefix(s[j:], ":")
}

// anchor finds, for a label the clause tree has no node for, where the text
// still shows that unit starting: an attachment heading ("EXHIBIT B" at the
// start of a line) or a clause number at the start of a line followed by a
// capitalised word ("7A. Insurance"). It returns the byte offset or -1.
func (x *text) anchor(kw keyword, label string) int {
	s := x.body
	if kw.class == classAttach {
		if x.headings == nil {
			// Read the attachment headings once per document.
			x.headings = map[string]int{}
			for _, m := range refWords(s) {
				k, ok := parseKeyword(strings.TrimSpace(s[m[0]:m[1]]))
				if !ok || k.class != classAttach {
					continue
				}
				if l, ok := parseLabel(s, m[1], classAttach); ok && attachmentHeading(s, m[0], l.b) {
					if _, seen := x.headings[l.text]; !seen {
						x.headings[l.text] = m[0]
					}
				}
			}
		}
		if b, ok := x.headings[label]; ok {
			return b
		}
		return -1
	}
	if kw.class != classSection || strings.Contains(label, "(") {
		return -1
	}
	if x.numbered == nil {
		x.numbered = numberAnchors(s)
	}
	if plainLabel(label) {
		if b, ok := x.numbered[label]; ok {
			return b
		}
		return -1
	}
	// A label of other characters is looked for in the text, a few times
	// per document at most: each look reads the whole text.
	if x.scans >= maxAnchorScans {
		return -1
	}
	x.scans++
	if x.lower == "" {
		x.lower = strings.ToLower(s)
	}
	return x.numberAnchor(label)
}

// maxAnchorScans bounds the whole-text looks for unusual labels (anchor).
const maxAnchorScans = 32

// plainLabel reports whether a label is made of ASCII lower-case letters,
// digits and dots, the labels numberAnchors indexes.
func plainLabel(l string) bool {
	for i := 0; i < len(l); i++ {
		if c := l[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '.') {
			return false
		}
	}
	return l != ""
}

// numberAnchors indexes, in one pass, the clause numbers written at the
// start of a line and followed by a capitalised word, as numberAnchor
// finds them: label (lower-cased) → its first byte offset. Looking each
// label up in the whole text instead cost the text's length per distinct
// label (10,000 "Section N.7" in 1 MB: 12 s).
func numberAnchors(s string) map[string]int {
	out := map[string]int{}
	plain := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.'
	}
	for i := 0; i < len(s); i++ {
		if !plain(s[i]) || i > 0 && isWordByte(s[i-1]) || i > 0 && plain(s[i-1]) {
			continue
		}
		e := i
		for e < len(s) && plain(s[e]) {
			e++
		}
		if !lineStart(s, i) {
			i = e - 1
			continue
		}
		tok := strings.ToLower(s[i:e])
		// The label is the token, or the token without its final dot
		// ("7A." is label "7a" followed by a dot); then ")" may follow.
		labels := []string{tok}
		if t, ok := strings.CutSuffix(tok, "."); ok && t != "" {
			labels = append(labels, t)
		}
		for _, l := range labels {
			if _, seen := out[l]; seen {
				continue
			}
			f := i + len(l)
			if f < len(s) && (s[f] == '.' || s[f] == ')') {
				f++
			}
			if f < len(s) && s[f] == ' ' {
				if j := skipSpace(s, f); j < len(s) && unicode.IsUpper(rune(s[j])) {
					out[l] = i
				}
			}
		}
		i = e - 1
	}
	return out
}

// numberAnchor finds a clause number at the start of a line followed by a
// capitalised word ("7A. Insurance"), or -1.
func (x *text) numberAnchor(label string) int {
	s, lower := x.body, x.lower
	for from := 0; ; {
		k := strings.Index(lower[from:], label)
		if k < 0 {
			return -1
		}
		i := from + k
		from = i + len(label)
		e := from
		if e < len(s) && (s[e] == '.' || s[e] == ')') {
			e++
		}
		if e < len(s) && s[e] == ' ' && lineStart(s, i) && (i == 0 || !isWordByte(s[i-1])) {
			if j := skipSpace(s, e); j < len(s) && unicode.IsUpper(rune(s[j])) {
				return i
			}
		}
	}
}

// Lookup resolves a reference typed apart from the document — "Section 7.3",
// "7.3", "Exhibit B", "clauses (a) and (c)" — against the document's clause
// tree, as if it were written in node from (0: the document as a whole).
// A bare number or bracketed label is read as a section. Spans of the
// returned references are in ref, not in the document.
func Lookup(doc *document.Document, t *clause.Tree, ref string, from int) []Reference {
	if t == nil || len(t.Nodes) == 0 {
		t = clause.Parse(doc)
	}
	ref = strings.TrimSpace(ref)
	if ref != "" && (ref[0] >= '0' && ref[0] <= '9' || ref[0] == '(') {
		ref = "Section " + ref
	}
	if from < 0 || from >= len(t.Nodes) {
		from = 0
	}
	x := &text{s: " " + ref, ix: document.NewIndex(" " + ref), t: t, starts: map[int]bool{}, body: doc.Text, bodyIx: document.NewIndex(doc.Text), from: from}
	refs := x.references()
	for i := range refs {
		refs[i].Span.Start--
		refs[i].Span.End--
	}
	return refs
}

// opensItem reports whether the text after a bracketed label at byte i
// starts the item of an inline enumeration — "(a) Customer's right … or (b)
// Customer's remedies" — rather than continuing a list of references
// ("clauses (a) and (c) of Section 9", "(b) shall survive"): a capitalised
// word or a determiner follows.
func opensItem(s string, i int) bool {
	j := skipSpace(s, i)
	if j >= len(s) || j == i {
		return false
	}
	if unicode.IsUpper(firstRune(s[j:])) {
		return true
	}
	w, _, _ := strings.Cut(s[j:min(len(s), j+12)], " ")
	switch w {
	case "the", "a", "an", "any", "such", "its", "their", "each", "all", "no":
		return true
	}
	return false
}
