package parse

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A multi-page TIFF is split into single-page TIFFs so that its pages are
// read by tesseract in parallel, each with its own progress line, and so
// that each page's size is checked before any of it is decoded. Only the
// structure is touched: a page's directory is copied with the values and
// image data (strips or tiles) it points to, every offset rewritten; the
// pixels are never decoded here. Tags that point to further directories
// (EXIF, GPS, sub-images) are dropped from the copy.

// tiffPage is one image directory of a TIFF file.
type tiffPage struct {
	ifd           int // offset of the directory
	width, height int
}

var errTIFF = errors.New("malformed TIFF")

type tiffReader struct {
	b  []byte
	bo binary.ByteOrder
	// read counts the bytes of values and image data read for all pages:
	// a well-formed file's directories point at distinct data, so they
	// add up to about its size; directories that all point at the same
	// data (many pages, each listing thousands of strips over one block)
	// would make each page cost the whole file again.
	read int
}

// errTIFFShared is returned once the pages have read more than their
// file can hold.
var errTIFFShared = fmt.Errorf("%w: its pages point at the same image data again and again", ErrTooLarge)

// take counts n bytes read for the pages, failing past twice the file.
func (r *tiffReader) take(n int) error {
	r.read += n
	if r.read > 2*len(r.b)+64<<10 {
		return errTIFFShared
	}
	return nil
}

