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
// deleted documents of input i) to w.
func mergeSegments(w *fileWriter, segs []*Segment, deleted [][]int32) (MergeStats, error) {
	var st MergeStats
	ins := make([]*mergeInput, len(segs))
	pg := &mergeGuard{ins: ins}
	defer pg.releaseAll()
	for i, s := range segs {
		if s.StatsOnly() {
			return st, fmt.Errorf("search: segment %s is a stats file: it cannot be merged", s.name)
		}
		if err := s.verifyReleasing(); err != nil {
			return st, err
		}
		in := &mergeInput{s: s}
		if i < len(deleted) && len(deleted[i]) > 0 {
			d, err := deadOf(s, deleted[i])
			if err != nil {
				return st, err
			}
			in.dead = d
		}
		ins[i] = in
	}
	// Documents and units.
	var docs, units int32
	dim, model := 0, ""
	for _, in := range ins {
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
			in.docs[d] = docs
			in.shift[d] = units - f
			docs++
			if int64(units)+int64(l-f) > math.MaxInt32-1 {
				return st, fmt.Errorf("search: a merged segment holds at most %d units", math.MaxInt32-1)
			}
			units += l - f
		}
		if d, m := s.Dense(); d > 0 {
			if dim == 0 {
				dim, model = d, m
			} else if d != dim || m != model {
				return st, fmt.Errorf("search: segments with vectors of different models (%s, %s) cannot be merged: re-ingest with one embedding model", model, m)
			}
		}
	}
	// The merged vocabulary, numbered in order of first use by the live
	// documents.
	byStr := map[string]int32{}
	var terms []string
	for _, in := range ins {
		s := in.s
		in.remap = make([]int32, s.NumTerms())
		for t := range in.remap {
			in.remap[t] = -1
		}
		for d := range int32(s.NumDocs()) {
			if in.docs[d] < 0 {
				continue
			}
			dt := s.DocTerms(d)
			pg.read(faultBytes + int64(len(dt))*4)
			for _, t := range dt {
				if uint(t) >= uint(len(in.remap)) {
					return st, fmt.Errorf("%w: segment %s: document terms", ErrBadIndex, s.name)
				}
				if in.remap[t] >= 0 {
					continue
				}
				str := s.term(t)
				g, ok := byStr[str]
				if !ok {
					g = int32(len(terms))
					byStr[str] = g
					terms = append(terms, str)
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
	byStr = nil
	nt := len(terms)
	meta := segmentMeta{Docs: int(docs), Units: int(units), Terms: nt, Dim: dim, DenseModel: model, Sizes: structSizes()}

	// Documents.
	docStrOff := make([]uint32, 0, 3*int(docs)+1)
	ids := make([]string, 0, docs)
	w.begin(secDocStr)
	n := uint32(0)
	for _, in := range ins {
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
	meta.DocHash = len(docHash)
	ids, docStrOff = nil, nil
	perDoc := func(id int, fn func(in *mergeInput, d int32) []byte) {
		w.begin(id)
		for _, in := range ins {
			for d := range int32(in.s.NumDocs()) {
				if in.docs[d] >= 0 {
					b := fn(in, d)
					pg.read(int64(len(b)) + 64)
					w.write(b)
				}
			}
		}
		w.end()
	}
	perDoc(secDocRange, func(in *mergeInput, d int32) []byte {
		f, l := in.s.DocRange(d)
		return asBytes([]int32{f + in.shift[d], l + in.shift[d]})
	})
	perDoc(secRouteLen, func(in *mergeInput, d int32) []byte { return asBytes([]int32{in.s.HeaderLen(d)}) })
	for _, in := range ins {
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

	// Units, spans, forward lists: each a pass over the live units.
	perUnit := func(id int, fn func(in *mergeInput, d, u int32), last func()) {
		w.begin(id)
		for _, in := range ins {
			for d := range int32(in.s.NumDocs()) {
				if in.docs[d] < 0 {
					continue
				}
				f, l := in.s.DocRange(d)
				for u := f; u < l; u++ {
					fn(in, d, u)
				}
				pg.read(int64(l-f) * 16) // the unit and its offsets
			}
			in.s.release()
		}
		if last != nil {
			last()
		}
		w.end()
	}
	// Small values are gathered in these buffers and written in blocks.
	var ibuf []int32
	flushInts := func(force bool) {
		if len(ibuf) >= 1<<14 || force && len(ibuf) > 0 {
			w.write(asBytes(ibuf))
			ibuf = ibuf[:0]
		}
	}
	var ubuf []Unit
	perUnit(secUnits, func(in *mergeInput, d, u int32) {
		un := in.s.units[u]
		un.Doc = in.docs[d]
		if ubuf = append(ubuf, un); len(ubuf) >= 1<<12 {
			w.write(asBytes(ubuf))
			ubuf = ubuf[:0]
		}
	}, func() {
		w.write(asBytes(ubuf))
		ubuf = nil
	})
	var off int32
	perUnit(secSpanOff, func(in *mergeInput, d, u int32) {
		ibuf = append(ibuf, off)
		flushInts(false)
		off += int32(len(in.s.UnitSpans(u)))
	}, func() {
		ibuf = append(ibuf, off)
		flushInts(true)
	})
	meta.Spans = int(off)
	perUnit(secSpans, func(in *mergeInput, d, u int32) {
		sp := in.s.UnitSpans(u)
		pg.read(int64(len(sp)) * 8)
		w.write(asBytes(sp))
	}, nil)
	off = 0
	perUnit(secFwdOff, func(in *mergeInput, d, u int32) {
		ibuf = append(ibuf, off)
		flushInts(false)
		off += int32(len(in.s.UnitTerms(u)))
	}, func() {
		ibuf = append(ibuf, off)
		flushInts(true)
	})
	meta.Fwd = int(off)
	var bad error
	perUnit(secFwd, func(in *mergeInput, d, u int32) {
		ts := in.s.UnitTerms(u)
		pg.read(int64(len(ts)) * 4)
		for _, t := range ts {
			g := int32(-1)
			if uint(t) < uint(len(in.remap)) {
				g = in.remap[t]
			}
			if g < 0 && bad == nil {
				bad = fmt.Errorf("%w: segment %s: unit %d uses a term its document does not list", ErrBadIndex, in.s.name, u)
			}
			ibuf = append(ibuf, g)
		}
		flushInts(false)
	}, func() { flushInts(true) })
	if bad != nil {
		return st, bad
	}

	// The vocabulary.
	termOff := make([]uint32, 0, nt+1)
	w.begin(secTermStr)
	n = 0
	for _, t := range terms {
		termOff = append(termOff, n)
		n += uint32(len(t))
		w.write([]byte(t))
	}
	w.end()
	termOff = append(termOff, n)
	w.section(secTermOff, asBytes(termOff))
	termOff = nil
	vh := vocabTable(terms)
	w.section(secVocabHash, asBytes(vh))
	meta.VocabHash = len(vh)
	vh = nil

	// Postings and header postings, term by term in merged order: each
	// input's lists of the term, units and documents renumbered, deleted
	// ones left out. A first pass writes the offsets, a second the lists.
	eachTerm := func(fn func(t int32, in *mergeInput, old int32)) {
		for _, in := range ins {
			in.k = 0
		}
		for t := range int32(nt) {
			for _, in := range ins {
				if in.k < len(in.inv) && in.inv[in.k][0] == t {
					fn(t, in, in.inv[in.k][1])
					in.k++
				}
			}
		}
	}
	livePostings := func(in *mergeInput, old int32, fn func(p Posting)) int64 {
		var c int64
		pl := in.s.Postings(old)
		pg.read(faultBytes + int64(len(pl))*(8+16)) // the list, and its units
		for _, p := range pl {
			if uint(p.Unit) >= uint(len(in.s.units)) {
				continue
			}
			d := in.s.units[p.Unit].Doc
			if in.docs[d] < 0 {
				continue
			}
			c++
			if fn != nil {
				p.Unit += in.shift[d]
				fn(p)
			}
		}
		return c
	}
	liveRoutes := func(in *mergeInput, old int32, fn func(p RoutePosting)) int64 {
		var c int64
		rl := in.s.RoutePostings(old)
		pg.read(faultBytes + int64(len(rl))*int64(unsafe.Sizeof(RoutePosting{})))
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
	offsets := func(id int, count func(in *mergeInput, old int32) int64) int64 {
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
		eachTerm(func(t int32, in *mergeInput, old int32) {
			for ; last < t; last++ {
				put()
			}
			total += count(in, old)
		})
		for ; last < int32(nt); last++ {
			put()
		}
		w.write(asBytes(lbuf))
		w.end()
		return total
	}
	meta.Postings = offsets(secPostOff, func(in *mergeInput, old int32) int64 { return livePostings(in, old, nil) })
	w.begin(secPost)
	var pbuf []Posting
	eachTerm(func(t int32, in *mergeInput, old int32) {
		pbuf = pbuf[:0]
		livePostings(in, old, func(p Posting) {
			if pbuf = append(pbuf, p); len(pbuf) >= 1<<14 {
				w.write(asBytes(pbuf))
				pbuf = pbuf[:0]
			}
		})
		w.write(asBytes(pbuf))
	})
	w.end()
	meta.Routes = offsets(secRouteOff, func(in *mergeInput, old int32) int64 { return liveRoutes(in, old, nil) })
	w.begin(secRoute)
	var rbuf []RoutePosting
	eachTerm(func(t int32, in *mergeInput, old int32) {
		rbuf = rbuf[:0]
		liveRoutes(in, old, func(p RoutePosting) { rbuf = append(rbuf, p) })
		w.write(asBytes(rbuf))
	})
	w.end()
	for _, in := range ins {
		in.s.release()
	}

	// Title sequences and document term lists, renumbered.
	var titleOff, docTermOff []int64
	var tn, dn int64
	perDoc(secTitle, func(in *mergeInput, d int32) []byte {
		titleOff = append(titleOff, tn)
		ibuf = ibuf[:0]
		for _, t := range in.s.TitleSeq(d) {
			ibuf = append(ibuf, remapped(in, t))
			tn++
		}
		return asBytes(ibuf)
	})
	perDoc(secDocTerms, func(in *mergeInput, d int32) []byte {
		docTermOff = append(docTermOff, dn)
		ibuf = ibuf[:0]
		for _, t := range in.s.DocTerms(d) {
			ibuf = append(ibuf, remapped(in, t))
			dn++
		}
		return asBytes(ibuf)
	})
	titleOff32 := make([]int32, 0, len(titleOff)+1)
	for _, o := range titleOff {
		titleOff32 = append(titleOff32, int32(o))
	}
	w.section(secTitleOff, asBytes(append(titleOff32, int32(tn))))
	w.section(secDocTermOff, asBytes(append(docTermOff, dn)))
	meta.Titles, meta.DocTerms = int(tn), dn
	titleOff, titleOff32, docTermOff = nil, nil, nil

	// The documents' names, renumbered.
	var nents []NameEntry
	var nterms []int32
	var ntexts []string
	for _, in := range ins {
		for d := range int32(in.s.NumDocs()) {
			if in.docs[d] < 0 {
				continue
			}
			es, _ := in.s.NamesOf(d)
			pg.read(faultBytes)
			for _, e := range es {
				ts := in.s.NameTerms(e)
				ne := NameEntry{Doc: in.docs[d], Start: int32(len(nterms)), Len: int32(len(ts)), Text: int32(len(ntexts)), Kind: e.Kind, Party: e.Party}
				for _, t := range ts {
					nterms = append(nterms, remapped(in, t))
				}
				ntexts = append(ntexts, in.s.NameText(e))
				nents = append(nents, ne)
			}
		}
	}
	nameOff, nameStr := stringTable(ntexts)
	firstOff, firstList := nameFirstTable(nents, nterms, nt)
	w.section(secNames, asBytes(nents))
	w.section(secNameTerms, asBytes(nterms))
	w.section(secNameTextOff, asBytes(nameOff))
	w.section(secNameText, nameStr)
	w.section(secNameFirstOff, asBytes(firstOff))
	w.section(secNameFirst, asBytes(firstList))
	meta.Names, meta.NameTerms, meta.NameFirst = len(nents), len(nterms), len(firstList)
	nents, nterms, ntexts, firstOff, firstList = nil, nil, nil, nil, nil

	// Heading statistics and self-reference counts: the inputs' sums less
	// what their deleted documents held.
	headDocs := make([]int32, nt)
	headedDF := make([]int32, nt)
	eachTerm(func(t int32, in *mergeInput, old int32) {
		headDocs[t] += in.s.HeadDocs(old)
		headedDF[t] += in.s.HeadedDF(old)
		if in.dead != nil {
			headDocs[t] -= in.dead.headDocs[old]
			headedDF[t] -= in.dead.headedDF[old]
		}
	})
	w.section(secHeadDocs, asBytes(headDocs))
	w.section(secHeadedDF, asBytes(headedDF))
	headDocs, headedDF = nil, nil
	var self []SelfCount
	for t := range int32(nt) {
		str := terms[t]
		if len(str) == 0 || str[0] != SelfMark[0] {
			continue
		}
		c := SelfCount{Term: t}
		for _, in := range ins {
			lm, okm := in.s.Lookup(str)
			var ic SelfCount
			has := false
			if okm {
				ic, has = in.s.SelfCountOf(lm)
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
				continue
			}
			// The input uses the word but not as a self-reference: count
			// its plain occurrences in live units.
			if lb, ok := in.s.Lookup(str[len(SelfMark):]); ok {
				pl := in.s.Postings(lb)
				pg.read(faultBytes + int64(len(pl))*(8+16))
				for _, p := range pl {
					if uint(p.Unit) < uint(len(in.s.units)) {
						if un := in.s.units[p.Unit]; un.View == ViewPlain && in.docs[un.Doc] >= 0 {
							c.Plain += int64(p.TF)
						}
					}
				}
			}
		}
		if c.Docs > 0 {
			self = append(self, c)
		}
	}
	w.section(secSelf, asBytes(self))
	meta.Self = len(self)

	// Vectors.
	if dim > 0 {
		var vecUnit []int32
		w.begin(secVecs)
		perVec := func(fn func(in *mergeInput, d, u int32, vec []float32)) {
			for _, in := range ins {
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
						fn(in, d, u, vec)
					}
				}
			}
		}
		perVec(func(in *mergeInput, d, u int32, vec []float32) {
			vecUnit = append(vecUnit, u+in.shift[d])
			w.write(asBytes(vec))
		})
		w.end()
		vecOf := make([]int32, units)
		for i := range vecOf {
			vecOf[i] = -1
		}
		for j, u := range vecUnit {
			vecOf[u] = int32(j)
		}
		w.section(secVecOf, asBytes(vecOf))
		w.section(secVecUnit, asBytes(vecUnit))
		meta.Vectors = len(vecUnit)
	} else {
		w.section(secVecOf)
		w.section(secVecUnit)
		w.section(secVecs)
	}
	if bad != nil {
		return st, bad
	}
	writeDocStats(w, nil)
	mj, err := json.Marshal(meta)
	if err != nil {
		return st, err
	}
	size, err := w.finish(mj)
	return MergeStats{Docs: int(docs), Units: int(units), Terms: nt, Bytes: size}, err
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
