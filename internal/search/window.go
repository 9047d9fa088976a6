package search

import (
	"cmp"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/pakton/pakton/internal/search/index"
)

// Scoring a corpus-wide search window by window. The accumulator scores a
// query term at a time: each term is a pass over its posting list and, for
// every posting, a read of the unit (its length and view) and a write of
// the unit's score. In a large collection those two arrays (16 and 8 bytes
// per unit: 38 MB at 10× CUAD's 1.6 M units) are far larger than the
// processor's caches, and a question with its expansions has 20–100 terms,
// most of them common: each term is another sweep over memory, and the
// search spends its time waiting for it (a corpus-wide question at 10×
// touched 0.5–1.3 M units for 100–250 ms).
//
// topWindowed scores the same postings in the same order per unit, but a
// window of scoreWindow consecutive unit ids at a time: every term's
// postings in the window, in query order, into a window-sized array that
// stays in the cache, then the window's units are offered to a heap of the
// n best. Each unit's score is the same sum, taken in the same order (query
// order) as the accumulator's, and the n best are kept in the same total
// order (score, then unit id), so the ranking is identical.
//
// Once the heap is full, a window is scored with exact pruning (MaxScore,
// scoreWindows). Tried first and measured (notes/scale.md, 2026-11-25):
// MaxScore with block-max bounds kept in the index file, with every term
// the bounds allowed made non-essential; it did not pay on CUAD's questions
// at 10× (20–100 terms of similar weight: most of a window's units stayed
// candidates and checking them cost more than the postings saved). What
// pays (at 100×, 15–25 % less CPU) is leaving the non-essential terms only
// half of the n-th best score, so a candidate needs half of it from the
// essential terms, and narrowing the candidates with the non-essential
// terms largest bound first before scoring the few left exactly.

// scoreWindow is the number of consecutive unit ids scored together: its
// units (16 bytes each) and scores (8) stay in a first- or second-level
// cache.
const scoreWindow = 1024

// windowCursor walks one query term's posting list in one segment.
type windowCursor struct {
	pl   []index.Posting
	pos  int     // the first posting not yet scored
	w    float64 // IDF times the query term's weight
	body bool
}

// topWindowed returns the n best units of a corpus-wide search for q (every
// unit in scope, sc.ranges nil), best first in the order of better, with the
// scores score gives them: the same as scoring every unit into an
// accumulator and taking top(n). all reports that the list holds every unit
// a term matched (no more than n did). Each segment is scored window by
// window with the collection's statistics, into one heap.
func (ix *Index) topWindowed(v *index.Snapshot, q []queryTerm, sc scope, n int) (ranked []scored, all bool) {
	h := topHeap{n: n}
	w := weights(v, q, sc)
	var touched int
	if part := parallelParts(v); part == nil {
		touched = ix.windowed(v, q, w, sc, &h, func(int) bool { return true })
	} else {
		// Each worker scores its segments into a heap of its own; the n
		// best of the union of the workers' n best are the n best of all
		// (the order is total), whichever worker scored them.
		hs := make([]topHeap, parallelWorkers)
		counts := make([]int, parallelWorkers)
		var wg sync.WaitGroup
		for k := range hs {
			hs[k] = topHeap{n: n}
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[k] = ix.windowed(v, q, w, sc, &hs[k], func(i int) bool { return part[i] == k })
			}()
		}
		wg.Wait()
		for k := range hs {
			touched += counts[k]
			for _, x := range hs[k].s {
				h.push(x)
			}
		}
	}
	slices.SortFunc(h.s, byRank)
	return h.s, touched <= n
}

// parallelWorkers is how many goroutines score a large corpus-wide search,
// each a share of the segments; parallelMinUnits is the fewest live units
// for which that pays (below, a search takes a few milliseconds and a
// goroutine's start and a second cache would cost more than they save).
const parallelWorkers = 2

var parallelMinUnits int64 = 1 << 21 // a variable for the tests

