package detect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// A contract is prepared for the detectors once, when it is ingested, and
// stored beside it (Encode; the store's "review" artifact): a question is
// then answered from the stored passages, words and features (Doc.Stored)
// instead of cutting and analyzing the whole contract again, which on a long
// agreement was most of its first question's cost. What is stored is exactly
// what Prepare computes; anything that does not fit the contract it is read
// for (another version, another text length or tree) is ignored and the
// contract is prepared from its text, so a stored preparation never changes
// an answer.

// PreparedVersion is the version of what Prepare computes and Encode writes:
// bump it whenever the passages, the analyzer (Analyze, the stemmer) or the
// features change, so preparations stored by an older pakton are computed
// again rather than used (TestPreparedFingerprint fails until it is bumped).
const PreparedVersion = 1

const preparedMagic = "PKRP"

// errStored is wrapped by every reason a stored preparation is not used.
var errStored = errors.New("stored preparation does not fit")

// A Section is what a layer above derives from the whole contract (the
// answer readers' parties, its running lines), stored with its preparation
// under a name that says what it is and its version, so a reader that finds
// another version computes it instead (Prepared.Section).
type Section struct {
	Name string
	Data []byte
}

// Encode returns the prepared contract as bytes for the store: its passages
// (spans, clause nodes, analyzed words, heading and lead-in words) and their
// hashed features, with the version, text length and tree size it was
// prepared for, and the sections given. DecodePrepared reads it back.
func (p *Prepared) Encode(sections ...Section) []byte {
	vocab := map[string]uint64{}
	var words []string
	feat := map[uint32]uint64{}
	var feats []uint32
	passages := p.wordPassages()
	for i := range passages {
		ps := &passages[i]
		for _, ws := range [][]string{ps.Words, ps.Context, ps.LeadIn} {
			for _, w := range ws {
				if _, ok := vocab[w]; !ok {
					vocab[w] = uint64(len(words))
					words = append(words, w)
				}
			}
		}
		for _, f := range p.feats[i] {
			if _, ok := feat[f]; !ok {
				feat[f] = uint64(len(feats))
				feats = append(feats, f)
			}
		}
	}
	b := make([]byte, 0, 64+8*len(words)+4*len(feats)+16*len(p.passages))
	b = append(b, preparedMagic...)
	b = binary.AppendUvarint(b, PreparedVersion)
	b = binary.AppendUvarint(b, uint64(p.ix.Len()))
	b = binary.AppendUvarint(b, uint64(len(p.tree.Nodes)))
	b = binary.LittleEndian.AppendUint32(b, fitSum(p.doc.Doc.Text, p.tree))
	b = binary.AppendUvarint(b, uint64(len(words)))
	for _, w := range words {
		b = binary.AppendUvarint(b, uint64(len(w)))
		b = append(b, w...)
	}
	b = binary.AppendUvarint(b, uint64(len(feats)))
	for _, f := range feats {
		b = binary.LittleEndian.AppendUint32(b, f)
	}
	list := func(ws []string, nilable bool) {
		n := uint64(len(ws))
		if nilable {
			// 0 is a nil list, n+1 a list of n words (possibly empty).
			if ws == nil {
				b = binary.AppendUvarint(b, 0)
				return
			}
			n++
		}
		b = binary.AppendUvarint(b, n)
		for _, w := range ws {
			b = binary.AppendUvarint(b, vocab[w])
		}
	}
	b = binary.AppendUvarint(b, uint64(len(passages)))
	for i := range passages {
		ps := &passages[i]
		b = binary.AppendUvarint(b, uint64(ps.Span.Start))
		b = binary.AppendUvarint(b, uint64(ps.Span.End-ps.Span.Start))
		b = binary.AppendUvarint(b, uint64(ps.Node))
		list(ps.Words, false)
		// The pieces of one clause share its heading and lead-in words.
		if i > 0 && passages[i-1].Node == ps.Node {
			b = append(b, 1)
		} else {
			b = append(b, 0)
			list(ps.Context, true)
			list(ps.LeadIn, true)
		}
		b = binary.AppendUvarint(b, uint64(len(p.feats[i])))
		for _, f := range p.feats[i] {
			b = binary.AppendUvarint(b, feat[f])
		}
	}
	b = binary.AppendUvarint(b, uint64(len(sections)))
	for _, sec := range sections {
		b = binary.AppendUvarint(b, uint64(len(sec.Name)))
		b = append(b, sec.Name...)
		b = binary.AppendUvarint(b, uint64(len(sec.Data)))
		b = append(b, sec.Data...)
	}
	return b
}

