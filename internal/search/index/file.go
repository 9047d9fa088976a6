package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/filelock"
)

// A segment file is a Segment's own arrays written as they are in memory
// (container.go), so opening one maps the file and points a Segment at it:
// no decoding, no per-posting work, and only the pages a search touches
// are ever read. Opening builds nothing proportional to the segment: the
// vocabulary and the document ids are hash tables in the file, strings are
// read where they lie, and per-unit and per-term offsets are checked where
// they are used.
//
// segmentFormat changes whenever a structure written here changes: a
// segment of another format is refused (ErrBadIndex) and its collection's
// index is rebuilt from the stored documents by its loader. (Formats 1–4
// were the single index file of earlier versions, search.idx.) Format 6
// added the postings' block bounds (bounds.go); a format 5 segment, the
// same without them, is still read, its bounds counted when first needed.
const segmentFormat = 6

// Format 5: format 6 without the block bounds' section.
const (
	segmentFormat5 = 5
	numSections5   = numSections - 1
)

const segmentMagic = "PKTNSEG\n"

// Section ids of a segment file.
const (
	secMeta = iota + 1
	secDocStrOff
	secDocStr
	secDocRange
	secDocHash
	secUnits
	secSpanOff
	secSpans
	secFwdOff
	secFwd
	secTermOff
	secTermStr
	secVocabHash
	secPostOff
	secPost
	secRouteOff
	secRoute
	secRouteLen
	secTitleOff
	secTitle
	secDocTermOff
	secDocTerms
	secHeadDocs
	secHeadedDF
	secSelf
	secVecOf
	secVecUnit
	secVecs
	secNames
	secNameTerms
	secNameTextOff
	secNameText
	secNameFirstOff
	secNameFirst
	// Filled in stats files only (statsfile.go).
	secTermDF
	secTermDocs
	secDocTermUnits
	secDocTermHeaded
	secDocTermTF
	secDocTermPlainTF
	secDocViews
	secDocHeaded
	// Format 6 on.
	secBlockMax
	numSections = secBlockMax
)

// segmentMeta is the meta section.
type segmentMeta struct {
	Docs       int                `json:"docs"`
	Units      int                `json:"units"`
	Terms      int                `json:"terms"`
	Spans      int                `json:"spans"`
	Fwd        int                `json:"fwd"`
	Postings   int64              `json:"postings"`
	Routes     int64              `json:"routes"`
	RouteTotal int64              `json:"route_total"`
	ViewLen    [NumViews]int64    `json:"view_len"`
	ViewN      [NumViews]int64    `json:"view_n"`
	Titles     int                `json:"titles"`
	DocTerms   int64              `json:"doc_terms"`
	HeadedN    int64              `json:"headed_n"`
	Self       int                `json:"self"`
	Dim        int                `json:"dim,omitempty"`
	DenseModel string             `json:"dense_model,omitempty"`
	Vectors    int                `json:"vectors,omitempty"`
	VocabHash  int                `json:"vocab_hash"`
	DocHash    int                `json:"doc_hash"`
	Names      int                `json:"names"`
	NameTerms  int                `json:"name_terms"`
	NameFirst  int                `json:"name_first"`
	StatsOnly  bool               `json:"stats_only,omitempty"` // a stats file (statsfile.go)
	Blocks     int64              `json:"blocks,omitempty"`     // block bounds (bounds.go)
	Sizes      map[string]uintptr `json:"sizes"`                // struct sizes, so a change of layout is caught
}

func structSizes() map[string]uintptr {
	return map[string]uintptr{
		"unit": unsafe.Sizeof(Unit{}), "span": unsafe.Sizeof(Span{}),
		"posting": unsafe.Sizeof(Posting{}), "route": unsafe.Sizeof(RoutePosting{}),
		"self": unsafe.Sizeof(SelfCount{}), "name": unsafe.Sizeof(NameEntry{}),
	}
}

