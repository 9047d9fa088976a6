package index

import (
	"fmt"
	"os"
	"runtime"
	"sort"
)

// A stats file is what a search needs of a segment it does not score: the
// segment's documents (ids, names, versions, unit ranges), vocabulary,
// header postings and titles (routing), names, per-document term lists,
// heading and self-reference statistics — and, in place of the postings,
// forward lists and units, the counts the collection's statistics are
// summed from: each term's document frequency, and for each document the
// units, lengths and term counts it holds, so deleting it can be subtracted
// too. An app server that scores half of a collection's segments keeps the
// other half as stats files (about a sixth of their size): with them it
// plans every question exactly as a server holding all of them would —
// routing, framing words, IDF, average lengths — and leaves the scoring of
// those segments to the servers that hold them (search: sharded search).
//
// A stats file is written from a full segment (WriteStatsFile) and opened by
// OpenSegment like one; Segment.StatsOnly reports it. Its postings, units,
// spans, forward lists and vectors are empty.

// docStats is what a stats file holds of each document, parallel to its
// term list (DocTerms).
type docStats struct {
	termDF, termDocs           []int32 // by term
	units, headed, tf, plainTF []int32 // by entry of docTerms
	views                      []int64 // by document: units and terms per view
	headedN                    []int32 // by document: headed units
}

// StatsOnly reports whether the segment was opened from a stats file: it
// has no postings, units or vectors to score with.
func (s *Segment) StatsOnly() bool { return s.ds != nil }

// DF returns the number of units holding term t, t in range.
func (s *Segment) DF(t int32) int {
	if s.ds != nil {
		if uint(t) >= uint(len(s.ds.termDF)) {
			return 0
		}
		return int(s.ds.termDF[t])
	}
	return len(s.Postings(t))
}

// computeDocStats counts a full segment's per-document statistics.
func computeDocStats(s *Segment) *docStats {
	s.countStats()
	nt := s.NumTerms()
	nd := s.NumDocs()
	ds := &docStats{termDF: make([]int32, nt), termDocs: make([]int32, nt),
		units: make([]int32, len(s.docTerms)), headed: make([]int32, len(s.docTerms)),
		tf: make([]int32, len(s.docTerms)), plainTF: make([]int32, len(s.docTerms)),
		views: make([]int64, 2*int(NumViews)*nd), headedN: make([]int32, nd)}
	headed := make([]bool, len(s.units))
	for t := range int32(nt) {
		pl := s.Postings(t)
		ds.termDF[t] = int32(len(pl))
		last := int32(-1)
		for _, p := range pl {
			if uint(p.Unit) >= uint(len(s.units)) {
				continue
			}
			if d := s.units[p.Unit].Doc; d != last {
				last = d
				ds.termDocs[t]++
			}
			if IsHeadTerm(s.term(t)) {
				headed[p.Unit] = true
			}
		}
	}
	for d := range int32(nd) {
		first, limit := s.DocRange(d)
		for u := first; u < limit; u++ {
			un := s.units[u]
			if uint(un.View) < uint(NumViews) {
				ds.views[(int(d)*int(NumViews)+int(un.View))*2] += 1
				ds.views[(int(d)*int(NumViews)+int(un.View))*2+1] += int64(un.Len)
			}
			if headed[u] {
				ds.headedN[d]++
			}
		}
		a := s.docTermOff[d]
		for k, t := range s.termsOf(d) {
			pl := s.Postings(t)
			i := sort.Search(len(pl), func(i int) bool { return pl[i].Unit >= first })
			for ; i < len(pl) && pl[i].Unit < limit; i++ {
				p := pl[i]
				e := a + int64(k)
				ds.units[e]++
				ds.tf[e] += int32(p.TF)
				if headed[p.Unit] {
					ds.headed[e]++
				}
				if s.units[p.Unit].View == ViewPlain {
					ds.plainTF[e] += int32(p.TF)
				}
			}
		}
	}
	return ds
}

// WriteStatsFile writes the stats file of a segment (built in memory or
// opened from a full segment file) to path: temporary file, fsync, rename.
func WriteStatsFile(path string, s *Segment) (int64, error) {
	if s.StatsOnly() || s.building() {
		return 0, fmt.Errorf("search: a stats file is written from a segment file (%q)", s.name)
	}
	ds := computeDocStats(s)
	stats := &Segment{
		name: s.name, docs: s.docs, byID: s.byID, ndocs: s.NumDocs(), docStrOff: s.docStrOff, docStr: s.docStr, docRange: s.docRange, docHash: s.docHash,
		vocab: nil, terms: s.terms, vocabHash: s.vocabHash, termOff: s.termOff, termStr: s.termStr,
		rpost: s.rpost, rall: s.rall, roff: s.roff, docLen: s.docLen, rtotal: s.rtotal, titleSeq: s.titleSeq, titleOff: s.titleOff, titles: s.titles,
		docTermOff: s.docTermOff, docTerms: s.docTerms, viewLen: s.viewLen, viewN: s.viewN,
		headDocs: s.headDocs, headedDF: s.headedDF, headedN: s.headedN, self: s.self,
		names: s.names, nameTerms: s.nameTerms, nameTexts: s.nameTexts, nameTextOff: s.nameTextOff, nameTextStr: s.nameTextStr,
		nameFirst: s.nameFirst, nameFirstOff: s.nameFirstOff, nameFirstList: s.nameFirstList,
		ds: ds, nunits: s.NumUnits(),
	}
	stats.statOnce.Do(func() {})
	var size int64
	err := writeFileAtomic(path, func(f *os.File) error {
		var err error
		size, err = writeSegment(newFileWriter(f, segmentMagic, segmentFormat, numSections), stats)
		return err
	})
	// stats points into s's mapping, which s's cleanup unmaps once s is
	// unreachable: keep s until the file is written.
	runtime.KeepAlive(s)
	return size, err
}
