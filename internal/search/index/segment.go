package index

import (
	"sort"
	"sync"
)

// Unit is an indexed retrieval unit of a segment. The struct holds no
// pointers, so a segment's arrays are written to and mapped from a file as
// they are.
type Unit struct {
	Doc  int32 // the unit's document, numbered within its segment
	Node int32 // clause node id, or -1
	Len  int32 // number of indexed terms
	View View
	_    [3]byte
}

// Span is a source span in code points, stored compactly.
type Span struct{ Start, End int32 }

// Posting is one unit holding a term, and how often.
type Posting struct {
	Unit int32 // within the segment
	TF   uint16
	_    uint16
}

// RoutePosting is one document whose header holds a term: what routing
// matches questions that name a contract against.
type RoutePosting struct {
	Doc int32 // within the segment
	TF  uint16
	// Name is 1 when the term is in the name, header or opening (what may
	// name the contract), 0 when only in the model-written summary.
	Name uint8
	// Title is 1 when the term is in the file name, title or parties.
	Title uint8
}

// SelfCount is what a segment counts of one self-reference word (a term
// SelfMark+w, see selfReferences): how often its clauses use w so, in how
// many documents, and how often w occurs at all in plain views.
type SelfCount struct {
	Term  int32 // the marked term, within the segment
	Docs  int32
	Uses  int64
	Plain int64 // occurrences of w itself in plain-view units
}

type docEntry struct {
	id, name, version string
	first, limit      int32 // unit range [first, limit)
}

// Segment is an immutable inverted index over the units of some documents:
// built in memory (Builder) or opened from a file (OpenSegment). Units of one
// document are contiguous and documents keep the order they were added in,
// so restricting a search to some documents is a range restriction on every
// posting list and a segment's order is the order of its documents.
//
// Terms are numbered in the order of their first use: the documents in
// order, each document's terms in the order its analysis met them
// (Doc.Vocab, then header words). Two segments holding the same documents
// in the same order therefore number their terms alike, whether built at
// once or merged from pieces (merge.go), and a collection spread over
// several segments orders its terms the same way (Snapshot.TermOrder).
//
// Values read from an opened segment's big arrays are bounds-checked where
// they are used (the arrays are not checksummed at open): a damaged file
// can misrank, never crash.
type Segment struct {
	name string // file name in its directory; "" for a segment built in memory

	// Documents: entries while building; string and range tables in an
	// opened segment (doc d's id, name and version are
	// docStr[docStrOff[3d]:docStrOff[3d+1]], … ; its units
	// docRange[2d]..docRange[2d+1]), with an open-addressing hash table of
	// doc + 1 by id (vocabhash.go).
	docs      []docEntry
	byID      map[string]int32
	ndocs     int
	docStrOff []uint32
	docStr    string
	docRange  []int32
	docHash   []int32

	units   []Unit
	spanOff []int32 // unit u's spans are spans[spanOff[u]:spanOff[u+1]]
	spans   []Span
	fwdOff  []int32 // unit u's distinct terms are fwd[fwdOff[u]:fwdOff[u+1]]
	fwd     []int32

	// Vocabulary: a map and a slice while building; a hash table and a
	// string table in an opened segment.
	vocab     map[string]int32
	terms     []string
	vocabHash []int32
	termOff   []uint32
	termStr   string

	post    [][]Posting // by term, while building
	postAll []Posting   // opened: term t's are postAll[postOff[t]:postOff[t+1]]
	postOff []int64
	// Block-max bounds of the postings (bounds.go): read from the file, or
	// counted when first needed for a file written without them.
	bmax []float32
	lazy lazyBounds

	rpost    [][]RoutePosting // by term, while building
	rall     []RoutePosting   // opened
	roff     []int64
	docLen   []int32 // header terms per document
	rtotal   int64   // header terms of all documents
	titleSeq [][]int32
	titleOff []int32 // opened: doc d's title terms are titles[titleOff[d]:titleOff[d+1]]
	titles   []int32

	// docTerms lists each document's terms in the order its analysis met
	// them: doc d's are docTerms[docTermOff[d]:docTermOff[d+1]].
	docTermOff []int64
	docTerms   []int32

	viewLen [NumViews]int64 // total terms per view
	viewN   [NumViews]int64 // units per view

	// The documents' names (names.go): entries by document, their terms,
	// their texts (a slice while building; a string table when opened), and
	// the entries by first term (a map while building; offsets by term and
	// a list when opened).
	names         []NameEntry
	nameTerms     []int32
	nameTexts     []string
	nameTextOff   []uint32
	nameTextStr   string
	nameFirst     map[int32][]int32
	nameFirstOff  []int32
	nameFirstList []int32
	// nameGroups caches NameGroupsStartingWith by first term.
	nameGroups sync.Map // int32 → nameGroupsOf

	// Dense vectors: vecOf[u] is the index of unit u's vector in vecUnit
	// and vecs (dim components each), or -1; nil when no unit has one.
	vecOf      []int32
	vecUnit    []int32
	vecs       []float32
	dim        int
	denseModel string

	// Statistics counted once (stats.go): written in the file; counted on
	// first use for a segment built in memory.
	statOnce sync.Once
	headDocs []int32 // term → documents it heads clauses in (heading terms only)
	headedDF []int32 // term → headed units holding it
	headedN  int64   // units carrying heading terms
	self     []SelfCount

	mapped *mapping   // the file an opened segment lives in
	c      *container // its sections, for Verify

	// A stats file's per-document counts and its number of units (it holds
	// no units: statsfile.go).
	ds     *docStats
	nunits int
}

