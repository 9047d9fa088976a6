package search

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"unsafe"
)

// A persisted index is the Index's own arrays written out as they are in
// memory, so opening one maps the file and points the Index at it: no
// decoding, no per-posting work, and only the pages a query touches are ever
// read. The layout:
//
//	header   magic "PKTNIDX\n", format version, section count, label, CRC-32C
//	table    one (id, offset, length) entry per section
//	sections 8-byte aligned: meta (JSON: counts, view statistics, dense
//	         model), then the raw little-endian arrays of docs, units,
//	         spans, forward lists, vocabulary, postings, router postings,
//	         vectors and the heading statistics (headings.go), counted by
//	         the writer so no reader makes a pass over every posting, and
//	         the documents' names (routenames.go)
//
// The label is the caller's: the store generation the index was built from,
// so a loader can tell a current index from a stale one and never trust the
// latter. The header, the meta section and the string sections are
// checksummed; the big arrays are not (hashing them would read the whole
// file on every open), but their offset tables are checked against each
// other at open and every array access in a search is bounds-checked, so a
// damaged file can misrank, never crash or read outside the mapping. The
// file is written under a temporary name, fsynced and renamed by its writer.
//
// indexFormat changes whenever an Index structure written here changes: an
// index of another format is refused (ErrBadIndex) and rebuilt by its loader.
const indexFormat = 4

const indexMagic = "PKTNIDX\n"

// ErrBadIndex reports an index file that cannot be used: another format, a
// damaged header or inconsistent sections.
var ErrBadIndex = errors.New("search: unusable index file")

// ErrStaleIndex reports an index file built from another state of the
// collection than the one asked for (its label differs).
var ErrStaleIndex = errors.New("search: index file is stale")

// ErrMapped reports an attempt to add to an index opened from a file.
var ErrMapped = errors.New("search: an index opened from a file cannot be changed")

// Section ids, in file order.
const (
	secMeta = iota + 1
	secDocStrOff
	secDocStr
	secDocRange
	secUnits
	secSpanOff
	secSpans
	secFwdOff
	secFwd
	secTermOff
	secTermStr
	secPostOff
	secPost
	secRouteOff
	secRoute
	secRouteLen
	secVecOf
	secVecUnit
	secVecs
	secTitleOff
	secTitle
	secHeadDocs
	secHeadedDF
	secAssocOff
	secAssoc
	secBodyOff
	secBody
	secVocabHash
	secNames
	secNameTerms
	secNameTextOff
	secNameText
	numSections = secNameText
)

// indexMeta is the meta section.
type indexMeta struct {
	Docs       int                `json:"docs"`
	Units      int                `json:"units"`
	Terms      int                `json:"terms"`
	Spans      int                `json:"spans"`
	Fwd        int                `json:"fwd"`
	Postings   int64              `json:"postings"`
	Routes     int64              `json:"routes"`
	RouteTotal int64              `json:"route_total"`
	ViewLen    [numViews]int64    `json:"view_len"`
	ViewN      [numViews]int64    `json:"view_n"`
	Dim        int                `json:"dim,omitempty"`
	DenseModel string             `json:"dense_model,omitempty"`
	Vectors    int                `json:"vectors,omitempty"`
	Titles     int                `json:"titles"`
	HeadedN    int                `json:"headed_n"`   // units carrying heading terms (headings.go)
	Assoc      int                `json:"assoc"`      // learned word associations (learned.go)
	Bodies     int                `json:"bodies"`     // learned heading-body associations
	VocabHash  int                `json:"vocab_hash"` // slots of the vocabulary hash table (vocabhash.go)
	Names      int                `json:"names"`      // names of documents (routenames.go)
	NameTerms  int                `json:"name_terms"`
	Sizes      map[string]uintptr `json:"sizes"` // struct sizes, so a change of layout is caught
}

