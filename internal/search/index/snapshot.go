package index

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// Snapshot is a collection's index at one moment: segments in order, some
// of whose documents are deleted (tombstones), with the collection's
// statistics summed over them. Everything a search scores with — document
// frequencies, numbers of units and documents, average lengths per view,
// header statistics for routing, heading and self-reference counts — is the
// sum over the segments minus what the deleted documents held, so a search
// over a Snapshot of many segments scores every unit exactly as it would
// over one segment holding the same live documents in the same order.
//
// Documents and units are numbered across the Snapshot: segment after
// segment, a deleted document keeping its numbers (it is skipped). The
// order of these numbers is the order of the documents, so ties broken by
// them break the same way as in one segment. Terms are numbered across the
// Snapshot too (Lookup, Global): in a Snapshot of one segment a term's
// number is its number in the segment; with more, numbers are given as
// terms are first asked about, and TermOrder gives the order one segment
// would number them in.
//
// A Snapshot is immutable and safe for concurrent use.
type Snapshot struct {
	segs     []*Segment
	dead     []*deadSet // by segment; nil when none of its documents is deleted
	docBase  []int32    // global number of each segment's first document; len(segs)+1
	unitBase []int32

	liveDocs  int
	liveUnits int64
	viewLen   [NumViews]int64
	viewN     [NumViews]int64
	rtotal    int64

	statOnce sync.Once
	headedN  int64

	gv    *globalVocab // nil with one segment
	order sync.Map     // term → TermOrder, when not the term's number

	commit, label uint64 // the Dir commit it was opened from (0: built in memory)
}

// Commit returns the ID of the Dir commit the snapshot was opened from (0
// for one made otherwise), and the commit's label.
func (v *Snapshot) Commit() (id, label uint64) { return v.commit, v.label }

// deadSet is what the deleted documents of one segment held.
type deadSet struct {
	doc     []bool // by document of the segment
	docs    int
	units   int64
	df      map[int32]int32 // postings in deleted units, by term
	routeDF map[int32]int32 // header postings of deleted documents
	titleDF map[int32]int32
	viewLen [NumViews]int64
	viewN   [NumViews]int64
	rtotal  int64

	headDocs map[int32]int32
	headedDF map[int32]int32
	headedN  int64
	self     map[int32]SelfCount // by marked term: what to subtract
}

// NewSnapshot returns the view of segments, in order, with the given
// documents of each deleted (deleted[i] lists document numbers of
// segs[i]; it may be nil or shorter than segs).
func NewSnapshot(segs []*Segment, deleted [][]int32) (*Snapshot, error) {
	v := &Snapshot{segs: segs, dead: make([]*deadSet, len(segs)), docBase: make([]int32, len(segs)+1), unitBase: make([]int32, len(segs)+1)}
	var docs, units, allDocs, allUnits int64 // live; all numbers
	for i, s := range segs {
		allDocs += int64(s.NumDocs())
		allUnits += int64(s.NumUnits())
		if allUnits > math.MaxInt32-1 || allDocs > math.MaxInt32-1 {
			return nil, fmt.Errorf("search: a collection index holds at most %d units", math.MaxInt32-1)
		}
		v.docBase[i+1], v.unitBase[i+1] = int32(allDocs), int32(allUnits)
		docs += int64(s.NumDocs())
		units += int64(s.NumUnits())
		for w := range NumViews {
			v.viewLen[w] += s.viewLen[w]
			v.viewN[w] += s.viewN[w]
		}
		v.rtotal += s.rtotal
		if i < len(deleted) && len(deleted[i]) > 0 {
			d, err := deadOf(s, deleted[i])
			if err != nil {
				return nil, err
			}
			v.dead[i] = d
			for w := range NumViews {
				v.viewLen[w] -= d.viewLen[w]
				v.viewN[w] -= d.viewN[w]
			}
			v.rtotal -= d.rtotal
			docs -= int64(d.docs)
			units -= d.units
		}
	}
	v.liveDocs, v.liveUnits = int(docs), units
	if len(segs) > 1 {
		v.gv = newGlobalVocab(len(segs))
	}
	return v, nil
}