// building reports whether the segment is being built in memory (not
// opened from a file).
func (s *Segment) building() bool { return s.vocab != nil }

// Name returns the segment's file name ("" for one built in memory).
func (s *Segment) Name() string { return s.name }

// NumDocs returns the number of documents of the segment.
func (s *Segment) NumDocs() int {
	if s.building() {
		return len(s.docs)
	}
	return s.ndocs
}

// NumUnits returns the number of units of the segment.
func (s *Segment) NumUnits() int {
	if s.ds != nil {
		return s.nunits
	}
	return len(s.units)
}

// NumTerms returns the size of the segment's vocabulary.
func (s *Segment) NumTerms() int {
	if s.termOff != nil {
		return len(s.termOff) - 1
	}
	return len(s.terms)
}

// Units returns the segment's units, indexed by unit id. It must not be
// modified.
func (s *Segment) Units() []Unit { return s.units }

// docString returns string i (0 id, 1 name, 2 version) of document d, d in
// range. In an opened segment it points into the mapping.
func (s *Segment) docString(d int32, i int) string {
	if s.building() {
		e := &s.docs[d]
		switch i {
		case 0:
			return e.id
		case 1:
			return e.name
		}
		return e.version
	}
	k := 3*int(d) + i
	if k+1 >= len(s.docStrOff) {
		return ""
	}
	a, b := s.docStrOff[k], s.docStrOff[k+1]
	if b < a || int(b) > len(s.docStr) {
		return ""
	}
	return s.docStr[a:b]
}

// DocID returns the id of document d of the segment, d in range.
func (s *Segment) DocID(d int32) string { return cloneString(s.docString(d, 0)) }

// DocName returns the name of document d.
func (s *Segment) DocName(d int32) string { return cloneString(s.docString(d, 1)) }

// DocVersion returns the version the document was indexed at (the argument
// of Add).
func (s *Segment) DocVersion(d int32) string { return cloneString(s.docString(d, 2)) }

// DocRange returns the units of document d, d in range: [first, limit). An
// opened segment's ranges were checked at open.
func (s *Segment) DocRange(d int32) (first, limit int32) {
	if s.building() {
		return s.docs[d].first, s.docs[d].limit
	}
	return s.docRange[2*d], s.docRange[2*d+1]
}

// LookupDoc returns the number of the document with the given id.
func (s *Segment) LookupDoc(id string) (int32, bool) {
	if s.byID != nil {
		d, ok := s.byID[id]
		return d, ok
	}
	n := len(s.docHash)
	if n == 0 || n&(n-1) != 0 {
		return 0, false
	}
	mask := uint32(n - 1)
	i := termHash(id) & mask
	for range n {
		v := s.docHash[i]
		if v == 0 {
			return 0, false
		}
		if d := v - 1; d >= 0 && int(d) < s.NumDocs() && s.docString(d, 0) == id {
			return d, true
		}
		i = (i + 1) & mask
	}
	return 0, false
}

// UnitSpans returns the source spans of unit u, a unit id in range. The
// offsets of an opened segment are checked here rather than at open: a
// damaged entry yields no spans.
func (s *Segment) UnitSpans(u int32) []Span {
	if uint(u)+1 >= uint(len(s.spanOff)) {
		return nil // a stats file
	}
	a, b := s.spanOff[u], s.spanOff[u+1]
	if a < 0 || b < a || int(b) > len(s.spans) {
		return nil
	}
	return s.spans[a:b:b]
}

// UnitTerms returns the distinct terms of unit u, a unit id in range;
// checked like UnitSpans.
func (s *Segment) UnitTerms(u int32) []int32 {
	if uint(u)+1 >= uint(len(s.fwdOff)) {
		return nil // a stats file
	}
	a, b := s.fwdOff[u], s.fwdOff[u+1]
	if a < 0 || b < a || int(b) > len(s.fwd) {
		return nil
	}
	return s.fwd[a:b:b]
}

// Term returns term t's text, t in range. In an opened segment the string
// lives in the file's mapping: it must not outlive the Segment (the package
// keeps it internal; see TermText).
func (s *Segment) term(t int32) string {
	if s.termOff == nil {
		return s.terms[t]
	}
	a, b := s.termOff[t], s.termOff[t+1]
	if b < a || int(b) > len(s.termStr) {
		return ""
	}
	return s.termStr[a:b]
}

