package index

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Merging adjacent segments into one, as Lucene does, streaming: the output
// is written section by section from the inputs' mapped arrays, so a merge
// holds in memory only what grows with the vocabulary (the merged
// vocabulary, each input's term numbering into it), never the postings, and
// its memory does not grow with the collection. Deleted documents are left
// out. The merged segment is what building one segment from the inputs'
// live documents, in order, would give: documents, units and spans in the
// same order, terms numbered in order of first use (each live document's
// term list in order: see Segment), postings sorted by unit, and the
// statistics recounted for the live documents only — so searching it gives
// exactly what searching the inputs did (tested).
//
// Every input is first checked against its checksums (Verify), so a damaged
// segment is never merged into a good one: the merge fails and the inputs
// stay as they are.
//
// The inputs' pages read through their mappings stay in the process's
// memory until released: a merge reads every page of its inputs (the
// checksums alone read them all), so without releasing them it held its
// inputs whole (1.7 GB for four 450 MB segments of the 100× ingest, 35 MB
// of its own). A mergeGuard releases them whenever more than
// mergeMappedBudget are held (docs/SCALE.md, "Memory").

// mergeInput is one input segment and what the merge derives from it.
type mergeInput struct {
	s     *Segment
	dead  *deadSet
	docs  []int32 // old document → new number, or -1 when deleted
	shift []int32 // old document → new first unit - old first unit
	remap []int32 // old term → merged term, or -1 when only deleted documents use it
	// inv lists (merged term, old term) pairs sorted by merged term, for
	// walking the merged vocabulary in order.
	inv [][2]int32
	k   int // cursor into inv
}

func (in *mergeInput) deadDoc(d int32) bool {
	return in.dead != nil && uint(d) < uint(len(in.dead.doc)) && in.dead.doc[d]
}

// mergeMappedBudget bounds the input pages a merge keeps mapped; the
// guard looks at what is held (MappedResident) every mergeMappedCheck
// bytes the merge may have read.
const (
	mergeMappedBudget = 128 << 20
	mergeMappedCheck  = 32 << 20
	// faultBytes is what one read at a new place may map: the kernel maps
	// a faulting page's neighbours too (64 KB).
	faultBytes = 64 << 10
)

// mergeGuard releases the merge inputs' mapped pages above the budget.
type mergeGuard struct {
	ins    []*mergeInput
	n      int64 // bytes that may have been read since the last check
	checks int
}

// read counts n bytes that may have been read through the mappings.
func (g *mergeGuard) read(n int64) {
	if g.n += n; g.n < mergeMappedCheck {
		return
	}
	g.n = 0
	g.checks++
	held, ok := MappedResident()
	if !ok {
		// Not known here: release every 4 checks.
		if g.checks%4 != 0 {
			return
		}
		held = mergeMappedBudget + 1
	}
	if held > mergeMappedBudget {
		g.releaseAll()
	}
}

func (g *mergeGuard) releaseAll() {
	for _, in := range g.ins {
		if in != nil {
			in.s.release()
		}
	}
}

// MergeStats describes a finished merge.
type MergeStats struct {
	Docs, Units, Terms int
	Bytes              int64
}

// mergeSegments writes the merge of inputs (in order; deleted[i] the
// deleted documents of input i) to w. The parts run in the order the
// sections are written; each is a method of merger.
func mergeSegments(w *fileWriter, segs []*Segment, deleted [][]int32) (MergeStats, error) {
	m := &merger{w: w, ins: make([]*mergeInput, len(segs))}
	m.pg = &mergeGuard{ins: m.ins}
	defer m.pg.releaseAll()
	for _, part := range []func() error{
		func() error { return m.open(segs, deleted) },
		m.numberDocs,
		m.numberTerms,
		m.writeDocs,
		m.writeUnits,
		m.writeVocabulary,
		m.writePostings,
		m.writeDocLists,
		m.writeNames,
		m.writeHeadings,
		m.writeSelfCounts,
		m.writeVectors,
	} {
		if err := part(); err != nil {
			return MergeStats{}, err
		}
	}
	writeDocStats(w, nil)
	mj, err := json.Marshal(m.meta)
	if err != nil {
		return MergeStats{}, err
	}
	size, err := w.finish(mj)
	return MergeStats{Docs: int(m.docs), Units: int(m.units), Terms: len(m.terms), Bytes: size}, err
}

