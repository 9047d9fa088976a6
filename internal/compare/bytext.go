package compare

import "unicode"

// byText compares two texts through the word-level difference of the
// whole texts (labels left out): a template clause all of whose words are
// kept, with nothing inserted among them, is the same whatever the two
// clause trees make of the text around it — a re-flowed copy whose lines
// the parser splits differently is no change. A template clause that
// keeps under half of its words is missing; a contract clause with under
// half of its words kept is added; any other template clause with a
// deletion or an insertion is changed, paired with the contract clause
// that holds most of its kept words, and its difference is the part of
// the whole texts' difference that falls in it.
func byText(ti, ci []item, budget int) (*matching, bool) {
	as, bs := newStream(ti), newStream(ci)
	a, b := as.ids, bs.ids
	aOwner, bOwner := as.owner, bs.owner
	aLabel, bLabel := as.label, bs.label
	var aDisp, bDisp []string
	start := make([]int, len(ti)+1) // template item i holds a[start[i]:start[i+1]]
	for i, t := range ti {
		start[i] = len(aDisp)
		aDisp = append(aDisp, t.display...)
	}
	start[len(ti)] = len(aDisp)
	for _, c := range ci {
		bDisp = append(bDisp, c.display...)
	}
	es, ok := DiffLinear(a, b, budget)
	if !ok {
		return nil, false
	}
	es = slide(es, as, bs)
	blocks := findBlocks(es, as, bs)
	// Words of each item inside a block: reported with the block.
	inBlockT := make([]int, len(ti))
	inBlockC := make([]int, len(ci))
	for x, bl := range blocks {
		for k := bl.start; k < bl.end; k++ {
			if es[x].Kind == Insert {
				if !bLabel[k] {
					inBlockC[bOwner[k]]++
				}
			} else if !aLabel[k] {
				inBlockT[aOwner[k]]++
			}
		}
	}
	m := newMatching()
	keptT := make([]int, len(ti))
	keptC := make([]int, len(ci))
	shared := map[[2]int]int{}
	for _, e := range es {
		if e.Kind != Equal {
			continue
		}
		for k := 0; k < e.AEnd-e.AStart; k++ {
			p, q := e.AStart+k, e.BStart+k
			i, j := aOwner[p], bOwner[q]
			if !aLabel[p] {
				keptT[i]++
				m.kept++
			}
			if !bLabel[q] {
				keptC[j]++
			}
			shared[[2]int{i, j}]++
		}
	}
	for j, c := range ci {
		if rest := len(c.words()) - inBlockC[j]; rest > 0 && 2*keptC[j] < rest {
			m.added[j] = true
		}
	}
	// partner: the contract item holding most of a template item's words.
	partner := mostShared(shared, len(ti), 0)
	// from: the template item most of a contract item's kept words come
	// from, to attribute insertions at clause boundaries.
	from := mostShared(shared, len(ci), 1)
	changed := make([]bool, len(ti))
	attributed := map[int]int{} // insert edit index → template item it belongs to
	renumbered := renumberings(es, as, bs)
	for x, e := range es {
		if _, ok := blocks[x]; ok || renumbered[x] || pageNumber(es, x, aDisp, bDisp) {
			continue
		}
		switch e.Kind {
		case Delete:
			for p := e.AStart; p < e.AEnd; p++ {
				if !aLabel[p] { // a number removed or changed is no change of words
					changed[aOwner[p]] = true
					m.delTok[aOwner[p]] = append(m.delTok[aOwner[p]], as.toks[p])
				}
			}
		case Insert:
			numberOnly := true
			for q := e.BStart; q < e.BEnd; q++ {
				numberOnly = numberOnly && bLabel[q]
			}
			if numberOnly {
				continue
			}
			left, right := -1, -1
			if e.AStart > 0 {
				left = aOwner[e.AStart-1]
			}
			if e.AStart < len(a) {
				right = aOwner[e.AStart]
			}
			if left >= 0 && left == right {
				changed[left] = true // inside a clause
				attributed[x] = left
				m.insTok[left] = append(m.insTok[left], bs.toks[e.BStart:e.BEnd]...)
				continue
			}
			// At a boundary: the inserted words belong to the template
			// clause whose words the contract clause holding them keeps,
			// unless that contract clause is new.
			for q := e.BStart; q < e.BEnd; q++ {
				j := bOwner[q]
				if m.added[j] || from[j] < 0 {
					continue
				}
				if i := from[j]; i == left || i == right {
					changed[i] = true
					attributed[x] = i
					m.insTok[i] = append(m.insTok[i], bs.toks[e.BStart:e.BEnd]...)
					break
				}
			}
		}
	}
	for i, t := range ti {
		switch {
		case len(t.words()) == 0:
			// A bare number ("(a)" before its sub-items): nothing to compare.
		case len(t.words()) == inBlockT[i]:
			// Wholly inside a deleted block, which reports it.
		case 2*keptT[i] < len(t.words())-inBlockT[i] || partner[i] < 0:
			m.missing[i] = true
		case changed[i]:
			m.pair[i] = partner[i]
			m.diff[i] = sliceOps(es, start[i], start[i+1], i, attributed, blocks, aDisp, bDisp)
		default:
			m.pair[i] = partner[i]
		}
	}
	m.keepBlocks(es, blocks, as, bs)
	return m, true
}

