package clause

import (
	"log/slog"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

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

	bodyStarted bool // an article, section or numbered clause was accepted
	noInline    bool // only line-start markers open nodes
}

// open is one open list on the nesting stack.
type open struct {
	m     int // index into p.markers
	st    string
	val   int
	nums  []int
	fam   family
	rank  int
	lvl   int
	block bool
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

// scan finds every marker at a strong position: a line start, a layout
// block start, or the first character after a run of three or more spaces.
func (p *parser) scan() []marker {
	s := p.s
	var out []marker
	blockAt := map[int]document.Block{}
	if len(p.blocks) > 0 {
		for _, b := range p.blocks {
			if b.Kind == document.BlockListItem || b.Kind == document.BlockHeading || b.Kind == document.BlockParagraph {
				bo := p.ix.Byte(b.Span.Start)
				bo = skipSpace(s, bo)
				if _, dup := blockAt[bo]; !dup || b.Kind != document.BlockParagraph {
					blockAt[bo] = b
				}
			}
		}
	}
	try := func(pos int) bool {
		if b, ok := blockAt[pos]; ok {
			if m, ok := p.blockMarker(pos, b); ok {
				out = append(out, m)
				delete(blockAt, pos)
				return true
			}
			delete(blockAt, pos)
		}
		if m, ok := scanMarker(s, pos); ok {
			m.strong = true
			out = append(out, m)
			return true
		}
		return false
	}
	headers := runningHeaders(s)
	i := 0
	for i < len(s) {
		// i is at a line start.
		j := i
		for j < len(s) && s[j] != '\n' {
			r, w := utf8.DecodeRuneInString(s[j:])
			if !isHSpace(r) {
				break
			}
			j += w
		}
		if j < len(s) && s[j] != '\n' && !try(j) {
			// A running page header glued to the start of the line:
			// "Confidential Execution Version 6.3 Commercialization Plan".
			for _, h := range headers {
				if strings.HasPrefix(s[j:], h) {
					if k := j + len(h); k < len(s) && isSpaceByte(s[k]) {
						try(skipHSpace(s, k))
					}
					break
				}
			}
		}
		// Soft breaks inside the line.
		k := j
		run := 0
		for k < len(s) && s[k] != '\n' {
			c := s[k]
			if c == ' ' || c == '\t' {
				run++
				if c == '\t' {
					run += 2
				}
				k++
				continue
			}
			if run >= 3 && c != '\r' {
				try(k)
			}
			run = 0
			if c < utf8.RuneSelf {
				k++
			} else {
				_, w := utf8.DecodeRuneInString(s[k:])
				k += w
			}
		}
		i = k + 1
	}
	// Blocks whose start fell inside a line.
	if len(blockAt) > 0 {
		var rest []int
		for pos := range blockAt {
			rest = append(rest, pos)
		}
		sort.Ints(rest)
		for _, pos := range rest {
			if pos < len(s) {
				try(pos)
			}
		}
		sort.SliceStable(out, func(a, b int) bool { return out[a].pos < out[b].pos })
	}
	if !p.noInline {
		out = mergeMarkers(out, scanInline(s, out))
	}
	// Two readings at one position (a block and the text), or a marker
	// inside another's label: keep the first.
	dedup := out[:0]
	for _, m := range out {
		if len(dedup) > 0 && m.pos < max(dedup[len(dedup)-1].labelEnd, dedup[len(dedup)-1].pos+1) {
			continue
		}
		dedup = append(dedup, m)
	}
	return dedup
}

func skipHSpace(s string, i int) int {
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	return i
}

// runningHeaders returns line prefixes of two to six words that start at
// least three lines and read as a heading ("Confidential Execution
// Version"): page headers that text extraction glued to the line after
// them. Longest first.
func runningHeaders(s string) []string {
	counts := map[string]int{}
	for i := 0; i < len(s); {
		e := strings.IndexByte(s[i:], '\n')
		if e < 0 {
			e = len(s) - i
		}
		line := s[i : i+e]
		i += e + 1
		line = strings.TrimLeft(line, " \t\r\f")
		if len(line) < 12 || !isUpperByte(line[0]) {
			continue
		}
		// End of each of the first six words.
		w, k := 0, 0
		for k < len(line) && w < 6 {
			for k < len(line) && !isSpaceByte(line[k]) {
				k++
			}
			w++
			if w >= 2 && k < len(line) {
				counts[line[:k]]++
			}
			for k < len(line) && isSpaceByte(line[k]) {
				k++
			}
		}
	}
	var out []string
	for h, c := range counts {
		if c >= 3 && len(h) >= 10 && isHeadingLine(h) && !strings.HasSuffix(h, ".") {
			if _, ok := scanMarker(h+" ", 0); ok {
				continue
			}
			out = append(out, h)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if len(out[a]) != len(out[b]) {
			return len(out[a]) > len(out[b])
		}
		return out[a] < out[b]
	})
	if len(out) > 50 {
		out = out[:50]
	}
	return out
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += w
	}
	return i
}

