package search

import (
	"cmp"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

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
// Windows that cannot reach the n best are skipped (block-max): each
// segment file keeps, for every block of index.BoundBlock postings, the
// largest BM25 factor of its postings (index/bounds.go). Before a window is
// scored, and once the heap holds n units, the sum over the query terms of
// weight × the largest bound of the term's blocks that reach into the
// window bounds every unit's score there; when it is below the n-th best
// score so far, no unit of the window can enter the n best (the bound is
// strict, so a tie with the n-th best is scored), and the window's postings
// are passed over unread. The skipped units are those the exhaustive
// ranking puts after the n-th, so the n best are the same units with the
// same scores in the same order. (MaxScore over per-term bounds alone,
// tried earlier, did not pay: with 20–100 terms of similar weight most
// terms stay essential.)

// scoreWindow is the number of consecutive unit ids scored together: its
// units (16 bytes each) and scores (8) stay in a first- or second-level
// cache.
const scoreWindow = 1024

// boundWindow is the number of consecutive unit ids a block bound is
// computed for and skipped together when a ranking skips (at most
// scoreWindow): the fewer, the fewer terms reach into each and the
// tighter its bound, for one more bound to compute.
var boundWindow int32 = scoreWindow

// boundSlack is the relative margin a window's bound must clear the n-th
// best score by before the window is skipped: the bound and the scores sum
// the same factors in another order of rounding, so they may differ in the
// last bits (far less than this).
const boundSlack = 1e-9

// windowCursor walks one query term's posting list in one segment.
type windowCursor struct {
	pl    []index.Posting
	pos   int     // the first posting not yet scored
	w     float64 // IDF times the query term's weight
	body  bool
	start int64   // the list's first posting's place in the segment's blocks
	wb    float64 // what the term's block bounds are multiplied by (0 when w ≤ 0)
	// Within the window being scored (planWindow): the term's bound, and
	// whether a unit holding it may reach the n best without other terms.
	ub        float64
	essential bool
}

// pruning is what a windowed ranking skips with: whether it may, and the
// best n-th score any worker has reached (float64 bits; the n best of all
// are at least as good as any worker's n best).
type pruning struct {
	on       bool
	bar      atomic.Uint64
	off      atomic.Bool  // planning did not pay (pruningPays): score the rest whole
	skips    atomic.Int64 // windows skipped
	filtered atomic.Int64 // windows where only units holding an essential term were scored
	tested   atomic.Int64 // windows whose bound was computed
}

func newPruning(on bool) *pruning {
	p := &pruning{on: on}
	p.bar.Store(math.Float64bits(math.Inf(-1)))
	return p
}

// raise makes x the bar when it is higher.
func (p *pruning) raise(x float64) {
	for {
		old := p.bar.Load()
		if math.Float64frombits(old) >= x || p.bar.CompareAndSwap(old, math.Float64bits(x)) {
			return
		}
	}
}

// topWindowed returns the n best units of a corpus-wide search for q (every
// unit in scope, sc.ranges nil), best first in the order of better, with the
// scores score gives them: the same as scoring every unit into an
// accumulator and taking top(n). all reports that the list holds every unit
// a term matched (no more than n did). Each segment is scored window by
// window with the collection's statistics, into one heap; windows that
// cannot reach the n best are skipped when prune is set.
func (ix *Index) topWindowed(v *index.Snapshot, q []queryTerm, sc scope, n int, prune bool) (ranked []scored, all bool) {
	h := topHeap{n: n}
	w := weights(v, q, sc)
	pr := newPruning(prune)
	var touched int
	if part, workers := parallelParts(v); part == nil {
		touched = ix.windowed(v, q, w, sc, &h, func(int) bool { return true }, pr)
	} else {
		// Each worker scores its segments into a heap of its own; the n
		// best of the union of the workers' n best are the n best of all
		// (the order is total), whichever worker scored them.
		hs := make([]topHeap, workers)
		counts := make([]int, workers)
		var wg sync.WaitGroup
		for k := range hs {
			hs[k] = topHeap{n: n}
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[k] = ix.windowed(v, q, w, sc, &hs[k], func(i int) bool { return part[i] == k }, pr)
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
	skipped, filtered := pr.skips.Load(), pr.filtered.Load()
	windowsSkipped.Add(skipped)
	windowsFiltered.Add(filtered)
	windowsTested.Add(pr.tested.Load())
	return h.s, touched <= n && skipped == 0 && filtered == 0
}

// windowsSkipped counts the windows every ranking skipped, windowsFiltered
// those where it scored only units holding an essential term, and
// windowsTested those whose bound it computed (for the tests and
// benchmarks).
var windowsSkipped, windowsFiltered, windowsTested, postingsPassed, postingsScored atomic.Int64

// parallelMinUnits is the fewest live units for which scoring a
// corpus-wide search on several goroutines pays (below, a search takes a
// few milliseconds and a goroutine's start and a second cache would cost
// more than they save).
var parallelMinUnits int64 = 1 << 21 // a variable for the tests

// parallelParts assigns the snapshot's segments to workers, one per core
// the process may use (runtime.GOMAXPROCS) and no more than the segments,
// largest first to the least loaded, when the snapshot is large enough;
// nil when one goroutine scores it all.
func parallelParts(v *index.Snapshot) (part []int, workers int) {
	segs := v.Segments()
	workers = min(runtime.GOMAXPROCS(0), len(segs))
	if workers < 2 || v.LiveUnits() < parallelMinUnits {
		return nil, 1
	}
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	size := func(i int) int32 { return v.UnitBase(i+1) - v.UnitBase(i) }
	slices.SortStableFunc(order, func(a, b int) int { return int(size(b)) - int(size(a)) })
	part = make([]int, len(segs))
	load := make([]int64, workers)
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
	return part, workers
}

// windowed scores the segments mine accepts window by window with the
// terms' weights w (in query order: the order scores are summed in), and
// offers their units to h; it returns the number of units scored.
func (ix *Index) windowed(v *index.Snapshot, q []queryTerm, w []float64, sc scope, h *topHeap, mine func(int) bool, pr *pruning) int {
	avg := avgLens(v)
	touched := 0
	cs := make([]windowCursor, 0, len(q))
	for i, seg := range v.Segments() {
		if !mine(i) {
			continue
		}
		cs = cs[:0]
		first := int32(math.MaxInt32)
		bounded := pr.on && seg.HasBounds()
		scale := 0.0
		if bounded {
			scale = index.BoundScale(seg.BoundAvg(), avg)
		}
		for k, qt := range q {
			var start int64
			var pl []index.Posting
			if bounded {
				if l := v.Local(qt.id, i); l >= 0 {
					pl, start = seg.TermBlocks(l)
				}
			} else {
				pl = v.Postings(qt.id, i)
			}
			if len(pl) == 0 || w[k] == 0 && v.DF(qt.id) == 0 {
				continue
			}
			c := windowCursor{pl: pl, w: w[k], body: qt.body, start: start}
			if w[k] > 0 {
				c.wb = w[k] * scale
			}
			cs = append(cs, c)
			first = min(first, pl[0].Unit)
		}
		if len(cs) == 0 {
			continue
		}
		var bar *pruning
		if bounded && !pr.off.Load() {
			bar = pr
		}
		touched += scoreWindows(v, i, seg, cs, first, avg, sc, h, bar)
	}
	return touched
}

// windowPlan is what the bounds say about one window [lo, hi): skip it
// whole, or score only the units that hold a posting of an essential term
// (filter), or score every unit.
type windowPlan int

const (
	scoreAll windowPlan = iota
	skipWindow
	filterWindow
)

// planWindow bounds the window [lo, hi) once the heap holds n units. Each
// term reaching into the window is bounded by weight × the largest bound
// of its blocks there (c.ub). When their sum is below the bar (the heap's
// n-th best, or a better one another worker reached), no unit of the
// window can enter the n best: every cursor is moved past it. Otherwise
// the terms of smallest bounds whose sum stays below the bar are
// non-essential (MaxScore, within the window): a unit holding none of the
// other terms cannot reach the bar, so only units holding an essential
// term are scored, and each of them with every term, in query order.
func planWindow(seg *index.Segment, cs []windowCursor, lo, hi int32, h *topHeap, pr *pruning, order []int) (windowPlan, []int) {
	if len(h.s) < h.n {
		return scoreAll, order
	}
	bar := max(h.s[0].score, math.Float64frombits(pr.bar.Load()))
	pr.tested.Add(1)
	ub := 0.0
	order = order[:0]
	for k := range cs {
		c := &cs[k]
		c.ub, c.essential = 0, true
		if c.pos >= len(c.pl) || c.pl[c.pos].Unit >= hi {
			continue
		}
		if c.wb == 0 {
			continue // a term of weight ≤ 0 adds nothing above 0
		}
		// The blocks holding the term's postings in the window: from the
		// next posting's, while the following block starts before hi.
		b := (c.start + int64(c.pos)) / index.BoundBlock
		m := seg.BlockMax(b)
		for {
			j := (b+1)*index.BoundBlock - c.start
			if j >= int64(len(c.pl)) || c.pl[j].Unit >= hi {
				break
			}
			b++
			m = max(m, seg.BlockMax(b))
		}
		c.ub = c.wb * float64(m)
		ub += c.ub
		order = append(order, k)
	}
	if ub*(1+boundSlack) >= bar {
		if bar <= 0 || len(order) < 2 {
			return scoreAll, order
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[a].ub, cs[b].ub) })
		sum, n := 0.0, 0
		for _, k := range order {
			if (sum+cs[k].ub)*(1+boundSlack) >= bar {
				break
			}
			sum += cs[k].ub
			cs[k].essential = false
			n++
		}
		if n == 0 {
			return scoreAll, order
		}
		pr.filtered.Add(1)
		return filterWindow, order
	}
	for k := range cs {
		c := &cs[k]
		if c.pos >= len(c.pl) || c.pl[c.pos].Unit >= hi {
			continue
		}
		rest := c.pl[c.pos:]
		c.pos += sort.Search(len(rest), func(j int) bool { return rest[j].Unit >= hi })
	}
	pr.skips.Add(1)
	return skipWindow, order
}

// pruneTrial is how many windows a segment's ranking plans before it
// judges whether planning pays (pruningPays), and again after as many more.
const pruneTrial = 32

// pruningPays reports whether bounding windows pays in a segment, from the
// windows bounded so far: bounding a window reads every term's bounds
// there, which made expanded questions 30–60% dearer at 10× while the
// filter passed over about a tenth of their postings (docs/log), so it is
// kept when a tenth of the windows are skipped or the filter passes over
// at least 30% of the postings. A question of many terms of similar
// weight (an expanded one) does neither: the rest of the ranking, in every
// segment, is then scored whole, which changes no score, only what is
// skipped.
func pruningPays(planned, skipped, passed, scored int64) bool {
	if 10*skipped >= planned {
		return true
	}
	return passed+scored > 0 && 10*passed >= 3*(passed+scored)
}

// scoreWindows scores segment i's units window by window (cursors in query
// order) and offers them to h; it returns the number of units scored.
// With pr set, windows that cannot reach the n best are skipped and, in
// the others, units that cannot are not scored (planWindow), as long as
// that pays (pruningPays).
func scoreWindows(v *index.Snapshot, i int, seg *index.Segment, cs []windowCursor, first int32, avg [index.NumViews]float64, sc scope, h *topHeap, pr *pruning) int {
	var (
		part                   [scoreWindow]float64     // by unit - lo
		seen                   [scoreWindow / 64]uint64 // units with a score
		cand                   [scoreWindow / 64]uint64 // units holding an essential term
		order                  []int
		touched                int
		passed, scoredPostings int64 // postings passed over by a filter, and scored
		planned, skipped       int64 // windows bounded and skipped here
	)
	defer func() { postingsPassed.Add(passed); postingsScored.Add(scoredPostings) }()
	units := seg.Units()
	base := v.UnitBase(i)
	hasDead := v.HasDeleted(i)
	nu := int32(len(units))
	first = max(first, 0)
	step := int32(scoreWindow)
	if pr != nil {
		step = boundWindow
	}
	for lo := first - first%step; lo < nu; lo += step {
		hi := lo + step
		next := int32(math.MaxInt32) // the first unit of a later window with a posting
		plan := scoreAll
		if pr != nil {
			full := len(h.s) == h.n // planWindow bounds the window
			plan, order = planWindow(seg, cs, lo, hi, h, pr, order)
			if plan == skipWindow {
				skipped++
			}
			if full {
				if planned++; planned%pruneTrial == 0 && !pruningPays(planned, skipped, passed, scoredPostings) {
					pr.off.Store(true) // the rest of the ranking is scored whole
				}
			}
			if pr.off.Load() {
				pr = nil
			}
		}
		if plan == skipWindow {
			for k := range cs {
				if c := &cs[k]; c.pos < len(c.pl) {
					next = min(next, c.pl[c.pos].Unit)
				}
			}
		} else {
			filter := plan == filterWindow
			if filter {
				for k := range cs {
					c := &cs[k]
					if !c.essential {
						continue
					}
					for p := c.pos; p < len(c.pl) && c.pl[p].Unit < hi; p++ {
						if j := c.pl[p].Unit - lo; j >= 0 {
							cand[j>>6] |= 1 << (j & 63)
						}
					}
				}
			}
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
					if filter && cand[j>>6]&(1<<(j&63)) == 0 {
						passed++
						continue
					}
					scoredPostings++
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
					seen[j>>6] |= 1 << (j & 63)
					part[j] += c.w * tf * (bm25K1 + 1) / (tf + norm)
				}
				c.pos = p
			}
			if filter {
				cand = [scoreWindow / 64]uint64{}
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
			if pr != nil && len(h.s) == h.n {
				pr.raise(h.s[0].score)
			}
		}
		if next == math.MaxInt32 {
			break
		}
		if next >= hi+step { // skip windows no term has a posting in
			lo = next - next%step - step
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
