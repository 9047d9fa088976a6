package search

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
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
// Tried first and measured (docs/log/measurements.md): dynamic pruning — MaxScore
// within each window over block-max bounds (the largest BM25 factor of
// every 64 postings, kept in the index file). It was exact but did not pay
// on CUAD's questions: with 20–100 terms of similar weight, the cheapest
// terms' bounds reach the n-th best score after a handful of terms, so most
// terms stay essential, the essential postings alone are about 60 % of all,
// and checking the candidates cost more than the rest.

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
// order) and offers them to h; it returns the number of units scored.
func scoreWindows(v *index.Snapshot, i int, units []index.Unit, cs []windowCursor, first int32, avg [index.NumViews]float64, sc scope, h *topHeap) int {
	var (
		part    [scoreWindow]float64     // by unit - lo
		seen    [scoreWindow / 64]uint64 // units with a score
		touched int
	)
	base := v.UnitBase(i)
	hasDead := v.HasDeleted(i)
	nu := int32(len(units))
	first = max(first, 0)
	for lo := first - first%scoreWindow; lo < nu; lo += scoreWindow {
		hi := lo + scoreWindow
		next := int32(math.MaxInt32) // the first unit of a later window with a posting
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
				u := &units[e.Unit]
				if uint(u.View) >= uint(index.NumViews) || !sc.views[u.View] {
					continue
				}
				if hasDead && v.Deleted(i, u.Doc) {
					continue
				}
				tf := float64(e.TF)
				if c.body && u.View == index.ViewDescendant {
					tf *= bodyInSubtree
				}
				norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
				j := e.Unit - lo
				if j < 0 {
					continue // a damaged (unsorted) list
				}
				seen[j>>6] |= 1 << (j & 63)
				part[j] += c.w * tf * (bm25K1 + 1) / (tf + norm)
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
		if next == math.MaxInt32 {
			break
		}
		if next >= hi+scoreWindow { // skip windows no term has a posting in
			lo = next - next%scoreWindow - scoreWindow
		}
	}
	return touched
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
