// Package cfb reads Microsoft Compound File Binary files (MS-CFB), the
// container of Word 97–2003 documents (.doc) and Outlook messages (.msg): a
// small file system of storages (directories) and streams (files) inside
// one file, laid out in fixed-size sectors chained by a file allocation
// table.
//
// The reader works on the file's bytes in memory and trusts nothing in
// them: every sector number is checked against the file, every chain is
// followed at most as many steps as the file has sectors (a chain that
// loops is an error, not a hang), the directory tree is walked with a
// visited set (a sibling pointer that loops back is ignored), and a
// stream's declared size is capped by what its chain can hold. So a
// hostile file costs at most time linear in its size and memory bounded
// by the size of the streams asked for, each at most the file's size.
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
	return f, nil
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
// by the file's own ordering, which is by name length, then name).
func (s *Storage) Entries() []Entry {
	var out []Entry
	seen := map[uint32]bool{}
	var walk func(id uint32, depth int)
	walk = func(id uint32, depth int) {
		if id == noStream || int(id) >= len(s.f.dirs) || seen[id] || depth > 64 {
			return
		}
		seen[id] = true
		d := s.f.dirs[id]
		walk(d.left, depth+1)
		if d.typ == 1 || d.typ == 2 {
			out = append(out, Entry{Name: d.name, Storage: d.typ == 1, Size: int64(d.size), id: id})
		}
		walk(d.right, depth+1)
	}
	walk(s.f.dirs[s.id].child, 0)
	return out
}

// find returns the child named name (case-insensitive, as MS-CFB
// compares names).
func (s *Storage) find(name string) (Entry, bool) {
	for _, e := range s.Entries() {
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

// Read returns the bytes of stream e.
func (s *Storage) Read(e Entry) ([]byte, error) {
	if e.Storage {
		return nil, fmt.Errorf("%s: is a storage", e.Name)
	}
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
	if size < s.f.cutoff {
		b, err = s.f.chain(d.start, s.f.miniFAT, s.f.miniSector, size, true)
	} else {
		b, err = s.f.chain(d.start, s.f.fat, s.f.sector, size, true)
	}
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", e.Name, err)
	}
	return b, nil
}
