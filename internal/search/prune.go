package search

import (
	"math"
	"slices"
)

// Dynamic pruning (MaxScore, Turtle and Flood 1995). A corpus-wide search
// only ever reads the best few hundred units of its ranking (Search's
// rankDepth), yet scoring every posting of every query term touches a large
// share of a big collection's units: at 10× CUAD, a question with its
// expansions scores 1–3 M postings over 0.5–1.3 M of 1.6 M units. Each term
// has an upper bound on what it can add to any unit's score (termBound
// times its weight and IDF). With the terms ordered by bound, the cheapest
// terms whose bounds together cannot lift a unit above the worst of the n
// best found so far are "non-essential": a unit is only considered when an
// essential term matches it, and the non-essential terms are looked up in
// it (a forward seek in their posting lists) only while its score could
// still reach the best n. Units are visited in id order (document at a
// time), so the posting lists are each read once, forward.
//
// The results are the same as scoring everything: a unit that can reach the
// best n is scored exactly, its term contributions summed in the query's
// term order as the accumulator sums them, and the n best are kept in the
// same total order (score, then unit id). Bounds are compared with a
// relative slack (boundSlack) that covers the rounding of sums taken in a
// different order.

// boundSlack widens every bound comparison: a bound is a sum of per-term
// maxima taken in another order than a unit's score, so the two may round
// differently by a few units in the last place.
const boundSlack = 1e-9

// termBound returns the largest BM25 term-frequency factor,
// tf·(k1+1)/(tf+norm), of any posting of term t (t in range), with the
// view length averages of the whole index: times a query term's weight and
// IDF, an upper bound on what it adds to any unit's score (a body word's
// occurrences in a subtree view are scaled down, never up). An opened index
// reads it from its file; an index built in memory computes it on first use
// (one pass over the term's postings) and keeps it until the next Add.
func (ix *Index) termBound(t int32) float64 {
	if ix.bounds != nil {
		if uint(t) < uint(len(ix.bounds)) {
			return ix.bounds[t]
		}
		return math.Inf(1)
	}
	if v, ok := ix.bound.Load(t); ok {
		return v.(float64)
	}
	b := ix.computeBound(t, ix.viewAvg())
	ix.bound.Store(t, b)
	return b
}

// viewAvg returns the average unit length of each view.
func (ix *Index) viewAvg() [numViews]float64 {
	var avg [numViews]float64
	for v := View(0); v < numViews; v++ {
		if ix.viewN[v] > 0 {
			avg[v] = float64(ix.viewLen[v]) / float64(ix.viewN[v])
		}
	}
	return avg
}

func (ix *Index) computeBound(t int32, avg [numViews]float64) float64 {
	best := 0.0
	for _, e := range ix.plist(t) {
		if uint(e.unit) >= uint(len(ix.units)) {
			continue
		}
		u := &ix.units[e.unit]
		if uint(u.View) >= uint(numViews) {
			continue
		}
		tf := float64(e.tf)
		norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
		if f := tf * (bm25K1 + 1) / (tf + norm); f > best || math.IsNaN(f) {
			best = f
		}
	}
	return best
}

// allBounds computes termBound for every term (written with the index).
func (ix *Index) allBounds() []float64 {
	if ix.bounds != nil {
		return ix.bounds
	}
	avg := ix.viewAvg()
	out := make([]float64, len(ix.terms))
	for t := range out {
		out[t] = ix.computeBound(int32(t), avg)
	}
	return out
}

// cursor walks one query term's posting list during a pruned search.
type cursor struct {
	pl    []posting
	pos   int
	w     float64 // IDF times the query term's weight
	bound float64 // w times termBound: the most it adds to a unit
	body  bool
	qi    int // the term's place in the query: contributions are summed in this order
}

// unit returns the unit at the cursor, or math.MaxInt32 past the end.
func (c *cursor) unit() int32 {
	if c.pos < len(c.pl) {
		return c.pl[c.pos].unit
	}
	return math.MaxInt32
}

// seek moves the cursor to the first posting of a unit ≥ u (galloping, then
// binary search: a non-essential term's list is mostly skipped).
func (c *cursor) seek(u int32) {
	if c.pos >= len(c.pl) || c.pl[c.pos].unit >= u {
		return
	}
	lo, step := c.pos, 1
	hi := lo + step
	for hi < len(c.pl) && c.pl[hi].unit < u {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi, len(c.pl))
	// c.pl[lo].unit < u; the answer is in (lo, hi].
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if c.pl[m].unit < u {
			lo = m
		} else {
			hi = m
		}
	}
	c.pos = hi
}

