package index

import (
	"sort"

	"github.com/pakton/pakton/internal/names"
)

// The names each document is called by (names.Learn at ingest: its
// parties' full and short names, title, type, date, year, file name,
// folder), analyzed into the segment's terms, for routing questions by the
// names people use (search/routenames.go). A segment keeps them as a table
// of entries, their terms, their texts, and the entries by first term.

// NameEntry is one name of a document, analyzed. It holds no pointers, so
// the table is written to and read from a segment file as it is.
type NameEntry struct {
	Doc   int32 // within the segment
	Start int32 // its terms are nameTermsOf [Start, Start+Len)
	Len   int32
	Text  int32 // index of the name as the document writes it (NameText)
	Kind  uint8 // names.Kind
	Party int8  // the party the name belongs to, or -1
	_     [2]byte
}

// MaxNameTerms bounds the words of a name worth matching (a title of forty
// words is not typed in a question).
const MaxNameTerms = 16

// addNames indexes the names of document di; terms new to the document are
// appended to its term list (mine: the terms it has).
func (s *Segment) addNames(di int32, ns []names.Name, mine map[int32]bool) {
	if s.nameFirst == nil {
		s.nameFirst = map[int32][]int32{}
	}
	for _, n := range ns {
		terms := Analyze(n.Text)
		if len(terms) == 0 || len(terms) > MaxNameTerms || n.Kind == 0 {
			continue
		}
		if n.Kind == names.KindType && len(terms) < 2 {
			continue // "this agreement": a word every contract uses
		}
		e := NameEntry{Doc: di, Start: int32(len(s.nameTerms)), Len: int32(len(terms)), Text: int32(len(s.nameTexts)), Kind: uint8(n.Kind), Party: int8(max(-1, min(n.Party, 127)))}
		for _, term := range terms {
			tid := s.termID(term)
			if !mine[tid] {
				mine[tid] = true
				s.docTerms = append(s.docTerms, tid)
			}
			s.nameTerms = append(s.nameTerms, tid)
		}
		s.nameTexts = append(s.nameTexts, n.Text)
		f := s.nameTerms[e.Start]
		s.nameFirst[f] = append(s.nameFirst[f], int32(len(s.names)))
		s.names = append(s.names, e)
	}
}

// Names returns the segment's name entries, by document.
func (s *Segment) Names() []NameEntry { return s.names }

// nameTermsOf returns the terms of name entry e (nil when out of range: an
// opened segment's table is checked where read).
func (s *Segment) nameTermsOf(e NameEntry) []int32 {
	a, b := int(e.Start), int(e.Start)+int(e.Len)
	if a < 0 || b < a || b > len(s.nameTerms) {
		return nil
	}
	return s.nameTerms[a:b:b]
}

// NameText returns the name of entry e as its document writes it.
func (s *Segment) NameText(e NameEntry) string {
	if s.nameTextOff == nil {
		if e.Text < 0 || int(e.Text) >= len(s.nameTexts) {
			return ""
		}
		return s.nameTexts[e.Text]
	}
	k := int(e.Text)
	if k < 0 || k+1 >= len(s.nameTextOff) {
		return ""
	}
	a, b := s.nameTextOff[k], s.nameTextOff[k+1]
	if b < a || int(b) > len(s.nameTextStr) {
		return ""
	}
	return cloneString(s.nameTextStr[a:b])
}

// NamesOf returns the name entries of document d and the index of the
// first.
func (s *Segment) NamesOf(d int32) ([]NameEntry, int) {
	lo := sort.Search(len(s.names), func(i int) bool { return s.names[i].Doc >= d })
	hi := lo + sort.Search(len(s.names)-lo, func(i int) bool { return s.names[lo+i].Doc > d })
	return s.names[lo:hi:hi], lo
}

// namesStartingWith returns the entries (indices into Names) whose first
// term is t.
func (s *Segment) namesStartingWith(t int32) []int32 {
	if s.nameFirstOff == nil {
		return s.nameFirst[t]
	}
	if t < 0 || int(t)+1 >= len(s.nameFirstOff) {
		return nil
	}
	a, b := s.nameFirstOff[t], s.nameFirstOff[t+1]
	if a < 0 || b < a || int(b) > len(s.nameFirstList) {
		return nil
	}
	return s.nameFirstList[a:b:b]
}

// NameGroup is a segment's names that start with one term and have the
// same terms: one name that several documents go by (the type "supply
// agreement" of every supply agreement).
type NameGroup struct {
	Terms   []int32 // the names' terms
	Entries []int32 // indices into Names, in the order namesStartingWith gives them
}

// NameGroupsStartingWith returns the entries of namesStartingWith(t) grouped
// by their terms, the groups in the order of their first entries. Routing
// compares a question's words with each group once, not with each of the
// hundreds of documents that share a type or title. The groups of a term
// are kept until the segment gains names starting with it (one being
// built only appends them).
func (s *Segment) NameGroupsStartingWith(t int32) []NameGroup {
	list := s.namesStartingWith(t)
	if c, ok := s.nameGroups.Load(t); ok && c.(nameGroupsOf).n == len(list) {
		return c.(nameGroupsOf).groups
	}
	var gs []NameGroup
	byTerms := map[string]int{}
	key := make([]byte, 0, 4*MaxNameTerms)
	for _, ei := range list {
		if ei < 0 || int(ei) >= len(s.names) {
			continue // a damaged file
		}
		terms := s.nameTermsOf(s.names[ei])
		if len(terms) == 0 {
			continue
		}
		key = key[:0]
		for _, x := range terms {
			key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		g, ok := byTerms[string(key)]
		if !ok {
			g = len(gs)
			byTerms[string(key)] = g
			gs = append(gs, NameGroup{Terms: terms})
		}
		gs[g].Entries = append(gs[g].Entries, ei)
	}
	s.nameGroups.Store(t, nameGroupsOf{n: len(list), groups: gs})
	return gs
}

// nameGroupsOf is what Segment.nameGroups keeps for a term: its groups,
// made from n entries.
type nameGroupsOf struct {
	n      int
	groups []NameGroup
}

// nameFirstTable returns, for an opened or built segment, the entries by
// first term as offsets by term and a list (what a file holds).
func nameFirstTable(entries []NameEntry, terms []int32, nt int) (off, list []int32) {
	off = make([]int32, nt+1)
	for _, e := range entries {
		if e.Len > 0 && e.Start >= 0 && int(e.Start) < len(terms) && uint(terms[e.Start]) < uint(nt) {
			off[terms[e.Start]+1]++
		}
	}
	for t := range nt {
		off[t+1] += off[t]
	}
	list = make([]int32, off[nt])
	next := append([]int32(nil), off[:nt]...)
	for i, e := range entries {
		if e.Len > 0 && e.Start >= 0 && int(e.Start) < len(terms) && uint(terms[e.Start]) < uint(nt) {
			f := terms[e.Start]
			list[next[f]] = int32(i)
			next[f]++
		}
	}
	return off, list
}