// parallelParts assigns the snapshot's segments to parallelWorkers workers,
// largest first to the least loaded, when the snapshot is large enough and
// the process may run that many goroutines at once; nil otherwise.
func parallelParts(v *index.Snapshot) []int {
	segs := v.Segments()
	if runtime.GOMAXPROCS(0) < parallelWorkers || len(segs) < parallelWorkers || v.LiveUnits() < parallelMinUnits {
		return nil
	}
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	size := func(i int) int32 { return v.UnitBase(i+1) - v.UnitBase(i) }
	slices.SortStableFunc(order, func(a, b int) int { return int(size(b)) - int(size(a)) })
	part := make([]int, len(segs))
	var load [parallelWorkers]int64
	for _, i := range order {
		k := 0
		for j := range load {
			if load[j] < load[k] {
				k = j
			}
		}
		part[i] = k
		load[k] += int64(size(i))
	}
	return part
}

// windowed scores the segments mine accepts window by window with the
// terms' weights w (in query order: the order scores are summed in), and
// offers their units to h; it returns the number of units scored.
func (ix *Index) windowed(v *index.Snapshot, q []queryTerm, w []float64, sc scope, h *topHeap, mine func(int) bool) int {
	avg := avgLens(v)
	touched := 0
	cs := make([]windowCursor, 0, len(q))
	for i, seg := range v.Segments() {
		if !mine(i) {
			continue
		}
		cs = cs[:0]
		first := int32(math.MaxInt32)
		for k, qt := range q {
			pl := v.Postings(qt.id, i)
			if len(pl) == 0 || w[k] == 0 && v.DF(qt.id) == 0 {
				continue
			}
			cs = append(cs, windowCursor{pl: pl, w: w[k], body: qt.body})
			first = min(first, pl[0].Unit)
		}
		if len(cs) == 0 {
			continue
		}
		touched += scoreWindows(v, i, seg.Units(), cs, first, avg, sc, h)
	}
	return touched
}

