package store

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
)

// A collection's listing file (listingName, beside its log) keeps the
// summaries List returns — every field of each live document's DocInfo, its
// artifacts' names and checksums — in a binary form read in one go: a
// server's first document list of a large collection then decodes no
// record's JSON (at 46,800 documents about a second of processor time,
// half of it encoding/json).
//
// Like the checkpoint, it describes a prefix of the log: the header record,
// how many bytes it covers and a checksum of the bytes just before that end.
// A reader uses a summary from it only when the log it opened still starts
// with that prefix and the document's live version is the version directory
// the summary was made from. A version directory's record is in the prefix
// and never changes, so such a summary is the one its record decodes to;
// every other live document (put since, or the whole collection when the
// file is missing, damaged, or of another log) is decoded from its record,
// as without the file. The file therefore never changes a listing, only its
// cost; a damaged one is ignored and written again.
//
// A writer (never a store opened with OpenReader) writes it after a listing
// of a collection of at least listingMinDocs documents that decoded more
// than a sixteenth of its summaries from the records, replacing it
// atomically.
//
// Layout, integers little-endian, "str" a uvarint length and the bytes:
//
//	magic "PKMLIST1"
//	u64 covered (bytes of the log it describes), u64 generation
//	u32 n, the log's header record (n bytes, with its newline)
//	u32 k, u32 CRC-32C of the log's k bytes before covered
//	u32 count, then per document:
//	    str id, str version directory,
//	    str ID, Name, Format; varint Runes, Pages, Nodes;
//	    str Source.Path, SHA256; varint Size; str ModTime, IngestedAt
//	    (RFC 3339 text, as the record's JSON holds them); str Archive,
//	    Entry, Folder, Parent;
//	    uvarint artifacts, then per artifact (sorted): str name, str SHA-256
//	u32 CRC-32C of everything before
const listingName = "manifest.list"

const listingMagic = "PKMLIST1"

// listingMinDocs is the smallest collection whose listing is written to a
// file. (A variable so tests can list small collections through it.)
var listingMinDocs = 1024

// listed is one live document of a listing: its id in the manifest, its
// version directory and its summary.
type listed struct {
	id, dir string
	info    DocInfo
}

