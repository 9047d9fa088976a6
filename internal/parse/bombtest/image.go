package bombtest

import (
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"io"
)

func imageCases() []Case {
	return []Case{
		{
			Name: "tiff-shared-strips", File: "pages.tif", Want: Either,
			About: "2,000 pages of 2,000×2,000 pixels, each listing 10,000 strips that all point at the same 100 KB of data: a 400 KB file",
			Write: func(w io.Writer) error { return sharedStripTIFF(w, 2000, 10_000, 100<<10) },
		},
		{
			Name: "png-deep", File: "deep.png", Want: Either,
			About: "a 6,300×6,300 PNG of 16-bit RGBA (318 MB of pixels, under the deskew limit of 40 megapixels) that compresses to a few hundred KB",
			Write: func(w io.Writer) error { return blankPNG(w, 6300, 6300) },
		},
		{
			Name: "jpeg-large", File: "large.jpg", Want: Either,
			About: "a 9,900×9,900 grey JPEG of one colour: 98 megapixels in 1.5 MB, twice the page limit",
			Write: func(w io.Writer) error {
				return jpeg.Encode(w, bounded{image.NewUniform(color.Gray{Y: 250}), image.Rect(0, 0, 9900, 9900)}, &jpeg.Options{Quality: 50})
			},
		},
	}
}

// bounded is a uniform image with bounds.
type bounded struct {
	*image.Uniform
	r image.Rectangle
}

func (b bounded) Bounds() image.Rectangle { return b.r }

// sharedStripTIFF writes a little-endian TIFF of pages image directories,
// each of strips strips all pointing at one block of size bytes.
func sharedStripTIFF(w io.Writer, pages, strips, size int) error {
	le := binary.LittleEndian
	const header = 8
	dataOff := header
	offsOff := dataOff + size
	countsOff := offsOff + 4*strips
	ifdOff := countsOff + 4*strips
	const nTags = 9
	ifdSize := 2 + 12*nTags + 4
	b := make([]byte, ifdOff+pages*ifdSize)
	copy(b, "II*\x00")
	le.PutUint32(b[4:], uint32(ifdOff))
	for i := 0; i < strips; i++ {
		le.PutUint32(b[offsOff+4*i:], uint32(dataOff))
		le.PutUint32(b[countsOff+4*i:], uint32(size))
	}
	for p := 0; p < pages; p++ {
		at := ifdOff + p*ifdSize
		le.PutUint16(b[at:], nTags)
		tag := func(i int, id, typ uint16, count, value uint32) {
			e := b[at+2+12*i:]
			le.PutUint16(e, id)
			le.PutUint16(e[2:], typ)
			le.PutUint32(e[4:], count)
			le.PutUint32(e[8:], value)
		}
		tag(0, 256, 4, 1, 2000)                           // width
		tag(1, 257, 4, 1, 2000)                           // height
		tag(2, 258, 3, 1, 1)                              // bits per sample
		tag(3, 259, 3, 1, 1)                              // no compression
		tag(4, 262, 3, 1, 0)                              // white is zero
		tag(5, 273, 4, uint32(strips), uint32(offsOff))   // strip offsets
		tag(6, 277, 3, 1, 1)                              // samples per pixel
		tag(7, 278, 4, 1, 1)                              // rows per strip
		tag(8, 279, 4, uint32(strips), uint32(countsOff)) // strip byte counts
		next := uint32(0)
		if p+1 < pages {
			next = uint32(at + ifdSize)
		}
		le.PutUint32(b[at+2+12*nTags:], next)
	}
	_, err := w.Write(b)
	return err
}

// blankPNG writes a w×h 16-bit RGBA PNG of zeros.
func blankPNG(out io.Writer, w, h int) error {
	chunk := func(typ string, data []byte) error {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		var sum [4]byte
		binary.BigEndian.PutUint32(sum[:], c.Sum32())
		for _, p := range [][]byte{n[:], []byte(typ), data, sum[:]} {
			if _, err := out.Write(p); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := out.Write([]byte("\x89PNG\r\n\x1a\n")); err != nil {
		return err
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 6 // 16 bits, RGBA
	if err := chunk("IHDR", ihdr); err != nil {
		return err
	}
	var idat bytesWriter
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestCompression)
	row := make([]byte, 1+8*w)
	for range h {
		zw.Write(row)
	}
	zw.Close()
	if err := chunk("IDAT", idat.b); err != nil {
		return err
	}
	return chunk("IEND", nil)
}
