package search

import (
	"math"

	"github.com/pakton/pakton/internal/search/index"
)

// Query expansion from term associations learned on the indexed corpus
// itself: two words are associated when they occur in the same retrieval
// units far more often than chance (pointwise mutual information, weighted
// by how often they co-occur). A question about a "cap on liability" then
// also matches clauses that say "aggregate damages shall not exceed". No
// model and no hand-written thesaurus are involved, so this adapts to any
// corpus; it is learned lazily per query word and cached.

type assocTerm struct {
	id int32
	w  float64 // in (0, 1], 1 for the strongest association
}

const (
	assocSample   = 2000 // postings examined per word
	assocMinCo    = 3    // co-occurrences needed to trust an association
	assocPerTerm  = 6    // associations kept per word
	expandWeight  = 0.3  // weight of an expansion term relative to a query word
	assocMinRatio = 2.0  // co-occurrence must be at least this many times chance
)

// associations returns the words most associated with term tid: from the
// table learned by the index's writer when there is one (learned.go),
// otherwise learned on first use and cached.
func (ix *Index) associations(v *index.Snapshot, tid int32) []assocTerm {
	if ix.table != nil {
		return ix.stored(v, tid, false)
	}
	c := ix.c.Load()
	if l, ok := c.assoc.Load(tid); ok {
		return l.([]assocTerm)
	}
	cand := ix.learnAssociations(v, tid, nil)
	c.assoc.Store(tid, cand)
	return cand
}

// eachSample calls fn with every step-th live posting of term t, across the
// snapshot's segments in order, where step spreads about sample postings
// over the term's document frequency (every posting when it has fewer): the
// same postings, in the same order, as sampling one segment holding the
// same live units. A posting naming a unit outside its segment (a damaged
// file) is passed on: fn skips it. pg, when set (a pass over the whole
// collection), is told of the mapped pages read, and may have the postings
// read from the segments' files instead of their mappings.
func eachSample(v *index.Snapshot, t int32, sample int, pg *pageGuard, fn func(i int, p index.Posting)) {
	step := 1
	if df := v.DF(t); df > sample {
		step = df / sample
	}
	next, pos := 0, 0 // the live position of the next sample; of the segment's first posting
	var buf []index.Posting
	for i, seg := range v.Segments() {
		pl := v.Postings(t, i)
		if len(pl) == 0 {
			continue
		}
		l := v.Local(t, i)
		pread := pg != nil && pg.pread
		if pread && buf == nil {
			buf = make([]index.Posting, 1024)
		}
		if !v.HasDeleted(i) {
			j := next - pos
			switch {
			case !pread:
				for ; j < len(pl); j += step {
					pg.read(1)
					fn(i, pl[j])
				}
			case step > len(buf)/8:
				for ; j < len(pl); j += step { // far apart: one read each
					fn(i, seg.ReadPosting(l, j))
				}
			default:
				for j < len(pl) { // close together: read in chunks
					chunk := seg.ReadPostings(l, j, buf)
					k := 0
					for ; k < len(chunk); k += step {
						fn(i, chunk[k])
					}
					j += k
				}
			}
			next = pos + j
			pos += len(pl)
			continue
		}
		units := seg.Units()
		for k := 0; k < len(pl); {
			chunk := pl[k:]
			if pread {
				chunk = seg.ReadPostings(l, k, buf)
			} else {
				chunk = chunk[:min(len(chunk), 1024)]
				pg.read(int64(len(chunk)) / 256) // their pages
			}
			pg.read(int64(len(chunk))/256 + 1) // the units they name
			k += len(chunk)
			for _, p := range chunk {
				if uint(p.Unit) < uint(len(units)) && v.Deleted(i, units[p.Unit].Doc) {
					continue
				}
				if pos == next {
					fn(i, p)
					next += step
				}
				pos++
			}
		}
	}
}

// unitTerms returns the terms of unit u of seg, telling pg (when set) of
// the mapped pages read: through the mapping, or read from the file into
// *buf when pg says so.
func unitTerms(seg *index.Segment, u int32, pg *pageGuard, buf *[]int32) []int32 {
	if pg == nil {
		return seg.UnitTerms(u)
	}
	if !pg.pread {
		pg.read(2) // the unit's offsets and terms
		return seg.UnitTerms(u)
	}
	pg.read(1) // the unit's offsets
	*buf = seg.ReadUnitTerms(u, *buf)
	return *buf
}

