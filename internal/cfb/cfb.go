// Package cfb reads Microsoft Compound File Binary files (MS-CFB), the
// container of Word 97–2003 documents (.doc) and Outlook messages (.msg): a
// small file system of storages (directories) and streams (files) inside
// one file, laid out in fixed-size sectors chained by a file allocation
// table.
//
// The reader works on the file's bytes in memory and trusts nothing in
// them: every sector number is checked against the file, every chain is
// followed at most as many steps as the file has sectors (a chain that
// loops is an error, not a hang), and a stream's declared size is capped
// by what its chain can hold. The directory is made a tree when the file
// is opened: it is walked once from the root with one visited set, so an
// entry belongs to the first storage that reaches it, and a storage or
// stream that other storages also point to (a graph of storages reachable
// by many paths, or one that holds its own ancestor) is seen once, under
// that first storage only. A stream whose sectors another stream already
// claimed is an error, and a stream read twice is read once. So a hostile
// file costs at most time linear in its size and memory bounded by its
// size.
package cfb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Magic is the signature at the start of every compound file.
var Magic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("not a valid compound file")

const (
	endOfChain = 0xFFFFFFFE
	freeSect   = 0xFFFFFFFF
	noStream   = 0xFFFFFFFF
	maxDirs    = 1 << 20 // directory entries; real files hold dozens to thousands
	// maxSiblingDepth bounds the walk of one storage's tree of siblings
	// (balanced in real files: 40 levels hold a million entries);
	// maxStorageDepth bounds storages nested in storages.
	maxSiblingDepth = 64
	maxStorageDepth = 64
)

// File is an open compound file.
type File struct {
	data       []byte
	shift      uint // sector size = 1 << shift
	fat        []uint32
	miniFAT    []uint32
	miniStream []byte
	cutoff     uint64
	dirs       []dirEntry
	children   map[uint32][]Entry // each storage's entries, every entry under one storage
	read       map[uint32][]byte  // streams read so far
	failed     map[uint32]error   // streams that could not be read
	owner      map[uint64]uint32  // sector (mini sectors offset by 1<<32) → the stream that claimed it
}

type dirEntry struct {
	name               string
	typ                byte // 1 storage, 2 stream, 5 root
	left, right, child uint32
	start              uint32
	size               uint64
}

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// Open parses the header, allocation tables and directory of data. data
// must stay unchanged while the File is used.
func Open(data []byte) (*File, error) {
	if len(data) < 512 || !bytes.HasPrefix(data, Magic) {
		return nil, formatErr("no compound file signature")
	}
	le := binary.LittleEndian
	shift := uint(le.Uint16(data[30:]))
	if shift != 9 && shift != 12 {
		return nil, formatErr("sector size 2^%d", shift)
	}
	f := &File{data: data, shift: shift, cutoff: uint64(le.Uint32(data[56:]))}
	if f.cutoff == 0 || f.cutoff > 1<<20 {
		f.cutoff = 4096
	}
	nSectors := f.sectorCount()

	// The FAT's own sectors are listed by the DIFAT: 109 entries in the
	// header, then a chain of DIFAT sectors.
	var fatSectors []uint32
	for i := 0; i < 109; i++ {
		s := le.Uint32(data[76+4*i:])
		if s < uint32(nSectors) {
			fatSectors = append(fatSectors, s)
		}
	}
	difat := le.Uint32(data[68:])
	per := (1<<shift)/4 - 1
	for steps := 0; difat < uint32(nSectors); steps++ {
		if steps > nSectors {
			return nil, formatErr("the DIFAT chain loops")
		}
		sec := f.sector(difat)
		if len(sec) < 1<<shift {
			return nil, formatErr("a DIFAT sector is truncated")
		}
		for i := 0; i < per; i++ {
			if s := le.Uint32(sec[4*i:]); s < uint32(nSectors) {
				fatSectors = append(fatSectors, s)
			}
		}
		difat = le.Uint32(sec[4*per:])
	}
	if len(fatSectors) == 0 {
		return nil, formatErr("no allocation table")
	}
	if len(fatSectors) > nSectors {
		return nil, formatErr("more allocation-table sectors than the file has")
	}
	for _, s := range fatSectors {
		sec := f.sector(s)
		for i := 0; i+4 <= len(sec); i += 4 {
			f.fat = append(f.fat, le.Uint32(sec[i:]))
		}
	}

	dirBytes, err := f.chain(le.Uint32(data[48:]), f.fat, f.sector, 0, false)
	if err != nil {
		return nil, fmt.Errorf("directory: %w", err)
	}
	for i := 0; i+128 <= len(dirBytes) && len(f.dirs) < maxDirs; i += 128 {
		f.dirs = append(f.dirs, parseDir(dirBytes[i:i+128]))
	}
	if len(f.dirs) == 0 || f.dirs[0].typ != 5 {
		return nil, formatErr("no root storage")
	}
	if n := le.Uint32(data[64:]); n > 0 {
		mf, err := f.chain(le.Uint32(data[60:]), f.fat, f.sector, 0, false)
		if err != nil {
			return nil, fmt.Errorf("mini allocation table: %w", err)
		}
		for i := 0; i+4 <= len(mf); i += 4 {
			f.miniFAT = append(f.miniFAT, le.Uint32(mf[i:]))
		}
	}
	root := f.dirs[0]
	if root.start != endOfChain && root.size > 0 {
		ms, err := f.chain(root.start, f.fat, f.sector, root.size, true)
		if err != nil {
			return nil, fmt.Errorf("mini stream: %w", err)
		}
		f.miniStream = ms
	}
	f.tree()
	f.read, f.failed, f.owner = map[uint32][]byte{}, map[uint32]error{}, map[uint64]uint32{}
	return f, nil
}

