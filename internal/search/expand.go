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
// index file when it carries them (learned by its writer, learned.go),
// otherwise learned on first use and cached.
func (ix *Index) associations(tid int32) []assocTerm {
	if ix.assocOff != nil {
		return ix.stored(ix.assocOff, ix.assocList, tid)
	}
	if v, ok := ix.assoc.Load(tid); ok {
		return v.([]assocTerm)
	}
	cand := ix.learnAssociations(tid)
	ix.assoc.Store(tid, cand)
	return cand
}

// learnAssociations counts the associations of term tid (see associations).
func (ix *Index) learnAssociations(tid int32) []assocTerm {
	if uint(tid) >= uint(len(ix.terms)) {
		return nil
	}
	pl := ix.plist(tid)
	step := 1
	if len(pl) > assocSample {
		step = len(pl) / assocSample
	}
	head := ix.headTerms()
	sc := ix.getScratch()
	defer ix.putScratch(sc)
	seen := 0
	for i := 0; i < len(pl); i += step {
		u := pl[i].unit
		if uint(u) >= uint(len(ix.units)) {
			continue // a damaged index file; see persist.go
		}
		seen++
		for _, c := range ix.unitTerms(u) {
			if c != tid && uint(c) < uint(len(head)) && uint(c) < uint(len(sc.units)) && !head[c] {
				if sc.units[c] == 0 {
					sc.touched = append(sc.touched, c)
				}
				sc.units[c]++
			}
		}
	}
	n := float64(len(ix.units))
	var cand []assocTerm
	for _, c := range sc.touched {
		k := int(sc.units[c])
		if k < assocMinCo {
			continue
		}
		ratio := float64(k) * n / (float64(seen) * float64(len(ix.plist(c))))
		if ratio < assocMinRatio {
			continue
		}
		cand = keepBest(cand, assocPerTerm, assocTerm{c, math.Log(ratio) * float64(k) / float64(seen)})
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
// own words. A word associated with several query words adds up.
func (ix *Index) expand(q []queryTerm) []queryTerm {
	have := map[int32]int{}
	for i, t := range q {
		have[t.id] = i
	}
	out := append([]queryTerm(nil), q...)
	add := func(t queryTerm, a assocTerm, weight float64, body bool) {
		w := weight * a.w * t.weight
		if i, ok := have[a.id]; ok {
			if i >= len(q) { // an expansion term already added
				out[i].weight += w
			}
			return
		}
		have[a.id] = len(out)
		out = append(out, queryTerm{a.id, w, body})
	}
	// What the clauses a question word heads say (headings.go).
	for _, t := range q {
		for _, a := range ix.bodyAssociations(t.id) {
			add(t, a, bodyWeight, true)
		}
	}
	for _, t := range q {
		for _, a := range ix.associations(t.id) {
			add(t, a, expandWeight, false)
		}
	}
	return out
}

// keepBest inserts e into best, the k best associations so far in order
// (higher weight first, then lower term id: a total order, so the result is
// the same as sorting every candidate and keeping the first k).
func keepBest(best []assocTerm, k int, e assocTerm) []assocTerm {
	if len(best) == k && !assocBetter(e, best[k-1]) {
		return best
	}
	i := len(best)
	for i > 0 && assocBetter(e, best[i-1]) {
		i--
	}
	if len(best) < k {
		best = append(best, assocTerm{})
	}
	copy(best[i+1:], best[i:len(best)-1])
	best[i] = e
	return best
}

func assocBetter(a, b assocTerm) bool {
	if a.w != b.w {
		return a.w > b.w
	}
	return a.id < b.id
}

// headTerms reports, by term id, which terms are marked terms (heading
// words, self-reference counts: never question words), so the
// learning loops need not look at the terms' strings.
func (ix *Index) headTerms() []bool {
	ix.headTermOnce.Do(func() {
		ix.isHead = make([]bool, len(ix.terms))
		for t, s := range ix.terms {
			ix.isHead[t] = index.IsMarked(s)
		}
	})
	return ix.isHead
}