// deadOf counts what the deleted documents of segment s held.
func deadOf(s *Segment, docs []int32) (*deadSet, error) {
	if s.ds != nil {
		return deadOfStats(s, docs)
	}
	d := &deadSet{doc: make([]bool, s.NumDocs()), df: map[int32]int32{}, routeDF: map[int32]int32{}, titleDF: map[int32]int32{},
		headDocs: map[int32]int32{}, headedDF: map[int32]int32{}, self: map[int32]SelfCount{}}
	selfOf := s.selfByBase()
	for _, doc := range docs {
		if doc < 0 || int(doc) >= s.NumDocs() {
			return nil, fmt.Errorf("%w: deleted document %d of segment %s does not exist", ErrBadIndex, doc, s.name)
		}
		if d.doc[doc] {
			continue
		}
		d.doc[doc] = true
		d.docs++
		first, limit := s.DocRange(doc)
		heads := map[int32]bool{}
		selfDocs := map[int32]bool{}
		for u := first; u < limit; u++ {
			un := s.units[u]
			d.units++
			if uint(un.View) < uint(NumViews) {
				d.viewLen[un.View] += int64(un.Len)
				d.viewN[un.View]++
			}
			terms := s.UnitTerms(u)
			headed := false
			for _, t := range terms {
				d.df[t]++
				w := s.term(t)
				switch {
				case IsHeadTerm(w):
					headed = true
					heads[t] = true
				case len(w) > 0 && w[0] == SelfMark[0]:
					c := d.self[t]
					c.Term = t
					c.Uses += int64(tfOf(s, t, u))
					d.self[t] = c
					selfDocs[t] = true
				}
				if un.View == ViewPlain {
					if m, ok := selfOf[t]; ok {
						c := d.self[m]
						c.Term = m
						c.Plain += int64(tfOf(s, t, u))
						d.self[m] = c
					}
				}
			}
			if headed {
				d.headedN++
				for _, t := range terms {
					d.headedDF[t]++
				}
			}
		}
		for t := range heads {
			d.headDocs[t]++
		}
		for t := range selfDocs {
			c := d.self[t]
			c.Docs++
			d.self[t] = c
		}
		for _, t := range s.DocTerms(doc) {
			if p, ok := s.RoutePosting(t, doc); ok {
				d.routeDF[t]++
				d.titleDF[t] += int32(p.Title)
			}
		}
		d.rtotal += int64(s.HeaderLen(doc))
	}
	return d, nil
}

// deadOfStats is deadOf for a stats file, from its per-document counts.
func deadOfStats(s *Segment, docs []int32) (*deadSet, error) {
	d := &deadSet{doc: make([]bool, s.NumDocs()), df: map[int32]int32{}, routeDF: map[int32]int32{}, titleDF: map[int32]int32{},
		headDocs: map[int32]int32{}, headedDF: map[int32]int32{}, self: map[int32]SelfCount{}}
	selfOf := s.selfByBase()
	ds := s.ds
	for _, doc := range docs {
		if doc < 0 || int(doc) >= s.NumDocs() {
			return nil, fmt.Errorf("%w: deleted document %d of segment %s does not exist", ErrBadIndex, doc, s.name)
		}
		if d.doc[doc] {
			continue
		}
		d.doc[doc] = true
		d.docs++
		first, limit := s.DocRange(doc)
		d.units += int64(limit - first)
		for w := range NumViews {
			k := (int(doc)*int(NumViews) + int(w)) * 2
			if k+1 < len(ds.views) {
				d.viewN[w] += ds.views[k]
				d.viewLen[w] += ds.views[k+1]
			}
		}
		if int(doc) < len(ds.headedN) {
			d.headedN += int64(ds.headedN[doc])
		}
		a := s.docTermOff[doc]
		for k, t := range s.DocTerms(doc) {
			e := a + int64(k)
			if e >= int64(len(ds.units)) {
				break
			}
			if n := ds.units[e]; n > 0 {
				d.df[t] += n
				d.headedDF[t] += ds.headed[e]
				w := s.term(t)
				switch {
				case IsHeadTerm(w):
					d.headDocs[t]++
				case len(w) > 0 && w[0] == SelfMark[0]:
					c := d.self[t]
					c.Term = t
					c.Uses += int64(ds.tf[e])
					c.Docs++
					d.self[t] = c
				}
				if m, ok := selfOf[t]; ok && ds.plainTF[e] > 0 {
					c := d.self[m]
					c.Term = m
					c.Plain += int64(ds.plainTF[e])
					d.self[m] = c
				}
			}
			if p, ok := s.RoutePosting(t, doc); ok {
				d.routeDF[t]++
				d.titleDF[t] += int32(p.Title)
			}
		}
		d.rtotal += int64(s.HeaderLen(doc))
	}
	return d, nil
}