// blockMarker turns a layout block into a marker. A list item whose label
// the text does not repeat gets a zero-width label.
func (p *parser) blockMarker(pos int, b document.Block) (marker, bool) {
	if m, ok := scanMarker(p.s, pos); ok {
		m.strong = true
		if b.Kind == document.BlockListItem {
			m.level, m.block = b.Level, true
		}
		return m, true
	}
	switch b.Kind {
	case document.BlockListItem:
		if b.Label == "" {
			return marker{}, false
		}
		m := marker{pos: pos, labelEnd: pos, label: b.Label, fam: famItem, level: b.Level, strong: true, block: true}
		lab := strings.TrimSpace(b.Label)
		if tm, ok := scanMarker(lab+" Clause", 0); ok && tm.labelEnd >= len(strings.TrimRight(lab, ".")) {
			m.fam, m.nums, m.reads = tm.fam, tm.nums, tm.reads
		} else {
			m.reads = []interp{{"list", 0}}
		}
		m.label = strings.TrimRight(lab, ".")
		return m, true
	case document.BlockHeading:
		end := strings.IndexByte(p.s[pos:], '\n')
		if end < 0 {
			end = len(p.s) - pos
		}
		h := strings.TrimSpace(p.s[pos : pos+end])
		if h == "" || len(h) > 200 {
			return marker{}, false
		}
		return marker{pos: pos, labelEnd: pos, fam: famHeading, level: b.Level, strong: true, heading: h, reads: []interp{{"heading", 0}}}, true
	}
	return marker{}, false
}

// gap is how far a number may jump and still continue its list: redactions
// and lost lines skip a number now and then.
func gap(m *marker) int {
	if !m.strong {
		return 1
	}
	if m.fam == famItem {
		return 2
	}
	return 3
}

// add places marker m on the stack of open lists, or drops it when it
// neither continues an open list nor plausibly opens a new one.
func (p *parser) add(m marker) {
	stack := p.stackOf()
	switch m.fam {
	case famSchedule:
		// A schedule list before the body starts is a table of contents or
		// a cover page; a schedule label repeated is a running page header.
		if !p.bodyStarted {
			return
		}
		for _, e := range stack {
			if e.fam == famSchedule && strings.EqualFold(p.markers[e.m].label, m.label) {
				return
			}
		}
		p.accept(m, m.reads[0], -1)
		return
	case famClosing:
		p.accept(m, m.reads[0], -1)
		return
	case famHeading:
		par := -1
		for k := len(stack) - 1; k >= 0; k-- {
			e := stack[k]
			if e.lvl >= 0 && e.lvl < m.level && (e.fam == famHeading || e.fam == famArticle || e.fam == famSchedule) {
				par = e.m
				break
			}
			if e.fam == famSchedule {
				par = e.m
				break
			}
		}
		p.accept(m, m.reads[0], par)
		return
	case famDefinition:
		for k := len(stack) - 1; k >= 0; k-- {
			if stack[k].fam == famDefinition {
				p.accept(m, m.reads[0], p.parent[stack[k].m])
				return
			}
			if stack[k].rank <= 5 {
				break
			}
		}
		p.accept(m, m.reads[0], top(stack))
		return
	}
	// Layout levels from a list block decide nesting directly: a list item
	// nests under the nearest list item of a lower level, or else under the
	// nearest structure that is not a list item.
	if m.block {
		for k := len(stack) - 1; k >= 0; k-- {
			e := stack[k]
			if e.block && e.lvl >= m.level {
				continue
			}
			p.accept(m, m.reads[0], e.m)
			return
		}
		p.accept(m, m.reads[0], -1)
		return
	}
	// 1. Continue an open list.
	for k := len(stack) - 1; k >= 0; k-- {
		e := stack[k]
		for _, r := range m.reads {
			if r.style != e.st || !continues(e, m, r) {
				continue
			}
			p.accept(m, r, p.parent[e.m])
			return
		}
	}
	// 2. Open a new list. An inline marker opens one only when the list's
	// second member follows.
	if (m.fam == famDecimal || m.fam == famSectionKw) && len(m.nums) > 1 {
		prefix := m.nums[:len(m.nums)-1]
		last := m.nums[len(m.nums)-1]
		for k := len(stack) - 1; k >= 0; k-- {
			e := stack[k]
			if pathIs(e, prefix) {
				// "5. Indemnification. 5.1 ..." needs no second member:
				// the parent's number vouches for it.
				if last >= 1 && last <= gap(&m) && (m.strong || m.confirmed || k == len(stack)-1) {
					p.accept(m, m.reads[0], e.m)
				}
				return
			}
		}
		if !m.strong && !m.confirmed {
			return
		}
		if last != 1 || !p.nextTop(stack, m.nums[0]) {
			return
		}
		p.accept(m, m.reads[0], p.popRank(stack, m.rank()))
		return
	}
	if !m.strong && !m.confirmed {
		return
	}
	for _, r := range m.reads {
		// Articles are few and keyword-led: one may open at any number
		// (a document may hold only ARTICLE 5 onwards, or PART 1 then ARTICLE 4).
		if r.val != 1 && !(m.fam == famArticle && r.val <= 50 && m.strong) {
			continue
		}
		if m.fam == famItem {
			// A list restarting beside an earlier list of the same style,
			// unless the text before it announces a list ("as follows:").
			for k := len(stack) - 1; k >= 0 && !p.introducesList(m.pos); k-- {
				if stack[k].st == r.style {
					p.accept(m, r, p.parent[stack[k].m])
					return
				}
				if stack[k].fam != famItem && stack[k].fam != famDefinition {
					break
				}
			}
			p.accept(m, r, top(stack))
			return
		}
		p.accept(m, r, p.popRank(stack, m.rank()))
		return
	}
}

