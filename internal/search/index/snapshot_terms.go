package index

import (
	"math"
	"slices"
	"sync"
)

// A Snapshot's terms: numbered across its segments (globalVocab, Lookup,
// Global, Local) with their statistics summed over the segments minus what
// deleted documents held (DF, RouteDF, HeadDocs, SelfCount, …).

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
	return v.liveCount(t, func(s *Segment, l int32) int { return s.DF(l) }, func(d *deadSet) map[int32]int32 { return d.df })
}

// liveCount sums, over the segments that know term t, what count says a
// segment holds of it, less what its deleted documents held (the map dead
// returns, by the segment's term number).
func (v *Snapshot) liveCount(t int32, count func(s *Segment, l int32) int, dead func(d *deadSet) map[int32]int32) int {
	n := 0
	for i, s := range v.segs {
		l := v.Local(t, i)
		if l < 0 {
			continue
		}
		n += count(s, l)
		if d := v.dead[i]; d != nil {
			n -= int(dead(d)[l])
		}
	}
	return n
}

// RouteDF returns the number of live documents whose header holds term t,
// and of those, how many hold it in their file name, title or parties.
func (v *Snapshot) RouteDF(t int32) (docs, titles int) {
	// A common header word ("agreement", "inc") has a posting in most
	// documents; routing asks for it several times a question.
	if c, ok := v.routeDF.Load(t); ok {
		n := c.([2]int)
		return n[0], n[1]
	}
	defer func() { v.routeDF.Store(t, [2]int{docs, titles}) }()
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
	return v.liveCount(t, func(s *Segment, l int32) int { return int(s.HeadDocs(l)) }, func(d *deadSet) map[int32]int32 { return d.headDocs })
}

// HeadedDF returns the number of live headed units holding term t.
func (v *Snapshot) HeadedDF(t int32) int {
	return v.liveCount(t, func(s *Segment, l int32) int { return int(s.HeadedDF(l)) }, func(d *deadSet) map[int32]int32 { return d.headedDF })
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
		c, ok := s.selfCountOf(l)
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
				if !v.Deleted(i, doc) && slices.Contains(s.termsOf(doc), l) {
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
			if !v.Deleted(i, e.Doc) && slices.Contains(s.nameTermsOf(e), l) {
				first = e.Doc
				break
			}
		}
		if first == math.MaxInt32 {
			continue
		}
		pos := slices.Index(s.termsOf(first), l)
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
			c, has = s.selfCountOf(lm)
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
					if k := slices.Index(s.termsOf(int32(doc)), l); k >= 0 && s.ds.units[a[doc]+int64(k)] > 0 {
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