// scoreWindows scores segment i's units window by window (cursors in query
// order) and offers them to h; it returns the number of units scored (one
// more when units were skipped, see below).
//
// Once h holds its n units, a window is scored with pruning (MaxScore over
// each term's bound): no posting's BM25 factor tf·(k1+1)/(tf+norm) reaches
// k1+1 (norm > 0), so a term adds less than its weight times k1+1. The
// terms present in the window, cheapest bound first, whose bounds together
// stay below splitShare of the worst score in h (theta) are non-essential:
// a unit none of the other (essential) terms has a posting for cannot
// enter h. The essential terms are summed first; a unit whose essential
// sum plus the non-essential bounds reaches theta is a candidate. The
// non-essential terms, largest bound first, then replace their bound with
// what they add to each candidate, dropping those that fall below theta.
// The candidates left — only they — are scored exactly as without pruning:
// every term's posting in query order, into a sum that starts at zero, so
// their scores are the same to the bit. The other units cannot enter h,
// whatever their exact score; non-essential postings of units that are not
// candidates are not scored.
func scoreWindows(v *index.Snapshot, i int, units []index.Unit, cs []windowCursor, first int32, avg [numViews]float64, sc scope, h *topHeap) int {
	var (
		part    [scoreWindow]float64     // by unit - lo
		seen    [scoreWindow / 64]uint64 // units with a score
		cand    [scoreWindow / 64]uint64 // units scored exactly (pruning)
		touched int
		extra   bool // a unit in scope, touched by non-essential terms only, was skipped
	)
	base := v.UnitBase(i)
	hasDead := v.HasDeleted(i)
	nu := int32(len(units))
	first = max(first, 0)
	// score is what a posting adds to its unit's score (the same
	// expression, so the same rounding, as the accumulator's), ok false when
	// its unit is out of scope.
	score := func(c *windowCursor, e index.Posting) (float64, bool) {
		u := &units[e.Unit]
		if uint(u.View) >= uint(numViews) || !sc.views[u.View] {
			return 0, false
		}
		if hasDead && v.Deleted(i, u.Doc) {
			return 0, false
		}
		tf := float64(e.TF)
		if c.body && u.View == ViewDescendant {
			tf *= bodyInSubtree
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
		return c.w * tf * (bm25K1 + 1) / (tf + norm), true
	}
	prune := pruneWindows && h.n > 0
	ub := make([]float64, len(cs)) // each term's bound
	order := make([]int, len(cs))  // cursors by bound, lowest first
	for k := range cs {
		if cs[k].w < 0 || math.IsNaN(cs[k].w) {
			prune = false // bounds of sums of mixed signs: not worth it
		}
		ub[k] = cs[k].w * (bm25K1 + 1)
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ub[a], ub[b]) })
	ess := make([]bool, len(cs))
	start := make([]int, len(cs)) // each term's first posting in the window
	end := make([]int, len(cs))   // and its first posting after it
	var nonEss []int              // the non-essential terms present, by bound
	var below0 []float64          // the sum of the bounds of those before each
	for lo := first - first%scoreWindow; lo < nu; lo += scoreWindow {
		hi := lo + scoreWindow
		next := int32(math.MaxInt32) // the first unit of a later window with a posting
		rest := 0.0                  // the bounds of the non-essential terms
		if prune && len(h.s) == h.n {
			theta := h.s[0].score
			for k := range ess {
				ess[k] = true
			}
			for _, k := range order {
				c := &cs[k]
				if c.pos >= len(c.pl) || c.pl[c.pos].Unit >= hi {
					ess[k] = false // no posting in the window
					continue
				}
				if !below(rest+ub[k], splitShare*theta) {
					break
				}
				rest += ub[k]
				ess[k] = false
			}
		}
		if rest == 0 {
			for k := range cs {
				c := &cs[k]
				p := c.pos
				for ; p < len(c.pl); p++ {
					e := c.pl[p]
					if e.Unit >= hi {
						next = min(next, e.Unit)
						break
					}
					if uint(e.Unit) >= uint(nu) {
						continue // a damaged index file; see index/container.go
					}
					j := e.Unit - lo
					if j < 0 {
						continue // a damaged (unsorted) list
					}
					f, ok := score(c, e)
					if !ok {
						continue
					}
					seen[j>>6] |= 1 << (j & 63)
					part[j] += f
				}
				c.pos = p
			}
			for wi, word := range seen {
				seen[wi] = 0
				for ; word != 0; word &= word - 1 {
					j := int32(wi<<6 + bits.TrailingZeros64(word))
					touched++
					h.push(scored{base + lo + j, part[j]})
					part[j] = 0
				}
			}
		} else {
			theta := h.s[0].score
			// The essential terms' sums.
			for k := range cs {
				c := &cs[k]
				start[k] = c.pos
				if !ess[k] {
					end[k] = skipTo(c.pl, c.pos, hi)
					continue
				}
				p := c.pos
				for ; p < len(c.pl) && c.pl[p].Unit < hi; p++ {
					e := c.pl[p]
					j := e.Unit - lo
					if uint(e.Unit) >= uint(nu) || j < 0 {
						continue
					}
					f, ok := score(c, e)
					if !ok {
						continue
					}
					seen[j>>6] |= 1 << (j & 63)
					part[j] += f
				}
				end[k] = p
			}
			// The candidates: units whose essential sum and the bounds of
			// the non-essential terms reach theta.
			ncand := 0
			for wi, word := range seen {
				for ; word != 0; word &= word - 1 {
					j := int32(wi<<6 + bits.TrailingZeros64(word))
					touched++
					if !below(part[j]+rest, theta) {
						cand[j>>6] |= 1 << (j & 63)
						ncand++
					}
				}
			}
			// The non-essential terms, largest bound first, narrow them:
			// each term's bound is replaced with what it adds.
			nonEss, below0 = nonEss[:0], below0[:0]
			for _, k := range order {
				if !ess[k] && end[k] > start[k] {
					below0 = append(below0, rest)
					nonEss = append(nonEss, k)
				}
			}
			sum := 0.0
			for t, k := range nonEss {
				below0[t] = sum // the bounds of the terms before t
				sum += ub[k]
			}
			if prunedWindow != nil {
				prunedWindow(ncand)
			}
			for t := len(nonEss) - 1; t >= 0 && ncand > 0; t-- {
				k := nonEss[t]
				c := &cs[k]
				left := below0[t]
				for p := start[k]; p < end[k]; p++ {
					e := c.pl[p]
					j := e.Unit - lo
					if uint(e.Unit) >= uint(nu) || j < 0 || cand[j>>6]&(1<<(j&63)) == 0 {
						continue
					}
					f, _ := score(c, e)
					part[j] += f
				}
				for wi, word := range cand {
					for ; word != 0; word &= word - 1 {
						j := int32(wi<<6 + bits.TrailingZeros64(word))
						if below(part[j]+left, theta) {
							cand[wi] &^= 1 << (j & 63)
							ncand--
						}
					}
				}
			}
			if !extra {
				// A unit in scope that only non-essential terms touch means
				// more units matched than h holds (h is full).
				for _, k := range nonEss {
					for p := start[k]; p < end[k] && !extra; p++ {
						e := cs[k].pl[p]
						j := e.Unit - lo
						if uint(e.Unit) >= uint(nu) || j < 0 || seen[j>>6]&(1<<(j&63)) != 0 {
							continue
						}
						if _, ok := score(&cs[k], e); ok {
							extra = true
							touched++
						}
					}
				}
			}
			for wi := range seen {
				for word := seen[wi]; word != 0; word &= word - 1 {
					part[wi<<6+bits.TrailingZeros64(word)] = 0
				}
				seen[wi] = 0
			}
			// The candidates left are scored exactly: every term in query
			// order, into a sum from zero, as without pruning.
			for wi := range cand {
				for word := cand[wi]; word != 0; word &= word - 1 {
					j := int32(wi<<6 + bits.TrailingZeros64(word))
					sum := 0.0
					for k := range cs {
						pl := cs[k].pl[start[k]:end[k]]
						x := sort.Search(len(pl), func(x int) bool { return pl[x].Unit >= lo+j })
						if x < len(pl) && pl[x].Unit == lo+j {
							f, _ := score(&cs[k], pl[x])
							sum += f
						}
					}
					h.push(scored{base + lo + j, sum})
				}
				cand[wi] = 0
			}
			for k := range cs {
				c := &cs[k]
				c.pos = end[k]
				if c.pos < len(c.pl) {
					next = min(next, c.pl[c.pos].Unit)
				}
			}
		}
		if next == math.MaxInt32 {
			break
		}
		if next >= hi+scoreWindow { // skip windows no term has a posting in
			lo = next - next%scoreWindow - scoreWindow
		}
	}
	return touched
}

