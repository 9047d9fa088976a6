package clause

// listedSchedules returns the positions of accepted schedule labels that
// are not schedules. "Exhibit L – Form of Change Order" may be the last line
// of a list of exhibits in clause 1.5, and `Exhibit "D".` may be a
// cross-reference that wrapped to the start of a line; either way the
// text after it goes on with the agreement's own numbering (ARTICLE 2
// after ARTICLE 1, clause 2.1 or section 3 after section 2). A real
// schedule starts its own numbering, or none.
//
// For each top-level schedule S whose first numbered line after it (a
// strong candidate, accepted or not: a section the schedule made
// unplaceable counts too) continues the last top-level body unit T before it
// (the same kind of number, at most three past T's), every top-level
// schedule label from T up to S is returned: the run of them is a list, and
// the body resumes inside the last one.
func (p *parser) listedSchedules(cands []marker) []int {
	var bad []int
	lastBody := -1 // last top-level marker that is body structure
	runStart := -1 // first top-level schedule after lastBody
	c := 0         // next candidate to look at
	for i := range p.markers {
		m := &p.markers[i]
		if !p.topLevel(i) {
			continue
		}
		if m.fam != famSchedule {
			if bodyFamily(m.fam) {
				lastBody, runStart = i, -1
			}
			continue
		}
		if runStart < 0 {
			runStart = i
		}
		if lastBody < 0 {
			continue
		}
		for c < len(cands) && cands[c].pos <= m.pos {
			c++
		}
		listed := false
		if j := p.firstNumberedDescendant(i); j >= 0 && continuesTop(&p.markers[lastBody], &p.markers[j]) {
			listed = true
		}
		for k := c; k < len(cands) && !listed; k++ {
			n := &cands[k]
			if !n.strong || !bodyFamily(n.fam) {
				if n.fam == famSchedule && n.strong {
					break
				}
				continue
			}
			listed = continuesTop(&p.markers[lastBody], n)
			break
		}
		if listed {
			for r := runStart; r <= i; r++ {
				if p.topLevel(r) && p.markers[r].fam == famSchedule {
					bad = append(bad, p.markers[r].pos)
				}
			}
		}
	}
	return bad
}

// firstNumberedDescendant returns the first accepted marker after i that
// descends from i and is body structure (article, section, clause), or -1.
func (p *parser) firstNumberedDescendant(i int) int {
	for j := i + 1; j < len(p.markers); j++ {
		if !p.descends(j, i) {
			return -1
		}
		if bodyFamily(p.markers[j].fam) {
			return j
		}
	}
	return -1
}

func (p *parser) descends(j, i int) bool {
	for a := p.parent[j]; a >= 0; a = p.parent[a] {
		if a == i {
			return true
		}
	}
	return false
}

func bodyFamily(f family) bool {
	return f == famArticle || f == famSectionKw || f == famDecimal
}

// topLevel reports whether accepted marker i has no schedule or body
// structure above it (an unnumbered layout heading may wrap it).
func (p *parser) topLevel(i int) bool {
	for a := p.parent[i]; a >= 0; a = p.parent[a] {
		if f := p.markers[a].fam; f == famSchedule || bodyFamily(f) {
			return false
		}
	}
	return true
}

// continuesTop reports whether candidate m's leading number follows
// top-level marker t's within the usual gap and in the same style
// (ARTICLE 2 after ARTICLE 1, 3. after 2.), or m is a clause of t (5.2 in
// section 5 or ARTICLE 5).
func continuesTop(t, m *marker) bool {
	if len(t.nums) == 0 || len(m.nums) == 0 {
		return false
	}
	n, k := t.nums[0], m.nums[0]
	if len(m.nums) > 1 && m.fam != famArticle && k == n {
		return true // 5.2 inside section 5 or ARTICLE 5
	}
	return t.fam == m.fam && k > n && k <= n+3
}
