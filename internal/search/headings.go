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
// word of term tid, each weighted in (0, 1]: from the table learned by the
// index's writer when there is one (learned.go), otherwise learned on first
// use and cached.
func (ix *Index) bodyAssociations(v *index.Snapshot, tid int32) []assocTerm {
	if ix.table != nil {
		return ix.stored(v, tid, true)
	}
	c := ix.c.Load()
	if l, ok := c.bodies.Load(tid); ok {
		return l.([]assocTerm)
	}
	out := ix.learnBodies(v, tid, nil)
	c.bodies.Store(tid, out)
	return out
}

func (ix *Index) learnBodies(v *index.Snapshot, tid int32, pg *pageGuard) []assocTerm {
	if tid < 0 {
		return nil
	}
	h, ok := v.Lookup(index.HeadMark + v.TermString(tid))
	if !ok || float64(v.HeadDocs(h)) < max(headMinDocs, headMinShare*float64(v.LiveDocs())) {
		return nil
	}
	sc := ix.getScratch(v)
	defer ix.putScratch(sc)
	seen := countSampled(v, sc, tid, h, headSample, true, pg)
	n := float64(v.HeadedUnits())
	var cand []assocTerm
	for _, c := range sc.gather(v) {
		units, docs := sc.units[c], sc.docs[c]
		if docs < headMinDocs {
			continue
		}
		df := v.HeadedDF(c)
		if df == 0 {
			continue
		}
		// How much more often than in headed clauses at large the body word
		// occurs under this heading, weighted by how often it does.
		ratio := float64(units) * n / (float64(seen) * float64(df))
		if ratio < headMinRatio {
			continue
		}
		w := math.Log(ratio) * float64(units) / float64(seen)
		cand = keepBest(v, cand, bodyPerTerm, assocTerm{c, min(1, w/bodyFullScore)})
	}
	return cand
}

// coScratch counts, per term, co-occurrences with the word being learned
// (expand.go, learnBodies): how many sampled units hold the term, in how
// many documents (lastDoc is the last document counted, plus one), and
// which terms were touched, so the counters are cleared in time
// proportional to what was counted.
type coScratch struct {
	units, docs, lastDoc []int32
	touched              []int32
	// byText counts by term text in a snapshot of several segments, where
	// numbering every term met would cost a look-up in every segment:
	// only the terms counted often enough (gather) are numbered.
	byText map[string]*textCount
}

type textCount struct{ units, docs, lastDoc int32 }

// count counts term c of segment i (seg) in a sampled unit of document d
// (d < 0: documents are not counted).
func (sc *coScratch) count(v *index.Snapshot, i int, seg *index.Segment, c, d int32) {
	if len(v.Segments()) == 1 {
		if sc.units[c] == 0 {
			sc.touched = append(sc.touched, c)
		}
		sc.units[c]++
		if d >= 0 && sc.lastDoc[c] != d+1 {
			sc.lastDoc[c] = d + 1
			sc.docs[c]++
		}
		return
	}
	if sc.byText == nil {
		sc.byText = map[string]*textCount{}
	}
	t := seg.TermRef(c)
	x := sc.byText[t]
	if x == nil {
		x = &textCount{}
		sc.byText[t] = x
	}
	x.units++
	if d >= 0 && x.lastDoc != d+1 {
		x.lastDoc = d + 1
		x.docs++
	}
}

// gather returns the terms counted: for several segments, those counted at
// least assocMinCo times in units (every association needs as many),
// numbered now, their counts moved into the arrays.
func (sc *coScratch) gather(v *index.Snapshot) []int32 {
	if sc.byText == nil {
		return sc.touched
	}
	for t, x := range sc.byText {
		if x.units < assocMinCo {
			continue
		}
		g, ok := v.Lookup(t)
		if !ok {
			continue
		}
		sc.grow(g)
		if sc.units[g] == 0 {
			sc.touched = append(sc.touched, g)
		}
		sc.units[g] += x.units
		sc.docs[g] += x.docs
	}
	clear(sc.byText)
	return sc.touched
}

func (ix *Index) getScratch(v *index.Snapshot) *coScratch {
	n := v.NumTerms()
	if sc, ok := ix.scratch.Get().(*coScratch); ok && len(sc.units) >= n {
		return sc
	}
	return &coScratch{units: make([]int32, n), docs: make([]int32, n), lastDoc: make([]int32, n)}
}

// grow makes room for term t (a snapshot of several segments numbers terms
// as they are met).
func (sc *coScratch) grow(t int32) {
	if int(t) < len(sc.units) {
		return
	}
	n := max(int(t)+1, 2*len(sc.units))
	sc.units = append(sc.units, make([]int32, n-len(sc.units))...)
	sc.docs = append(sc.docs, make([]int32, n-len(sc.docs))...)
	sc.lastDoc = append(sc.lastDoc, make([]int32, n-len(sc.lastDoc))...)
}

func (ix *Index) putScratch(sc *coScratch) {
	for _, c := range sc.touched {
		sc.units[c], sc.docs[c], sc.lastDoc[c] = 0, 0, 0
	}
	sc.touched = sc.touched[:0]
	clear(sc.byText)
	ix.scratch.Put(sc)
}