// pruneWindows turns pruning on (a variable for the tests, which compare
// the rankings with and without it).
var pruneWindows = true

// prunedWindow, when set (by the tests), is called for every window scored
// with pruning, with its number of candidates.
var prunedWindow func(candidates int)

// splitShare is the share of the n-th best score the non-essential terms'
// bounds may reach together. All of it (classic MaxScore) leaves most of a
// window's units candidates, as the gap between the bounds and that score
// is narrow; half of it was measured the fastest at 100× (notes/scale.md).
// Any share from 0 to 1 gives the same ranking.
var splitShare = 0.5

// boundSlack widens a bound compared with a score: a sum of up to a few
// hundred non-negative terms taken in another order differs from the
// exact one by far less than this fraction.
const boundSlack = 1e-9

// below reports whether a sum of non-negative contributions bounded by
// bound is sure to be lower than theta, rounding included.
func below(bound, theta float64) bool {
	return bound*(1+boundSlack) < theta
}

// skipTo returns the first position from p of a posting of unit hi or
// later (len(pl) when none): a galloping search.
func skipTo(pl []index.Posting, p int, hi int32) int {
	step := 1
	for p+step < len(pl) && pl[p+step].Unit < hi {
		p += step
		step *= 2
	}
	// pl[p] is before hi (or p is the start), pl[p+step] is not (or past the end).
	end := min(p+step+1, len(pl))
	return p + sort.Search(end-p, func(j int) bool { return pl[p+j].Unit >= hi })
}

// topHeap keeps the n best scored units seen: a min-heap by better, so
// s[0] is the worst of them. The order is total, so the n best are the same
// whatever the order of visit.
type topHeap struct {
	s []scored
	n int
}

// push offers a unit to the heap.
func (h *topHeap) push(x scored) {
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
		return
	}
	if !better(x, h.s[0]) {
		return
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
}