// tfOf returns how often term t occurs in unit u.
func tfOf(s *Segment, t, u int32) uint16 {
	pl := s.Postings(t)
	i := sort.Search(len(pl), func(i int) bool { return pl[i].Unit >= u })
	if i < len(pl) && pl[i].Unit == u {
		return pl[i].TF
	}
	return 0
}

// selfByBase maps each word with self-reference counts to its marked term.
func (s *Segment) selfByBase() map[int32]int32 {
	out := map[int32]int32{}
	for _, c := range s.SelfCounts() {
		if uint(c.Term) >= uint(s.NumTerms()) {
			continue
		}
		if base, ok := s.Lookup(s.term(c.Term)[len(SelfMark):]); ok {
			out[base] = c.Term
		}
	}
	return out
}

// Segments returns the snapshot's segments, in order.
func (v *Snapshot) Segments() []*Segment { return v.segs }

// Deleted reports whether document d of segment i is deleted.
func (v *Snapshot) Deleted(i int, d int32) bool {
	ds := v.dead[i]
	return ds != nil && uint(d) < uint(len(ds.doc)) && ds.doc[d]
}

// HasDeleted reports whether segment i has deleted documents.
func (v *Snapshot) HasDeleted(i int) bool { return v.dead[i] != nil }

// DeletedDocs returns the deleted documents of segment i, in order.
func (v *Snapshot) DeletedDocs(i int) []int32 {
	ds := v.dead[i]
	if ds == nil {
		return nil
	}
	var out []int32
	for d, dead := range ds.doc {
		if dead {
			out = append(out, int32(d))
		}
	}
	return out
}

// LiveDocs returns the number of documents not deleted.
func (v *Snapshot) LiveDocs() int { return v.liveDocs }

// LiveUnits returns the number of units of live documents.
func (v *Snapshot) LiveUnits() int64 { return v.liveUnits }

// NumDocs returns the number of document numbers (deleted ones included).
func (v *Snapshot) NumDocs() int32 { return v.docBase[len(v.segs)] }

// NumUnits returns the number of unit numbers (deleted ones included).
func (v *Snapshot) NumUnits() int32 { return v.unitBase[len(v.segs)] }

// DocBase returns the number of segment i's first document; UnitBase its
// first unit's.
func (v *Snapshot) DocBase(i int) int32  { return v.docBase[i] }
func (v *Snapshot) UnitBase(i int) int32 { return v.unitBase[i] }

// SegmentOfDoc returns the segment of document g and its number there.
func (v *Snapshot) SegmentOfDoc(g int32) (int, int32) {
	i := sort.Search(len(v.segs), func(i int) bool { return v.docBase[i+1] > g })
	return i, g - v.docBase[i]
}

// SegmentOfUnit returns the segment of unit g and its number there.
func (v *Snapshot) SegmentOfUnit(g int32) (int, int32) {
	if len(v.segs) == 1 {
		return 0, g
	}
	i := sort.Search(len(v.segs), func(i int) bool { return v.unitBase[i+1] > g })
	return i, g - v.unitBase[i]
}

// DocLive reports whether document g exists and is not deleted.
func (v *Snapshot) DocLive(g int32) bool {
	if g < 0 || g >= v.NumDocs() {
		return false
	}
	i, d := v.SegmentOfDoc(g)
	return !v.Deleted(i, d)
}

// LookupDoc returns the number of the live document with the given id.
func (v *Snapshot) LookupDoc(id string) (int32, bool) {
	for i := len(v.segs) - 1; i >= 0; i-- {
		if d, ok := v.segs[i].LookupDoc(id); ok && !v.Deleted(i, d) {
			return v.docBase[i] + d, true
		}
	}
	return 0, false
}

// DocID returns the id of document g (in range).
func (v *Snapshot) DocID(g int32) string {
	i, d := v.SegmentOfDoc(g)
	return v.segs[i].DocID(d)
}

// DocName returns the name of document g.
func (v *Snapshot) DocName(g int32) string {
	i, d := v.SegmentOfDoc(g)
	return v.segs[i].DocName(d)
}