// countSampled counts into sc the terms other than tid that the sampled
// units of term sampled hold (tid's own units, or its heading's): in how
// many units, and with docs in how many documents. It returns the number of
// units sampled; pg is as for eachSample.
func countSampled(v *index.Snapshot, sc *coScratch, tid, sampled int32, sample int, docs bool, pg *pageGuard) int {
	segs := v.Segments()
	own := make([]int32, len(segs)) // tid in each segment
	for i := range segs {
		own[i] = v.Local(tid, i)
	}
	seen := 0
	var buf []int32
	eachSample(v, sampled, sample, pg, func(i int, p index.Posting) {
		seg := segs[i]
		if uint(p.Unit) >= uint(seg.NumUnits()) {
			return // a damaged index file; see index/container.go
		}
		seen++
		d := int32(-1)
		if docs {
			pg.read(1) // the unit's document
			d = v.DocBase(i) + seg.Units()[p.Unit].Doc
		}
		for _, c := range unitTerms(seg, p.Unit, pg, &buf) {
			if c == own[i] || uint(c) >= uint(seg.NumTerms()) || seg.Marked(c) {
				continue
			}
			sc.count(v, i, seg, c, d)
		}
	})
	return seen
}

// learnAssociations counts the associations of term tid (see associations);
// pg, when set, is told of the pages read.
func (ix *Index) learnAssociations(v *index.Snapshot, tid int32, pg *pageGuard) []assocTerm {
	if tid < 0 {
		return nil
	}
	sc := ix.getScratch(v)
	defer ix.putScratch(sc)
	seen := countSampled(v, sc, tid, tid, assocSample, false, pg)
	n := float64(v.LiveUnits())
	var cand []assocTerm
	for _, c := range sc.gather(v) {
		k := int(sc.units[c])
		if k < assocMinCo {
			continue
		}
		ratio := float64(k) * n / (float64(seen) * float64(v.DF(c)))
		if ratio < assocMinRatio {
			continue
		}
		cand = keepBest(v, cand, assocPerTerm, assocTerm{c, math.Log(ratio) * float64(k) / float64(seen)})
	}
	if len(cand) > 0 {
		top := cand[0].w
		for i := range cand {
			cand[i].w /= top
		}
	}
	return cand
}

// expand adds associated words to a query, each weighted below the user's
// own words. A word associated with several query words adds up. With exps
// set, each word added is appended to it with the word that brought it.
func (ix *Index) expand(v *index.Snapshot, q []queryTerm, headings, assocs bool, exps *[]Expansion) []queryTerm {
	have := map[int32]int{}
	for i, t := range q {
		have[t.id] = i
	}
	out := append([]queryTerm(nil), q...)
	type expKey struct {
		from, to int32
		heading  bool
	}
	noted := map[expKey]int{} // index in *exps
	note := func(from, to int32, w float64, heading bool) {
		if exps == nil {
			return
		}
		k := expKey{from, to, heading}
		if i, ok := noted[k]; ok {
			(*exps)[i].Weight += w
			return
		}
		kind := "association"
		if heading {
			kind = "heading"
		}
		noted[k] = len(*exps)
		*exps = append(*exps, Expansion{From: v.TermString(from), Word: v.TermString(to), Weight: w, Kind: kind})
	}
	add := func(t queryTerm, a assocTerm, weight float64, body bool) {
		w := weight * a.w * t.weight
		if i, ok := have[a.id]; ok {
			if i >= len(q) { // an expansion term already added
				out[i].weight += w
				note(t.id, a.id, w, body)
			}
			return
		}
		have[a.id] = len(out)
		out = append(out, queryTerm{a.id, w, body})
		note(t.id, a.id, w, body)
	}
	// What the clauses a question word heads say (headings.go).
	if headings {
		for _, t := range q {
			for _, a := range ix.bodyAssociations(v, t.id) {
				add(t, a, bodyWeight, true)
			}
		}
	}
	if assocs {
		for _, t := range q {
			for _, a := range ix.associations(v, t.id) {
				add(t, a, expandWeight, false)
			}
		}
	}
	return out
}

// keepBest inserts e into best, the k best associations so far in order
// (higher weight first, then the term the collection numbers first: a total
// order, so the result is the same as sorting every candidate and keeping
// the first k).
func keepBest(v *index.Snapshot, best []assocTerm, k int, e assocTerm) []assocTerm {
	if len(best) == k && !assocBetter(v, e, best[k-1]) {
		return best
	}
	i := len(best)
	for i > 0 && assocBetter(v, e, best[i-1]) {
		i--
	}
	if len(best) < k {
		best = append(best, assocTerm{})
	}
	copy(best[i+1:], best[i:len(best)-1])
	best[i] = e
	return best
}

func assocBetter(v *index.Snapshot, a, b assocTerm) bool {
	if a.w != b.w {
		return a.w > b.w
	}
	return v.TermOrder(a.id) < v.TermOrder(b.id)
}
