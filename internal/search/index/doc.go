package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
)

// Doc is one document's analyzed units: what the index needs to search the
// document, without the document's text. A store keeps a document's encoded
// Doc beside it (the "segment" artifact), so indexing a collection again
// loads these instead of re-analyzing every clause.
type Doc struct {
	ID, Name, Header, Opening, About string
	// Names are the names the document is called by (DocInput.Names).
	Names []names.Name
	Vocab []string // the document's distinct terms, in order of first use
	Units []DocUnit
}

// DocUnit is an analyzed unit: term counts by index into Doc.Vocab.
type DocUnit struct {
	Node  int32
	View  View
	Len   int32 // number of terms
	Spans []document.Span
	Terms []TermCount
}

// TermCount is a term of a unit and how often it occurs there.
type TermCount struct {
	Term  int32 // index into Doc.Vocab
	Count uint16
}

// AnalyzeDoc turns a document's units into its analyzed form.
func AnalyzeDoc(d DocInput) *Doc {
	seg := &Doc{ID: d.ID, Name: d.Name, Header: d.Header, Opening: d.Opening, About: d.About, Names: d.Names}
	local := map[string]int32{}
	counts := map[int32]int{}
	// termID is the segment's id of a vocabulary entry, added when new.
	termID := func(t string) int32 {
		id, ok := local[t]
		if !ok {
			id = int32(len(seg.Vocab))
			local[t] = id
			seg.Vocab = append(seg.Vocab, t)
		}
		return id
	}
	for _, u := range d.Units {
		terms := Analyze(u.Text)
		clear(counts)
		for _, t := range terms {
			counts[termID(t)]++
		}
		n := len(terms)
		// Heading words go in as marked terms, counted once and not in the
		// unit's length: no question word matches them.
		for _, t := range Analyze(u.Heading) {
			counts[termID(HeadMark+t)] = 1
		}
		// Self-references ("this Agreement") of the clause's own text, as
		// marked terms counted once per text (framing.go).
		if u.View == ViewPlain {
			refs := selfReferences(u.Text)
			for _, t := range slices.Sorted(maps.Keys(refs)) { // ids in a fixed order
				counts[termID(SelfMark+t)] = refs[t]
			}
		}
		su := DocUnit{Node: int32(u.Node), View: u.View, Len: int32(n), Spans: u.Spans, Terms: make([]TermCount, 0, len(counts))}
		for id, c := range counts {
			su.Terms = append(su.Terms, TermCount{id, uint16(min(c, math.MaxUint16))})
		}
		seg.Units = append(seg.Units, su)
	}
	return seg
}

// docMagic starts an encoded Doc (the stored "segment" artifact). PKSEG4
// added the document's names; a Doc of an older format does not decode, and
// its loader analyzes the stored document again (ingest.Load), so its names
// are learnt then.
const docMagic = "PKSEG4\n"

// Encode serializes the document in pakton's compact binary format.
func (s *Doc) Encode() []byte {
	var b bytes.Buffer
	b.WriteString(docMagic)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	str := func(x string) { uv(uint64(len(x))); b.WriteString(x) }
	str(s.ID)
	str(s.Name)
	str(s.Header)
	str(s.Opening)
	str(s.About)
	uv(uint64(len(s.Names)))
	for _, n := range s.Names {
		str(n.Text)
		uv(uint64(n.Kind))
		uv(uint64(n.Party + 1))
	}
	uv(uint64(len(s.Vocab)))
	for _, t := range s.Vocab {
		str(t)
	}
	uv(uint64(len(s.Units)))
	for _, u := range s.Units {
		uv(uint64(u.Node + 1))
		uv(uint64(u.View))
		uv(uint64(u.Len))
		uv(uint64(len(u.Spans)))
		for _, sp := range u.Spans {
			uv(uint64(sp.Start))
			uv(uint64(sp.End - sp.Start))
		}
		uv(uint64(len(u.Terms)))
		for _, t := range u.Terms {
			uv(uint64(t.Term))
			uv(uint64(t.Count))
		}
	}
	return b.Bytes()
}

// ErrBadDoc reports an analyzed document (or vectors) that cannot be
// decoded.
var ErrBadDoc = errors.New("search: malformed index segment")

// DecodeDoc parses an encoded document, checking every count and index
// against the data so a damaged one is an error, never a panic.
func DecodeDoc(data []byte) (*Doc, error) {
	if !bytes.HasPrefix(data, []byte(docMagic)) {
		return nil, fmt.Errorf("%w: bad header", ErrBadDoc)
	}
	r := &reader{b: data[len(docMagic):]}
	s := &Doc{ID: r.str(), Name: r.str(), Header: r.str(), Opening: r.str(), About: r.str()}
	nn := r.count(3)
	for i := 0; i < nn && r.err == nil; i++ {
		n := names.Name{Text: r.str()}
		k := r.uv()
		if k == 0 || k >= 256 {
			r.fail("name kind")
		}
		n.Kind = names.Kind(k)
		n.Party = int(min(r.uv(), 1<<16)) - 1
		s.Names = append(s.Names, n)
	}
	nv := r.count(1)
	s.Vocab = make([]string, 0, nv)
	for i := 0; i < nv && r.err == nil; i++ {
		s.Vocab = append(s.Vocab, r.str())
	}
	nu := r.count(4)
	s.Units = make([]DocUnit, 0, nu)
	for i := 0; i < nu && r.err == nil; i++ {
		var u DocUnit
		u.Node = int32(r.uv()) - 1
		v := r.uv()
		if v >= uint64(NumViews) {
			r.fail("view")
		}
		u.View = View(v)
		u.Len = int32(r.uv())
		ns := r.count(2)
		for j := 0; j < ns && r.err == nil; j++ {
			st := int(r.uv())
			u.Spans = append(u.Spans, document.Span{Start: st, End: st + int(r.uv())})
		}
		nt := r.count(2)
		u.Terms = make([]TermCount, 0, nt)
		for j := 0; j < nt && r.err == nil; j++ {
			t := r.uv()
			if t >= uint64(len(s.Vocab)) {
				r.fail("term index")
			}
			u.Terms = append(u.Terms, TermCount{int32(t), uint16(min(r.uv(), math.MaxUint16))})
		}
		s.Units = append(s.Units, u)
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: bad %s", ErrBadDoc, what)
	}
	r.b = nil
}

func (r *reader) uv() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length whose elements take at least min bytes each, and
// refuses one larger than the remaining data could hold.
func (r *reader) count(min int) int {
	n := r.uv()
	if n > uint64(len(r.b)/min) {
		r.fail("length")
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