// tree assigns every directory entry reachable from the root to one
// storage: the first that reaches it, walking storages depth first in
// directory order. Each entry is visited once, so shared subtrees and
// entries that point back to an ancestor cost nothing more.
func (f *File) tree() {
	f.children = map[uint32][]Entry{}
	seen := make([]bool, len(f.dirs))
	seen[0] = true
	var storage func(id uint32, depth int)
	storage = func(id uint32, depth int) {
		var kids []Entry
		var walk func(id uint32, depth int)
		walk = func(e uint32, depth int) {
			if e == noStream || int(e) >= len(f.dirs) || seen[e] || depth > maxSiblingDepth {
				return
			}
			seen[e] = true
			d := f.dirs[e]
			walk(d.left, depth+1)
			if d.typ == 1 || d.typ == 2 {
				kids = append(kids, Entry{Name: d.name, Storage: d.typ == 1, Size: int64(d.size), id: e})
			}
			walk(d.right, depth+1)
		}
		walk(f.dirs[id].child, 0)
		f.children[id] = kids
		if depth >= maxStorageDepth {
			return
		}
		for _, k := range kids {
			if k.Storage {
				storage(k.id, depth+1)
			}
		}
	}
	storage(0, 0)
}

func parseDir(b []byte) dirEntry {
	le := binary.LittleEndian
	n := int(le.Uint16(b[64:]))
	if n > 64 {
		n = 64
	}
	u := make([]uint16, 0, 32)
	for i := 0; i+1 < n; i += 2 {
		c := le.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return dirEntry{
		name: string(utf16.Decode(u)), typ: b[66],
		left: le.Uint32(b[68:]), right: le.Uint32(b[72:]), child: le.Uint32(b[76:]),
		start: le.Uint32(b[116:]), size: le.Uint64(b[120:]),
	}
}

func (f *File) sectorCount() int {
	return (len(f.data) - 1) >> f.shift // sector 0 follows the header
}

// sector returns regular sector s (checked by the caller to exist; a short
// last sector is padded with nothing: its slice is shorter).
func (f *File) sector(s uint32) []byte {
	off := (int(s) + 1) << f.shift
	if off >= len(f.data) {
		return nil
	}
	return f.data[off:min(len(f.data), off+1<<f.shift)]
}

// miniSector returns 64-byte sector s of the mini stream.
func (f *File) miniSector(s uint32) []byte {
	off := int(s) * 64
	if off >= len(f.miniStream) {
		return nil
	}
	return f.miniStream[off:min(len(f.miniStream), off+64)]
}

// chain reads the sectors chained from start in table. With size > 0 it
// stops once size bytes are read; exact demands that the chain holds them.
func (f *File) chain(start uint32, table []uint32, sector func(uint32) []byte, size uint64, exact bool) ([]byte, error) {
	var out []byte
	// A chain visits each sector at most once: more steps than sectors
	// means it loops.
	limit := min(len(table), f.sectorCount())
	if len(table) == len(f.miniFAT) && len(f.miniFAT) > 0 && &table[0] == &f.miniFAT[0] {
		limit = min(len(table), (len(f.miniStream)+63)/64)
	}
	for s, steps := start, 0; s != endOfChain; steps++ {
		if s == freeSect && size == 0 {
			break
		}
		if int(s) >= len(table) || steps > limit {
			if steps > limit {
				return nil, formatErr("a sector chain loops")
			}
			return nil, formatErr("sector %d is outside the file", s)
		}
		sec := sector(s)
		if sec == nil {
			return nil, formatErr("sector %d is outside the file", s)
		}
		out = append(out, sec...)
		if size > 0 && uint64(len(out)) >= size {
			return out[:size], nil
		}
		s = table[s]
	}
	if exact && size > 0 && uint64(len(out)) < size {
		return nil, formatErr("a stream declares %d bytes but its sectors hold %d", size, len(out))
	}
	if size > 0 && uint64(len(out)) > size {
		out = out[:size]
	}
	return out, nil
}

// Entry is a storage or stream inside a compound file.
type Entry struct {
	Name    string
	Storage bool
	Size    int64 // bytes, for streams
	id      uint32
}

// Storage is a directory of the compound file.
type Storage struct {
	f  *File
	id uint32
}

// Root returns the root storage.
func (f *File) Root() *Storage { return &Storage{f: f, id: 0} }

// Entries lists the storage's direct children in directory order (sorted
// by the file's own ordering, which is by name length, then name). An
// entry that several storages point to is listed under the first only.
func (s *Storage) Entries() []Entry {
	return append([]Entry(nil), s.f.children[s.id]...)
}

// find returns the child named name (case-insensitive, as MS-CFB
// compares names).
func (s *Storage) find(name string) (Entry, bool) {
	for _, e := range s.f.children[s.id] {
		if strings.EqualFold(e.Name, name) {
			return e, true
		}
	}
	return Entry{}, false
}

// Storage returns the child storage named name, or nil.
func (s *Storage) Storage(name string) *Storage {
	e, ok := s.find(name)
	if !ok || !e.Storage {
		return nil
	}
	return &Storage{f: s.f, id: e.id}
}

// Open returns the storage of entry e, or nil when e is a stream.
func (s *Storage) Open(e Entry) *Storage {
	if !e.Storage {
		return nil
	}
	return &Storage{f: s.f, id: e.id}
}

// ErrNotFound is returned for a stream that does not exist.
var ErrNotFound = errors.New("no such stream")

// Stream returns the bytes of the child stream named name.
func (s *Storage) Stream(name string) ([]byte, error) {
	e, ok := s.find(name)
	if !ok || e.Storage {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return s.Read(e)
}

// Read returns the bytes of stream e. Reading a stream again returns the
// same bytes, which the caller must not change.
func (s *Storage) Read(e Entry) ([]byte, error) {
	if e.Storage {
		return nil, fmt.Errorf("%s: is a storage", e.Name)
	}
	if b, ok := s.f.read[e.id]; ok {
		return b, nil
	}
	if err, ok := s.f.failed[e.id]; ok {
		return nil, err
	}
	b, err := s.read(e)
	if err != nil {
		s.f.failed[e.id] = err
		return nil, err
	}
	s.f.read[e.id] = b
	return b, nil
}

func (s *Storage) read(e Entry) ([]byte, error) {
	d := s.f.dirs[e.id]
	size := d.size
	if s.f.shift == 9 {
		size &= 0xFFFFFFFF // version 3 files may leave garbage in the high half
	}
	if size == 0 {
		return nil, nil
	}
	if size > uint64(len(s.f.data)) {
		return nil, formatErr("stream %s declares %d bytes, more than the file holds", e.Name, size)
	}
	var (
		b   []byte
		err error
	)
	// The sectors are claimed before they are copied: a stream sharing
	// another's sectors costs nothing.
	mini := size < s.f.cutoff
	if err := s.f.claim(e.id, d.start, mini, size); err != nil {
		return nil, fmt.Errorf("stream %s: %w", e.Name, err)
	}
	if mini {
		b, err = s.f.chain(d.start, s.f.miniFAT, s.f.miniSector, size, true)
	} else {
		b, err = s.f.chain(d.start, s.f.fat, s.f.sector, size, true)
	}
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", e.Name, err)
	}
	return b, nil
}

// claim records the sectors of stream id's chain (of n bytes) as its own,
// following the chain as far as it goes within the table;
// a sector another stream claimed first is an error: no two streams of a
// well-formed file share sectors, and a file whose streams do could make
// one sector cost its size once per stream.
func (f *File) claim(id, start uint32, mini bool, n uint64) error {
	table, size, key := f.fat, uint64(1)<<f.shift, uint64(0)
	if mini {
		table, size, key = f.miniFAT, 64, 1<<32
	}
	for s, read, steps := start, uint64(0), 0; read < n && int(s) < len(table) && steps <= len(table); read, steps = read+size, steps+1 {
		if other, ok := f.owner[key|uint64(s)]; ok && other != id {
			return formatErr("its sectors are also those of stream %s", f.dirs[other].name)
		}
		f.owner[key|uint64(s)] = id
		s = table[s]
	}
	return nil
}