// writeSegment writes a segment (built in memory) to w.
func writeSegment(w *fileWriter, s *Segment) (int64, error) {
	if !littleEndian {
		return 0, errors.New("search: index files need a little-endian machine")
	}
	s.countStats()
	nd := s.NumDocs()
	nt := s.NumTerms()
	meta := segmentMeta{
		Docs: nd, Units: s.NumUnits(), Terms: nt, Spans: len(s.spans), Fwd: len(s.fwd),
		RouteTotal: s.rtotal, ViewLen: s.viewLen, ViewN: s.viewN, DocTerms: int64(len(s.docTerms)),
		HeadedN: s.headedN, Self: len(s.self), Dim: s.dim, DenseModel: s.denseModel,
		Vectors: len(s.vecUnit), Sizes: structSizes(),
	}
	docStrs := make([]string, 0, 3*nd)
	docRange := make([]int32, 0, 2*nd)
	ids := make([]string, 0, nd)
	for d := range int32(nd) {
		docStrs = append(docStrs, s.docString(d, 0), s.docString(d, 1), s.docString(d, 2))
		f, l := s.DocRange(d)
		docRange = append(docRange, f, l)
		ids = append(ids, s.docString(d, 0))
	}
	docOff, docStr := stringTable(docStrs)
	docHash := vocabTable(ids)
	terms := make([]string, nt)
	for t := range int32(nt) {
		terms[t] = s.term(t)
	}
	termOff, termStr := stringTable(terms)
	vocabHash := vocabTable(terms)
	meta.VocabHash, meta.DocHash = len(vocabHash), len(docHash)

	w.section(secDocStrOff, asBytes(docOff))
	w.section(secDocStr, docStr)
	w.section(secDocRange, asBytes(docRange))
	w.section(secDocHash, asBytes(docHash))
	w.section(secUnits, asBytes(s.units))
	w.section(secSpanOff, asBytes(s.spanOff))
	w.section(secSpans, asBytes(s.spans))
	w.section(secFwdOff, asBytes(s.fwdOff))
	w.section(secFwd, asBytes(s.fwd))
	w.section(secTermOff, asBytes(termOff))
	w.section(secTermStr, termStr)
	w.section(secVocabHash, asBytes(vocabHash))
	postOff := make([]int64, 0, nt+1)
	routeOff := make([]int64, 0, nt+1)
	for t := range int32(nt) {
		postOff = append(postOff, meta.Postings)
		meta.Postings += int64(len(s.Postings(t)))
		routeOff = append(routeOff, meta.Routes)
		meta.Routes += int64(len(s.RoutePostings(t)))
	}
	postOff = append(postOff, meta.Postings)
	routeOff = append(routeOff, meta.Routes)
	w.section(secPostOff, asBytes(postOff))
	w.begin(secPost)
	for t := range int32(nt) {
		w.write(asBytes(s.Postings(t)))
	}
	w.end()
	bounds := s.builtBounds()
	meta.Blocks = int64(len(bounds))
	w.section(secBlockMax, asBytes(bounds))
	w.section(secRouteOff, asBytes(routeOff))
	w.begin(secRoute)
	for t := range int32(nt) {
		w.write(asBytes(s.RoutePostings(t)))
	}
	w.end()
	w.section(secRouteLen, asBytes(s.docLen))
	titleOff := make([]int32, 0, nd+1)
	w.begin(secTitle)
	n := int32(0)
	for d := range int32(nd) {
		titleOff = append(titleOff, n)
		seq := s.TitleSeq(d)
		n += int32(len(seq))
		w.write(asBytes(seq))
	}
	w.end()
	titleOff = append(titleOff, n)
	meta.Titles = int(n)
	w.section(secTitleOff, asBytes(titleOff))
	w.section(secDocTermOff, asBytes(s.docTermOff))
	w.section(secDocTerms, asBytes(s.docTerms))
	w.section(secHeadDocs, asBytes(s.headDocs))
	w.section(secHeadedDF, asBytes(s.headedDF))
	w.section(secSelf, asBytes(s.self))
	if meta.Vectors > 0 {
		w.section(secVecOf, asBytes(s.vecOf))
		w.section(secVecUnit, asBytes(s.vecUnit))
		w.section(secVecs, asBytes(s.vecs))
	} else {
		w.section(secVecOf)
		w.section(secVecUnit)
		w.section(secVecs)
	}
	texts := make([]string, len(s.names))
	for i, e := range s.names {
		texts[i] = s.NameText(e)
	}
	nameOff, nameStr := stringTable(texts)
	firstOff, firstList := nameFirstTable(s.names, s.nameTerms, nt)
	w.section(secNames, asBytes(s.names))
	w.section(secNameTerms, asBytes(s.nameTerms))
	w.section(secNameTextOff, asBytes(nameOff))
	w.section(secNameText, nameStr)
	w.section(secNameFirstOff, asBytes(firstOff))
	w.section(secNameFirst, asBytes(firstList))
	meta.Names, meta.NameTerms, meta.NameFirst = len(s.names), len(s.nameTerms), len(firstList)
	writeDocStats(w, s.ds)
	meta.StatsOnly = s.ds != nil
	mj, err := json.Marshal(meta)
	if err != nil {
		return 0, err
	}
	return w.finish(mj)
}