// DocRange returns the units of document g: [first, limit).
func (v *Snapshot) DocRange(g int32) (first, limit int32) {
	i, d := v.SegmentOfDoc(g)
	f, l := v.segs[i].DocRange(d)
	return v.unitBase[i] + f, v.unitBase[i] + l
}

// HeaderLen returns the number of header terms of document g.
func (v *Snapshot) HeaderLen(g int32) int32 {
	i, d := v.SegmentOfDoc(g)
	return v.segs[i].HeaderLen(d)
}

// ViewStats returns the live units of view w and their total length.
func (v *Snapshot) ViewStats(w View) (units, terms int64) { return v.viewN[w], v.viewLen[w] }

// HeaderTotal returns the header terms of all live documents.
func (v *Snapshot) HeaderTotal() int64 { return v.rtotal }

// Dense reports the dimension and model of the collection's vectors: the
// first segment's that has any (Snapshot users skip segments of another
// model or dimension).
func (v *Snapshot) Dense() (dim int, model string) {
	for _, s := range v.segs {
		if d, m := s.Dense(); d > 0 {
			return d, m
		}
	}
	return 0, ""
}

// --- terms ---

// globalVocab numbers the terms of a Snapshot of several segments as they
// are first asked about.
type globalVocab struct {
	mu    sync.RWMutex
	byStr map[string]int32
	strs  []string
	locs  [][]int32         // term → its number in each segment, -1 where absent
	seg   []map[int32]int32 // segment → its term → global term
}

func newGlobalVocab(n int) *globalVocab {
	g := &globalVocab{byStr: map[string]int32{}, seg: make([]map[int32]int32, n)}
	for i := range g.seg {
		g.seg[i] = map[int32]int32{}
	}
	return g
}

// Lookup returns the number of a term in the snapshot.
func (v *Snapshot) Lookup(term string) (int32, bool) {
	if v.gv == nil {
		if len(v.segs) == 0 {
			return 0, false
		}
		return v.segs[0].Lookup(term)
	}
	g := v.gv
	g.mu.RLock()
	t, ok := g.byStr[term]
	g.mu.RUnlock()
	if ok {
		return t, t >= 0
	}
	return v.add(term, -1, -1)
}

// add numbers a term (known to be local term loc of segment si, when si ≥
// 0); it returns -1, false when no segment has it.
func (v *Snapshot) add(term string, si int, loc int32) (int32, bool) {
	g := v.gv
	locs := make([]int32, len(v.segs))
	found := false
	for i, s := range v.segs {
		locs[i] = -1
		if i == si {
			locs[i] = loc
			found = true
			continue
		}
		if l, ok := s.Lookup(term); ok {
			locs[i] = l
			found = true
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t, ok := g.byStr[term]; ok {
		return t, t >= 0
	}
	key := cloneString(term)
	if !found {
		if len(g.byStr) < 1<<16 { // remember a few unknown words
			g.byStr[key] = -1
		}
		return -1, false
	}
	t := int32(len(g.strs))
	g.byStr[key] = t
	g.strs = append(g.strs, key)
	g.locs = append(g.locs, locs)
	for i, l := range locs {
		if l >= 0 {
			g.seg[i][l] = t
		}
	}
	return t, true
}

// Global returns the snapshot's number of term loc of segment i.
func (v *Snapshot) Global(i int, loc int32) int32 {
	if v.gv == nil {
		return loc
	}
	g := v.gv
	g.mu.RLock()
	t, ok := g.seg[i][loc]
	g.mu.RUnlock()
	if ok {
		return t
	}
	if uint(loc) >= uint(v.segs[i].NumTerms()) {
		return -1
	}
	t, _ = v.add(v.segs[i].term(loc), i, loc)
	return t
}

// Local returns term t's number in segment i, or -1 when the segment does
// not have it.
func (v *Snapshot) Local(t int32, i int) int32 {
	if v.gv == nil {
		if t < 0 || int(t) >= v.segs[0].NumTerms() {
			return -1
		}
		return t
	}
	g := v.gv
	g.mu.RLock()
	defer g.mu.RUnlock()
	if uint(t) >= uint(len(g.locs)) {
		return -1
	}
	return g.locs[t][i]
}

// NumTerms returns the number of terms numbered so far: every term of a
// single segment; for several, those asked about (terms are numbered below
// it).
func (v *Snapshot) NumTerms() int {
	if v.gv == nil {
		if len(v.segs) == 0 {
			return 0
		}
		return v.segs[0].NumTerms()
	}
	v.gv.mu.RLock()
	defer v.gv.mu.RUnlock()
	return len(v.gv.strs)
}

// TermString returns term t's text. It may point into a segment's mapping:
// it is valid while the Snapshot is.
func (v *Snapshot) TermString(t int32) string {
	if v.gv == nil {
		if t < 0 || int(t) >= v.segs[0].NumTerms() {
			return ""
		}
		return v.segs[0].term(t)
	}
	v.gv.mu.RLock()
	defer v.gv.mu.RUnlock()
	if uint(t) >= uint(len(v.gv.strs)) {
		return ""
	}
	return v.gv.strs[t]
}

// Postings returns term t's posting list in segment i (deleted units
// included: skip them with Deleted).
func (v *Snapshot) Postings(t int32, i int) []Posting {
	l := v.Local(t, i)
	if l < 0 {
		return nil
	}
	return v.segs[i].Postings(l)
}

// DF returns the number of live units holding term t.
func (v *Snapshot) DF(t int32) int {
	n := 0
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		n += s.DF(l)
		if d := v.dead[i]; d != nil {
			n -= int(d.df[l])
		}
	}
	return n
}

// RouteDF returns the number of live documents whose header holds term t,
// and of those, how many hold it in their file name, title or parties.
func (v *Snapshot) RouteDF(t int32) (docs, titles int) {
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		pl := s.RoutePostings(l)
		docs += len(pl)
		for _, p := range pl {
			titles += int(p.Title)
		}
		if d := v.dead[i]; d != nil {
			docs -= int(d.routeDF[l])
			titles -= int(d.titleDF[l])
		}
	}
	return docs, titles
}