// nextTop reports whether a hierarchical number whose parent is not open
// (3.1 with no section 3) can start at top-level number n: only when no
// top-level body number is open outside a schedule, or n comes after it
// within the usual gap (a missed "3." heading). "Section 3.1" that wrapped
// to a line start inside section 7 fails this.
func (p *parser) nextTop(stack []open, n int) bool {
	for _, e := range stack {
		if e.fam == famSchedule {
			return true
		}
		if (e.fam == famDecimal || e.fam == famSectionKw || e.fam == famArticle) && len(e.nums) == 1 {
			return n > e.nums[0] && n <= e.nums[0]+3
		}
	}
	return true
}

// pathIs reports whether open list e carries the hierarchical number path.
// introducesList reports whether the text before byte pos ends with a colon
// or a dash, the way a sentence announces an enumeration.
func (p *parser) introducesList(pos int) bool {
	r, _ := before(p.s, pos)
	return r == ':' || r == '—' || r == '–'
}

func pathIs(e open, path []int) bool {
	switch e.fam {
	case famDecimal, famSectionKw:
		if len(e.nums) != len(path) {
			return false
		}
		for i := range path {
			if e.nums[i] != path[i] {
				return false
			}
		}
		return true
	case famArticle:
		return len(path) == 1 && e.val == path[0]
	}
	return false
}

func continues(e open, m marker, r interp) bool {
	g := gap(&m)
	switch m.fam {
	case famDecimal, famSectionKw:
		if len(e.nums) != len(m.nums) {
			return false
		}
		n := len(m.nums)
		for i := 0; i < n-1; i++ {
			if e.nums[i] != m.nums[i] {
				return false
			}
		}
		return m.nums[n-1] > e.nums[n-1] && m.nums[n-1] <= e.nums[n-1]+g
	}
	return r.val > e.val && r.val <= e.val+g
}

func top(stack []open) int {
	if len(stack) == 0 {
		return -1
	}
	return stack[len(stack)-1].m
}

// popRank returns the node a new list of rank r nests under: the innermost
// open list of lower rank.
func (p *parser) popRank(stack []open, r int) int {
	for k := len(stack) - 1; k >= 0; k-- {
		if stack[k].rank < r {
			return stack[k].m
		}
	}
	return -1
}

func (p *parser) accept(m marker, r interp, parent int) {
	if m.fam == famArticle || m.fam == famSectionKw || m.fam == famDecimal {
		p.bodyStarted = true
	}
	p.markers = append(p.markers, m)
	p.parent = append(p.parent, parent)
	p.read = append(p.read, r)
}

// stackOf returns the open lists: the path from the root to the last
// accepted marker.
func (p *parser) stackOf() []open {
	var rev []open
	for i := len(p.markers) - 1; i >= 0; i = p.parent[i] {
		m := &p.markers[i]
		rev = append(rev, open{m: i, st: p.read[i].style, val: p.read[i].val, nums: m.nums, fam: m.fam, rank: m.rank(), lvl: m.level, block: m.block})
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev
}

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