// writeDocStats writes a stats file's sections (empty ones for a full
// segment).
func writeDocStats(w *fileWriter, ds *docStats) {
	if ds == nil {
		ds = &docStats{}
	}
	w.section(secTermDF, asBytes(ds.termDF))
	w.section(secTermDocs, asBytes(ds.termDocs))
	w.section(secDocTermUnits, asBytes(ds.units))
	w.section(secDocTermHeaded, asBytes(ds.headed))
	w.section(secDocTermTF, asBytes(ds.tf))
	w.section(secDocTermPlainTF, asBytes(ds.plainTF))
	w.section(secDocViews, asBytes(ds.views))
	w.section(secDocHeaded, asBytes(ds.headedN))
}

// OpenSegment opens a segment file. A file of another format or damaged
// header is refused with an error wrapping ErrBadIndex; a missing file
// yields an error wrapping fs.ErrNotExist. The file is memory-mapped where
// the system allows it (read in one go elsewhere) and unmapped when the
// Segment is garbage-collected; the Segment is read-only.
func OpenSegment(path string) (*Segment, error) {
	if !littleEndian {
		return nil, fmt.Errorf("%w: index files need a little-endian machine", ErrBadIndex)
	}
	return openMapped(path, segmentFrom, func(s *Segment, m *mapping) { s.mapped = m })
}