// topPruned returns the n best units of a corpus-wide search for q (every
// unit in scope, sc.ranges nil), best first in the order of better, with
// the scores score would give them: the same as scoring every unit into an
// accumulator and taking top(n). full reports that the list holds every
// unit any term matched (fewer than n did); otherwise more may exist.
// visited counts the units considered (tests check that pruning prunes).
func (ix *Index) topPruned(q []queryTerm, sc scope, n int) (ranked []scored, full bool, visited int) {
	avg := ix.viewAvg()
	cs := make([]cursor, 0, len(q))
	for i, qt := range q {
		pl := ix.plist(qt.id)
		if len(pl) == 0 {
			continue
		}
		w := idf(sc.n, len(pl)) * qt.weight
		b := w * ix.termBound(qt.id)
		if !(b >= 0) || math.IsInf(b, 1) {
			b = math.Inf(1) // no usable bound: the term is always essential
		}
		cs = append(cs, cursor{pl: pl, w: w, bound: b, body: qt.body, qi: i})
	}
	// Cheapest bound first; prefix[i] is the most terms 0..i add together.
	slices.SortStableFunc(cs, func(a, b cursor) int {
		switch {
		case a.bound < b.bound:
			return -1
		case a.bound > b.bound:
			return 1
		}
		return 0
	})
	prefix := make([]float64, len(cs))
	sum := 0.0
	for i := range cs {
		sum += cs[i].bound
		prefix[i] = sum
	}

	h := topHeap{n: n}
	// thr is the score a unit must beat to enter the n best (-Inf until n
	// units are held); terms [0, ess) are non-essential.
	thr, ess := math.Inf(-1), 0
	type part struct {
		qi int
		s  float64
	}
	parts := make([]part, 0, len(cs))
	contrib := func(c *cursor, e posting) (float64, bool) {
		if uint(e.unit) >= uint(len(ix.units)) {
			return 0, false // a damaged index file; see persist.go
		}
		u := &ix.units[e.unit]
		if uint(u.View) >= uint(numViews) || !sc.views[u.View] {
			return 0, false
		}
		tf := float64(e.tf)
		if c.body && u.View == ViewDescendant {
			tf *= bodyInSubtree
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
		return c.w * tf * (bm25K1 + 1) / (tf + norm), true
	}
	cur := int32(math.MaxInt32)
	for i := range cs {
		cur = min(cur, cs[i].unit())
	}
	for cur != math.MaxInt32 {
		visited++
		parts = parts[:0]
		s := 0.0
		next := int32(math.MaxInt32)
		for i := ess; i < len(cs); i++ {
			c := &cs[i]
			if c.pos < len(c.pl) && c.pl[c.pos].unit == cur {
				if v, ok := contrib(c, c.pl[c.pos]); ok {
					s += v
					parts = append(parts, part{c.qi, v})
				}
				c.pos++
			}
			next = min(next, c.unit())
		}
		if len(parts) > 0 {
			// Non-essential terms, most valuable first, while the unit can
			// still make the n best.
			for i := ess - 1; i >= 0; i-- {
				if (s+prefix[i])*(1+boundSlack) <= thr {
					break
				}
				c := &cs[i]
				c.seek(cur)
				if c.pos < len(c.pl) && c.pl[c.pos].unit == cur {
					if v, ok := contrib(c, c.pl[c.pos]); ok {
						s += v
						parts = append(parts, part{c.qi, v})
					}
					c.pos++
				}
			}
			if s*(1+boundSlack) > thr {
				// The exact score: contributions in query order.
				slices.SortFunc(parts, func(a, b part) int { return a.qi - b.qi })
				exact := 0.0
				for _, p := range parts {
					exact += p.s
				}
				if h.push(scored{cur, exact}) {
					thr = h.worst().score
					for ess < len(cs) && prefix[ess]*(1+boundSlack) <= thr {
						ess++
					}
				}
			}
		}
		// A unit matched only by non-essential terms cannot make the n
		// best: the next unit to look at is an essential term's next one.
		if next == math.MaxInt32 {
			break
		}
		cur = next
	}
	full = len(h.s) < n
	slices.SortFunc(h.s, byRank)
	return h.s, full, visited
}

// topHeap keeps the n best scored units seen: a min-heap by better, so
// s[0] is the worst of them. The order is total, so the n best are the same
// whatever the order of visit.
type topHeap struct {
	s []scored
	n int
}

// worst returns the worst unit held (the heap must not be empty).
func (h *topHeap) worst() scored { return h.s[0] }

// push offers a unit and reports whether the heap is full afterwards and the
// unit was kept (so the threshold may have risen).
func (h *topHeap) push(x scored) bool {
	if len(h.s) < h.n {
		h.s = append(h.s, x)
		for i := len(h.s) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(h.s[p], h.s[i]) {
				break
			}
			h.s[p], h.s[i] = h.s[i], h.s[p]
			i = p
		}
		return len(h.s) == h.n
	}
	if !better(x, h.s[0]) {
		return false
	}
	h.s[0] = x
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < h.n && better(h.s[m], h.s[l]) {
			m = l
		}
		if r < h.n && better(h.s[m], h.s[r]) {
			m = r
		}
		if m == i {
			break
		}
		h.s[i], h.s[m] = h.s[m], h.s[i]
		i = m
	}
	return true
}