// listDocs returns the live documents of m (the state of cs) sorted as
// List sorts them, reading the summaries it can from the collection's
// listing file and decoding the others from their records, and how many
// it decoded. Called with cs.mu held for reading.
func (s *Store) listDocs(collection string, cs *collState) ([]listed, int, error) {
	m := cs.m
	var fromFile []listed
	if cs.f != nil {
		fromFile = readListing(s.collectionDir(collection), cs.f, cs.off)
	}
	docs := make([]listed, 0, len(m.Docs))
	got := make(map[string]bool, len(fromFile))
	for _, d := range fromFile {
		if l := m.Docs[d.id]; l != nil && l.dir == d.dir && !got[d.id] {
			got[d.id] = true
			docs = append(docs, d)
		}
	}
	var keep func(string, *lazyEntry) bool
	if len(got) > 0 {
		keep = func(id string, _ *lazyEntry) bool { return !got[id] }
	}
	rest, err := m.listed(collection, keep)
	if err != nil {
		return nil, 0, err
	}
	docs = append(docs, rest...)
	// Sorted by moving indexes, not the summaries; a listing read from
	// the file is in order already.
	order := make([]int32, len(docs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &docs[i].info, &docs[j].info
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	sorted := make([]listed, len(docs))
	for i, k := range order {
		sorted[i] = docs[k]
	}
	return sorted, len(rest), nil
}

// maybeWriteListing writes the listing file of a collection whose listing
// docs (of state cs) decoded decoded summaries from the records. A failure
// is only logged: the file only saves work. Called with cs.mu held for
// reading.
func (s *Store) maybeWriteListing(collection string, cs *collState, docs []listed, decoded int) {
	if s.readOnly || cs.f == nil || len(docs) < listingMinDocs || decoded <= len(docs)/16 {
		return
	}
	if err := writeListing(s.collectionDir(collection), cs.f, cs.off, cs.m.Generation, docs); err != nil {
		slog.Warn("store: could not write the collection's listing file", "collection", collection, "err", err)
	}
}

// writeListing writes the listing file of docs, the live documents of log
// f's first covered bytes (generation gen), in directory dir.
func writeListing(dir string, f *os.File, covered int64, gen uint64, docs []listed) error {
	if err := fault("listing"); err != nil {
		return err
	}
	out := make([]byte, 0, 4096+64+len(docs)*512)
	out = append(out, listingMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(covered))
	out = binary.LittleEndian.AppendUint64(out, gen)
	out, err := appendLogMark(out, f, covered)
	if err != nil {
		return err
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(docs)))
	for _, d := range docs {
		out, err = appendListed(out, d)
		if err != nil {
			return err
		}
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
	return atomicfile.Write(filepath.Join(dir, listingName), out, 0o644)
}

// appendListed appends one document of a listing file.
func appendListed(out []byte, d listed) ([]byte, error) {
	str := func(s string) { out = binary.AppendUvarint(out, uint64(len(s))); out = append(out, s...) }
	when := func(t time.Time) error {
		b, err := t.MarshalText()
		if err != nil {
			return err
		}
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
		return nil
	}
	in := d.info
	str(d.id)
	str(d.dir)
	str(in.ID)
	str(in.Name)
	str(in.Format)
	out = binary.AppendVarint(out, int64(in.Runes))
	out = binary.AppendVarint(out, int64(in.Pages))
	out = binary.AppendVarint(out, int64(in.Nodes))
	src := in.Source
	str(src.Path)
	str(src.SHA256)
	out = binary.AppendVarint(out, src.Size)
	if err := when(src.ModTime); err != nil {
		return nil, err
	}
	if err := when(src.IngestedAt); err != nil {
		return nil, err
	}
	str(src.Archive)
	str(src.Entry)
	str(src.Folder)
	str(src.Parent)
	if len(in.Artifacts) != len(in.ArtifactSums) || !slices.IsSorted(in.Artifacts) {
		return nil, errors.New("artifacts and their checksums differ")
	}
	out = binary.AppendUvarint(out, uint64(len(in.Artifacts)))
	for _, name := range in.Artifacts {
		sum, ok := in.ArtifactSums[name]
		if !ok {
			return nil, errors.New("artifacts and their checksums differ")
		}
		str(name)
		str(sum)
	}
	return out, nil
}

// readListing returns the documents of the listing file in dir when it is
// whole and describes a prefix of log f (size bytes), else nil.
func readListing(dir string, f *os.File, size int64) []listed {
	data, err := os.ReadFile(filepath.Join(dir, listingName))
	if err != nil || len(data) < len(listingMagic)+4 || string(data[:len(listingMagic)]) != listingMagic {
		return nil
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil
	}
	r := ckptReader{b: body[len(listingMagic):]}
	covered := int64(r.u64())
	r.u64() // generation: for whoever reads the file; the prefix decides
	_, ok := readLogMark(&r, f, covered, size)
	count := int(r.u32())
	if !ok || r.bad {
		return nil
	}
	// One string holds every string of the file; the summaries' strings
	// are pieces of it.
	return decodeListed(string(r.b), count)
}

// decodeListed decodes count documents of a listing file, which must be
// all of text, or returns nil.
func decodeListed(text string, count int) []listed {
	if count < 0 || count > len(text)/8 {
		return nil
	}
	lr := listingReader{text: text}
	docs := make([]listed, count)
	for i := range docs {
		if !lr.listed(&docs[i]) {
			return nil
		}
	}
	if lr.bad || lr.at != len(lr.text) {
		return nil
	}
	return docs
}

// listingReader reads the documents of a listing file; bad is set once a
// field runs past the end or does not decode.
type listingReader struct {
	text string
	at   int
	bad  bool
}

func (r *listingReader) uvarint() uint64 {
	var v uint64
	for shift := uint(0); !r.bad; shift += 7 {
		if r.at >= len(r.text) || shift > 63 {
			r.bad = true
			break
		}
		c := r.text[r.at]
		r.at++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	return 0
}

func (r *listingReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *listingReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.text)-r.at) {
		r.bad = true
		return ""
	}
	s := r.text[r.at : r.at+int(n)]
	r.at += int(n)
	return s
}

func (r *listingReader) time() time.Time {
	var t time.Time
	s := r.str()
	if !r.bad && t.UnmarshalText([]byte(s)) != nil {
		r.bad = true
	}
	return t
}

// listed reads one document into d.
func (r *listingReader) listed(d *listed) bool {
	d.id = r.str()
	d.dir = r.str()
	in := &d.info
	in.ID = r.str()
	in.Name = r.str()
	in.Format = r.str()
	in.Runes = int(r.varint())
	in.Pages = int(r.varint())
	in.Nodes = int(r.varint())
	src := &in.Source
	src.Path = r.str()
	src.SHA256 = r.str()
	src.Size = r.varint()
	src.ModTime = r.time()
	src.IngestedAt = r.time()
	src.Archive = r.str()
	src.Entry = r.str()
	src.Folder = r.str()
	src.Parent = r.str()
	n := r.uvarint()
	if r.bad || n > uint64(len(r.text)-r.at)/2 {
		return false
	}
	in.ArtifactSums = make(map[string]string, n)
	if n > 0 {
		in.Artifacts = make([]string, n)
	}
	for i := range in.Artifacts {
		name, sum := r.str(), r.str()
		if i > 0 && name <= in.Artifacts[i-1] {
			return false
		}
		in.Artifacts[i] = name
		in.ArtifactSums[name] = sum
	}
	_, ok := dirRev(d.id, d.dir)
	return ok && !r.bad
}