// openMapped maps the file at path and reads it with from; keep stores the
// mapping in the value read, and the mapping is released when that value is
// garbage-collected (at once when from fails).
func openMapped[T any](path string, from func([]byte) (*T, error), keep func(*T, *mapping)) (*T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := mapFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t, err := from(m.data)
	if err != nil {
		m.unmap()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	keep(t, m)
	runtime.AddCleanup(t, func(m *mapping) { m.unmap() }, m)
	return t, nil
}

// segmentFrom points a new Segment at the sections of data.
func segmentFrom(data []byte) (*Segment, error) {
	format, sections := uint32(segmentFormat), numSections
	if len(data) >= 12 && binary.LittleEndian.Uint32(data[8:]) == segmentFormat5 {
		format, sections = segmentFormat5, numSections5
	}
	c, err := openContainer(data, segmentMagic, format, sections)
	if err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadIndex, fmt.Sprintf(format, a...))
	}
	var meta segmentMeta
	if err := json.Unmarshal(c.secs[secMeta-1], &meta); err != nil {
		return nil, bad("meta: %v", err)
	}
	for k, v := range structSizes() {
		if meta.Sizes[k] != v {
			return nil, bad("written with another layout of %s", k)
		}
	}
	if meta.Docs < 0 || meta.Units < 0 || meta.Terms < 0 || meta.Units > 1<<31-2 {
		return nil, bad("counts")
	}
	s := &Segment{viewLen: meta.ViewLen, viewN: meta.ViewN, dim: meta.Dim, denseModel: meta.DenseModel,
		rtotal: meta.RouteTotal, headedN: meta.HeadedN, ndocs: meta.Docs}
	get := func(dst any, id, n int) {
		if err != nil {
			return
		}
		b := c.secs[id-1]
		switch p := dst.(type) {
		case *[]int32:
			*p, err = fromBytes[int32](b, n)
		case *[]uint32:
			*p, err = fromBytes[uint32](b, n)
		case *[]int64:
			*p, err = fromBytes[int64](b, n)
		case *[]float32:
			*p, err = fromBytes[float32](b, n)
		case *[]Unit:
			*p, err = fromBytes[Unit](b, n)
		case *[]Span:
			*p, err = fromBytes[Span](b, n)
		case *[]Posting:
			*p, err = fromBytes[Posting](b, n)
		case *[]RoutePosting:
			*p, err = fromBytes[RoutePosting](b, n)
		case *[]SelfCount:
			*p, err = fromBytes[SelfCount](b, n)
		case *[]NameEntry:
			*p, err = fromBytes[NameEntry](b, n)
		}
	}
	get(&s.docStrOff, secDocStrOff, 3*meta.Docs+1)
	get(&s.docRange, secDocRange, 2*meta.Docs)
	get(&s.docHash, secDocHash, meta.DocHash)
	if meta.StatsOnly {
		ds := &docStats{}
		get(&ds.termDF, secTermDF, meta.Terms)
		get(&ds.termDocs, secTermDocs, meta.Terms)
		get(&ds.units, secDocTermUnits, int(meta.DocTerms))
		get(&ds.headed, secDocTermHeaded, int(meta.DocTerms))
		get(&ds.tf, secDocTermTF, int(meta.DocTerms))
		get(&ds.plainTF, secDocTermPlainTF, int(meta.DocTerms))
		get(&ds.views, secDocViews, 2*int(NumViews)*meta.Docs)
		get(&ds.headedN, secDocHeaded, meta.Docs)
		s.ds, s.nunits = ds, meta.Units
	} else {
		get(&s.units, secUnits, meta.Units)
		get(&s.spanOff, secSpanOff, meta.Units+1)
		get(&s.spans, secSpans, meta.Spans)
		get(&s.fwdOff, secFwdOff, meta.Units+1)
		get(&s.fwd, secFwd, meta.Fwd)
		get(&s.postOff, secPostOff, meta.Terms+1)
		get(&s.postAll, secPost, int(meta.Postings))
		if format != segmentFormat5 {
			if meta.Blocks != numBlocks(meta.Postings) {
				return nil, bad("block bounds")
			}
			get(&s.bmax, secBlockMax, int(meta.Blocks))
		}
	}
	get(&s.termOff, secTermOff, meta.Terms+1)
	get(&s.vocabHash, secVocabHash, meta.VocabHash)
	get(&s.roff, secRouteOff, meta.Terms+1)
	get(&s.rall, secRoute, int(meta.Routes))
	get(&s.docLen, secRouteLen, meta.Docs)
	get(&s.titleOff, secTitleOff, meta.Docs+1)
	get(&s.titles, secTitle, meta.Titles)
	get(&s.docTermOff, secDocTermOff, meta.Docs+1)
	get(&s.docTerms, secDocTerms, int(meta.DocTerms))
	get(&s.headDocs, secHeadDocs, meta.Terms)
	get(&s.headedDF, secHeadedDF, meta.Terms)
	get(&s.self, secSelf, meta.Self)
	get(&s.names, secNames, meta.Names)
	get(&s.nameTerms, secNameTerms, meta.NameTerms)
	get(&s.nameTextOff, secNameTextOff, meta.Names+1)
	get(&s.nameFirstOff, secNameFirstOff, meta.Terms+1)
	get(&s.nameFirstList, secNameFirst, meta.NameFirst)
	if meta.Vectors > 0 && !meta.StatsOnly {
		get(&s.vecOf, secVecOf, meta.Units)
		get(&s.vecUnit, secVecUnit, meta.Vectors)
		get(&s.vecs, secVecs, meta.Vectors*meta.Dim)
	}
	if err != nil {
		return nil, err
	}
	if s.termOff == nil {
		s.termOff = []uint32{0}
	}
	s.nameTextStr = mappedString(c.secs[secNameText-1])
	if s.nameTextOff == nil {
		s.nameTextOff = []uint32{0}
	}
	if s.nameFirstOff == nil {
		s.nameFirstOff = []int32{0}
	}
	s.docStr = mappedString(c.secs[secDocStr-1])
	s.termStr = mappedString(c.secs[secTermStr-1])
	// Document ranges must tile the units in order: every range read from
	// them in a search is then in range without further checks.
	var prev int32
	for d := range meta.Docs {
		f, l := s.docRange[2*d], s.docRange[2*d+1]
		if f != prev || l < f || int(l) > meta.Units {
			return nil, bad("document ranges")
		}
		prev = l
	}
	if int(prev) != meta.Units {
		return nil, bad("document ranges")
	}
	if meta.Vectors > 0 && !meta.StatsOnly && (meta.Dim <= 0 || len(s.vecOf) != meta.Units) {
		return nil, bad("vectors")
	}
	s.statOnce.Do(func() {}) // counted by the writer
	if s.headDocs == nil {
		s.headDocs, s.headedDF = []int32{}, []int32{}
	}
	s.c = c
	return s, nil
}

