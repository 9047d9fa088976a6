package clause

// Placing markers: which open list a number continues, when a new list
// may open, and under what. The sequence of numbers decides, so
// cross-references, dates and amounts are not taken for structure.

import (
	"slices"
	"strings"
)

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
	// 1. Continue an open list: the one the number follows most closely,
	// the innermost of those equally close. "(d)" after "(c) … (a) (b)"
	// continues the outer list, not the inner one two letters on; "5."
	// after "4. … (a) … 1. 2. 3." continues the sections.
	best, bestGap, bestRead := -1, 0, interp{}
	for k := len(stack) - 1; k >= 0; k-- {
		e := stack[k]
		for _, r := range m.reads {
			if r.style != e.st || !continues(e, m, r) {
				continue
			}
			if g := step(e, m, r); best < 0 || g < bestGap {
				best, bestGap, bestRead = k, g, r
			}
		}
	}
	if best >= 0 {
		p.accept(m, bestRead, p.parent[stack[best].m])
		return
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
		if last != 1 || !p.nextTop(stack, m.nums[0], m.fam == famSectionKw) {
			return
		}
		p.accept(m, m.reads[0], p.popRank(stack, m.rank()))
		return
	}
	if !m.strong && !m.confirmed {
		return
	}
	// A list numbered from "1." announced inside a numbered section ("4.
	// Deliverables. (a) The Developer shall deliver: 1. a design …") is a
	// list of that clause's, not the sections starting again. A "1." with a
	// heading ("1. ENDORSEMENT. …") starts a numbering of parts again.
	if m.fam == famDecimal && len(m.nums) == 1 && m.nums[0] == 1 && p.announced(m.pos) && p.insideSection(stack) &&
		headingOf(strings.TrimLeft(p.s[m.labelEnd:min(len(p.s), m.labelEnd+200)], " \t"), false, false) == "" {
		p.accept(m, m.reads[0], top(stack))
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
// (3.1 with no section 3) may open a list at top-level number n, given
// the open top-level body number t (none open, or a schedule above: yes).
// A keyword number ("Section 3.1") must come just after t, within the
// usual gap (a missed "3." heading): "Section 3.1" wrapped to a line start
// inside section 7 is a reference. A bare number may also go back (an
// annex restarting at 1.1 under a label pakton does not read) but not jump
// ahead: "11.1" wrapped to a line start inside section 1 is a reference.
func (p *parser) nextTop(stack []open, n int, keyword bool) bool {
	for _, e := range stack {
		if e.fam == famSchedule {
			return true
		}
		if (e.fam == famDecimal || e.fam == famSectionKw || e.fam == famArticle) && len(e.nums) == 1 {
			if !keyword {
				return n <= e.nums[0]+3
			}
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
		if !sameParentNums(e.nums, m.nums) {
			return false
		}
		n := len(m.nums)
		return m.nums[n-1] > e.nums[n-1] && m.nums[n-1] <= e.nums[n-1]+g
	}
	return r.val > e.val && r.val <= e.val+g
}

// step is how far m's number is past the open list e's (1: the next).
func step(e open, m marker, r interp) int {
	switch m.fam {
	case famDecimal, famSectionKw:
		n := len(m.nums)
		return m.nums[n-1] - e.nums[n-1]
	}
	return r.val - e.val
}

// announced reports whether the text before byte pos, on its line or an
// earlier one, ends with a colon.
func (p *parser) announced(pos int) bool {
	t := strings.TrimRight(p.s[:pos], " \t\r\n\f")
	return strings.HasSuffix(t, ":")
}

// insideSection reports whether a top-level decimal list past its first
// number is open, below the innermost schedule (an exhibit numbers its
// paragraphs afresh).
func (p *parser) insideSection(stack []open) bool {
	for k := len(stack) - 1; k >= 0; k-- {
		e := stack[k]
		if e.fam == famSchedule {
			return false
		}
		if (e.fam == famDecimal || e.fam == famSectionKw) && len(e.nums) == 1 && e.nums[0] > 1 {
			return true
		}
	}
	return false
}

// sameParentNums reports whether decimal paths a and b have the same depth
// and the same numbers but for the last (4.1.2 and 4.1.5); both non-empty.
func sameParentNums(a, b []int) bool {
	return len(a) == len(b) && slices.Equal(a[:len(a)-1], b[:len(b)-1])
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

// coverLead is how much text (bytes) may stand between a layout heading
// and the first numbered clause for the heading still to be that clause's
// part heading rather than a title: a lead-in line ("The parties agree as
// follows:") may, a preamble may not.
const coverLead = 400

func (p *parser) accept(m marker, r interp, parent int) {
	if bodyFamily(m.fam) {
		if !p.bodyStarted && !m.block {
			// Large-font lines above a preamble (a cover page's title and
			// party names, the agreement's title) are not parts the
			// agreement's numbering sits in: "ARTICLE 7 > 7.3", not "AMAG
			// Pharmaceuticals, Inc. > ARTICLE 7 > 7.3", and "Item One", not
			// "Cooperation Agreement > Item One", as the same agreement's
			// text reads. A heading right above its first numbered clause
			// ("Scope" / "1. …") keeps it.
			for parent >= 0 && p.markers[parent].fam == famHeading && m.pos-p.markers[parent].pos-len(p.markers[parent].heading) > coverLead {
				parent = p.parent[parent]
			}
		}
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
