package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"unsafe"
)

// The index's files (segments, association tables) share one container: a
// header, a table of sections, and the sections, each 8-byte aligned so the
// arrays in them are used where they lie in a memory mapping.
//
//	header   magic (8 bytes), format, section count, reserved, CRC-32C
//	table    one (id, CRC-32C, offset, length) entry per section
//	sections section 1 is a small JSON meta section; the others are raw
//	         little-endian arrays and string tables
//
// The header's CRC covers the header, the table and the meta section, and
// is checked at every open. The other sections each have their own CRC in
// the table, checked by Verify (every merge verifies its inputs) but not at
// open: hashing them would read the whole file, and a search reads a few
// pages of it. Instead every value read from them is bounds-checked before
// it is used as an index, so a damaged file can misrank, never crash or
// read outside the mapping. Files are written under a temporary name,
// fsynced and renamed by their writer (dir.go).

// ErrBadIndex reports an index file that cannot be used: another format, a
// damaged header or inconsistent sections.
var ErrBadIndex = errors.New("search: unusable index file")

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

var crcTable = crc32.MakeTable(crc32.Castagnoli)

const (
	headerSize = 8 + 4 + 4 + 8 + 4 + 4 // magic, format, sections, reserved, crc, reserved
	tableEntry = 4 + 4 + 8 + 8         // id, crc, offset, length
)

// fileWriter writes a container section by section to a file it can seek
// back in (the header is written last, when the sections' places are
// known).
type fileWriter struct {
	f       *os.File
	bw      *bufio.Writer
	magic   string
	format  uint32
	entries [][3]uint64 // by section id - 1: crc, offset, length
	pos     int64
	cur     int
	crc     uint32
	err     error
	// progress, when set, is called with the bytes written so far every
	// few megabytes.
	progress func(int64)
	lastTick int64
}

func newFileWriter(f *os.File, magic string, format uint32, sections int) *fileWriter {
	w := &fileWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20), magic: magic, format: format, entries: make([][3]uint64, sections)}
	w.raw(make([]byte, headerSize+sections*tableEntry))
	w.pad()
	return w
}

func (w *fileWriter) raw(b []byte) {
	if w.err != nil || len(b) == 0 {
		return
	}
	n, err := w.bw.Write(b)
	w.pos += int64(n)
	if err != nil {
		w.err = err
		return
	}
	if w.progress != nil && w.pos-w.lastTick >= 8<<20 {
		w.lastTick = w.pos
		w.progress(w.pos)
	}
}

func (w *fileWriter) pad() {
	var zero [8]byte
	w.raw(zero[:align8(int(w.pos))-int(w.pos)])
}

// begin starts section id.
func (w *fileWriter) begin(id int) {
	w.pad()
	w.cur, w.crc = id, 0
	w.entries[id-1][1] = uint64(w.pos)
}

// write appends bytes to the current section.
func (w *fileWriter) write(b []byte) {
	w.crc = crc32.Update(w.crc, crcTable, b)
	w.raw(b)
}

// end closes the current section.
func (w *fileWriter) end() {
	e := &w.entries[w.cur-1]
	e[0] = uint64(w.crc)
	e[2] = uint64(w.pos) - e[1]
}

// section writes a whole section.
func (w *fileWriter) section(id int, parts ...[]byte) {
	w.begin(id)
	for _, p := range parts {
		w.write(p)
	}
	w.end()
}

// finish writes the header and table (the meta section must have been
// written as section 1) and flushes. It returns the file's size.
func (w *fileWriter) finish(meta []byte) (int64, error) {
	w.section(1, meta)
	w.pad()
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	if w.err != nil {
		return 0, w.err
	}
	head := make([]byte, headerSize+len(w.entries)*tableEntry)
	copy(head, w.magic)
	binary.LittleEndian.PutUint32(head[8:], w.format)
	binary.LittleEndian.PutUint32(head[12:], uint32(len(w.entries)))
	for i, e := range w.entries {
		t := head[headerSize+i*tableEntry:]
		binary.LittleEndian.PutUint32(t, uint32(i+1))
		binary.LittleEndian.PutUint32(t[4:], uint32(e[0]))
		binary.LittleEndian.PutUint64(t[8:], e[1])
		binary.LittleEndian.PutUint64(t[16:], e[2])
	}
	crc := crc32.Update(0, crcTable, head[:24])
	crc = crc32.Update(crc, crcTable, head[headerSize:])
	crc = crc32.Update(crc, crcTable, meta)
	binary.LittleEndian.PutUint32(head[24:], crc)
	if _, err := w.f.WriteAt(head, 0); err != nil {
		return 0, err
	}
	return w.pos, nil
}

func align8(n int) int { return (n + 7) &^ 7 }

// container is an opened file's sections.
type container struct {
	data []byte
	secs [][]byte // by id - 1
	crcs []uint32
}

// openContainer checks a container's header, table and meta section.
func openContainer(data []byte, magic string, format uint32, sections int) (*container, error) {
	bad := func(what string) error { return fmt.Errorf("%w: %s", ErrBadIndex, what) }
	if len(data) < headerSize || string(data[:8]) != magic {
		return nil, bad("not an index file of this kind")
	}
	if binary.LittleEndian.Uint32(data[8:]) != format || binary.LittleEndian.Uint32(data[12:]) != uint32(sections) {
		return nil, bad("another format")
	}
	if len(data) < headerSize+sections*tableEntry {
		return nil, bad("short file")
	}
	c := &container{data: data, secs: make([][]byte, sections), crcs: make([]uint32, sections)}
	for i := range sections {
		e := data[headerSize+i*tableEntry:]
		off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		if binary.LittleEndian.Uint32(e) != uint32(i+1) || off%8 != 0 || off > uint64(len(data)) || n > uint64(len(data))-off {
			return nil, bad("section table")
		}
		c.secs[i] = data[off : off+n]
		c.crcs[i] = binary.LittleEndian.Uint32(e[4:])
	}
	crc := crc32.Update(0, crcTable, data[:24])
	crc = crc32.Update(crc, crcTable, data[headerSize:headerSize+sections*tableEntry])
	crc = crc32.Update(crc, crcTable, c.secs[0])
	if crc != binary.LittleEndian.Uint32(data[24:]) {
		return nil, bad("checksum mismatch")
	}
	return c, nil
}

// verify checks every section's CRC.
func (c *container) verify() error { return c.verifyEach(nil) }

// verifyEach is verify calling read after each piece of at most 4 MB
// checked, with its length.
func (c *container) verifyEach(read func(int)) error {
	const piece = 4 << 20
	for i, sec := range c.secs {
		crc := uint32(0)
		for len(sec) > 0 {
			k := min(len(sec), piece)
			crc = crc32.Update(crc, crcTable, sec[:k])
			sec = sec[k:]
			if read != nil {
				read(k)
			}
		}
		if crc != c.crcs[i] {
			return fmt.Errorf("%w: section %d is damaged (checksum mismatch)", ErrBadIndex, i+1)
		}
	}
	return nil
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

// mappedString views bytes of a mapping as a string without copying: it
// must not outlive the mapping.
func mappedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

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

// writeAll is io.Writer over a fileWriter's current section.
type sectionWriter struct{ w *fileWriter }

func (s sectionWriter) Write(b []byte) (int, error) {
	s.w.write(b)
	return len(b), s.w.err
}

var _ io.Writer = sectionWriter{}