func newTIFFReader(b []byte) (*tiffReader, error) {
	if len(b) < 8 {
		return nil, errTIFF
	}
	var bo binary.ByteOrder
	switch string(b[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return nil, errTIFF
	}
	if bo.Uint16(b[2:]) != 42 {
		if bo.Uint16(b[2:]) == 43 {
			return nil, fmt.Errorf("%w: BigTIFF is not supported; save the scan as an ordinary TIFF or PDF", ErrUnsupported)
		}
		return nil, errTIFF
	}
	return &tiffReader{b: b, bo: bo}, nil
}

// tiffEntry is one directory entry.
type tiffEntry struct {
	tag, typ uint16
	count    uint32
	raw      [4]byte // the value, or its offset when it does not fit
}

func tiffTypeSize(t uint16) int {
	switch t {
	case 1, 2, 6, 7:
		return 1
	case 3, 8:
		return 2
	case 4, 9, 11, 13:
		return 4
	case 5, 10, 12:
		return 8
	}
	return 0
}

// entries reads the directory at off and the offset of the next one.
func (r *tiffReader) entries(off int) ([]tiffEntry, int, error) {
	if off < 8 || off+2 > len(r.b) {
		return nil, 0, errTIFF
	}
	n := int(r.bo.Uint16(r.b[off:]))
	if off+2+12*n+4 > len(r.b) {
		return nil, 0, errTIFF
	}
	es := make([]tiffEntry, n)
	for i := range es {
		e := r.b[off+2+12*i:]
		es[i] = tiffEntry{tag: r.bo.Uint16(e), typ: r.bo.Uint16(e[2:]), count: r.bo.Uint32(e[4:])}
		copy(es[i].raw[:], e[8:12])
	}
	return es, int(r.bo.Uint32(r.b[off+2+12*n:])), nil
}

// values returns entry e's values as unsigned integers (SHORT or LONG).
func (r *tiffReader) values(e tiffEntry) ([]uint32, error) {
	size := tiffTypeSize(e.typ)
	if size != 2 && size != 4 || e.count > 1<<24 {
		return nil, errTIFF
	}
	data := e.raw[:]
	if n := int(e.count) * size; n > 4 {
		off := int(r.bo.Uint32(e.raw[:]))
		if off < 0 || off+n > len(r.b) {
			return nil, errTIFF
		}
		if err := r.take(n); err != nil {
			return nil, err
		}
		data = r.b[off : off+n]
	}
	out := make([]uint32, e.count)
	for i := range out {
		if size == 2 {
			out[i] = uint32(r.bo.Uint16(data[2*i:]))
		} else {
			out[i] = r.bo.Uint32(data[4*i:])
		}
	}
	return out, nil
}

// tiffMaxPages bounds the pages of one TIFF.
const tiffMaxPages = 2000

// pages lists the image directories.
func (r *tiffReader) pages() ([]tiffPage, error) {
	var out []tiffPage
	seen := map[int]bool{}
	for off := int(r.bo.Uint32(r.b[4:])); off != 0; {
		if seen[off] {
			break // a directory chain that loops back: stop, as readers do
		}
		if len(out) == tiffMaxPages {
			return nil, fmt.Errorf("%w: more than %d pages in one TIFF", ErrTooLarge, tiffMaxPages)
		}
		seen[off] = true
		es, next, err := r.entries(off)
		if err != nil {
			if len(out) > 0 {
				break // a damaged tail: keep the pages before it
			}
			return nil, err
		}
		p := tiffPage{ifd: off}
		for _, e := range es {
			switch e.tag {
			case 256, 257:
				v, err := r.values(e)
				if err != nil || len(v) == 0 {
					return nil, errTIFF
				}
				if e.tag == 256 {
					p.width = int(v[0])
				} else {
					p.height = int(v[0])
				}
			}
		}
		out = append(out, p)
		off = next
	}
	if len(out) == 0 {
		return nil, errTIFF
	}
	return out, nil
}

// tiffDropped are tags pointing to other directories or data a page copy
// does not carry.
var tiffDropped = map[uint16]bool{288: true, 289: true, 330: true, 513: true, 514: true, 34665: true, 34853: true, 40965: true}

// page writes page p as a standalone TIFF in the same byte order.
func (r *tiffReader) page(p tiffPage) ([]byte, error) {
	es, _, err := r.entries(p.ifd)
	if err != nil {
		return nil, err
	}
	var kept []tiffEntry
	for _, e := range es {
		if !tiffDropped[e.tag] {
			kept = append(kept, e)
		}
	}
	bo := r.bo
	// Layout: header, the directory, then the values and image data it
	// points to.
	base := 8 + 2 + 12*len(kept) + 4
	var data []byte
	alloc := func(b []byte) uint32 {
		off := uint32(base + len(data))
		data = append(data, b...)
		if len(data)%2 == 1 {
			data = append(data, 0)
		}
		return off
	}
	counts := map[uint16][]uint32{}
	for _, e := range kept {
		if e.tag == 279 || e.tag == 325 {
			v, err := r.values(e)
			if err != nil {
				return nil, err
			}
			counts[e.tag] = v
		}
	}
	offsetsOf := map[uint16]uint16{273: 279, 324: 325} // data offsets → their byte counts
	outs := make([]tiffEntry, len(kept))
	for i, e := range kept {
		o := tiffEntry{tag: e.tag, typ: e.typ, count: e.count, raw: e.raw}
		if cnt, ok := offsetsOf[e.tag]; ok {
			offs, err := r.values(e)
			if err != nil || len(counts[cnt]) != len(offs) {
				return nil, errTIFF
			}
			arr := make([]byte, 4*len(offs))
			for k, off := range offs {
				n := counts[cnt][k]
				if uint64(off)+uint64(n) > uint64(len(r.b)) {
					return nil, errTIFF
				}
				if err := r.take(int(n)); err != nil {
					return nil, err
				}
				bo.PutUint32(arr[4*k:], alloc(r.b[off:off+n]))
			}
			o.typ = 4 // the offsets are always written as LONGs
			if len(arr) <= 4 {
				copy(o.raw[:], arr)
			} else {
				bo.PutUint32(o.raw[:], alloc(arr))
			}
		} else if n := tiffTypeSize(e.typ) * int(e.count); n > 4 {
			off := int(bo.Uint32(e.raw[:]))
			if n < 0 || off < 0 || off+n > len(r.b) {
				return nil, errTIFF
			}
			bo.PutUint32(o.raw[:], alloc(r.b[off:off+n]))
		}
		outs[i] = o
	}
	out := make([]byte, base, base+len(data))
	copy(out, r.b[:4])
	bo.PutUint32(out[4:], 8)
	bo.PutUint16(out[8:], uint16(len(outs)))
	for i, e := range outs {
		slot := out[8+2+12*i:]
		bo.PutUint16(slot, e.tag)
		bo.PutUint16(slot[2:], e.typ)
		bo.PutUint32(slot[4:], e.count)
		copy(slot[8:12], e.raw[:])
	}
	out = append(out, data...)
	return out, nil
}