// merger is one merge of segments under way: its inputs, what it has
// numbered so far and the header it fills in.
type merger struct {
	w    *fileWriter
	ins  []*mergeInput
	pg   *mergeGuard
	meta segmentMeta

	docs, units int32    // the merged segment's documents and units
	dim         int      // its vectors' dimension (0: none)
	model       string   // and model
	terms       []string // its vocabulary, in merged term order
	ibuf        []int32  // small values gathered and written in blocks
}

// open checks every input against its checksums and reads its deleted
// documents.
func (m *merger) open(segs []*Segment, deleted [][]int32) error {
	for i, s := range segs {
		if s.StatsOnly() {
			return fmt.Errorf("search: segment %s is a stats file: it cannot be merged", s.name)
		}
		if err := s.verifyReleasing(); err != nil {
			return err
		}
		in := &mergeInput{s: s}
		if i < len(deleted) && len(deleted[i]) > 0 {
			d, err := deadOf(s, deleted[i])
			if err != nil {
				return err
			}
			in.dead = d
		}
		m.ins[i] = in
	}
	return nil
}

// numberDocs numbers the live documents and their units in order, and
// checks the inputs' vectors come from one model.
func (m *merger) numberDocs() error {
	for _, in := range m.ins {
		s := in.s
		nd := int32(s.NumDocs())
		in.docs = make([]int32, nd)
		in.shift = make([]int32, nd)
		for d := range nd {
			if in.deadDoc(d) {
				in.docs[d] = -1
				continue
			}
			f, l := s.DocRange(d)
			in.docs[d] = m.docs
			in.shift[d] = m.units - f
			m.docs++
			if int64(m.units)+int64(l-f) > math.MaxInt32-1 {
				return fmt.Errorf("search: a merged segment holds at most %d units", math.MaxInt32-1)
			}
			m.units += l - f
		}
		if d, md := s.Dense(); d > 0 {
			if m.dim == 0 {
				m.dim, m.model = d, md
			} else if d != m.dim || md != m.model {
				return fmt.Errorf("search: segments with vectors of different models (%s, %s) cannot be merged: re-ingest with one embedding model", m.model, md)
			}
		}
	}
	return nil
}

// numberTerms makes the merged vocabulary, numbered in order of first use
// by the live documents, and each input's term numbering into it.
func (m *merger) numberTerms() error {
	byStr := map[string]int32{}
	for _, in := range m.ins {
		s := in.s
		in.remap = make([]int32, s.NumTerms())
		for t := range in.remap {
			in.remap[t] = -1
		}
		for d := range int32(s.NumDocs()) {
			if in.docs[d] < 0 {
				continue
			}
			dt := s.termsOf(d)
			m.pg.read(faultBytes + int64(len(dt))*4)
			for _, t := range dt {
				if uint(t) >= uint(len(in.remap)) {
					return fmt.Errorf("%w: segment %s: document terms", ErrBadIndex, s.name)
				}
				if in.remap[t] >= 0 {
					continue
				}
				str := s.term(t)
				g, ok := byStr[str]
				if !ok {
					g = int32(len(m.terms))
					byStr[str] = g
					m.terms = append(m.terms, str)
				}
				in.remap[t] = g
			}
		}
		for t, g := range in.remap {
			if g >= 0 {
				in.inv = append(in.inv, [2]int32{g, int32(t)})
			}
		}
		slices.SortFunc(in.inv, func(a, b [2]int32) int { return int(a[0] - b[0]) })
	}
	m.meta = segmentMeta{Docs: int(m.docs), Units: int(m.units), Terms: len(m.terms), Dim: m.dim, DenseModel: m.model, Sizes: structSizes()}
	return nil
}