// Section returns the section of that name stored with a prepared contract
// read back by DecodePrepared (false for one prepared from its text).
func (p *Prepared) Section(name string) ([]byte, bool) {
	b, ok := p.sections[name]
	return b, ok
}

// DecodePrepared reads a contract prepared by Encode for d. It fails —
// and the caller prepares d from its text instead — when the bytes are of
// another PreparedVersion or do not fit d's text and clause tree.
func DecodePrepared(d Doc, data []byte) (*Prepared, error) {
	if d.Doc == nil {
		return nil, fmt.Errorf("review: document %q has no text", d.Name)
	}
	tree := TreeOf(d)
	r := &reader{b: data}
	if len(data) < len(preparedMagic) || string(data[:len(preparedMagic)]) != preparedMagic {
		return nil, fmt.Errorf("%w: not a prepared contract", errStored)
	}
	r.b = r.b[len(preparedMagic):]
	if v := r.uvarint(); v != PreparedVersion {
		return nil, fmt.Errorf("%w: version %d, not %d", errStored, v, PreparedVersion)
	}
	ix := document.NewIndex(d.Doc.Text)
	n := ix.Len()
	if r.uvarint() != uint64(n) || r.uvarint() != uint64(len(tree.Nodes)) || len(r.b) < 4 || binary.LittleEndian.Uint32(r.b) != fitSum(d.Doc.Text, tree) {
		return nil, fmt.Errorf("%w: prepared for another text or tree", errStored)
	}
	r.b = r.b[4:]
	words := r.vocab()
	feats := r.featTable()
	np := r.count(4)
	p := &Prepared{doc: d, tree: tree, ix: ix}
	if r.err != nil {
		return nil, r.err
	}
	p.passages = make([]Passage, 0, np)
	p.feats = make([][]uint32, 0, np)
	// The passages' word and feature indexes are read into scratch
	// buffers first, then copied into one backing array each of exactly
	// their size: the artifact's length bounds them only loosely, and at
	// tens of thousands of contracts a question the arrays sized by it were
	// most of what a contract's decoding allocated.
	sc := decodeScratchPool.Get().(*decodeScratch)
	defer decodeScratchPool.Put(sc)
	wids, fids, marks := sc.wids[:0], sc.fids[:0], sc.marks[:0]
	// list reads a list of words as indexes into words; nil when the list
	// is nil, empty when it is empty.
	list := func(nilable bool) idRange {
		c := r.uvarint()
		if nilable {
			if c == 0 {
				return idRange{-1, -1}
			}
			c--
		}
		if c > uint64(len(r.b)) {
			r.fail()
			return idRange{-1, -1}
		}
		at := int32(len(wids))
		for range c {
			// most indexes are one or two bytes: read without a call
			k, l := shortUvarint(r.b)
			if l > 0 {
				r.b = r.b[l:]
			} else {
				k = r.uvarint()
			}
			if k >= uint64(len(words)) {
				r.fail()
				return idRange{-1, -1}
			}
			wids = append(wids, int32(k))
		}
		return idRange{at, int32(len(wids))}
	}
	for k := range np {
		start := r.uvarint()
		l := r.uvarint()
		node := r.uvarint()
		if r.err != nil || start > uint64(n) || l > uint64(n)-start || node == 0 || node >= uint64(len(tree.Nodes)) {
			return nil, fmt.Errorf("%w: passage %d out of range", errStored, k)
		}
		ps := Passage{Span: document.Span{Start: int(start), End: int(start + l)}, Node: int(node), Ordinal: k, Kind: tree.Nodes[node].Kind}
		if n > 0 {
			ps.Rel = float64(ps.Span.Start) / float64(n)
		}
		m := passageMarks{words: list(false)}
		if len(r.b) == 0 {
			r.fail()
		}
		if r.err != nil {
			return nil, r.err
		}
		shared := r.b[0]
		r.b = r.b[1:]
		switch {
		case shared == 1 && k > 0 && p.passages[k-1].Node == ps.Node:
			m.shared = true
		case shared == 0:
			m.context = list(true)
			m.leadIn = list(true)
		default:
			r.fail()
		}
		c := r.count(1)
		m.feats[0] = int32(len(fids))
		for range c {
			j, l := shortUvarint(r.b)
			if l > 0 {
				r.b = r.b[l:]
			} else {
				j = r.uvarint()
			}
			if j >= uint64(len(feats)) {
				r.fail()
				break
			}
			fids = append(fids, int32(j))
		}
		m.feats[1] = int32(len(fids))
		if r.err != nil {
			return nil, r.err
		}
		p.passages = append(p.passages, ps)
		marks = append(marks, m)
	}
	sc.wids, sc.fids, sc.marks = wids, fids, marks
	idBuf := p.fromLists(words, feats, wids, fids, marks)
	p.sections = r.sections()
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: trailing or truncated bytes", errStored)
	}
	// The words as strings only when something reads them (wordPassages):
	// a question reads the tables, and a contract's words as strings were a
	// third of what its decoding allocated.
	lists := slices.Clone(marks)
	p.words.build = func() []Passage {
		return withWords(p.passages, lists, words, idBuf)
	}
	return p, nil
}

