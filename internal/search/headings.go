package search

import (
	"math"

	"github.com/pakton/pakton/internal/search/index"
)

// Matching by meaning, learned from the collection's own headings. A clause
// heading ("Audit Rights", "Governing Law", "Term", a defined term) is its
// drafter's summary of the clause, so the bodies of the clauses a word heads,
// across the collection, say what the word means in a contract: under
// "Audit" they say "books", "records", "inspect", "auditor"; under "Term",
// "renew", "expire", "unless earlier terminated". A question that uses the
// word ("What are the audit rights?", "for how long each term?") then also
// looks for those body words, weighted below its own words, so it finds the
// clause however that contract words it and whether or not the clause has a
// heading. Nothing is hand-written and no model is involved: the
// associations are counted from the index when a word is first asked about,
// and cached.
//
// The index keeps each clause's heading words as marked terms on one view of
// its text (UnitInput.Heading), so each clause is counted once however many
// views it has. An association must hold in several documents, so one
// contract's numbering or one drafter's habits cannot make one on their own,
// and only a word that heads clauses in a fair share of the collection's
// documents is read as a heading.

const (
	headMinDocs   = 3    // documents in which a heading word and a body word must meet
	headMinShare  = 0.02 // share of documents a word must head clauses in
	headMinRatio  = 2.0  // how many times chance a body word must occur under the heading
	headSample    = 4000 // headed clauses examined per heading word
	bodyPerTerm   = 10   // body words kept per heading word
	bodyWeight    = 0.3  // weight of a body word relative to a question word
	bodyFullScore = 0.5  // association score that earns a body word its full weight
	// bodyInSubtree scales a body word's occurrences in a subtree view. The
	// body words are the vocabulary of a whole kind of clause, so they pile
	// up in a view holding many clauses, which would then outrank the clause
	// itself and return more text.
	bodyInSubtree = 0.5
)

// bodyAssociations returns the body words most associated with the heading
// word of term tid, each weighted in (0, 1]: from the index file when it
// carries them (learned.go), otherwise learned on first use and cached.
func (ix *Index) bodyAssociations(tid int32) []assocTerm {
	if ix.bodyOff != nil {
		return ix.stored(ix.bodyOff, ix.bodyList, tid)
	}
	if v, ok := ix.bodies.Load(tid); ok {
		return v.([]assocTerm)
	}
	out := ix.learnBodies(tid)
	ix.bodies.Store(tid, out)
	return out
}

func (ix *Index) learnBodies(tid int32) []assocTerm {
	ix.headOnce.Do(ix.countHeaded)
	if tid < 0 || int(tid) >= len(ix.terms) {
		return nil
	}
	h, ok := ix.lookup(index.HeadMark + ix.terms[tid])
	if !ok || uint(h) >= uint(len(ix.headDocs)) || float64(ix.headDocs[h]) < max(headMinDocs, headMinShare*float64(len(ix.docs))) {
		return nil
	}
	pl := ix.plist(h)
	step := 1
	if len(pl) > headSample {
		step = len(pl) / headSample
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
		d := ix.units[u].Doc
		for _, c := range ix.unitTerms(u) {
			if c == tid || uint(c) >= uint(len(ix.headedDF)) || uint(c) >= uint(len(sc.units)) || uint(c) >= uint(len(head)) || head[c] {
				continue
			}
			if sc.units[c] == 0 {
				sc.touched = append(sc.touched, c)
			}
			sc.units[c]++
			if sc.lastDoc[c] != d+1 {
				sc.lastDoc[c] = d + 1
				sc.docs[c]++
			}
		}
	}
	n := float64(ix.headedN)
	var cand []assocTerm
	for _, c := range sc.touched {
		units, docs := sc.units[c], sc.docs[c]
		if docs < headMinDocs || ix.headedDF[c] == 0 {
			continue
		}
		// How much more often than in headed clauses at large the body word
		// occurs under this heading, weighted by how often it does.
		ratio := float64(units) * n / (float64(seen) * float64(ix.headedDF[c]))
		if ratio < headMinRatio {
			continue
		}
		w := math.Log(ratio) * float64(units) / float64(seen)
		cand = keepBest(cand, bodyPerTerm, assocTerm{c, min(1, w/bodyFullScore)})
	}
	return cand
}

// countHeaded finds the clauses that carry heading terms and counts, for each
// heading term, the documents it heads clauses in and, for each term, the
// headed clauses that have it.
func (ix *Index) countHeaded() {
	headed := make([]bool, len(ix.units))
	ix.headDocs = make([]int32, len(ix.terms))
	for t, s := range ix.terms {
		if !index.IsHeadTerm(s) {
			continue
		}
		last := int32(-1)
		for _, p := range ix.plist(int32(t)) {
			if uint(p.unit) >= uint(len(ix.units)) {
				continue
			}
			headed[p.unit] = true
			if d := ix.units[p.unit].Doc; d != last {
				last = d
				ix.headDocs[t]++
			}
		}
	}
	for _, h := range headed {
		if h {
			ix.headedN++
		}
	}
	ix.headedDF = make([]int32, len(ix.terms))
	for t := range ix.terms {
		pl := ix.plist(int32(t))
		for _, p := range pl {
			if uint(p.unit) < uint(len(headed)) && headed[p.unit] {
				ix.headedDF[t]++
			}
		}
	}
}

// coScratch counts, per term, co-occurrences with the word being learned
// (expand.go, learnBodies): how many sampled units hold the term, in how
// many documents (lastDoc is the last document counted, plus one), and
// which terms were touched, so the counters are cleared in time
// proportional to what was counted.
type coScratch struct {
	units, docs, lastDoc []int32
	touched              []int32
}

func (ix *Index) getScratch() *coScratch {
	if sc, ok := ix.scratch.Get().(*coScratch); ok && len(sc.units) == len(ix.terms) {
		return sc
	}
	n := len(ix.terms)
	return &coScratch{units: make([]int32, n), docs: make([]int32, n), lastDoc: make([]int32, n)}
}

func (ix *Index) putScratch(sc *coScratch) {
	for _, c := range sc.touched {
		sc.units[c], sc.docs[c], sc.lastDoc[c] = 0, 0, 0
	}
	sc.touched = sc.touched[:0]
	ix.scratch.Put(sc)
}