// writeDocs writes the documents' strings, their id table, unit ranges and
// header lengths, and sums the views' statistics less the deleted
// documents'.
func (m *merger) writeDocs() error {
	w := m.w
	docStrOff := make([]uint32, 0, 3*int(m.docs)+1)
	ids := make([]string, 0, m.docs)
	w.begin(secDocStr)
	n := uint32(0)
	for _, in := range m.ins {
		for d := range int32(in.s.NumDocs()) {
			if in.docs[d] < 0 {
				continue
			}
			for k := range 3 {
				str := in.s.docString(d, k)
				docStrOff = append(docStrOff, n)
				n += uint32(len(str))
				w.write([]byte(str))
			}
			ids = append(ids, in.s.docString(d, 0))
		}
	}
	w.end()
	docStrOff = append(docStrOff, n)
	w.section(secDocStrOff, asBytes(docStrOff))
	docHash := vocabTable(ids)
	w.section(secDocHash, asBytes(docHash))
	m.meta.DocHash = len(docHash)
	m.perDoc(secDocRange, func(in *mergeInput, d int32) []byte {
		f, l := in.s.DocRange(d)
		return asBytes([]int32{f + in.shift[d], l + in.shift[d]})
	})
	m.perDoc(secRouteLen, func(in *mergeInput, d int32) []byte { return asBytes([]int32{in.s.HeaderLen(d)}) })
	meta := &m.meta
	for _, in := range m.ins {
		for w := range NumViews {
			meta.ViewLen[w] += in.s.viewLen[w]
			meta.ViewN[w] += in.s.viewN[w]
		}
		meta.RouteTotal += in.s.rtotal
		meta.HeadedN += in.s.HeadedUnits()
		if in.dead != nil {
			for w := range NumViews {
				meta.ViewLen[w] -= in.dead.viewLen[w]
				meta.ViewN[w] -= in.dead.viewN[w]
			}
			meta.RouteTotal -= in.dead.rtotal
			meta.HeadedN -= in.dead.headedN
		}
	}
	return nil
}

// perDoc writes section id from fn's bytes for every live document, in
// order.
func (m *merger) perDoc(id int, fn func(in *mergeInput, d int32) []byte) {
	m.w.begin(id)
	for _, in := range m.ins {
		for d := range int32(in.s.NumDocs()) {
			if in.docs[d] >= 0 {
				b := fn(in, d)
				m.pg.read(int64(len(b)) + 64)
				m.w.write(b)
			}
		}
	}
	m.w.end()
}

// perUnit writes section id by calling fn for every live unit, in order,
// then last (when set); each input's pages are released once passed.
func (m *merger) perUnit(id int, fn func(in *mergeInput, d, u int32), last func()) {
	m.w.begin(id)
	for _, in := range m.ins {
		for d := range int32(in.s.NumDocs()) {
			if in.docs[d] < 0 {
				continue
			}
			f, l := in.s.DocRange(d)
			for u := f; u < l; u++ {
				fn(in, d, u)
			}
			m.pg.read(int64(l-f) * 16) // the unit and its offsets
		}
		in.s.release()
	}
	if last != nil {
		last()
	}
	m.w.end()
}

// flushInts writes the gathered ints when there are many (or, forced, any).
func (m *merger) flushInts(force bool) {
	if len(m.ibuf) >= 1<<14 || force && len(m.ibuf) > 0 {
		m.w.write(asBytes(m.ibuf))
		m.ibuf = m.ibuf[:0]
	}
}

// writeUnits writes the units, their spans and their forward lists
// (renumbered terms): each a pass over the live units.
func (m *merger) writeUnits() error {
	var ubuf []Unit
	m.perUnit(secUnits, func(in *mergeInput, d, u int32) {
		un := in.s.units[u]
		un.Doc = in.docs[d]
		if ubuf = append(ubuf, un); len(ubuf) >= 1<<12 {
			m.w.write(asBytes(ubuf))
			ubuf = ubuf[:0]
		}
	}, func() {
		m.w.write(asBytes(ubuf))
		ubuf = nil
	})
	m.meta.Spans = int(m.offsets(secSpanOff, func(in *mergeInput, u int32) int { return len(in.s.UnitSpans(u)) }))
	m.perUnit(secSpans, func(in *mergeInput, d, u int32) {
		sp := in.s.UnitSpans(u)
		m.pg.read(int64(len(sp)) * 8)
		m.w.write(asBytes(sp))
	}, nil)
	m.meta.Fwd = int(m.offsets(secFwdOff, func(in *mergeInput, u int32) int { return len(in.s.UnitTerms(u)) }))
	var bad error
	m.perUnit(secFwd, func(in *mergeInput, d, u int32) {
		ts := in.s.UnitTerms(u)
		m.pg.read(int64(len(ts)) * 4)
		for _, t := range ts {
			g := int32(-1)
			if uint(t) < uint(len(in.remap)) {
				g = in.remap[t]
			}
			if g < 0 && bad == nil {
				bad = fmt.Errorf("%w: segment %s: unit %d uses a term its document does not list", ErrBadIndex, in.s.name, u)
			}
			m.ibuf = append(m.ibuf, g)
		}
		m.flushInts(false)
	}, func() { m.flushInts(true) })
	return bad
}

