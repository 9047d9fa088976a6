package search

import (
	"math"
	"math/bits"
	"slices"
)

// Dynamic pruning. A corpus-wide search only ever reads the best few
// hundred units of its ranking (Search's rankDepth), yet scoring every
// posting of every query term touches a large share of a big collection's
// units: at 10× CUAD, a question with its expansions scores 1–3 M postings
// over 0.5–1.3 M of 1.6 M units.
//
// topPruned scores the units in windows of pruneWindow consecutive ids, the
// way Lucene's MaxScoreBulkScorer does (MaxScore, Turtle and Flood 1995,
// with block-max bounds, Ding and Suel 2011). Each term's posting list is
// cut into blocks of blockSize postings, and the index keeps each block's
// last unit and the largest BM25 term-frequency factor of its postings
// (blockMax). Within a window, a term adds at most its weight times the
// largest factor of the blocks that overlap the window. With the terms
// ordered by that bound, the cheapest terms whose bounds together cannot
// lift a unit above the worst of the n best found so far are
// non-essential: a unit is a candidate only when an essential term matches
// it, and a window where no term is essential is skipped whole. A
// candidate whose essential terms' scores plus the non-essential bounds
// still could reach the n best is then scored exactly.
//
// The ranking is the same as scoring every unit: every unit that can reach
// the best n is scored exactly as the accumulator scores it — its term
// contributions summed in the query's term order — and the n best are kept
// in the same total order (score, then unit id). Bounds are compared with a
// relative slack (boundSlack) that covers the rounding of sums taken in
// another order.
//
// A term's weight can be negative (IDF over a scope restricted to some
// views, where a term's postings outnumber the units): its bound is then 0,
// and scores, bounds and the threshold may be negative.

// boundSlack widens every bound comparison, relative to the largest
// magnitude a query's scores can have: a bound is a sum of per-term maxima
// taken in another order than a unit's score, so the two may round
// differently by a few units in the last place.
const boundSlack = 1e-9

// blockSize is the number of postings per block of a posting list.
const blockSize = 64

// pruneWindow is the number of consecutive unit ids scored together.
const pruneWindow = 1024

// block summarizes blockSize consecutive postings of a term: the last
// unit among them and the largest BM25 term-frequency factor,
// tf·(k1+1)/(tf+norm), with the view length averages of the whole index
// (rounded up to a float32). Times a query term's weight and IDF, Max bounds
// what the term adds to any unit of the block (a body word's occurrences
// in a subtree view are scaled down, never up).
type block struct {
	First, Last int32
	Max         float32
}

