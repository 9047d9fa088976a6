package index

import (
	"math"
	"sync"
	"sync/atomic"
)

// Block-max score bounds. A segment file's postings (all terms' lists, one
// after another in term order) are cut into blocks of BoundBlock postings
// at fixed positions: block b is postings [b·BoundBlock, (b+1)·BoundBlock)
// of the whole array, whatever terms they belong to. For each block the
// file keeps the largest BM25 term factor of its postings,
//
//	tf·(k1+1) / (tf + k1·(1 − b + b·len/avg))
//
// with tf a posting's count, len its unit's length and avg the average
// length of the unit's view in the segment itself (BoundAvg). A search
// multiplies it by a query term's weight to bound what any posting of the
// block adds to a unit's score. The factor depends on the collection only
// through avg, and grows with it no faster than in proportion, so a
// snapshot whose averages differ from the segment's scales the bound by
// BoundScale (never below 1): the bound holds for every snapshot the
// segment is part of, and deletions only make it looser.
//
// A segment of an earlier format (5) has no bounds in its file: they are
// counted from its postings the first time a search asks for a block, and
// kept in memory with the segment. A segment being built in memory has none
// (HasBounds is false): its lists still grow.

// BoundBlock is the number of postings a bound covers.
const BoundBlock = 64

// BM25 parameters of the index's bounds: the scorer's (package search).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25Factor is the BM25 factor of a term counted tf times in a unit of
// length l, in a view of average length avg. The scorer and the bounds
// compute it with the same operations, so a bound computed for a larger
// tf, a shorter unit or a larger avg is never below it.
func BM25Factor(tf, l, avg float64) float64 {
	norm := BM25K1 * (1 - BM25B + BM25B*l/avg)
	return tf * (BM25K1 + 1) / (tf + norm)
}

// boundAvg returns the average unit length of each view of the segment
// (0 for a view it has no unit of).
func boundAvg(viewLen, viewN [NumViews]int64) (avg [NumViews]float64) {
	for w := range NumViews {
		if viewN[w] > 0 {
			avg[w] = float64(viewLen[w]) / float64(viewN[w])
		}
	}
	return avg
}

// BoundAvg returns the average unit length of each view the segment's
// bounds were computed with.
func (s *Segment) BoundAvg() [NumViews]float64 { return boundAvg(s.viewLen, s.viewN) }

// BoundScale returns what bounds of a segment computed with averages ref
// are multiplied by to hold under averages avg: the largest ratio avg/ref
// over the views, at least 1. A term's factor grows with avg, and no
// faster than avg itself (norm shrinks at most in proportion).
func BoundScale(ref, avg [NumViews]float64) float64 {
	s := 1.0
	for w := range NumViews {
		if ref[w] > 0 && avg[w] > ref[w] {
			s = max(s, avg[w]/ref[w])
		}
	}
	return s
}

// blockBound returns the largest factor of the postings pl (a block) over
// units, rounded up to a float32. A posting naming no unit is skipped (a
// damaged file can misrank, never crash).
func blockBound(pl []Posting, units []Unit, avg *[NumViews]float64) float32 {
	m := 0.0
	for _, p := range pl {
		if uint(p.Unit) >= uint(len(units)) {
			continue
		}
		u := &units[p.Unit]
		if uint(u.View) >= uint(NumViews) || avg[u.View] <= 0 {
			continue
		}
		m = max(m, BM25Factor(float64(p.TF), float64(u.Len), avg[u.View]))
	}
	return roundUp32(m)
}

// roundUp32 returns the least float32 not below x.
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// blockBuilder computes block bounds over postings given one at a time, in
// the order they are written.
type blockBuilder struct {
	avg [NumViews]float64
	n   int // postings seen
	cur float64
	out []float32
}

func (b *blockBuilder) add(tf uint16, u Unit) {
	if uint(u.View) < uint(NumViews) && b.avg[u.View] > 0 {
		b.cur = max(b.cur, BM25Factor(float64(tf), float64(u.Len), b.avg[u.View]))
	}
	if b.n++; b.n%BoundBlock == 0 {
		b.out = append(b.out, roundUp32(b.cur))
		b.cur = 0
	}
}

// done returns the bounds, the last block's included.
func (b *blockBuilder) done() []float32 {
	if b.n%BoundBlock != 0 {
		b.out = append(b.out, roundUp32(b.cur))
	}
	return b.out
}

// numBlocks is the number of blocks of n postings.
func numBlocks(n int64) int64 { return (n + BoundBlock - 1) / BoundBlock }

// computeBounds returns the bounds of every block of an opened segment's
// postings (what its writer stores).
func (s *Segment) computeBounds() []float32 {
	b := blockBuilder{avg: s.BoundAvg()}
	for _, p := range s.postAll {
		var u Unit
		if uint(p.Unit) < uint(len(s.units)) {
			u = s.units[p.Unit]
		} else {
			u.View = NumViews
		}
		b.add(p.TF, u)
	}
	return b.done()
}

// builtBounds returns the bounds of a segment built in memory, its lists
// laid out one after another in term order as the file will hold them.
func (s *Segment) builtBounds() []float32 {
	b := blockBuilder{avg: s.BoundAvg()}
	for t := range int32(s.NumTerms()) {
		for _, p := range s.Postings(t) {
			b.add(p.TF, s.units[p.Unit])
		}
	}
	return b.done()
}

// lazyBounds holds the bounds of a segment whose file has none, each
// counted when first asked for: float32 bits, 0 while not counted (a
// counted bound is never 0 but in a damaged file, which is then counted
// again).
type lazyBounds struct {
	once sync.Once
	b    []atomic.Uint32
}

// HasBounds reports whether the segment can give block bounds (an opened
// segment with postings).
func (s *Segment) HasBounds() bool { return s.postOff != nil && s.ds == nil }

// TermBlocks returns term t's postings and the position of its first
// posting in the segment's posting array: posting j of the list lies in
// block (start+j)/BoundBlock. t must be in range and HasBounds true.
func (s *Segment) TermBlocks(t int32) (pl []Posting, start int64) {
	pl = s.Postings(t)
	if len(pl) == 0 {
		return nil, 0
	}
	return pl, s.postOff[t]
}

// NumBlocks returns the number of blocks of the segment's postings.
func (s *Segment) NumBlocks() int64 { return numBlocks(int64(len(s.postAll))) }

// BlockMax returns the bound of block b of the segment's postings (0 for a
// block out of range).
func (s *Segment) BlockMax(b int64) float32 {
	if s.bmax != nil {
		if uint64(b) < uint64(len(s.bmax)) {
			return s.bmax[b]
		}
		return 0
	}
	lb := &s.lazy
	lb.once.Do(func() { lb.b = make([]atomic.Uint32, numBlocks(int64(len(s.postAll)))) })
	if uint64(b) >= uint64(len(lb.b)) {
		return 0
	}
	if x := lb.b[b].Load(); x != 0 {
		return math.Float32frombits(x)
	}
	avg := s.BoundAvg()
	lo := b * BoundBlock
	hi := min(lo+BoundBlock, int64(len(s.postAll)))
	f := blockBound(s.postAll[lo:hi], s.units, &avg)
	lb.b[b].Store(math.Float32bits(f))
	return f
}