// offsets writes section id: the running total of size over the live
// units, one a unit and the total after the last; it returns the total.
func (m *merger) offsets(id int, size func(in *mergeInput, u int32) int) int32 {
	var off int32
	m.perUnit(id, func(in *mergeInput, d, u int32) {
		m.ibuf = append(m.ibuf, off)
		m.flushInts(false)
		off += int32(size(in, u))
	}, func() {
		m.ibuf = append(m.ibuf, off)
		m.flushInts(true)
	})
	return off
}

// writeVocabulary writes the merged vocabulary and its hash table.
func (m *merger) writeVocabulary() error {
	w := m.w
	termOff := make([]uint32, 0, len(m.terms)+1)
	w.begin(secTermStr)
	n := uint32(0)
	for _, t := range m.terms {
		termOff = append(termOff, n)
		n += uint32(len(t))
		w.write([]byte(t))
	}
	w.end()
	termOff = append(termOff, n)
	w.section(secTermOff, asBytes(termOff))
	vh := vocabTable(m.terms)
	w.section(secVocabHash, asBytes(vh))
	m.meta.VocabHash = len(vh)
	return nil
}

// eachTerm calls fn for each input's old term of each merged term, in
// merged order.
func (m *merger) eachTerm(fn func(t int32, in *mergeInput, old int32)) {
	for _, in := range m.ins {
		in.k = 0
	}
	for t := range int32(len(m.terms)) {
		for _, in := range m.ins {
			if in.k < len(in.inv) && in.inv[in.k][0] == t {
				fn(t, in, in.inv[in.k][1])
				in.k++
			}
		}
	}
}

// livePostings calls fn (when set) with each posting of an input's term
// old in a live document, its unit renumbered; it returns how many there
// are.
func (m *merger) livePostings(in *mergeInput, old int32, fn func(p Posting, u *Unit)) int64 {
	var c int64
	pl := in.s.Postings(old)
	m.pg.read(faultBytes + int64(len(pl))*(8+16)) // the list, and its units
	for _, p := range pl {
		if uint(p.Unit) >= uint(len(in.s.units)) {
			continue
		}
		u := &in.s.units[p.Unit]
		d := u.Doc
		if in.docs[d] < 0 {
			continue
		}
		c++
		if fn != nil {
			p.Unit += in.shift[d]
			fn(p, u)
		}
	}
	return c
}

// liveRoutes is livePostings for header postings, their documents
// renumbered.
func (m *merger) liveRoutes(in *mergeInput, old int32, fn func(p RoutePosting)) int64 {
	var c int64
	rl := in.s.RoutePostings(old)
	m.pg.read(faultBytes + int64(len(rl))*int64(unsafe.Sizeof(RoutePosting{})))
	for _, p := range rl {
		if uint(p.Doc) >= uint(len(in.docs)) || in.docs[p.Doc] < 0 {
			continue
		}
		c++
		if fn != nil {
			p.Doc = in.docs[p.Doc]
			fn(p)
		}
	}
	return c
}

// termOffsets writes section id: for each merged term, the running total
// of count over the terms before it, and the total after the last; it
// returns the total.
func (m *merger) termOffsets(id int, count func(in *mergeInput, old int32) int64) int64 {
	w := m.w
	w.begin(id)
	var total int64
	var lbuf []int64
	put := func() {
		if lbuf = append(lbuf, total); len(lbuf) >= 1<<13 {
			w.write(asBytes(lbuf))
			lbuf = lbuf[:0]
		}
	}
	last := int32(-1)
	m.eachTerm(func(t int32, in *mergeInput, old int32) {
		for ; last < t; last++ {
			put()
		}
		total += count(in, old)
	})
	for ; last < int32(len(m.terms)); last++ {
		put()
	}
	w.write(asBytes(lbuf))
	w.end()
	return total
}

