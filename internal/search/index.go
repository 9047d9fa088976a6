// Package search finds the passages of a collection that answer a question:
// a lexical (BM25) index over retrieval units, an optional dense index, fusion
// of ranked lists, routing of questions that name a contract to that
// contract, and merging of the returned source spans so they never overlap.
package search

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

// unit is an indexed retrieval unit. Its spans are
// Index.spans[Index.spanOff[u]:Index.spanOff[u+1]]. The struct holds no
// pointers, so the index's arrays can be written and read in one piece.
type unit struct {
	Doc  int32
	Node int32
	Len  int32 // number of indexed terms
	View View
	_    [3]byte
}

// span is a source span in code points, stored compactly.
type span struct{ Start, End int32 }

func (s span) doc() document.Span { return document.Span{Start: int(s.Start), End: int(s.End)} }

type posting struct {
	unit int32
	tf   uint16
	_    uint16
}

type docEntry struct {
	id, name     string
	first, limit int32 // unit range [first, limit)
}

// Index is an inverted index over the units of many documents, built in
// memory (Add, AddSegment) or opened from a file written by WriteTo
// (OpenIndex). Units of one document are contiguous, so restricting a search
// to some documents is a range restriction on every posting list. An Index
// is safe for concurrent searches once built; Add must not run concurrently
// with anything else.
type Index struct {
	docs    []docEntry
	byID    map[string]int32
	units   []unit
	spanOff []int32 // unit u's spans are spans[spanOff[u]:spanOff[u+1]]
	spans   []span
	fwdOff  []int32 // unit u's distinct terms are fwd[fwdOff[u]:fwdOff[u+1]]
	fwd     []int32
	vocab   map[string]int32 // nil in an opened index: see vocabHash
	// vocabHash is an opened index's vocabulary: an open-addressing hash
	// table of term id + 1 (0: empty) by termHash, written with the index.
	vocabHash []int32
	terms     []string    // term id → term
	post      [][]posting // by term id, in an index built in memory; see plist
	// An opened index's postings: term t's are postAll[postOff[t]:postOff[t+1]]
	// (no slice per term is made at open).
	postAll []posting
	postOff []int64
	viewLen [numViews]int64 // total terms per view
	viewN   [numViews]int64 // units per view

	router  router
	nameTab nameTable // the names each document is called by (routenames.go)

	// Dense vectors: vecOf[u] is the index of unit u's vector in vecUnit
	// and vecs (dim components each), or -1; nil when no unit has one.
	vecOf      []int32
	vecUnit    []int32
	vecs       []float32
	dim        int
	denseModel string

	assoc sync.Map // term id → []assocTerm, learned lazily

	// Heading-word associations (headings.go): counts made once per index
	// (on first use for an index built in memory; written in the index
	// file, so an opened index has them), and the associations learned
	// per word.
	headOnce sync.Once
	headDocs []int32  // term → documents it heads clauses in (heading terms only)
	headedN  int      // units carrying heading terms
	headedDF []int32  // term → units carrying heading terms that have it
	bodies   sync.Map // term id → []assocTerm, body words under it as a heading
	selfRef  sync.Map // term → bool: a self-reference word (framing.go)

	// Associations learned for every term by the writer of the index file
	// (learned.go): term t's are list[off[t]:off[t+1]]. Nil for an index
	// built in memory, which learns them per word on first use (assoc,
	// bodies).
	assocOff, bodyOff   []int32
	assocList, bodyList []assocTerm

	headTermOnce sync.Once
	isHead       []bool // by term id: a heading term (headTerms)

	// scratch holds per-term counters for learning associations (a
	// *coScratch), so learning one word costs the postings it samples, not
	// a map or an array the size of the vocabulary.
	scratch sync.Pool

	accs sync.Pool

	// mapped is the file an opened index lives in (see persist.go); nil for
	// an index built in memory. Values read from it are bounds-checked
	// before use as indices, since the big arrays are not checksummed.
	mapped *mapping
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{byID: map[string]int32{}, vocab: map[string]int32{}, fwdOff: []int32{0}, spanOff: []int32{0}}
}

// Docs returns the number of indexed documents.
func (ix *Index) Docs() int { return len(ix.docs) }

// Units returns the number of indexed units.
func (ix *Index) Units() int { return len(ix.units) }

// Add analyzes and indexes a document. Adding an id that is already
// present is an error: build a new Index to replace documents.
func (ix *Index) Add(d DocInput) error { return ix.AddSegment(index.AnalyzeDoc(d)) }

// termID returns the id of a term, adding it to the vocabulary if needed.
func (ix *Index) termID(t string) int32 {
	tid, ok := ix.vocab[t]
	if !ok {
		tid = int32(len(ix.post))
		ix.vocab[t] = tid
		ix.post = append(ix.post, nil)
		ix.router.post = append(ix.router.post, nil)
		ix.terms = append(ix.terms, t)
	}
	return tid
}