// RoutePostings returns term t's header postings in segment i (deleted
// documents included).
func (v *Snapshot) RoutePostings(t int32, i int) []RoutePosting {
	l := v.Local(t, i)
	if l < 0 {
		return nil
	}
	return v.segs[i].RoutePostings(l)
}

// RoutePosting returns document g's header posting of term t.
func (v *Snapshot) RoutePosting(t, g int32) (RoutePosting, bool) {
	i, d := v.SegmentOfDoc(g)
	l := v.Local(t, i)
	if l < 0 {
		return RoutePosting{}, false
	}
	return v.segs[i].RoutePosting(l, d)
}

// HeadDocs returns the number of live documents heading term t heads
// clauses in.
func (v *Snapshot) HeadDocs(t int32) int {
	n := 0
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		n += int(s.HeadDocs(l))
		if d := v.dead[i]; d != nil {
			n -= int(d.headDocs[l])
		}
	}
	return n
}

// HeadedDF returns the number of live headed units holding term t.
func (v *Snapshot) HeadedDF(t int32) int {
	n := 0
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		n += int(s.HeadedDF(l))
		if d := v.dead[i]; d != nil {
			n -= int(d.headedDF[l])
		}
	}
	return n
}

// HeadedUnits returns the number of live units carrying heading terms.
func (v *Snapshot) HeadedUnits() int64 {
	v.statOnce.Do(func() {
		for i, s := range v.segs {
			v.headedN += s.HeadedUnits()
			if d := v.dead[i]; d != nil {
				v.headedN -= d.headedN
			}
		}
	})
	return v.headedN
}

// SelfCount returns the collection's counts of self-reference term t (a
// SelfMark term): uses, documents, and plain occurrences of the word.
func (v *Snapshot) SelfCount(t int32) (uses, docs, plain int64) {
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		c, ok := s.SelfCountOf(l)
		if !ok {
			continue
		}
		uses, docs, plain = uses+c.Uses, docs+int64(c.Docs), plain+c.Plain
		if d := v.dead[i]; d != nil {
			x := d.self[l]
			uses, docs, plain = uses-x.Uses, docs-int64(x.Docs), plain-x.Plain
		}
	}
	return uses, docs, plain
}

