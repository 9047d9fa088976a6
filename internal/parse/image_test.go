package parse

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/parse/bombtest"
)

// encodeTIFF writes pages as one bilevel (1 bit per pixel, PackBits) TIFF,
// the format of office scanners, little-endian, one strip per page. A
// pixel darker than half is black.
func encodeTIFF(pages []image.Image) []byte {
	le := binary.LittleEndian
	out := []byte{'I', 'I', 42, 0, 0, 0, 0, 0}
	prevNext := 4 // where the offset of the next directory goes
	for _, img := range pages {
		b := img.Bounds()
		w, h := b.Dx(), b.Dy()
		var raw []byte
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := make([]byte, (w+7)/8)
			for x := b.Min.X; x < b.Max.X; x++ {
				if color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y < 128 {
					row[(x-b.Min.X)/8] |= 0x80 >> ((x - b.Min.X) % 8)
				}
			}
			raw = append(raw, packBits(row)...)
		}
		stripOff := len(out)
		out = append(out, raw...)
		if len(out)%2 == 1 {
			out = append(out, 0)
		}
		ifd := len(out)
		le.PutUint32(out[prevNext:], uint32(ifd))
		type ent struct {
			tag, typ uint16
			val      uint32
		}
		ents := []ent{{256, 4, uint32(w)}, {257, 4, uint32(h)}, {258, 3, 1}, {259, 3, 32773}, {262, 3, 0},
			{273, 4, uint32(stripOff)}, {277, 3, 1}, {278, 4, uint32(h)}, {279, 4, uint32(len(raw))},
			{282, 4, 0}, {283, 4, 0}, {296, 3, 2}}
		dir := make([]byte, 2+12*len(ents)+4)
		le.PutUint16(dir, uint16(len(ents)))
		resAt := ifd + len(dir) // two RATIONALs (200/1) follow the directory
		for i, e := range ents {
			p := dir[2+12*i:]
			le.PutUint16(p, e.tag)
			le.PutUint16(p[2:], e.typ)
			le.PutUint32(p[4:], 1)
			switch e.tag {
			case 282, 283:
				le.PutUint16(p[2:], 5)
				le.PutUint32(p[8:], uint32(resAt+8*int(e.tag-282)))
			case 258, 259, 262, 277, 296:
				le.PutUint16(p[8:], uint16(e.val))
			default:
				le.PutUint32(p[8:], e.val)
			}
		}
		out = append(out, dir...)
		prevNext = ifd + len(dir) - 4
		for range 2 {
			r := make([]byte, 8)
			le.PutUint32(r, 200)
			le.PutUint32(r[4:], 1)
			out = append(out, r...)
		}
	}
	return out
}

// packBits compresses one row (TIFF compression 32773).
func packBits(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && j-i < 128 && b[j] == b[i] {
			j++
		}
		if j-i >= 2 {
			out = append(out, byte(257-(j-i)), b[i])
			i = j
			continue
		}
		j = i + 1
		for j < len(b) && j-i < 128 && (j+1 >= len(b) || b[j] != b[j+1]) {
			j++
		}
		out = append(out, byte(j-i-1))
		out = append(out, b[i:j]...)
		i = j
	}
	return out
}

