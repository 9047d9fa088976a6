package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/fnv"
	"io"
	"slices"
	"sync"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// How each document is shown (names.Display of the names the index keeps)
// can be kept with a collection's index, so a process that names every
// document (the web app's document list of a large collection) reads the
// displays instead of making them again: WriteDisplays writes them,
// SetDisplays gives an index the file to read them from. A kept display is
// used for a document only when the document's id, indexed version and name
// are those it was made for and names.DisplayRules is the number it was
// made by; any other document is named as before. A file that is torn,
// damaged or of another format is ignored whole, so what DocDisplay returns
// never depends on the file: only how much it costs.
//
// The file, all integers little-endian:
//
//	"PKTNDSP1"  magic
//	uint32      names.DisplayRules
//	uint32      n, the number of entries
//	uint32      CRC-32 (IEEE) of everything after this field
//	[n+1]uint32 where each entry starts in the entries that follow (the last: their end)
//	entries     in increasing order of id: uint16 length, id, uint64 key, display
//
// where key is an FNV-64a hash of the document's indexed version and name
// (displayKeyOf).

const displayMagic = "PKTNDSP1"

const displayHeader = len(displayMagic) + 12

// keptDisplays is a displays file as read: entries are looked up by id.
type keptDisplays struct {
	n    int
	off  []byte // (n+1) uint32
	data []byte // the entries
}

// displayKeyOf is what a kept display is checked against.
func displayKeyOf(version, name string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, version)
	h.Write([]byte{0})
	io.WriteString(h, name)
	return h.Sum64()
}

// parseDisplays checks a displays file and returns it, or nil when it is not
// one written by these rules.
func parseDisplays(b []byte) *keptDisplays {
	if len(b) < displayHeader || string(b[:len(displayMagic)]) != displayMagic {
		return nil
	}
	p := b[len(displayMagic):]
	if binary.LittleEndian.Uint32(p) != names.DisplayRules {
		return nil
	}
	n := int(binary.LittleEndian.Uint32(p[4:]))
	if crc32.ChecksumIEEE(b[displayHeader:]) != binary.LittleEndian.Uint32(p[8:]) {
		return nil
	}
	rest := b[displayHeader:]
	if n < 0 || len(rest)/4 < n+1 {
		return nil
	}
	k := &keptDisplays{n: n, off: rest[:4*(n+1)], data: rest[4*(n+1):]}
	prev := uint32(0)
	for i := 0; i <= n; i++ {
		o := binary.LittleEndian.Uint32(k.off[4*i:])
		if o < prev || int(o) > len(k.data) {
			return nil
		}
		prev = o
	}
	if int(prev) != len(k.data) {
		return nil
	}
	return k
}

// entry returns entry i's id, key and display; ok is false for a malformed
// entry.
func (k *keptDisplays) entry(i int) (id []byte, key uint64, display []byte, ok bool) {
	a, b := binary.LittleEndian.Uint32(k.off[4*i:]), binary.LittleEndian.Uint32(k.off[4*i+4:])
	e := k.data[a:b]
	if len(e) < 2 {
		return nil, 0, nil, false
	}
	l := int(binary.LittleEndian.Uint16(e))
	if len(e) < 2+l+8 {
		return nil, 0, nil, false
	}
	return e[2 : 2+l], binary.LittleEndian.Uint64(e[2+l:]), e[2+l+8:], true
}

// lookup returns the display kept for id when it was made for key.
func (k *keptDisplays) lookup(id string, key uint64) (string, bool) {
	lo, hi := 0, k.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		eid, _, _, ok := k.entry(m)
		if !ok {
			return "", false
		}
		if string(eid) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo >= k.n {
		return "", false
	}
	eid, ekey, d, ok := k.entry(lo)
	if !ok || string(eid) != id || ekey != key {
		return "", false
	}
	return string(d), true
}

// displaySource is where an index reads kept displays from (SetDisplays),
// read once, when a display is first asked for.
type displaySource struct {
	read func() ([]byte, error)
	once sync.Once
	kept *keptDisplays
}

func (s *displaySource) get() *keptDisplays {
	s.once.Do(func() {
		if b, err := s.read(); err == nil {
			s.kept = parseDisplays(b)
		}
	})
	return s.kept
}

// SetDisplays gives the index a displays file (WriteDisplays) to read the
// documents' displays from: read is called once, when DocDisplay is first
// asked; an error, or a file not written by these rules, leaves every
// display to be made.
func (ix *Index) SetDisplays(read func() ([]byte, error)) {
	ix.displays.Store(&displaySource{read: read})
}

// DisplaysMade returns how many documents of the snapshot were named by
// names.Display rather than read from a displays file.
func (ix *Index) DisplaysMade() int { return int(ix.c.Load().made.Load()) }

// WriteDisplays writes how every live document of the snapshot is shown
// (DocDisplay), for SetDisplays.
func (ix *Index) WriteDisplays(w io.Writer) error {
	v := ix.view()
	type doc struct {
		id  string
		key uint64
		d   string
	}
	docs := make([]doc, 0, v.LiveDocs())
	for g := range v.NumDocs() {
		if !v.DocLive(g) {
			continue
		}
		id := v.DocID(g)
		docs = append(docs, doc{id, snapshotDocKey(v, g), ix.DocDisplay(id)})
	}
	slices.SortFunc(docs, func(a, b doc) int {
		if a.id < b.id {
			return -1
		}
		if a.id > b.id {
			return 1
		}
		return 0
	})
	for i := 1; i < len(docs); i++ {
		if docs[i].id == docs[i-1].id {
			return errors.New("search: displays: a document id indexed twice")
		}
	}
	off := make([]byte, 0, 4*(len(docs)+1))
	var data bytes.Buffer
	var scratch [8]byte
	for _, d := range docs {
		if len(d.id) > 0xffff {
			return errors.New("search: displays: a document id longer than 65,535 bytes")
		}
		off = binary.LittleEndian.AppendUint32(off, uint32(data.Len()))
		binary.LittleEndian.PutUint16(scratch[:], uint16(len(d.id)))
		data.Write(scratch[:2])
		data.WriteString(d.id)
		binary.LittleEndian.PutUint64(scratch[:], d.key)
		data.Write(scratch[:])
		data.WriteString(d.d)
	}
	if data.Len() > 1<<32-1 {
		return errors.New("search: displays: more than 4 GB")
	}
	off = binary.LittleEndian.AppendUint32(off, uint32(data.Len()))
	crc := crc32.NewIEEE()
	crc.Write(off)
	crc.Write(data.Bytes())
	head := make([]byte, 0, displayHeader)
	head = append(head, displayMagic...)
	head = binary.LittleEndian.AppendUint32(head, names.DisplayRules)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(docs)))
	head = binary.LittleEndian.AppendUint32(head, crc.Sum32())
	for _, b := range [][]byte{head, off, data.Bytes()} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// snapshotDocKey is the key a kept display of document g is checked
// against: its indexed version and name.
func snapshotDocKey(v *index.Snapshot, g int32) uint64 {
	i, ld := v.SegmentOfDoc(g)
	return displayKeyOf(v.Segments()[i].DocVersion(ld), v.DocName(g))
}

// keptDisplay returns document g's display from the displays file, if the
// index has one holding it as the document is now.
func (ix *Index) keptDisplay(v *index.Snapshot, g int32, id string) (string, bool) {
	src := ix.displays.Load()
	if src == nil {
		return "", false
	}
	k := src.get()
	if k == nil {
		return "", false
	}
	return k.lookup(id, snapshotDocKey(v, g))
}