// fromLists sets p's features and tables from the indexes decoded into the
// scratch buffers (wids, fids; marks: where each passage's lists sit),
// copied into backing arrays of exactly their size; it returns the words'
// indexes.
func (p *Prepared) fromLists(words []string, feats []uint32, wids, fids []int32, marks []passageMarks) []int32 {
	idBuf := slices.Clone(wids)
	fidBuf := slices.Clone(fids)
	featBuf := make([]uint32, len(fidBuf))
	for i, j := range fidBuf {
		featBuf[i] = feats[j]
	}
	parts := &tableParts{vocab: words, feats: feats, words: make([][]int32, 0, len(marks)), context: make([][]int32, 0, len(marks)), fidx: make([][]int32, 0, len(marks))}
	// ids are a list's indexes, a slice of the backing array that cannot
	// grow into the next (none for an empty list, as Prepare leaves it).
	ids := func(g idRange) []int32 {
		if g[0] == g[1] {
			return nil
		}
		return idBuf[g[0]:g[1]:g[1]]
	}
	for k := range p.passages {
		m := &marks[k]
		var cids []int32
		if m.shared {
			cids = parts.context[k-1]
		} else {
			cids = ids(m.context)
		}
		f := m.feats
		p.feats = append(p.feats, featBuf[f[0]:f[1]:f[1]])
		parts.words = append(parts.words, ids(m.words))
		parts.context = append(parts.context, cids)
		parts.fidx = append(parts.fidx, fidBuf[f[0]:f[1]:f[1]])
	}
	p.tab.parts = parts
	return idBuf
}

// withWords returns a copy of passages with their words, heading and
// lead-in words filled in from the lists decoded (marks: where each list
// sits in ids, indexes into vocab), as Prepare makes them: one backing
// array for all, an empty list empty and not nil, a passage that shares its
// heading and lead-in words with the one before sharing its lists.
func withWords(passages []Passage, marks []passageMarks, vocab []string, ids []int32) []Passage {
	buf := make([]string, len(ids))
	for i, k := range ids {
		buf[i] = vocab[k]
	}
	strs := func(g idRange) []string {
		switch {
		case g[0] < 0:
			return nil
		case g[0] == g[1]:
			return []string{}
		}
		return buf[g[0]:g[1]:g[1]]
	}
	out := slices.Clone(passages)
	for k := range out {
		ps, m := &out[k], &marks[k]
		ps.Words = strs(m.words)
		if m.shared {
			ps.Context, ps.LeadIn = out[k-1].Context, out[k-1].LeadIn
		} else {
			ps.Context, ps.LeadIn = strs(m.context), strs(m.leadIn)
		}
	}
	return out
}