func TestTIFFSplit(t *testing.T) {
	var pages []image.Image
	for i := 0; i < 3; i++ {
		img := image.NewGray(image.Rect(0, 0, 40+i, 20))
		for x := 0; x < 40+i; x++ {
			img.SetGray(x, i*5, color.Gray{0})
		}
		pages = append(pages, img)
	}
	data := encodeTIFF(pages)
	r, err := newTIFFReader(data)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := r.pages()
	if err != nil || len(ps) != 3 {
		t.Fatalf("pages %v, %v", ps, err)
	}
	for i, p := range ps {
		if p.width != 40+i || p.height != 20 {
			t.Errorf("page %d is %d×%d", i+1, p.width, p.height)
		}
		one, err := r.page(p)
		if err != nil {
			t.Fatal(err)
		}
		r1, err := newTIFFReader(one)
		if err != nil {
			t.Fatal(err)
		}
		p1, err := r1.pages()
		if err != nil || len(p1) != 1 || p1[0].width != p.width {
			t.Fatalf("page %d copy: %v %v", i+1, p1, err)
		}
		// The copy holds the same strip bytes.
		want := encodeTIFF(pages[i : i+1])
		if !bytes.Contains(one, want[8:8+10]) {
			t.Errorf("page %d copy lost its image data", i+1)
		}
	}
	// A directory chain that loops ends; a huge page is refused before OCR.
	loop := append([]byte(nil), data...)
	first := binary.LittleEndian.Uint32(loop[4:])
	n := binary.LittleEndian.Uint16(loop[first:])
	binary.LittleEndian.PutUint32(loop[int(first)+2+12*int(n):], first)
	if r, _ := newTIFFReader(loop); r != nil {
		if ps, err := r.pages(); err != nil || len(ps) != 1 {
			t.Errorf("looping chain: %d pages, %v", len(ps), err)
		}
	}
	huge := encodeTIFF([]image.Image{image.NewGray(image.Rect(0, 0, 8, 8))})
	off := binary.LittleEndian.Uint32(huge[4:])
	binary.LittleEndian.PutUint32(huge[off+2+8:], 200_000) // width
	binary.LittleEndian.PutUint32(huge[off+2+12+8:], 200_000)
	if _, err := Bytes(context.Background(), "huge.tif", huge, Options{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("200,000×200,000 page: %v", err)
	}
	if _, err := Bytes(context.Background(), "x.png", []byte("not a png at all"), Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("not an image: %v", err)
	}
	if _, err := Bytes(context.Background(), "x.tif", data, Options{OCR: OCROff}); !errors.Is(err, ErrEmpty) {
		t.Errorf("OCR off: %v", err)
	}
}

// testdata/scan/two-pages.tif is two pages of a short agreement rendered at
// 200 dpi, bilevel, as an office scanner saves them (made by
// TestWriteScanFixture from LibreOffice and pdftoppm output).
func TestImageOCR(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed (Debian packages tesseract-ocr tesseract-ocr-eng)")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "scan", "two-pages.tif"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	doc, err := Bytes(context.Background(), "scan.tif", data, Options{Progress: func(m string) { msgs = append(msgs, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != "tiff-ocr" || len(doc.Pages) != 2 {
		t.Fatalf("format %q, %d pages", doc.Format, len(doc.Pages))
	}
	if p1, p2 := doc.Slice(doc.Pages[0].Span), doc.Slice(doc.Pages[1].Span); !strings.Contains(p1, "Confidentiality") || !strings.Contains(p2, "Governing Law") {
		t.Errorf("pages:\n%s\n---\n%s", p1, p2)
	}
	o := doc.Meta.OCR
	if o == nil || o.Confidence < 80 || len(o.PageConfidence) != 2 || o.Words < 40 {
		t.Errorf("OCR meta %+v", o)
	}
	if len(msgs) != 2 || !strings.HasPrefix(msgs[1], "OCR page 2/2") {
		t.Errorf("progress %q", msgs)
	}
	// The same page as PNG.
	img, err := decodeFirstPage(t, data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	doc, err = Bytes(context.Background(), "page.png", buf.Bytes(), Options{})
	if err != nil || doc.Format != "png-ocr" || len(doc.Pages) != 1 || !strings.Contains(doc.Text, "Confidentiality") {
		t.Errorf("png: %v %+v", err, doc)
	}
}

// decodeFirstPage reads back page 1 of a fixture written by encodeTIFF
// (bilevel PackBits), for the PNG test.
func decodeFirstPage(t *testing.T, data []byte) (image.Image, error) {
	r, err := newTIFFReader(data)
	if err != nil {
		return nil, err
	}
	ps, err := r.pages()
	if err != nil {
		return nil, err
	}
	es, _, err := r.entries(ps[0].ifd)
	if err != nil {
		return nil, err
	}
	var off, n uint32
	for _, e := range es {
		v, _ := r.values(e)
		switch e.tag {
		case 273:
			off = v[0]
		case 279:
			n = v[0]
		}
	}
	src := data[off : off+n]
	img := image.NewGray(image.Rect(0, 0, ps[0].width, ps[0].height))
	rowBytes := (ps[0].width + 7) / 8
	var row []byte
	y := 0
	for i := 0; i < len(src) && y < ps[0].height; {
		c := int(int8(src[i]))
		i++
		switch {
		case c >= 0:
			row = append(row, src[i:i+c+1]...)
			i += c + 1
		case c != -128:
			for k := 0; k < 1-c; k++ {
				row = append(row, src[i])
			}
			i++
		}
		if len(row) >= rowBytes {
			for x := 0; x < ps[0].width; x++ {
				v := uint8(255)
				if row[x/8]&(0x80>>(x%8)) != 0 {
					v = 0
				}
				img.SetGray(x, y, color.Gray{v})
			}
			row, y = row[rowBytes:], y+1
		}
	}
	return img, nil
}

// TestWriteScanFixture regenerates testdata/scan/two-pages.tif when
// PAKTON_WRITE_FIXTURES=1 (needs LibreOffice and poppler-utils).
func TestWriteScanFixture(t *testing.T) {
	if os.Getenv("PAKTON_WRITE_FIXTURES") != "1" {
		t.Skip("set PAKTON_WRITE_FIXTURES=1 to regenerate")
	}
	dir := t.TempDir()
	text := "NON-DISCLOSURE AGREEMENT\n\nThis Agreement is made between Orion Analytics Ltd and Vega Robotics Inc.\n\n1. Confidentiality\n\nEach party shall keep the other party's Confidential Information secret and use it only for the Purpose.\n\f2. Term\n\nThis Agreement continues for three (3) years from the Effective Date.\n\n3. Governing Law\n\nThis Agreement is governed by the laws of England and Wales.\n"
	os.WriteFile(filepath.Join(dir, "nda.txt"), []byte(text), 0o644)
	if out, err := exec.Command("soffice", "--headless", "--convert-to", "pdf", "--outdir", dir, filepath.Join(dir, "nda.txt")).CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v %s", err, out)
	}
	if out, err := exec.Command("pdftoppm", "-r", "200", "-gray", "-png", filepath.Join(dir, "nda.pdf"), filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	var pages []image.Image
	for _, f := range []string{"p-1.png", "p-2.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		// Keep the top of the page, where the text is.
		sub, ok := img.(interface {
			SubImage(image.Rectangle) image.Image
		})
		if !ok {
			t.Fatalf("%s: cannot crop a %T", f, img)
		}
		pages = append(pages, sub.SubImage(image.Rect(0, 0, img.Bounds().Dx(), 700)))
	}
	os.MkdirAll(filepath.Join("testdata", "scan"), 0o755)
	if err := os.WriteFile(filepath.Join("testdata", "scan", "two-pages.tif"), encodeTIFF(pages), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzImage(f *testing.F) {
	f.Add(encodeTIFF([]image.Image{image.NewGray(image.Rect(0, 0, 9, 3)), image.NewGray(image.Rect(0, 0, 5, 5))}))
	for _, b := range bombtest.Seeds("tiff") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := newTIFFReader(data)
		if err != nil {
			return
		}
		ps, err := r.pages()
		if err != nil {
			return
		}
		total := 0
		for _, p := range ps {
			b, err := r.page(p)
			// A page copies at most what r.take allows all pages (twice
			// the file and 64 KiB) and its directory.
			if err == nil && len(b) > 2*len(data)+(64<<10)+8+2+4+12*64 {
				t.Fatalf("a page copy of %d bytes from a %d-byte file", len(b), len(data))
			}
			// All pages together copy about the file at most (r.take).
			if total += len(b); total > 2*len(data)+(64<<10)+len(ps)*(8+2+4+12*64) {
				t.Fatalf("pages copying %d bytes from a %d-byte file", total, len(data))
			}
		}
	})
}