// TermOrder returns a key that orders terms as one segment holding the
// snapshot's live documents would number them: by the first live document
// that uses the term (in a unit, its header or its names), then by where in
// that document's analysis it was met. With one segment and no deletions it
// is the term's number.
func (v *Snapshot) TermOrder(t int32) uint64 {
	if v.gv == nil && v.dead[0] == nil {
		return uint64(uint32(t))
	}
	if k, ok := v.order.Load(t); ok {
		return k.(uint64)
	}
	k := uint64(math.MaxUint64)
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		first := int32(math.MaxInt32)
		if s.ds != nil { // a stats file: the documents' term lists
			for doc := range int32(s.NumDocs()) {
				if !v.Deleted(i, doc) && slices.Contains(s.DocTerms(doc), l) {
					first = doc
					break
				}
			}
		}
		for _, p := range s.Postings(l) {
			if uint(p.Unit) >= uint(len(s.units)) {
				continue
			}
			if d := s.units[p.Unit].Doc; !v.Deleted(i, d) {
				first = d
				break
			}
		}
		for _, p := range s.RoutePostings(l) {
			if p.Doc >= first {
				break
			}
			if !v.Deleted(i, p.Doc) {
				first = p.Doc
				break
			}
		}
		// A word of a document's names only (names.go).
		for _, e := range s.names {
			if e.Doc >= first {
				break
			}
			if !v.Deleted(i, e.Doc) && slices.Contains(s.NameTerms(e), l) {
				first = e.Doc
				break
			}
		}
		if first == math.MaxInt32 {
			continue
		}
		pos := slices.Index(s.DocTerms(first), l)
		k = uint64(uint32(v.docBase[i]+first))<<32 | uint64(uint32(pos))
		break
	}
	v.order.Store(t, k)
	return k
}

// SelfCounts returns the collection's counts of word w as a self-reference
// (the marked term SelfMark+w): how often and in how many documents the
// clauses use it so, and how often w occurs at all in plain views. ok is
// false when the collection has no such marked term or not the word itself.
func (v *Snapshot) SelfCounts(w string) (uses, docs, plain int64, ok bool) {
	m, ok := v.Lookup(SelfMark + w)
	if !ok {
		return 0, 0, 0, false
	}
	base, ok := v.Lookup(w)
	if !ok {
		return 0, 0, 0, false
	}
	for i, s := range v.segs {
		dead := v.dead[i]
		var c SelfCount
		has := false
		lm := v.Local(m, i)
		if lm >= 0 {
			c, has = s.SelfCountOf(lm)
		}
		if has {
			uses += c.Uses
			docs += int64(c.Docs)
			if dead != nil {
				x := dead.self[lm]
				uses -= x.Uses
				docs -= int64(x.Docs)
			}
		}
		lb := v.Local(base, i)
		if lb < 0 {
			continue
		}
		if has {
			plain += c.Plain
			if dead != nil {
				plain -= dead.self[lm].Plain
			}
			continue
		}
		// The segment does not use w as a self-reference: count its plain
		// occurrences (once per process; the search caches the answer).
		units := s.units
		for _, p := range s.Postings(lb) {
			if uint(p.Unit) < uint(len(units)) && units[p.Unit].View == ViewPlain && !(dead != nil && v.Deleted(i, units[p.Unit].Doc)) {
				plain += int64(p.TF)
			}
		}
	}
	return uses, docs, plain, true
}

// DocsWithTerm returns the number of live documents whose units hold term
// t, counting no further than limit+1.
func (v *Snapshot) DocsWithTerm(t int32, limit int) int {
	n := 0
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		if s.ds != nil {
			if uint(l) < uint(len(s.ds.termDocs)) {
				n += int(s.ds.termDocs[l])
			}
			if dd := v.dead[i]; dd != nil {
				a := s.docTermOff
				for doc, dead := range dd.doc {
					if !dead {
						continue
					}
					if k := slices.Index(s.DocTerms(int32(doc)), l); k >= 0 && s.ds.units[a[doc]+int64(k)] > 0 {
						n--
					}
				}
			}
		} else {
			units := s.units
			last := int32(-1)
			for _, p := range s.Postings(l) {
				if uint(p.Unit) >= uint(len(units)) {
					continue
				}
				if d := units[p.Unit].Doc; d != last {
					last = d
					if !v.Deleted(i, d) {
						n++
					}
				}
				if n > limit {
					return n
				}
			}
		}
		if n > limit {
			return n
		}
	}
	return n
}

// ReleaseMemory drops the pages of the snapshot's segment files from this
// process's memory (they stay in the page cache and are read again on
// use). A pass over a whole collection — learning every term's
// associations — would otherwise hold every page it read as the process's
// memory: at 100× CUAD, gigabytes.
func (v *Snapshot) ReleaseMemory() {
	for _, s := range v.segs {
		s.release()
	}
}