// keepBlocks records the blocks to report, leaving out a block inside
// clauses reported added or missing as a whole (reported with them).
func (m *matching) keepBlocks(es []Edit, blocks map[int]block, as, bs *stream) {
	within := func(st *stream, bl block, whole map[int]bool) bool {
		for k := bl.start; k < bl.end; k++ {
			if !whole[st.owner[k]] {
				return false
			}
		}
		return true
	}
	for x, bl := range blocks {
		switch {
		case es[x].Kind == Insert && !within(bs, bl, m.added):
			m.addedBlocks = append(m.addedBlocks, bl)
		case es[x].Kind == Delete && !within(as, bl, m.missing):
			m.missingBlocks = append(m.missingBlocks, bl)
		}
	}
}

// sliceOps renders the part of the whole texts' difference that falls in
// template tokens [a0, a1), with the insertions attributed to item i.
func sliceOps(es []Edit, a0, a1, i int, attributed map[int]int, blocks map[int]block, aDisp, bDisp []string) []Op {
	var out []Op
	add := func(op string, toks []string) {
		if len(toks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += " " + joinTokens(toks)
			return
		}
		out = append(out, Op{op, joinTokens(toks)})
	}
	for x, e := range es {
		if _, ok := blocks[x]; ok {
			continue
		}
		switch e.Kind {
		case Insert:
			if owner, ok := attributed[x]; ok && owner == i {
				add("+", bDisp[e.BStart:e.BEnd])
			}
		default:
			lo, hi := max(e.AStart, a0), min(e.AEnd, a1)
			if lo >= hi {
				continue
			}
			if e.Kind == Equal {
				add("=", aDisp[lo:hi])
			} else {
				add("-", aDisp[lo:hi])
			}
		}
	}
	return out
}

// renumberings finds the numbers replaced at the start of a line before a
// period or a parenthesis ("9. TRADEMARKS" → "10. TRADEMARKS"): section
// numbers the clause tree read as text, which a renumbering changes and
// which are no change of words. It returns the edits (a deletion and the
// insertion beside it) to leave out.
func renumberings(es []Edit, a, b *stream) map[int]bool {
	heading := func(st *stream, s, e int) bool {
		return e-s == 1 && isNumber(st.toks[s]) && st.brk[s] && e < len(st.toks) && (st.toks[e] == "." || st.toks[e] == ")")
	}
	out := map[int]bool{}
	for x := 0; x+1 < len(es); x++ {
		d, i := es[x], es[x+1]
		if d.Kind == Insert {
			d, i = i, d
		}
		if d.Kind != Delete || i.Kind != Insert {
			continue
		}
		if heading(a, d.AStart, d.AEnd) && heading(b, i.BStart, i.BEnd) {
			out[x], out[x+1] = true, true
		}
	}
	return out
}

// pageNumber reports whether edit x is a page number left in the running
// text by a text export ("2", "- 2 -") or stray punctuation: at most five
// tokens of digits and punctuation removed or inserted between kept words
// (a changed amount is a removal and an insertion side by side, and is
// reported).
func pageNumber(es []Edit, x int, aDisp, bDisp []string) bool {
	e := es[x]
	if e.Kind == Equal || (e.AEnd-e.AStart)+(e.BEnd-e.BStart) > 5 {
		return false
	}
	if x > 0 && es[x-1].Kind != Equal || x+1 < len(es) && es[x+1].Kind != Equal {
		return false
	}
	toks := bDisp[e.BStart:e.BEnd]
	if e.Kind == Delete {
		toks = aDisp[e.AStart:e.AEnd]
	}
	for _, t := range toks {
		for _, r := range t {
			if unicode.IsLetter(r) {
				return false
			}
		}
	}
	return true
}

// newStream concatenates a side's items.
func newStream(its []item) *stream {
	st := &stream{ownerLen: make([]int, len(its))}
	for i, it := range its {
		st.ids = append(st.ids, it.ids...)
		st.toks = append(st.toks, it.tokens...)
		st.brk = append(st.brk, it.breakBefore...)
		for k := range it.ids {
			st.owner = append(st.owner, i)
			st.label = append(st.label, k < it.label)
		}
		st.ownerLen[i] = len(it.ids)
	}
	return st
}

// mostShared gives each of the n items of one side (side 0: template items,
// 1: contract items; shared is keyed {template item, contract item}) the
// item of the other side it shares most kept words with, the lowest index
// on a tie; -1 when it shares none.
func mostShared(shared map[[2]int]int, n, side int) []int {
	most := make([]int, n)
	count := make([]int, n)
	for i := range most {
		most[i] = -1
	}
	for k, c := range shared {
		i, j := k[side], k[1-side]
		if c > count[i] || c == count[i] && most[i] >= 0 && j < most[i] {
			most[i], count[i] = j, c
		}
	}
	return most
}
