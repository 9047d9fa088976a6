package index

import (
	"fmt"
	"math"
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

	routeDF sync.Map // term → [2]int: RouteDF's answer, counted once

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

func newDeadSet(s *Segment) *deadSet {
	return &deadSet{doc: make([]bool, s.NumDocs()), df: map[int32]int32{}, routeDF: map[int32]int32{}, titleDF: map[int32]int32{},
		headDocs: map[int32]int32{}, headedDF: map[int32]int32{}, self: map[int32]SelfCount{}}
}

// take marks doc of segment s deleted; first is false when it already was
// (a document listed twice is counted once).
func (d *deadSet) take(s *Segment, doc int32) (first bool, err error) {
	if doc < 0 || int(doc) >= s.NumDocs() {
		return false, fmt.Errorf("%w: deleted document %d of segment %s does not exist", ErrBadIndex, doc, s.name)
	}
	if d.doc[doc] {
		return false, nil
	}
	d.doc[doc] = true
	d.docs++
	return true, nil
}

// deadOf counts what the deleted documents of segment s held.
func deadOf(s *Segment, docs []int32) (*deadSet, error) {
	if s.ds != nil {
		return deadOfStats(s, docs)
	}
	d := newDeadSet(s)
	selfOf := s.selfByBase()
	for _, doc := range docs {
		if first, err := d.take(s, doc); err != nil {
			return nil, err
		} else if !first {
			continue
		}
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
		for _, t := range s.termsOf(doc) {
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
	d := newDeadSet(s)
	selfOf := s.selfByBase()
	ds := s.ds
	for _, doc := range docs {
		if first, err := d.take(s, doc); err != nil {
			return nil, err
		} else if !first {
			continue
		}
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
		for k, t := range s.termsOf(doc) {
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
