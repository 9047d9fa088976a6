package search

import (
	"math"
	"sort"
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
	if uint(tid) >= uint(len(ix.post)) {
		return nil
	}
	pl := ix.post[tid]
	step := 1
	if len(pl) > assocSample {
		step = len(pl) / assocSample
	}
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
			if c != tid && uint(c) < uint(len(ix.post)) && uint(c) < uint(len(sc.units)) && !isHeadTerm(ix.terms[c]) {
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
		ratio := float64(k) * n / (float64(seen) * float64(len(ix.post[c])))
		if ratio < assocMinRatio {
			continue
		}
		cand = append(cand, assocTerm{c, math.Log(ratio) * float64(k) / float64(seen)})
	}
	sort.Slice(cand, func(i, j int) bool {
		if cand[i].w != cand[j].w {
			return cand[i].w > cand[j].w
		}
		return cand[i].id < cand[j].id
	})
	if len(cand) > assocPerTerm {
		cand = cand[:assocPerTerm]
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