// writePostings writes the postings and header postings, term by term in
// merged order: each input's lists of the term, units and documents
// renumbered, deleted ones left out. A first pass writes the offsets, a
// second the lists.
func (m *merger) writePostings() error {
	w := m.w
	m.meta.Postings = m.termOffsets(secPostOff, func(in *mergeInput, old int32) int64 { return m.livePostings(in, old, nil) })
	w.begin(secPost)
	var pbuf []Posting
	// The block bounds as a fresh build counts them: with the merged
	// segment's own average lengths, over its postings in order (held in
	// memory until written: 4 bytes for every BoundBlock postings).
	bb := blockBuilder{avg: boundAvg(m.meta.ViewLen, m.meta.ViewN)}
	m.eachTerm(func(t int32, in *mergeInput, old int32) {
		pbuf = pbuf[:0]
		m.livePostings(in, old, func(p Posting, u *Unit) {
			bb.add(p.TF, *u)
			if pbuf = append(pbuf, p); len(pbuf) >= 1<<14 {
				w.write(asBytes(pbuf))
				pbuf = pbuf[:0]
			}
		})
		w.write(asBytes(pbuf))
	})
	w.end()
	bounds := bb.done()
	m.meta.Blocks = int64(len(bounds))
	w.section(secBlockMax, asBytes(bounds))
	m.meta.Routes = m.termOffsets(secRouteOff, func(in *mergeInput, old int32) int64 { return m.liveRoutes(in, old, nil) })
	w.begin(secRoute)
	var rbuf []RoutePosting
	m.eachTerm(func(t int32, in *mergeInput, old int32) {
		rbuf = rbuf[:0]
		m.liveRoutes(in, old, func(p RoutePosting) { rbuf = append(rbuf, p) })
		w.write(asBytes(rbuf))
	})
	w.end()
	for _, in := range m.ins {
		in.s.release()
	}
	return nil
}

// writeDocLists writes the documents' title sequences and term lists,
// renumbered.
func (m *merger) writeDocLists() error {
	var titleOff, docTermOff []int64
	var tn, dn int64
	m.perDoc(secTitle, func(in *mergeInput, d int32) []byte {
		titleOff = append(titleOff, tn)
		m.ibuf = m.ibuf[:0]
		for _, t := range in.s.TitleSeq(d) {
			m.ibuf = append(m.ibuf, remapped(in, t))
			tn++
		}
		return asBytes(m.ibuf)
	})
	m.perDoc(secDocTerms, func(in *mergeInput, d int32) []byte {
		docTermOff = append(docTermOff, dn)
		m.ibuf = m.ibuf[:0]
		for _, t := range in.s.termsOf(d) {
			m.ibuf = append(m.ibuf, remapped(in, t))
			dn++
		}
		return asBytes(m.ibuf)
	})
	titleOff32 := make([]int32, 0, len(titleOff)+1)
	for _, o := range titleOff {
		titleOff32 = append(titleOff32, int32(o))
	}
	m.w.section(secTitleOff, asBytes(append(titleOff32, int32(tn))))
	m.w.section(secDocTermOff, asBytes(append(docTermOff, dn)))
	m.meta.Titles, m.meta.DocTerms = int(tn), dn
	return nil
}

// writeNames writes the documents' names, renumbered, and the table of
// names by first term.
func (m *merger) writeNames() error {
	var nents []NameEntry
	var nterms []int32
	var ntexts []string
	for _, in := range m.ins {
		for d := range int32(in.s.NumDocs()) {
			if in.docs[d] < 0 {
				continue
			}
			es, _ := in.s.NamesOf(d)
			m.pg.read(faultBytes)
			for _, e := range es {
				ts := in.s.nameTermsOf(e)
				ne := NameEntry{Doc: in.docs[d], Start: int32(len(nterms)), Len: int32(len(ts)), Text: int32(len(ntexts)), Kind: e.Kind, Party: e.Party}
				for _, t := range ts {
					nterms = append(nterms, remapped(in, t))
				}
				ntexts = append(ntexts, in.s.NameText(e))
				nents = append(nents, ne)
			}
		}
	}
	w := m.w
	nameOff, nameStr := stringTable(ntexts)
	firstOff, firstList := nameFirstTable(nents, nterms, len(m.terms))
	w.section(secNames, asBytes(nents))
	w.section(secNameTerms, asBytes(nterms))
	w.section(secNameTextOff, asBytes(nameOff))
	w.section(secNameText, nameStr)
	w.section(secNameFirstOff, asBytes(firstOff))
	w.section(secNameFirst, asBytes(firstList))
	m.meta.Names, m.meta.NameTerms, m.meta.NameFirst = len(nents), len(nterms), len(firstList)
	return nil
}