// Verify checks every section of an opened segment against its checksum
// (reading the whole file). A segment built in memory is always valid.
func (s *Segment) Verify() error {
	if s.c == nil {
		return nil
	}
	if err := s.c.verify(); err != nil {
		return fmt.Errorf("segment %s: %w", s.name, err)
	}
	return nil
}

// verifyReleasing is Verify that releases the segment's mapped pages every
// mergeMappedCheck bytes checked and at the end, so checking a large
// segment does not leave it whole in the process's memory.
func (s *Segment) verifyReleasing() error {
	defer s.release()
	if s.c == nil {
		return nil
	}
	n := 0
	if err := s.c.verifyEach(func(k int) {
		if n += k; n >= mergeMappedCheck {
			n = 0
			s.release()
		}
	}); err != nil {
		return fmt.Errorf("segment %s: %w", s.name, err)
	}
	return nil
}

// WriteSegmentFile writes a segment built in memory to path: a temporary
// file beside it, fsynced, then renamed over path. It returns the file's
// size. The segment itself is unchanged; open the file with OpenSegment.
func WriteSegmentFile(path string, s *Segment) (int64, error) {
	var size int64
	err := writeFileAtomic(path, func(f *os.File) error {
		var err error
		size, err = writeSegment(newFileWriter(f, segmentMagic, segmentFormat, numSections), s)
		return err
	})
	return size, err
}

// writeFileAtomic writes a new file at path with write, by the durability
// rule of package atomicfile (temporary file in the same directory, fsync,
// rename, fsync of the directory), so a crash leaves the old state or the
// whole new file; the temporary file is removed when anything fails. It
// differs from atomicfile.WriteFunc in handing write the file itself (a
// segment's header is written last, at offset 0) and in holding a lock on
// the temporary file while it is written, so a writer's gc in another
// process never removes it (dir.go).
func writeFileAtomic(path string, write func(f *os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	filelock.TryLock(f) // released when f is closed
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return atomicfile.SyncDir(dir)
}

// tmpPrefix starts the names of files being written.
const tmpPrefix = atomicfile.TempPrefix + "seg-"
