package index

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
)

// ErrMapped reports an attempt to add to a segment opened from a file.
var ErrMapped = errors.New("search: an index segment opened from a file cannot be changed")

// NewBuilder returns an empty segment to add documents to (Add). It is
// searchable as it is; adding to it after it was searched is allowed only
// when nothing searches it concurrently, and invalidates statistics
// computed from it (a Snapshot must be made again).
func NewBuilder() *Segment {
	return &Segment{byID: map[string]int32{}, vocab: map[string]int32{}, fwdOff: []int32{0}, spanOff: []int32{0}, docTermOff: []int64{0}}
}

// termID returns the id of a term, adding it to the vocabulary if needed.
func (s *Segment) termID(t string) int32 {
	tid, ok := s.vocab[t]
	if !ok {
		tid = int32(len(s.post))
		s.vocab[t] = tid
		s.post = append(s.post, nil)
		s.rpost = append(s.rpost, nil)
		s.terms = append(s.terms, t)
	}
	return tid
}

// Add indexes an analyzed document, at a version the caller names (stored
// with it, so a collection can tell which version of a document its index
// holds). Adding an id the segment already holds is an error.
func (s *Segment) Add(doc *Doc, version string) error {
	if s.mapped != nil || s.vocab == nil {
		return ErrMapped
	}
	if _, ok := s.byID[doc.ID]; ok {
		return fmt.Errorf("search: document %q is already indexed", doc.ID)
	}
	s.statOnce = sync.Once{} // statistics are counted again on next use
	s.headDocs, s.headedDF, s.headedN, s.self = nil, nil, 0, nil
	di := int32(len(s.docs))
	e := docEntry{id: doc.ID, name: doc.Name, version: version, first: int32(len(s.units))}
	global := make([]int32, len(doc.Vocab))
	for i, t := range doc.Vocab {
		global[i] = s.termID(t)
	}
	s.docTerms = append(s.docTerms, global...)
	for _, u := range doc.Units {
		uid := int32(len(s.units))
		for _, tc := range u.Terms {
			tid := global[tc.Term]
			// Units only grow, so each posting list stays sorted by unit.
			s.post[tid] = append(s.post[tid], Posting{Unit: uid, TF: tc.Count})
			s.fwd = append(s.fwd, tid)
		}
		s.fwdOff = append(s.fwdOff, int32(len(s.fwd)))
		for _, sp := range u.Spans {
			s.spans = append(s.spans, Span{int32(sp.Start), int32(sp.End)})
		}
		s.spanOff = append(s.spanOff, int32(len(s.spans)))
		s.units = append(s.units, Unit{Doc: di, Node: u.Node, View: u.View, Len: u.Len})
		s.viewLen[u.View] += int64(u.Len)
		s.viewN[u.View]++
	}
	if s.vecOf != nil {
		for range doc.Units {
			s.vecOf = append(s.vecOf, -1)
		}
	}
	e.limit = int32(len(s.units))
	s.docs = append(s.docs, e)
	s.byID[doc.ID] = di
	mine := make(map[int32]bool, len(global))
	for _, t := range global {
		mine[t] = true
	}
	s.addRoute(di, doc, mine)
	s.addNames(di, doc.Names, mine)
	s.docTermOff = append(s.docTermOff, int64(len(s.docTerms)))
	return nil
}

// addRoute indexes the header of document di: its name, title, parties,
// opening and summary, as routing matches them. Header terms the document
// does not use yet (mine) are appended to its term list (docTerms) in the
// order met.
func (s *Segment) addRoute(di int32, doc *Doc, mine map[int32]bool) {
	type count struct {
		tf          int
		name, title bool
	}
	terms := map[int32]*count{}
	var order []int32
	n := 0
	see := func(t string, name bool) int32 {
		tid := s.termID(t)
		if !mine[tid] {
			mine[tid] = true
			s.docTerms = append(s.docTerms, tid)
		}
		c := terms[tid]
		if c == nil {
			c = &count{}
			terms[tid] = c
			order = append(order, tid)
		}
		c.tf++
		c.name = c.name || name
		n++
		return tid
	}
	var seq []int32
	for _, t := range Analyze(nameWords(doc.Name) + "\n" + doc.Header) {
		tid := see(t, true)
		terms[tid].title = true
		seq = append(seq, tid)
	}
	s.titleSeq = append(s.titleSeq, seq)
	for _, t := range Analyze(doc.Opening) {
		see(t, true)
	}
	for _, t := range Analyze(doc.About) {
		see(t, false)
	}
	for _, tid := range order {
		c := terms[tid]
		p := RoutePosting{Doc: di, TF: uint16(min(c.tf, math.MaxUint16))}
		if c.name {
			p.Name = 1
		}
		if c.title {
			p.Title = 1
		}
		s.rpost[tid] = append(s.rpost[tid], p)
	}
	s.docLen = append(s.docLen, int32(n))
	s.rtotal += int64(n)
}

// nameWords turns a file name into words: extension dropped, separators and
// camel-case humps become spaces.
func nameWords(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 6 {
		name = name[:i]
	}
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ',' || r == '(' || r == ')':
			b.WriteByte(' ')
			prevLower = false
			continue
		case r >= 'A' && r <= 'Z' && prevLower:
			b.WriteByte(' ')
		}
		prevLower = r >= 'a' && r <= 'z'
		b.WriteRune(r)
	}
	return b.String()
}

// AddVectors attaches a document's vectors to the segment. The document
// must already be in it; vectors from a model other than the segment's
// first are refused, since their similarities are not comparable.
func (s *Segment) AddVectors(id string, v *Vectors) error {
	if s.mapped != nil || s.vocab == nil {
		return ErrMapped
	}
	d, ok := s.byID[id]
	if !ok {
		return fmt.Errorf("search: vectors for unknown document %q", id)
	}
	if s.denseModel == "" {
		s.denseModel = v.Model
	} else if v.Model != s.denseModel {
		return fmt.Errorf("search: vectors of %q come from model %q, the index uses %q: re-ingest with one embedding model", id, v.Model, s.denseModel)
	}
	e := s.docs[d]
	for i, u := range v.Units {
		if u < 0 || e.first+u >= e.limit {
			return fmt.Errorf("search: vectors of %q point past its units", id)
		}
		if s.dim == 0 {
			s.dim = len(v.Vecs[i])
		}
		if len(v.Vecs[i]) != s.dim {
			return fmt.Errorf("search: vectors of %q have dimension %d, the index %d", id, len(v.Vecs[i]), s.dim)
		}
	}
	if s.vecOf == nil {
		s.vecOf = make([]int32, len(s.units))
		for i := range s.vecOf {
			s.vecOf[i] = -1
		}
	}
	for i, u := range v.Units {
		uid := e.first + u
		if j := s.vecOf[uid]; j >= 0 { // the same unit twice: the last vector wins
			copy(s.vector(j), v.Vecs[i])
			continue
		}
		s.vecOf[uid] = int32(len(s.vecUnit))
		s.vecUnit = append(s.vecUnit, uid)
		s.vecs = append(s.vecs, v.Vecs[i]...)
	}
	return nil
}