// AddSegment indexes an analyzed document.
func (ix *Index) AddSegment(seg *index.Doc) error {
	if ix.mapped != nil {
		return ErrMapped
	}
	if _, ok := ix.byID[seg.ID]; ok {
		return fmt.Errorf("search: document %q is already indexed", seg.ID)
	}
	di := int32(len(ix.docs))
	e := docEntry{id: seg.ID, name: seg.Name, first: int32(len(ix.units))}
	global := make([]int32, len(seg.Vocab))
	for i, t := range seg.Vocab {
		global[i] = ix.termID(t)
	}
	for _, u := range seg.Units {
		uid := int32(len(ix.units))
		for _, tc := range u.Terms {
			tid := global[tc.Term]
			// Units only grow, so each posting list stays sorted by unit.
			ix.post[tid] = append(ix.post[tid], posting{unit: uid, tf: tc.Count})
			ix.fwd = append(ix.fwd, tid)
		}
		ix.fwdOff = append(ix.fwdOff, int32(len(ix.fwd)))
		for _, sp := range u.Spans {
			ix.spans = append(ix.spans, span{int32(sp.Start), int32(sp.End)})
		}
		ix.spanOff = append(ix.spanOff, int32(len(ix.spans)))
		ix.units = append(ix.units, unit{Doc: di, Node: u.Node, View: u.View, Len: u.Len})
		ix.viewLen[u.View] += int64(u.Len)
		ix.viewN[u.View]++
	}
	if ix.vecOf != nil {
		for range seg.Units {
			ix.vecOf = append(ix.vecOf, -1)
		}
	}
	e.limit = int32(len(ix.units))
	ix.docs = append(ix.docs, e)
	ix.byID[seg.ID] = di
	ix.addRoute(di, seg)
	ix.addNames(di, seg.Names)
	return nil
}

// unitSpans returns the source spans of unit u, a unit id in range. The
// offsets of an opened index are not validated at open (a pass over a
// table per unit, megabytes in a large collection): they are checked here,
// and a damaged entry yields no spans.
func (ix *Index) unitSpans(u int32) []span {
	a, b := ix.spanOff[u], ix.spanOff[u+1]
	if a < 0 || b < a || int(b) > len(ix.spans) {
		return nil
	}
	return ix.spans[a:b:b]
}

// unitTerms returns the distinct terms of unit u, a unit id in range;
// checked like unitSpans.
func (ix *Index) unitTerms(u int32) []int32 {
	a, b := ix.fwdOff[u], ix.fwdOff[u+1]
	if a < 0 || b < a || int(b) > len(ix.fwd) {
		return nil
	}
	return ix.fwd[a:b:b]
}

// plist returns the posting list of term t, a term id in range. An opened
// index's offsets come from the file and are checked here: a damaged entry
// yields an empty list.
func (ix *Index) plist(t int32) []posting {
	if ix.postOff == nil {
		return ix.post[t]
	}
	a, b := ix.postOff[t], ix.postOff[t+1]
	if a < 0 || b < a || b > int64(len(ix.postAll)) {
		return nil
	}
	return ix.postAll[a:b:b]
}

// lookup returns the id of a term: from the vocabulary map of an index
// built in memory, or from the hash table of an opened one (persist.go),
// which need not be built at open.
func (ix *Index) lookup(t string) (int32, bool) {
	if ix.vocab != nil {
		tid, ok := ix.vocab[t]
		return tid, ok
	}
	return lookupHash(ix.vocabHash, ix.terms, t)
}

// DocName returns the name of an indexed document id.
func (ix *Index) DocName(id string) string {
	if i, ok := ix.byID[id]; ok {
		return ix.docs[i].name
	}
	return ""
}

// scored is a unit and its score.
type scored struct {
	unit  int32
	score float64
}

// bm25 parameters; the usual values, which also measured best on our dev runs.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// queryTerm is an analyzed query term with a weight (1 for the user's own
// words; less for expansion terms).
type queryTerm struct {
	id     int32
	weight float64
	body   bool // a body word learned from headings (headings.go)
}

// accumulator holds per-unit scores for one search without allocating a map:
// score by unit id, and the list of units touched. When a search touches a
// large share of the units (a common word in a large collection of similar
// contracts: over a million units) the list is given up (dense): it would
// cost more memory than the scores themselves, and the units with a score
// are found by scanning the score array instead. Scores are positive, so
// a zero score means untouched.
type accumulator struct {
	score   []float64
	touched []int32
	n       int  // units touched
	dense   bool // touched is not kept: scan score
}

// denseShare is the share of an index's units beyond which an accumulator
// stops listing the units it touches.
const denseShare = 8

func (ix *Index) getAcc() *accumulator {
	if a, ok := ix.accs.Get().(*accumulator); ok && len(a.score) == len(ix.units) {
		return a
	}
	return &accumulator{score: make([]float64, len(ix.units))}
}

func (ix *Index) putAcc(a *accumulator) {
	if a.dense {
		clear(a.score)
	} else {
		for _, u := range a.touched {
			a.score[u] = 0
		}
	}
	a.touched = a.touched[:0]
	a.n, a.dense = 0, false
	ix.accs.Put(a)
}

