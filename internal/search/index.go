// Package search finds the passages of a collection that answer a question:
// routing of questions that name a contract to that contract, the question's
// framing words, expansion with words the collection associates, BM25 scoring
// over retrieval units, an optional dense ranking and its fusion, and
// merging of the returned source spans so they never overlap.
//
// The index it searches lives in the package below it, internal/search/index
// (segments, postings, files, statistics), as bleve splits index and search.
// An Index here is a view of an index.Snapshot — one segment built in
// memory (NewIndex, Add) or a collection's segments opened from disk
// (Open) — plus what the search learns from it: word associations, heading
// associations and self-reference words. The Snapshot's statistics are
// those of its live documents however many segments hold them, and every
// ranking here breaks ties by the Snapshot's document, unit and term order,
// so a search over many segments returns exactly what it would over one
// segment holding the same documents in the same order.
package search

import (
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// Index is a searchable collection: a snapshot of index segments and what
// the search learned from it. An Index built in memory (NewIndex) is
// searchable once its documents are added; Add must not run concurrently
// with anything else. Searches may run concurrently.
type Index struct {
	b        *index.Segment // the segment being built (NewIndex), nil for Open
	sharding *Sharding      // set when the collection is searched by shards (shard.go)
	mu       sync.Mutex
	snap     atomic.Pointer[index.Snapshot]
	table    *index.AssocTable             // associations learned by the snapshot's writer, or nil
	displays atomic.Pointer[displaySource] // kept displays (SetDisplays), or nil
	c        atomic.Pointer[learnedCache]

	accs sync.Pool
	// scratch holds per-term counters for learning associations (a
	// *coScratch), so learning one word costs the postings it samples, not
	// a map or an array the size of the vocabulary.
	scratch sync.Pool
}

// learnedCache holds what searches learned from one snapshot.
type learnedCache struct {
	assoc   sync.Map     // term → []assocTerm
	bodies  sync.Map     // term → []assocTerm
	selfRef sync.Map     // word → bool
	display sync.Map     // displayKey → string (DocDisplay)
	made    atomic.Int64 // displays made by names.Display, not read (DisplaysMade)
}

// displayKey is a document of a snapshot.
type displayKey struct {
	v *index.Snapshot
	g int32
}

// NewIndex returns an empty index built in memory.
func NewIndex() *Index {
	ix := &Index{b: index.NewBuilder()}
	ix.c.Store(&learnedCache{})
	return ix
}

// Open returns the index of a snapshot of segments. table, when not nil,
// holds the word and heading associations learned over exactly this
// snapshot (LearnAll); without it they are learned as questions need them.
func Open(snap *index.Snapshot, table *index.AssocTable) *Index {
	ix := &Index{table: table}
	ix.snap.Store(snap)
	ix.c.Store(&learnedCache{})
	return ix
}

// Snapshot returns the segments the index searches.
func (ix *Index) Snapshot() *index.Snapshot { return ix.view() }

// view returns the snapshot searched: for an index built in memory, made
// on first use after the last Add.
func (ix *Index) view() *index.Snapshot {
	if v := ix.snap.Load(); v != nil {
		return v
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if v := ix.snap.Load(); v != nil {
		return v
	}
	v, err := index.NewSnapshot([]*index.Segment{ix.b}, nil)
	if err != nil {
		// One segment built in memory with nothing deleted: only a
		// collection past 2^31 units fails, and Add refuses those first.
		panic(err)
	}
	ix.snap.Store(v)
	return v
}

// Add analyzes and indexes a document. Adding an id that is already
// present is an error: build a new Index to replace documents.
func (ix *Index) Add(d index.DocInput) error { return ix.AddSegment(index.AnalyzeDoc(d)) }

// AddSegment indexes an analyzed document.
func (ix *Index) AddSegment(doc *index.Doc) error {
	if ix.b == nil {
		return index.ErrMapped
	}
	if err := ix.b.Add(doc, ""); err != nil {
		return err
	}
	ix.invalidate()
	return nil
}

// AddVectors attaches a document's vectors to the index. The document must
// already be indexed; vectors from a model other than the index's first are
// refused, since their similarities are not comparable.
func (ix *Index) AddVectors(id string, v *index.Vectors) error {
	if ix.b == nil {
		return index.ErrMapped
	}
	if err := ix.b.AddVectors(id, v); err != nil {
		return err
	}
	ix.invalidate()
	return nil
}

func (ix *Index) invalidate() {
	ix.snap.Store(nil)
	ix.c.Store(&learnedCache{})
}

// Docs returns the number of indexed documents.
func (ix *Index) Docs() int { return ix.view().LiveDocs() }

// Units returns the number of indexed units.
func (ix *Index) Units() int { return int(ix.view().LiveUnits()) }

// DocName returns the name of an indexed document id.
func (ix *Index) DocName(id string) string {
	v := ix.view()
	if g, ok := v.LookupDoc(id); ok {
		return v.DocName(g)
	}
	return ""
}

// DocDisplay returns how the faces show an indexed document id: its title,
// parties and date (names.Display: "Distributor Agreement — Airspan
// Networks / GLS, 31 March 2000"), or its file name when nothing was learnt;
// "" for a document not indexed.
//
// A document's display is made once per snapshot, or read from the
// displays kept with the index (SetDisplays): the document list of a large
// collection and a deal-room question over it name every document.
func (ix *Index) DocDisplay(id string) string {
	v := ix.view()
	g, ok := v.LookupDoc(id)
	if !ok {
		return ""
	}
	c := ix.c.Load()
	key := displayKey{v, g}
	if d, ok := c.display.Load(key); ok {
		return d.(string)
	}
	d, ok := ix.keptDisplay(v, g, id)
	if !ok {
		d = docDisplay(v, g)
		c.made.Add(1)
	}
	c.display.Store(key, d)
	return d
}

// DocNames returns the names of a document as the index holds them (the
// names ingest learnt from its text: names.FromList of its name entries);
// false when the index does not hold the document. A face asking about every
// document of a large collection reads them here instead of from each
// document's stored names.
func (ix *Index) DocNames(id string) (names.Names, bool) {
	v := ix.view()
	g, ok := v.LookupDoc(id)
	if !ok {
		return names.Names{}, false
	}
	i, ld := v.SegmentOfDoc(g)
	seg := v.Segments()[i]
	own, _ := seg.NamesOf(ld)
	list := make([]names.Name, 0, len(own))
	for _, e := range own {
		list = append(list, names.Name{Text: seg.NameText(e), Kind: names.Kind(e.Kind), Party: int(e.Party)})
	}
	return names.FromList(list, v.DocName(g)), true
}

// unitAt returns unit g of the snapshot and its document's number.
func unitAt(v *index.Snapshot, g int32) (index.Unit, int32, bool) {
	if g < 0 || g >= v.NumUnits() {
		return index.Unit{}, 0, false
	}
	i, u := v.SegmentOfUnit(g)
	un := v.Segments()[i].Units()[u]
	if uint(un.Doc) >= uint(v.Segments()[i].NumDocs()) {
		return index.Unit{}, 0, false // a damaged index file
	}
	return un, v.DocBase(i) + un.Doc, true
}

// scored is a unit (its number in the snapshot) and its score.
type scored struct {
	unit  int32
	score float64
}

// bm25 parameters; the usual values, which also measured best on our dev
// runs. The index's block bounds are computed with the same (index.BM25K1,
// index.BM25B; TestBlockBoundsUseTheScorersBM25 checks they agree).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// queryTerm is an analyzed query term with a weight (1 for the user's own
// words; less for expansion terms).
type queryTerm struct {
	id     int32 // the term's number in the snapshot
	weight float64
	body   bool // a body word learned from headings (headings.go)
}

// accumulator holds per-unit scores for one search without allocating a map:
// score by position in the searched unit ranges, and the list of positions
// touched. When a search touches a large share of the units (a common word
// in a large collection of similar contracts) the list is given up (dense):
// it would cost more memory than the scores themselves, and the units with
// a score are found by scanning the score array instead. Scores are
// positive, so a zero score means untouched.
type accumulator struct {
	ranges  [][2]int32 // the unit ranges scored, sorted, disjoint
	off     []int32    // position of each range's first unit in score
	score   []float64
	touched []int32
	n       int  // units touched
	dense   bool // touched is not kept: scan score
}

// denseShare is the share of an accumulator's units beyond which it stops
// listing the units it touches.
const denseShare = 8

// getAcc returns an accumulator over the units of ranges.
func (ix *Index) getAcc(ranges [][2]int32) *accumulator {
	n := int32(0)
	a, _ := ix.accs.Get().(*accumulator)
	if a == nil {
		a = &accumulator{}
	}
	a.ranges, a.off = ranges, a.off[:0]
	for _, r := range ranges {
		a.off = append(a.off, n)
		n += r[1] - r[0]
	}
	if cap(a.score) < int(n) {
		a.score = make([]float64, n)
	}
	a.score = a.score[:n]
	return a
}

func (ix *Index) putAcc(a *accumulator) {
	if a.dense {
		clear(a.score)
	} else {
		for _, p := range a.touched {
			a.score[p] = 0
		}
	}
	a.touched = a.touched[:0]
	a.n, a.dense = 0, false
	a.ranges = nil
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

// add adds s to the score of the unit at position p.
func (a *accumulator) add(p int32, s float64) {
	if a.score[p] == 0 {
		a.n++
		if !a.dense {
			a.touched = append(a.touched, p)
		}
	}
	a.score[p] += s
}

// unit returns the unit number of position p.
func (a *accumulator) unit(p int32) int32 {
	k := sort.Search(len(a.off), func(k int) bool { return a.off[k] > p }) - 1
	return a.ranges[k][0] + p - a.off[k]
}

// each calls fn with every touched unit and its score.
func (a *accumulator) each(fn func(u int32, s float64)) {
	if !a.dense {
		for _, p := range a.touched {
			fn(a.unit(p), a.score[p])
		}
		return
	}
	for k, r := range a.ranges {
		o := a.off[k]
		for u := r[0]; u < r[1]; u++ {
			if s := a.score[o+u-r[0]]; s != 0 {
				fn(u, s)
			}
		}
	}
}

// scope is the set of units a search may return: document ranges and views.
type scope struct {
	ranges [][2]int32 // nil = every unit
	views  [index.NumViews]bool
	n      int64 // units in scope, for IDF
}

func newScope(v *index.Snapshot, ranges [][2]int32, views []index.View) scope {
	sc := scope{ranges: ranges}
	if views == nil {
		for w := range sc.views {
			sc.views[w] = true
		}
	} else {
		for _, w := range views {
			sc.views[w] = true
		}
	}
	if ranges == nil {
		for w := index.View(0); w < index.NumViews; w++ {
			if sc.views[w] {
				n, _ := v.ViewStats(w)
				sc.n += n
			}
		}
	} else {
		for _, r := range ranges {
			sc.n += int64(r[1] - r[0])
		}
	}
	return sc
}

// avgLens returns the average unit length of each view.
func avgLens(v *index.Snapshot) (avg [index.NumViews]float64) {
	for w := index.View(0); w < index.NumViews; w++ {
		if n, l := v.ViewStats(w); n > 0 {
			avg[w] = float64(l) / float64(n)
		}
	}
	return avg
}

// rangePart is the postings of a term in one searched unit range: the
// range's position in the accumulator, and its segment's first unit.
type rangePart struct {
	pl   []index.Posting
	seg  int
	base int32 // the segment's first unit number
	acc  int32 // accumulator position of the range's first unit
	lo   int32 // the range's first unit
}

// rangePostings returns the parts of a term's postings inside the ranges
// of an accumulator (each range lies in one segment: it is a document, or
// a segment's whole unit span).
func rangePostings(v *index.Snapshot, t int32, a *accumulator, parts []rangePart) []rangePart {
	parts = parts[:0]
	for k, r := range a.ranges {
		i, lo := v.SegmentOfUnit(r[0])
		pl := v.Postings(t, i)
		if len(pl) == 0 {
			continue
		}
		hi := lo + r[1] - r[0]
		a0 := sort.Search(len(pl), func(j int) bool { return pl[j].Unit >= lo })
		b0 := a0 + sort.Search(len(pl)-a0, func(j int) bool { return pl[a0+j].Unit >= hi })
		if b0 > a0 {
			parts = append(parts, rangePart{pl: pl[a0:b0], seg: i, base: v.UnitBase(i), acc: a.off[k], lo: r[0]})
		}
	}
	return parts
}

// score adds the BM25 scores of the weighted query terms to acc, over the
// accumulator's ranges. IDF is computed over the scope (sc.ranges nil: the
// whole collection), so a question routed to one contract weighs words by
// how rare they are in that contract.
func (ix *Index) score(v *index.Snapshot, acc *accumulator, q []queryTerm, sc scope) {
	ix.scoreWith(v, acc, q, weights(v, q, sc), sc)
}

// weights returns each query term's weight: its IDF over the scope times
// its weight in the query (0 for a term with no posting in scope).
func weights(v *index.Snapshot, q []queryTerm, sc scope) []float64 {
	w := make([]float64, len(q))
	all := func(int) bool { return true }
	for k, qt := range q {
		df := 0
		if sc.ranges == nil {
			df = v.DF(qt.id)
		} else {
			for _, p := range rangeParts(v, qt.id, sc.ranges, all) {
				df += len(p.pl)
			}
		}
		if df > 0 {
			w[k] = idf(sc.n, df) * qt.weight
		}
	}
	return w
}

// scoreWith adds the BM25 scores of the query terms, weighted by w, to acc.
func (ix *Index) scoreWith(v *index.Snapshot, acc *accumulator, q []queryTerm, w []float64, sc scope) {
	avg := avgLens(v)
	segs := v.Segments()
	var parts []rangePart
	for k, qt := range q {
		parts = rangePostings(v, qt.id, acc, parts)
		n := 0
		for _, p := range parts {
			n += len(p.pl)
		}
		if n == 0 {
			continue
		}
		acc.expect(n)
		for _, p := range parts {
			units := segs[p.seg].Units()
			hasDead := v.HasDeleted(p.seg)
			for _, e := range p.pl {
				if uint(e.Unit) >= uint(len(units)) {
					continue // a damaged index file; see index/container.go
				}
				u := &units[e.Unit]
				if uint(u.View) >= uint(index.NumViews) || !sc.views[u.View] { // a damaged file may hold any view
					continue
				}
				if hasDead && v.Deleted(p.seg, u.Doc) {
					continue
				}
				tf := float64(e.TF)
				if qt.body && u.View == index.ViewDescendant {
					tf *= bodyInSubtree
				}
				norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
				acc.add(p.acc+p.base+e.Unit-p.lo, w[k]*tf*(bm25K1+1)/(tf+norm))
			}
		}
	}
}

// top returns the n best-scored units of acc (all of them for n ≤ 0), best
// first, ties by unit number. Only the n best are sorted: a common word
// touches a large share of a big collection's units, and sorting them all
// would make a query cost grow faster than the collection.
func (acc *accumulator) top(n int) []scored {
	if n <= 0 || n >= acc.n {
		out := make([]scored, 0, acc.n)
		acc.each(func(u int32, s float64) { out = append(out, scored{u, s}) })
		slices.SortFunc(out, byRank)
		return out
	}
	h := topHeap{n: n, s: make([]scored, 0, n)}
	acc.each(func(u int32, s float64) { h.push(scored{u, s}) })
	slices.SortFunc(h.s, byRank)
	return h.s
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

// better orders scored units: higher score first, then lower unit number.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.unit < b.unit
}

// idf is BM25's inverse document frequency of a term with df units in scope.
func idf(n int64, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}