// blocks returns term t's blocks (t in range): from the index file in an
// opened index; computed on first use and kept until the next Add in one
// built in memory. A list of the wrong length (a damaged file) yields nil:
// the term is then never pruned.
func (ix *Index) blocks(t int32) []block {
	nb := (len(ix.plist(t)) + blockSize - 1) / blockSize
	if ix.blockOff != nil {
		if uint(t)+1 >= uint(len(ix.blockOff)) {
			return nil
		}
		a, b := ix.blockOff[t], ix.blockOff[t+1]
		if a < 0 || b < a || b > int64(len(ix.blockAll)) || b-a != int64(nb) {
			return nil
		}
		return ix.blockAll[a:b:b]
	}
	if v, ok := ix.blockCache.Load(t); ok {
		return v.([]block)
	}
	bl := ix.computeBlocks(t, ix.viewAvg(), nil)
	ix.blockCache.Store(t, bl)
	return bl
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

// computeBlocks appends the blocks of term t to out.
func (ix *Index) computeBlocks(t int32, avg [numViews]float64, out []block) []block {
	pl := ix.plist(t)
	for i := 0; i < len(pl); i += blockSize {
		best := 0.0
		for _, e := range pl[i:min(i+blockSize, len(pl))] {
			if uint(e.unit) >= uint(len(ix.units)) || uint(ix.units[e.unit].View) >= uint(numViews) {
				continue
			}
			u := &ix.units[e.unit]
			tf := float64(e.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
			if f := tf * (bm25K1 + 1) / (tf + norm); !(f <= best) {
				best = f
			}
		}
		m := float32(best)
		if float64(m) < best {
			m = math.Nextafter32(m, float32(math.Inf(1)))
		}
		if math.IsNaN(best) {
			m = float32(math.Inf(1))
		}
		out = append(out, block{First: pl[i].unit, Last: pl[min(i+blockSize, len(pl))-1].unit, Max: m})
	}
	return out
}

// allBlocks computes the blocks of every term, with their offsets (written
// with the index).
func (ix *Index) allBlocks() (off []int64, all []block) {
	if ix.blockOff != nil {
		return ix.blockOff, ix.blockAll
	}
	avg := ix.viewAvg()
	off = make([]int64, 0, len(ix.terms)+1)
	for t := range ix.terms {
		off = append(off, int64(len(all)))
		all = ix.computeBlocks(int32(t), avg, all)
	}
	return append(off, int64(len(all))), all
}

// cursor walks one query term's posting list during a pruned search.
type cursor struct {
	pl   []posting
	pos  int // no posting before pos is of a unit in the current window or later
	bl   []block
	bi   int     // first block that may overlap the current window
	w    float64 // IDF times the query term's weight
	wb   float64 // w times the largest factor of the window's blocks
	in   bool    // the list may hold a unit of the window
	body bool
}

// seek moves the cursor to the first posting of a unit ≥ u (galloping, then
// binary search: most of a list may be skipped).
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

// windowBound sets c.wb to the most the term adds to a unit in [lo, hi),
// and reports whether its list may hold a unit there.
func (c *cursor) windowBound(lo, hi int32) bool {
	if c.bl == nil {
		// No usable blocks: bounded by nothing.
		c.seek(lo)
		if c.pos >= len(c.pl) || c.pl[c.pos].unit >= hi {
			c.wb = 0
			return false
		}
		c.wb = math.Inf(1)
		return true
	}
	for c.bi < len(c.bl) && c.bl[c.bi].Last < lo {
		c.bi++
	}
	mx := float32(0)
	k := c.bi
	for ; k < len(c.bl) && c.bl[k].First < hi; k++ {
		if !(c.bl[k].Max <= mx) {
			mx = c.bl[k].Max
		}
	}
	if k == c.bi {
		c.wb = 0
		return false
	}
	c.wb = max(c.w*float64(mx), 0) // a negative weight only lowers a score
	if math.IsNaN(c.wb) {
		c.wb = math.Inf(1)
	}
	return true
}

// topPruned returns the n best units of a corpus-wide search for q (every
// unit in scope, sc.ranges nil), best first in the order of better, with
// the scores score would give them: the same as scoring every unit into an
// accumulator and taking top(n). all reports that the list holds every
// unit any term matched (fewer than n did); otherwise more may exist.
// visited counts the units scored exactly (tests check that pruning
// prunes).
func (ix *Index) topPruned(q []queryTerm, sc scope, n int) (ranked []scored, all bool, visited int) {
	w := windowScorer{units: ix.units, views: sc.views, avg: ix.viewAvg()}
	cs := make([]cursor, len(q)) // in query order: the order scores are summed in
	first := int32(math.MaxInt32)
	scale := 1.0
	for i, qt := range q {
		c := &cs[i]
		c.pl = ix.plist(qt.id)
		if len(c.pl) == 0 {
			continue
		}
		c.bl = ix.blocks(qt.id)
		c.w = idf(sc.n, len(c.pl)) * qt.weight
		c.body = qt.body
		first = min(first, c.pl[0].unit)
		scale += math.Abs(c.w) * (bm25K1 + 1)
	}
	// tol is the rounding a bound comparison allows for: every factor is
	// below k1+1, so no partial sum exceeds scale in magnitude.
	tol := boundSlack * scale
	h := topHeap{n: n}
	thr := math.Inf(-1) // the score to beat once n units are held
	var (
		live []int     // terms with postings in the window, by bound
		pre  []float64 // pre[k] bounds what live[:k] add together
		cand []scored  // units of the window that may reach the n best, their essential terms' scores
	)
	nu := int32(len(ix.units))
	first = max(first, 0)
	for lo := first - first%pruneWindow; lo >= 0 && lo < nu; lo += pruneWindow {
		hi := lo + pruneWindow
		live = live[:0]
		for i := range cs {
			c := &cs[i]
			c.in = len(c.pl) > 0 && c.windowBound(lo, hi)
			if c.in {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			continue
		}
		// Cheapest bound first: terms live[:ess] are non-essential.
		slices.SortStableFunc(live, func(a, b int) int {
			switch {
			case cs[a].wb < cs[b].wb:
				return -1
			case cs[a].wb > cs[b].wb:
				return 1
			}
			return 0
		})
		pre = append(pre[:0], 0)
		for _, i := range live {
			pre = append(pre, pre[len(pre)-1]+cs[i].wb)
		}
		ess := 0
		for ess < len(live) && pre[ess+1]+tol <= thr {
			ess++
		}
		if ess == len(live) {
			continue // no unit of the window can reach the n best
		}
		if pruneMode == 1 {
			goto full
		}
		{
		// The essential terms' scores (in any order: a bound, not a score).
		read := 0
		for _, i := range live[ess:] {
			c := &cs[i]
			c.seek(lo)
			read += w.add(c, c.pos, hi)
		}
		cand = w.candidates(cand[:0], lo, pre[ess]+tol, thr)
		if len(cand) == 0 {
			continue
		}
		if pruneMode == 2 || pruneMode == 0 && len(cand)*len(live) < read {
			// Few candidates: look each up in every term's list, the
			// non-essential terms first while the unit can still reach
			// the n best, then score it exactly.
		units:
			for _, cu := range cand {
				u, s := cu.unit, cu.score
				for k := ess; ; k-- {
					if s+pre[k]+tol <= thr {
						continue units
					}
					if k == 0 {
						break
					}
					c := &cs[live[k-1]]
					c.seek(u)
					if v, ok := w.at(c, u); ok {
						s += v
					}
				}
				visited++
				s = 0
				for i := range cs {
					c := &cs[i]
					if c.in {
						c.seek(u)
						if v, ok := w.at(c, u); ok {
							s += v
						}
					}
				}
				if h.push(scored{u, s}) {
					thr = h.worst().score
				}
			}
			continue
		}
		}
	full:
		// Many: score the whole window exactly, every term in query order.
		for i := range cs {
			if c := &cs[i]; c.in {
				c.seek(lo)
				w.add(c, c.pos, hi)
			}
		}
		w.each(lo, func(u int32, s float64) {
			visited++
			if h.push(scored{u, s}) {
				thr = h.worst().score
			}
		})
	}
	all = len(h.s) < n
	slices.SortFunc(h.s, byRank)
	return h.s, all, visited
}

// windowScorer accumulates term scores over one window of units, the
// accumulator of a pruned search.
type windowScorer struct {
	units []unit
	views [numViews]bool
	avg   [numViews]float64
	part  [pruneWindow]float64     // by unit - lo
	seen  [pruneWindow / 64]uint64 // units with a score
}

// score returns what cursor c's posting e adds to its unit's score, and
// false when the unit is not in scope.
func (w *windowScorer) score(c *cursor, e posting) (float64, bool) {
	if uint(e.unit) >= uint(len(w.units)) {
		return 0, false // a damaged index file; see persist.go
	}
	u := &w.units[e.unit]
	if uint(u.View) >= uint(numViews) || !w.views[u.View] {
		return 0, false
	}
	tf := float64(e.tf)
	if c.body && u.View == ViewDescendant {
		tf *= bodyInSubtree
	}
	norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/w.avg[u.View])
	return c.w * tf * (bm25K1 + 1) / (tf + norm), true
}

// at returns what c adds to unit u, if c is at u's posting.
func (w *windowScorer) at(c *cursor, u int32) (float64, bool) {
	if c.pos < len(c.pl) && c.pl[c.pos].unit == u {
		return w.score(c, c.pl[c.pos])
	}
	return 0, false
}

// add adds the scores of c's postings from p on, of units below hi (the
// window starts at or before c.pl[p]), and returns how many it read.
func (w *windowScorer) add(c *cursor, p int, hi int32) int {
	lo := hi - pruneWindow
	n := 0
	for ; p < len(c.pl) && c.pl[p].unit < hi; p++ {
		e := c.pl[p]
		n++
		if v, ok := w.score(c, e); ok {
			j := e.unit - lo
			w.seen[j>>6] |= 1 << (j & 63)
			w.part[j] += v
		}
	}
	return n
}

// candidates appends to out, in unit order, the units of the window
// starting at lo whose score plus rest exceeds thr, with their scores, and
// clears the window.
func (w *windowScorer) candidates(out []scored, lo int32, rest, thr float64) []scored {
	for wi, word := range w.seen {
		w.seen[wi] = 0
		for ; word != 0; word &= word - 1 {
			j := int32(wi<<6 + bits.TrailingZeros64(word))
			if w.part[j]+rest > thr {
				out = append(out, scored{lo + j, w.part[j]})
			}
			w.part[j] = 0
		}
	}
	return out
}

// each calls fn with every unit of the window starting at lo that has a
// score, in unit order, and clears the window.
func (w *windowScorer) each(lo int32, fn func(u int32, s float64)) {
	for wi, word := range w.seen {
		w.seen[wi] = 0
		for ; word != 0; word &= word - 1 {
			j := int32(wi<<6 + bits.TrailingZeros64(word))
			fn(lo+j, w.part[j])
			w.part[j] = 0
		}
	}
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


var pruneMode = 0
