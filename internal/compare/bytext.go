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
	var a, b []int
	var aOwner, bOwner []int
	var aLabel, bLabel []bool // the token is part of its clause's number
	var aDisp, bDisp []string
	start := make([]int, len(ti)+1) // template item i holds a[start[i]:start[i+1]]
	for i, t := range ti {
		start[i] = len(a)
		a = append(a, t.ids...)
		aDisp = append(aDisp, t.display...)
		for k := range t.ids {
			aOwner = append(aOwner, i)
			aLabel = append(aLabel, k < t.label)
		}
	}
	start[len(ti)] = len(a)
	for j, c := range ci {
		b = append(b, c.ids...)
		bDisp = append(bDisp, c.display...)
		for k := range c.ids {
			bOwner = append(bOwner, j)
			bLabel = append(bLabel, k < c.label)
		}
	}
	es, ok := DiffLinear(a, b, budget)
	if !ok {
		return nil, false
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
		if 2*keptC[j] < len(c.words()) {
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
	for x, e := range es {
		if pageNumber(es, x, aDisp, bDisp) {
			continue
		}
		switch e.Kind {
		case Delete:
			for p := e.AStart; p < e.AEnd; p++ {
				if !aLabel[p] { // a number removed or changed is no change of words
					changed[aOwner[p]] = true
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
					break
				}
			}
		}
	}
	for i, t := range ti {
		switch {
		case len(t.words()) == 0:
			// A bare number ("(a)" before its sub-items): nothing to compare.
		case 2*keptT[i] < len(t.words()) || partner[i] < 0:
			m.missing[i] = true
		case changed[i]:
			m.pair[i] = partner[i]
			m.diff[i] = sliceOps(es, start[i], start[i+1], i, attributed, aDisp, bDisp)
		default:
			m.pair[i] = partner[i]
		}
	}
	return m, true
}

// sliceOps renders the part of the whole texts' difference that falls in
// template tokens [a0, a1), with the insertions attributed to item i.
func sliceOps(es []Edit, a0, a1, i int, attributed map[int]int, aDisp, bDisp []string) []Op {
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
