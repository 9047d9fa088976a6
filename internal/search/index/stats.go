package index

import "slices"

// Statistics a segment keeps besides its postings, so a collection of many
// segments can sum them (Snapshot) instead of passing over every posting:
//
//   - heading statistics: for each heading term (HeadMark), the documents it
//     heads clauses in; for each term, the headed units (units carrying a
//     heading term) that hold it; and the number of headed units. The search
//     learns from them which body words go with which headings.
//   - self-reference counts: for each self-reference word (SelfMark), how
//     often and in how many documents the clauses use it so, and how often
//     the word occurs at all in plain views.
//
// A segment written to a file carries them; one built in memory counts them
// on first use.

// countStats fills the segment's statistics (once).
func (s *Segment) countStats() {
	s.statOnce.Do(func() {
		if s.headDocs != nil {
			return // read from the file
		}
		s.headDocs, s.headedDF, s.headedN, s.self = countStats(s)
	})
}

// HeadDocs returns the number of documents heading term t heads clauses in.
func (s *Segment) HeadDocs(t int32) int32 {
	s.countStats()
	if uint(t) >= uint(len(s.headDocs)) {
		return 0
	}
	return s.headDocs[t]
}

// HeadedDF returns the number of headed units holding term t.
func (s *Segment) HeadedDF(t int32) int32 {
	s.countStats()
	if uint(t) >= uint(len(s.headedDF)) {
		return 0
	}
	return s.headedDF[t]
}

// HeadedUnits returns the number of units carrying heading terms.
func (s *Segment) HeadedUnits() int64 {
	s.countStats()
	return s.headedN
}

// SelfCounts returns the segment's self-reference counts, by marked term.
func (s *Segment) SelfCounts() []SelfCount {
	s.countStats()
	return s.self
}

// selfCountOf returns the counts of self-reference term t (a SelfMark term).
func (s *Segment) selfCountOf(t int32) (SelfCount, bool) {
	s.countStats()
	i, ok := slices.BinarySearchFunc(s.self, t, func(c SelfCount, t int32) int { return int(c.Term - t) })
	if !ok {
		return SelfCount{}, false
	}
	return s.self[i], true
}

// countStats counts the statistics of a segment (see above) with one pass
// over its postings.
func countStats(s *Segment) (headDocs, headedDF []int32, headedN int64, self []SelfCount) {
	nt := s.NumTerms()
	headed := make([]bool, len(s.units))
	headDocs = make([]int32, nt)
	for t := range int32(nt) {
		if !IsHeadTerm(s.term(t)) {
			continue
		}
		last := int32(-1)
		for _, p := range s.Postings(t) {
			if uint(p.Unit) >= uint(len(s.units)) {
				continue
			}
			headed[p.Unit] = true
			if d := s.units[p.Unit].Doc; d != last {
				last = d
				headDocs[t]++
			}
		}
	}
	for _, h := range headed {
		if h {
			headedN++
		}
	}
	headedDF = make([]int32, nt)
	for t := range int32(nt) {
		for _, p := range s.Postings(t) {
			if uint(p.Unit) < uint(len(headed)) && headed[p.Unit] {
				headedDF[t]++
			}
		}
	}
	for t := range int32(nt) {
		w := s.term(t)
		if len(w) == 0 || w[0] != SelfMark[0] {
			continue
		}
		c := SelfCount{Term: t}
		last := int32(-1)
		for _, p := range s.Postings(t) {
			if uint(p.Unit) >= uint(len(s.units)) {
				continue
			}
			c.Uses += int64(p.TF)
			if d := s.units[p.Unit].Doc; d != last {
				last = d
				c.Docs++
			}
		}
		if base, ok := s.Lookup(w[len(SelfMark):]); ok {
			c.Plain = plainTF(s, base)
		}
		self = append(self, c)
	}
	return headDocs, headedDF, headedN, self
}

// plainTF returns the occurrences of term t in plain-view units.
func plainTF(s *Segment, t int32) int64 {
	var n int64
	for _, p := range s.Postings(t) {
		if uint(p.Unit) < uint(len(s.units)) && s.units[p.Unit].View == ViewPlain {
			n += int64(p.TF)
		}
	}
	return n
}