func structSizes() map[string]uintptr {
	return map[string]uintptr{
		"unit": unsafe.Sizeof(unit{}), "span": unsafe.Sizeof(span{}),
		"posting": unsafe.Sizeof(posting{}), "route": unsafe.Sizeof(routePosting{}),
		"assoc": unsafe.Sizeof(assocTerm{}), "name": unsafe.Sizeof(nameEntry{}),
	}
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

const headerSize = 8 + 4 + 4 + 8 + 4 + 4 // magic, format, sections, label, crc, reserved

const tableEntry = 4 + 4 + 8 + 8 // id, reserved, offset, length

// WriteTo writes the index in the persisted format with a caller's label
// (see OpenIndex). It fails on big-endian machines, where the format is not
// supported: their loaders always build the index.
func (ix *Index) WriteTo(w io.Writer, label uint64) (int64, error) {
	if !littleEndian {
		return 0, errors.New("search: persisted indexes need a little-endian machine")
	}
	// The heading statistics are counted and the associations of every term
	// learned here, once, rather than by every process that opens the file
	// (learned.go).
	ix.headOnce.Do(ix.countHeaded)
	assocOff, assocList, bodyOff, bodyList := ix.assocOff, ix.assocList, ix.bodyOff, ix.bodyList
	if assocOff == nil || bodyOff == nil {
		assocOff, assocList, bodyOff, bodyList = ix.learnAll()
	}
	vocabHash := ix.vocabHash
	if vocabHash == nil {
		vocabHash = vocabTable(ix.terms)
	}
	meta := indexMeta{
		Docs: len(ix.docs), Units: len(ix.units), Terms: len(ix.terms), Spans: len(ix.spans), Fwd: len(ix.fwd),
		RouteTotal: ix.router.total, ViewLen: ix.viewLen, ViewN: ix.viewN,
		Dim: ix.dim, DenseModel: ix.denseModel, Vectors: len(ix.vecUnit), Sizes: structSizes(),
		HeadedN: ix.headedN, Assoc: len(assocList), Bodies: len(bodyList), VocabHash: len(vocabHash),
		Names: len(ix.nameTab.entries), NameTerms: len(ix.nameTab.terms),
	}
	postOff := make([]int64, 0, len(ix.terms)+1)
	routeOff := make([]int64, 0, len(ix.terms)+1)
	for i := range ix.terms {
		postOff = append(postOff, meta.Postings)
		meta.Postings += int64(len(ix.plist(int32(i))))
		routeOff = append(routeOff, meta.Routes)
		meta.Routes += int64(len(ix.router.plist(int32(i))))
	}
	postOff = append(postOff, meta.Postings)
	routeOff = append(routeOff, meta.Routes)
	titleOff := make([]int32, 0, len(ix.router.titleSeq)+1)
	var titles []int32
	for _, seq := range ix.router.titleSeq {
		titleOff = append(titleOff, int32(len(titles)))
		titles = append(titles, seq...)
	}
	titleOff = append(titleOff, int32(len(titles)))
	meta.Titles = len(titles)
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return 0, err
	}
	docStrs := make([]string, 0, 2*len(ix.docs))
	docRange := make([]int32, 0, 2*len(ix.docs))
	for _, d := range ix.docs {
		docStrs = append(docStrs, d.id, d.name)
		docRange = append(docRange, d.first, d.limit)
	}
	docOff, docStr := stringTable(docStrs)
	termOff, termStr := stringTable(ix.terms)
	nameOff, nameStr := stringTable(ix.nameTab.text)

	// Each section is a list of byte slices written one after another.
	sections := [numSections][][]byte{
		secMeta - 1:        {metaJSON},
		secDocStrOff - 1:   {asBytes(docOff)},
		secDocStr - 1:      {docStr},
		secDocRange - 1:    {asBytes(docRange)},
		secUnits - 1:       {asBytes(ix.units)},
		secSpanOff - 1:     {asBytes(ix.spanOff)},
		secSpans - 1:       {asBytes(ix.spans)},
		secFwdOff - 1:      {asBytes(ix.fwdOff)},
		secFwd - 1:         {asBytes(ix.fwd)},
		secTermOff - 1:     {asBytes(termOff)},
		secTermStr - 1:     {termStr},
		secPostOff - 1:     {asBytes(postOff)},
		secRouteOff - 1:    {asBytes(routeOff)},
		secRouteLen - 1:    {asBytes(ix.router.docLen)},
		secVecOf - 1:       {asBytes(ix.vecOf)},
		secVecUnit - 1:     {asBytes(ix.vecUnit)},
		secVecs - 1:        {asBytes(ix.vecs)},
		secTitleOff - 1:    {asBytes(titleOff)},
		secTitle - 1:       {asBytes(titles)},
		secHeadDocs - 1:    {asBytes(ix.headDocs)},
		secHeadedDF - 1:    {asBytes(ix.headedDF)},
		secAssocOff - 1:    {asBytes(assocOff)},
		secAssoc - 1:       {asBytes(assocList)},
		secBodyOff - 1:     {asBytes(bodyOff)},
		secBody - 1:        {asBytes(bodyList)},
		secVocabHash - 1:   {asBytes(vocabHash)},
		secNames - 1:       {asBytes(ix.nameTab.entries)},
		secNameTerms - 1:   {asBytes(ix.nameTab.terms)},
		secNameTextOff - 1: {asBytes(nameOff)},
		secNameText - 1:    {nameStr},
	}
	if ix.postOff != nil { // an opened index: its arrays as they are
		sections[secPost-1] = [][]byte{asBytes(ix.postAll)}
		sections[secRoute-1] = [][]byte{asBytes(ix.router.all)}
	} else {
		for i := range ix.post {
			sections[secPost-1] = append(sections[secPost-1], asBytes(ix.post[i]))
			sections[secRoute-1] = append(sections[secRoute-1], asBytes(ix.router.post[i]))
		}
	}
	head := make([]byte, headerSize+numSections*tableEntry)
	copy(head, indexMagic)
	binary.LittleEndian.PutUint32(head[8:], indexFormat)
	binary.LittleEndian.PutUint32(head[12:], numSections)
	binary.LittleEndian.PutUint64(head[16:], label)
	off := int64(align8(len(head)))
	for i, parts := range sections {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		e := head[headerSize+i*tableEntry:]
		binary.LittleEndian.PutUint32(e, uint32(i+1))
		binary.LittleEndian.PutUint64(e[8:], uint64(off))
		binary.LittleEndian.PutUint64(e[16:], uint64(n))
		off += int64(align8(n))
	}
	crc := crc32.New(crcTable)
	crc.Write(head[:24])
	crc.Write(head[headerSize:])
	crc.Write(metaJSON)
	crc.Write(docStr)
	crc.Write(termStr)
	crc.Write(asBytes(ix.nameTab.entries))
	crc.Write(asBytes(ix.nameTab.terms))
	crc.Write(asBytes(nameOff))
	crc.Write(nameStr)
	binary.LittleEndian.PutUint32(head[24:], crc.Sum32())

	bw := bufio.NewWriterSize(w, 1<<20)
	var written int64
	write := func(b []byte) error {
		n, err := bw.Write(b)
		written += int64(n)
		return err
	}
	var zero [8]byte
	pad := func() error { return write(zero[:align8(int(written))-int(written)]) }
	if err := write(head); err != nil {
		return written, err
	}
	for _, parts := range sections {
		if err := pad(); err != nil {
			return written, err
		}
		for _, p := range parts {
			if err := write(p); err != nil {
				return written, err
			}
		}
	}
	if err := pad(); err != nil {
		return written, err
	}
	return written, bw.Flush()
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func align8(n int) int { return (n + 7) &^ 7 }

// stringTable packs strings into offsets (len(strs)+1 of them) and bytes.
func stringTable(strs []string) ([]uint32, []byte) {
	off := make([]uint32, 0, len(strs)+1)
	var b []byte
	for _, s := range strs {
		off = append(off, uint32(len(b)))
		b = append(b, s...)
	}
	return append(off, uint32(len(b))), b
}

// asBytes views a slice of pointer-free values as its bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// fromBytes views bytes as a slice of n pointer-free values.
func fromBytes[T any](b []byte, n int) ([]T, error) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if n < 0 || len(b) != n*size {
		return nil, fmt.Errorf("%w: section of %d bytes for %d values of %d bytes", ErrBadIndex, len(b), n, size)
	}
	if n == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(zero) != 0 {
		return nil, fmt.Errorf("%w: misaligned section", ErrBadIndex)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
}

// OpenIndex opens an index file written by WriteTo. A file whose label is
// not label is refused with ErrStaleIndex; one of another format or damaged
// with ErrBadIndex; a missing file yields an error wrapping fs.ErrNotExist.
// The file is memory-mapped where the system allows it (read in one go
// elsewhere) and unmapped when the Index is garbage-collected. The Index is
// read-only: AddSegment and AddVectors return ErrMapped.
func OpenIndex(path string, label uint64) (*Index, error) {
	if !littleEndian {
		return nil, fmt.Errorf("%w: persisted indexes need a little-endian machine", ErrBadIndex)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Check the label before mapping anything: a stale index is the common
	// case after a write.
	var head [headerSize]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, fmt.Errorf("%w: %s: short header", ErrBadIndex, path)
	}
	if string(head[:8]) != indexMagic || binary.LittleEndian.Uint32(head[8:]) != indexFormat {
		return nil, fmt.Errorf("%w: %s: another format", ErrBadIndex, path)
	}
	if got := binary.LittleEndian.Uint64(head[16:]); got != label {
		return nil, fmt.Errorf("%w: %s was built at %d, the collection is at %d", ErrStaleIndex, path, got, label)
	}
	m, err := mapFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix, err := indexFrom(m.data, label)
	if err != nil {
		m.unmap()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.mapped = m
	runtime.AddCleanup(ix, func(m *mapping) { m.unmap() }, m)
	return ix, nil
}

// indexFrom points a new Index at the sections of data.
func indexFrom(data []byte, label uint64) (*Index, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadIndex, fmt.Sprintf(format, a...))
	}
	if len(data) < headerSize+numSections*tableEntry || string(data[:8]) != indexMagic {
		return nil, bad("short file")
	}
	if binary.LittleEndian.Uint32(data[8:]) != indexFormat || binary.LittleEndian.Uint32(data[12:]) != numSections {
		return nil, bad("another format")
	}
	if binary.LittleEndian.Uint64(data[16:]) != label {
		return nil, fmt.Errorf("%w: changed while being opened", ErrStaleIndex)
	}
	var sec [numSections][]byte
	for i := range sec {
		e := data[headerSize+i*tableEntry:]
		off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		if binary.LittleEndian.Uint32(e) != uint32(i+1) || off%8 != 0 || off > uint64(len(data)) || n > uint64(len(data))-off {
			return nil, bad("section table")
		}
		sec[i] = data[off : off+n]
	}
	crc := crc32.New(crcTable)
	crc.Write(data[:24])
	crc.Write(data[headerSize : headerSize+numSections*tableEntry])
	crc.Write(sec[secMeta-1])
	crc.Write(sec[secDocStr-1])
	crc.Write(sec[secTermStr-1])
	for _, id := range []int{secNames, secNameTerms, secNameTextOff, secNameText} {
		crc.Write(sec[id-1])
	}
	if crc.Sum32() != binary.LittleEndian.Uint32(data[24:]) {
		return nil, bad("checksum mismatch")
	}
	var meta indexMeta
	if err := json.Unmarshal(sec[secMeta-1], &meta); err != nil {
		return nil, bad("meta: %v", err)
	}
	for k, v := range structSizes() {
		if meta.Sizes[k] != v {
			return nil, bad("written with another layout of %s", k)
		}
	}
	ix := &Index{viewLen: meta.ViewLen, viewN: meta.ViewN, dim: meta.Dim, denseModel: meta.DenseModel}
	var err error
	get := func(dst any, id, n int) {
		if err != nil {
			return
		}
		b := sec[id-1]
		switch p := dst.(type) {
		case *[]int32:
			*p, err = fromBytes[int32](b, n)
		case *[]uint32:
			*p, err = fromBytes[uint32](b, n)
		case *[]int64:
			*p, err = fromBytes[int64](b, n)
		case *[]float32:
			*p, err = fromBytes[float32](b, n)
		case *[]unit:
			*p, err = fromBytes[unit](b, n)
		case *[]span:
			*p, err = fromBytes[span](b, n)
		case *[]posting:
			*p, err = fromBytes[posting](b, n)
		case *[]routePosting:
			*p, err = fromBytes[routePosting](b, n)
		case *[]assocTerm:
			*p, err = fromBytes[assocTerm](b, n)
		case *[]nameEntry:
			*p, err = fromBytes[nameEntry](b, n)
		}
	}
	var docOff, termOff []uint32
	var docRange []int32
	var postOff, routeOff []int64
	var post []posting
	var route []routePosting
	get(&docOff, secDocStrOff, 2*meta.Docs+1)
	get(&docRange, secDocRange, 2*meta.Docs)
	get(&ix.units, secUnits, meta.Units)
	get(&ix.spanOff, secSpanOff, meta.Units+1)
	get(&ix.spans, secSpans, meta.Spans)
	get(&ix.fwdOff, secFwdOff, meta.Units+1)
	get(&ix.fwd, secFwd, meta.Fwd)
	get(&termOff, secTermOff, meta.Terms+1)
	get(&postOff, secPostOff, meta.Terms+1)
	get(&post, secPost, int(meta.Postings))
	get(&routeOff, secRouteOff, meta.Terms+1)
	get(&route, secRoute, int(meta.Routes))
	get(&ix.router.docLen, secRouteLen, meta.Docs)
	var titleOff, titles []int32
	get(&titleOff, secTitleOff, meta.Docs+1)
	get(&titles, secTitle, meta.Titles)
	get(&ix.headDocs, secHeadDocs, meta.Terms)
	get(&ix.headedDF, secHeadedDF, meta.Terms)
	get(&ix.assocOff, secAssocOff, meta.Terms+1)
	get(&ix.assocList, secAssoc, meta.Assoc)
	get(&ix.bodyOff, secBodyOff, meta.Terms+1)
	get(&ix.bodyList, secBody, meta.Bodies)
	get(&ix.vocabHash, secVocabHash, meta.VocabHash)
	var nameOff []uint32
	get(&ix.nameTab.entries, secNames, meta.Names)
	get(&ix.nameTab.terms, secNameTerms, meta.NameTerms)
	get(&nameOff, secNameTextOff, meta.Names+1)
	if meta.Vectors > 0 {
		get(&ix.vecOf, secVecOf, meta.Units)
		get(&ix.vecUnit, secVecUnit, meta.Vectors)
		get(&ix.vecs, secVecs, meta.Vectors*meta.Dim)
	}
	if err != nil {
		return nil, err
	}
	ix.router.total = meta.RouteTotal
	// Offset tables must be monotonic and end at their arrays' lengths, so
	// every slice taken from them below and in a search is in range.
	// The per-unit offset tables (spanOff, fwdOff: megabytes in a large
	// collection) and the posting offsets are checked where they are read
	// instead (unitSpans, unitTerms, plist).
	if !monotonic(docOff, len(sec[secDocStr-1])) || !monotonic(termOff, len(sec[secTermStr-1])) ||
		!monotonic(titleOff, len(titles)) || !monotonic(nameOff, len(sec[secNameText-1])) {
		return nil, bad("offset tables")
	}
	// Strings are copied out of the mapping (in one piece each), so a
	// document id or term handed to a caller never points into it.
	docStr, termStr := string(sec[secDocStr-1]), string(sec[secTermStr-1])
	ix.docs = make([]docEntry, meta.Docs)
	ix.byID = make(map[string]int32, meta.Docs)
	var prev int32
	for i := range ix.docs {
		d := &ix.docs[i]
		d.id, d.name = docStr[docOff[2*i]:docOff[2*i+1]], docStr[docOff[2*i+1]:docOff[2*i+2]]
		d.first, d.limit = docRange[2*i], docRange[2*i+1]
		if d.first != prev || d.limit < d.first || int(d.limit) > meta.Units {
			return nil, bad("document ranges")
		}
		prev = d.limit
		ix.byID[d.id] = int32(i)
	}
	if int(prev) != meta.Units {
		return nil, bad("document ranges")
	}
	ix.terms = make([]string, meta.Terms)
	ix.postAll, ix.postOff = post, postOff
	ix.router.all, ix.router.off = route, routeOff
	// The names are small (tens per document) and checksummed: copied out,
	// with each entry checked against the tables it points into.
	nameStr := string(sec[secNameText-1])
	ix.nameTab.entries = append([]nameEntry(nil), ix.nameTab.entries...)
	ix.nameTab.terms = append([]int32(nil), ix.nameTab.terms...)
	ix.nameTab.text = make([]string, meta.Names)
	for i := range ix.nameTab.text {
		ix.nameTab.text[i] = nameStr[nameOff[i]:nameOff[i+1]]
	}
	for _, e := range ix.nameTab.entries {
		if e.Doc < 0 || int(e.Doc) >= meta.Docs || ix.nameTab.entryTerms(e) == nil || e.Text < 0 || int(e.Text) >= meta.Names {
			return nil, bad("names")
		}
	}
	for _, t := range ix.nameTab.terms {
		if t < 0 || int(t) >= meta.Terms {
			return nil, bad("names")
		}
	}
	for i := range ix.terms {
		t := termStr[termOff[i]:termOff[i+1]]
		ix.terms[i] = t
	}
	if len(ix.router.docLen) != meta.Docs {
		return nil, bad("router")
	}
	ix.router.titleSeq = make([][]int32, meta.Docs)
	for i := range ix.router.titleSeq {
		ix.router.titleSeq[i] = titles[titleOff[i]:titleOff[i+1]:titleOff[i+1]]
	}
	if meta.Vectors > 0 && (meta.Dim <= 0 || len(ix.vecOf) != meta.Units) {
		return nil, bad("vectors")
	}
	// The heading statistics were counted by the writer: a damaged count
	// can only misweigh an association, and the arrays are read
	// bounds-checked (headings.go).
	ix.headedN = meta.HeadedN
	ix.headOnce.Do(func() {})
	return ix, nil
}

// monotonic reports whether off starts at 0, never decreases and ends at n.
func monotonic[T int32 | uint32 | int64](off []T, n int) bool {
	if len(off) == 0 || off[0] != 0 || int64(off[len(off)-1]) != int64(n) {
		return false
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return false
		}
	}
	return true
}