// idRange is where a list of word indexes sits in the scratch buffer while a
// preparation is decoded: {-1, -1} for a nil list.
type idRange [2]int32

// passageMarks are where a passage's lists sit in the scratch buffers.
type passageMarks struct {
	words, context, leadIn idRange
	shared                 bool // heading and lead-in words as the passage before
	feats                  idRange
}

// decodeScratch holds the buffers DecodePrepared reads indexes into before
// it copies them out at their exact size.
type decodeScratch struct {
	wids, fids []int32
	marks      []passageMarks
}

var decodeScratchPool = sync.Pool{New: func() any { return new(decodeScratch) }}

// reader reads uvarints, remembering the first failure.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("%w: truncated or corrupt", errStored)
	}
	r.b = nil
}

// shortUvarint decodes a uvarint of one or two bytes as binary.Uvarint
// does, and its length; 0 for a longer one (or none).
func shortUvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		return uint64(b[0]&0x7f) | uint64(b[1])<<7, 2
	}
	return 0, 0
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// count reads a length whose items take at least size bytes each, failing
// when the bytes left cannot hold that many.
func (r *reader) count(size int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/size) {
		r.fail()
		return 0
	}
	return int(v)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fitSum is a checksum of what a preparation is computed from: the text and
// the fields of the clause tree that Prepare reads (every node's kind,
// parent, heading, defined term and own span).
func fitSum(text string, t *clause.Tree) uint32 {
	// the text through a small buffer: a copy of the whole text would
	// be allocated for every contract read
	var chunk [4096]byte
	sum := uint32(0)
	for rest := text; len(rest) > 0; {
		k := copy(chunk[:], rest)
		sum = crc32.Update(sum, castagnoli, chunk[:k])
		rest = rest[k:]
	}
	var b []byte
	for i := range t.Nodes {
		n := &t.Nodes[i]
		b = b[:0]
		b = binary.AppendVarint(b, int64(n.Parent))
		b = binary.AppendUvarint(b, uint64(n.Own.Start))
		b = binary.AppendUvarint(b, uint64(n.Own.End))
		b = append(b, n.Kind...)
		b = append(b, 0)
		b = append(b, n.Heading...)
		b = append(b, 0)
		b = append(b, n.Term...)
		b = append(b, 0)
		sum = crc32.Update(sum, castagnoli, b)
	}
	return sum
}

// vocab reads the vocabulary: its words are slices of one string.
func (r *reader) vocab() []string {
	nw := r.count(1)
	ends := make([]int, nw)
	// the words' total length first, so their text is allocated once
	size, rest := 0, r.b
	for range nw {
		l, k := binary.Uvarint(rest)
		if k <= 0 || l > uint64(len(rest)-k) {
			break
		}
		size += int(l)
		rest = rest[k+int(l):]
	}
	var text strings.Builder
	text.Grow(size)
	for i := range ends {
		l := r.count(1)
		if r.err != nil {
			return nil
		}
		text.Write(r.b[:l])
		ends[i] = text.Len()
		r.b = r.b[l:]
	}
	all := text.String()
	words := make([]string, nw)
	for i, e := range ends {
		if i > 0 {
			words[i] = all[ends[i-1]:e]
		} else {
			words[i] = all[:e]
		}
	}
	return words
}

// featTable reads the table of distinct features.
func (r *reader) featTable() []uint32 {
	nf := r.count(4)
	feats := make([]uint32, nf)
	for i := range feats {
		if r.err != nil || len(r.b) < 4 {
			r.fail()
			return nil
		}
		feats[i] = binary.LittleEndian.Uint32(r.b)
		r.b = r.b[4:]
	}
	return feats
}

// sections reads the sections stored after the passages (nil for none).
func (r *reader) sections() map[string][]byte {
	var out map[string][]byte
	ns := r.count(2)
	for range ns {
		l := r.count(1)
		if r.err != nil {
			return nil
		}
		name := string(r.b[:l])
		r.b = r.b[l:]
		l = r.count(1)
		if r.err != nil {
			return nil
		}
		if out == nil {
			out = map[string][]byte{}
		}
		out[name] = r.b[:l:l]
		r.b = r.b[l:]
	}
	return out
}