// expect prepares for a term that touches at most df more units: room in
// the touched list, or dense mode when the list would hold more than
// 1/denseShare of the units.
func (a *accumulator) expect(df int) {
	if a.dense {
		return
	}
	if len(a.touched)+df > len(a.score)/denseShare {
		a.dense = true
		a.touched = nil
		return
	}
	// One allocation instead of many doublings.
	a.touched = slices.Grow(a.touched, df)
}

func (a *accumulator) add(u int32, s float64) {
	if a.score[u] == 0 {
		a.n++
		if !a.dense {
			a.touched = append(a.touched, u)
		}
	}
	a.score[u] += s
}

// each calls fn with every touched unit and its score.
func (a *accumulator) each(fn func(u int32, s float64)) {
	if !a.dense {
		for _, u := range a.touched {
			fn(u, a.score[u])
		}
		return
	}
	for u, s := range a.score {
		if s != 0 {
			fn(int32(u), s)
		}
	}
}

// scope is the set of units a search may return: document ranges and views.
type scope struct {
	ranges [][2]int32 // nil = every unit
	views  [numViews]bool
	n      int64 // units in scope, for IDF
}

func (ix *Index) newScope(ranges [][2]int32, views []View) scope {
	sc := scope{ranges: ranges}
	if views == nil {
		for v := range sc.views {
			sc.views[v] = true
		}
	} else {
		for _, v := range views {
			sc.views[v] = true
		}
	}
	if ranges == nil {
		for v := View(0); v < numViews; v++ {
			if sc.views[v] {
				sc.n += ix.viewN[v]
			}
		}
	} else {
		for _, r := range ranges {
			sc.n += int64(r[1] - r[0])
		}
	}
	return sc
}

// postings returns the parts of a term's posting list inside the scope.
func (ix *Index) postings(tid int32, sc scope) [][]posting {
	pl := ix.plist(tid)
	if sc.ranges == nil {
		return [][]posting{pl}
	}
	var parts [][]posting
	for _, r := range sc.ranges {
		lo := sort.Search(len(pl), func(i int) bool { return pl[i].unit >= r[0] })
		hi := lo + sort.Search(len(pl)-lo, func(i int) bool { return pl[lo+i].unit >= r[1] })
		if hi > lo {
			parts = append(parts, pl[lo:hi])
		}
	}
	return parts
}

// idf is BM25's inverse document frequency of a term with df units in scope.
func idf(n int64, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// score adds the BM25 scores of the weighted query terms to acc. IDF is
// computed over the scope, so a question routed to one contract weighs words
// by how rare they are in that contract.
func (ix *Index) score(acc *accumulator, q []queryTerm, sc scope) {
	var avg [numViews]float64
	for v := View(0); v < numViews; v++ {
		if ix.viewN[v] > 0 {
			avg[v] = float64(ix.viewLen[v]) / float64(ix.viewN[v])
		}
	}
	for _, qt := range q {
		parts := ix.postings(qt.id, sc)
		df := 0
		for _, p := range parts {
			df += len(p)
		}
		if df == 0 {
			continue
		}
		w := idf(sc.n, df) * qt.weight
		acc.expect(df)
		for _, p := range parts {
			for _, e := range p {
				if uint(e.unit) >= uint(len(ix.units)) {
					continue // a damaged index file; see persist.go
				}
				u := &ix.units[e.unit]
				if uint(u.View) >= uint(numViews) || !sc.views[u.View] { // a damaged file may hold any view
					continue
				}
				tf := float64(e.tf)
				if qt.body && u.View == ViewDescendant {
					tf *= bodyInSubtree
				}
				norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
				acc.add(e.unit, w*tf*(bm25K1+1)/(tf+norm))
			}
		}
	}
}

// top returns the n best-scored units of acc (all of them for n ≤ 0), best
// first, ties by unit id. Only the n best are sorted: a common word touches
// a large share of a big collection's units, and sorting them all would make
// a query cost grow faster than the collection.
func (acc *accumulator) top(n int) []scored {
	if n <= 0 || n >= acc.n {
		out := make([]scored, 0, acc.n)
		acc.each(func(u int32, s float64) { out = append(out, scored{u, s}) })
		slices.SortFunc(out, byRank)
		return out
	}
	// A min-heap of the n best so far: h[0] is the worst of them. The order
	// is total, so the n best are the same whatever the order of visit.
	h := make([]scored, 0, n)
	acc.each(func(u int32, score float64) {
		s := scored{u, score}
		if len(h) < n {
			h = append(h, s)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !better(h[p], h[i]) {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
			return
		}
		if !better(s, h[0]) {
			return
		}
		h[0] = s
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < n && better(h[m], h[l]) {
				m = l
			}
			if r < n && better(h[m], h[r]) {
				m = r
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	})
	slices.SortFunc(h, byRank)
	return h
}

// byRank is better as a comparison function.
func byRank(a, b scored) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// better orders scored units: higher score first, then lower unit id.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.unit < b.unit
}