// Lookup returns the id of a term in the segment.
func (s *Segment) Lookup(t string) (int32, bool) {
	if s.vocab != nil {
		id, ok := s.vocab[t]
		return id, ok
	}
	n := len(s.vocabHash)
	if n == 0 || n&(n-1) != 0 {
		return 0, false
	}
	mask := uint32(n - 1)
	i := termHash(t) & mask
	nt := s.NumTerms()
	for range n {
		v := s.vocabHash[i]
		if v == 0 {
			return 0, false
		}
		if id := v - 1; id >= 0 && int(id) < nt && s.term(id) == t {
			return id, true
		}
		i = (i + 1) & mask
	}
	return 0, false
}

// Postings returns the posting list of term t (sorted by unit), t in
// range; an opened segment's offsets are checked here.
func (s *Segment) Postings(t int32) []Posting {
	if s.ds != nil {
		return nil
	}
	if s.postOff == nil {
		return s.post[t]
	}
	a, b := s.postOff[t], s.postOff[t+1]
	if a < 0 || b < a || b > int64(len(s.postAll)) {
		return nil
	}
	return s.postAll[a:b:b]
}

// RoutePostings returns the header postings of term t (sorted by
// document), t in range.
func (s *Segment) RoutePostings(t int32) []RoutePosting {
	if s.roff == nil {
		return s.rpost[t]
	}
	a, b := s.roff[t], s.roff[t+1]
	if a < 0 || b < a || b > int64(len(s.rall)) {
		return nil
	}
	return s.rall[a:b:b]
}

// RoutePosting returns document d's header posting of term t.
func (s *Segment) RoutePosting(t, d int32) (RoutePosting, bool) {
	pl := s.RoutePostings(t)
	i := sort.Search(len(pl), func(i int) bool { return pl[i].Doc >= d })
	if i < len(pl) && pl[i].Doc == d {
		return pl[i], true
	}
	return RoutePosting{}, false
}

// HeaderLen returns the number of header terms of document d.
func (s *Segment) HeaderLen(d int32) int32 {
	if uint(d) >= uint(len(s.docLen)) {
		return 0
	}
	return s.docLen[d]
}

// TitleSeq returns document d's file-name, title and parties terms in
// order.
func (s *Segment) TitleSeq(d int32) []int32 {
	if s.titleOff == nil {
		if uint(d) >= uint(len(s.titleSeq)) {
			return nil
		}
		return s.titleSeq[d]
	}
	if uint(d)+1 >= uint(len(s.titleOff)) {
		return nil
	}
	a, b := s.titleOff[d], s.titleOff[d+1]
	if a < 0 || b < a || int(b) > len(s.titles) {
		return nil
	}
	return s.titles[a:b:b]
}

// termsOf returns document d's terms in the order its analysis met them.
func (s *Segment) termsOf(d int32) []int32 {
	if uint(d)+1 >= uint(len(s.docTermOff)) {
		return nil
	}
	a, b := s.docTermOff[d], s.docTermOff[d+1]
	if a < 0 || b < a || b > int64(len(s.docTerms)) {
		return nil
	}
	return s.docTerms[a:b:b]
}

// ViewStats returns the units of view v and their total length in terms.
func (s *Segment) ViewStats(v View) (units, terms int64) { return s.viewN[v], s.viewLen[v] }

// Dense returns the dimension and model of the segment's vectors (0, ""
// when it has none).
func (s *Segment) Dense() (dim int, model string) {
	if len(s.vecUnit) == 0 {
		return 0, ""
	}
	return s.dim, s.denseModel
}

// VectorOf returns the vector of unit u (nil when it has none).
func (s *Segment) VectorOf(u int32) []float32 {
	if s.vecOf == nil || uint(u) >= uint(len(s.vecOf)) {
		return nil
	}
	return s.vector(s.vecOf[u])
}

// VectorUnits returns the units that have vectors, in the order their
// vectors are stored.
func (s *Segment) VectorUnits() []int32 { return s.vecUnit }

// Vector returns the j-th stored vector (nil when out of range).
func (s *Segment) Vector(j int32) []float32 { return s.vector(j) }

func (s *Segment) vector(j int32) []float32 {
	if j < 0 || s.dim <= 0 || int(j+1)*s.dim > len(s.vecs) {
		return nil
	}
	return s.vecs[int(j)*s.dim : int(j+1)*s.dim]
}

func cloneString(s string) string {
	if s == "" {
		return ""
	}
	return string([]byte(s))
}

// Marked reports whether term t (in range) is a marked term: a heading word
// or a self-reference count, never a question word.
func (s *Segment) Marked(t int32) bool {
	w := s.term(t)
	return len(w) > 0 && (w[0] == HeadMark[0] || w[0] == SelfMark[0])
}

// release drops the pages of an opened segment's file from this process's
// memory (they stay in the page cache and are read again on use): a merge
// reads whole files, and the pages it has read would otherwise count as the
// merging process's memory.
func (s *Segment) release() {
	if s.mapped != nil {
		s.mapped.dontNeed()
	}
}

// TermRef returns term t's text without copying it, t in range: in an
// opened segment it points into the file's mapping, so it must not be kept
// beyond the Segment (use it to look terms up or as a transient map key).
func (s *Segment) TermRef(t int32) string { return s.term(t) }