// writeHeadings writes the heading statistics: the inputs' sums less what
// their deleted documents held.
func (m *merger) writeHeadings() error {
	nt := len(m.terms)
	headDocs := make([]int32, nt)
	headedDF := make([]int32, nt)
	m.eachTerm(func(t int32, in *mergeInput, old int32) {
		headDocs[t] += in.s.HeadDocs(old)
		headedDF[t] += in.s.HeadedDF(old)
		if in.dead != nil {
			headDocs[t] -= in.dead.headDocs[old]
			headedDF[t] -= in.dead.headedDF[old]
		}
	})
	m.w.section(secHeadDocs, asBytes(headDocs))
	m.w.section(secHeadedDF, asBytes(headedDF))
	return nil
}

// writeSelfCounts writes the self-reference counts: the inputs' sums less
// what their deleted documents held, and, for an input that uses a word
// but not as a self-reference, its plain occurrences in live units.
func (m *merger) writeSelfCounts() error {
	var self []SelfCount
	for t := range int32(len(m.terms)) {
		str := m.terms[t]
		if len(str) == 0 || str[0] != SelfMark[0] {
			continue
		}
		c := SelfCount{Term: t}
		for _, in := range m.ins {
			m.addSelfCount(&c, in, str)
		}
		if c.Docs > 0 {
			self = append(self, c)
		}
	}
	m.w.section(secSelf, asBytes(self))
	m.meta.Self = len(self)
	return nil
}

// addSelfCount adds input in's counts of the self-reference str to c.
func (m *merger) addSelfCount(c *SelfCount, in *mergeInput, str string) {
	lm, okm := in.s.Lookup(str)
	var ic SelfCount
	has := false
	if okm {
		ic, has = in.s.selfCountOf(lm)
	}
	if has {
		c.Uses += ic.Uses
		c.Docs += ic.Docs
		c.Plain += ic.Plain
		if in.dead != nil {
			x := in.dead.self[lm]
			c.Uses -= x.Uses
			c.Docs -= x.Docs
			c.Plain -= x.Plain
		}
		return
	}
	// The input uses the word but not as a self-reference: count its plain
	// occurrences in live units.
	if lb, ok := in.s.Lookup(str[len(SelfMark):]); ok {
		pl := in.s.Postings(lb)
		m.pg.read(faultBytes + int64(len(pl))*(8+16))
		for _, p := range pl {
			if uint(p.Unit) < uint(len(in.s.units)) {
				if un := in.s.units[p.Unit]; un.View == ViewPlain && in.docs[un.Doc] >= 0 {
					c.Plain += int64(p.TF)
				}
			}
		}
	}
}

// writeVectors writes the live units' vectors, renumbered, when the inputs
// have any (empty sections otherwise).
func (m *merger) writeVectors() error {
	w := m.w
	if m.dim == 0 {
		w.section(secVecOf)
		w.section(secVecUnit)
		w.section(secVecs)
		return nil
	}
	var vecUnit []int32
	w.begin(secVecs)
	for _, in := range m.ins {
		if d, _ := in.s.Dense(); d == 0 {
			continue
		}
		for j, u := range in.s.VectorUnits() {
			if uint(u) >= uint(len(in.s.units)) {
				continue
			}
			d := in.s.units[u].Doc
			if in.docs[d] < 0 {
				continue
			}
			if vec := in.s.Vector(int32(j)); vec != nil {
				vecUnit = append(vecUnit, u+in.shift[d])
				w.write(asBytes(vec))
			}
		}
	}
	w.end()
	vecOf := make([]int32, m.units)
	for i := range vecOf {
		vecOf[i] = -1
	}
	for j, u := range vecUnit {
		vecOf[u] = int32(j)
	}
	w.section(secVecOf, asBytes(vecOf))
	w.section(secVecUnit, asBytes(vecUnit))
	m.meta.Vectors = len(vecUnit)
	return nil
}

// remapped returns the merged number of term t of an input (-1 when out of
// range: a damaged file; the merged segment then fails nothing, the entry
// is skipped by its readers' bounds checks).
func remapped(in *mergeInput, t int32) int32 {
	if uint(t) < uint(len(in.remap)) {
		return in.remap[t]
	}
	return -1
}
