// Package pdftest writes tiny, valid PDFs for tests. It is test-only code:
// import it from _test.go files, never from the product.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"fmt"
)

// OnePage returns a valid one-page US Letter PDF showing one line of
// Helvetica text per argument, top to bottom.
func OnePage(lines ...string) []byte {
	var content bytes.Buffer
	y := 720
	for _, l := range lines {
		fmt.Fprintf(&content, "BT /F1 11 Tf 72 %d Td (%s) Tj ET\n", y, l)
		y -= 14
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
	}
	return assemble(objs)
}

// OnePageMapped is OnePage with a ToUnicode map on the font: each byte
// of the text that maps names the character an extractor reports for it,
// as a font embedded by a filing agent may map its semicolon glyph to
// U+037E GREEK QUESTION MARK.
func OnePageMapped(mapped map[byte]rune, lines ...string) []byte {
	var content bytes.Buffer
	y := 720
	for _, l := range lines {
		fmt.Fprintf(&content, "BT /F1 11 Tf 72 %d Td (%s) Tj ET\n", y, l)
		y -= 14
	}
	var cmap bytes.Buffer
	cmap.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<00> <FF>\nendcodespacerange\n")
	fmt.Fprintf(&cmap, "%d beginbfchar\n", len(mapped))
	for c := 0; c < 256; c++ {
		if r, ok := mapped[byte(c)]; ok {
			fmt.Fprintf(&cmap, "<%02X> <%04X>\n", c, r)
		}
	}
	cmap.WriteString("endbfchar\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cmap.Len(), cmap.String()),
	}
	return assemble(objs)
}

// assemble writes objs as objects 1..n of a PDF with a cross-reference
// table; object 1 is the catalog.
func assemble(objs []string) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

// ManyTextOps returns a one-page PDF whose Flate-compressed content stream
// shows n one-character strings, each in its own text object: a small file
// that asks a PDF reader to build n text objects.
func ManyTextOps(n int) []byte {
	var content bytes.Buffer
	content.WriteString("BT /F1 1 Tf\n")
	for i := range n {
		fmt.Fprintf(&content, "%d %d Td (x) Tj\n", i%2, 0)
	}
	content.WriteString("ET\n")
	return onePageFlate(content.Bytes(), 0)
}

// FlateBomb returns a one-page PDF whose content stream inflates to size
// bytes of spaces from a few hundred kilobytes of compressed data.
func FlateBomb(size int) []byte {
	return onePageFlate(nil, size)
}

// onePageFlate writes a one-page PDF whose content stream is content
// followed by pad spaces, Flate-compressed.
func onePageFlate(content []byte, pad int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = zw.Write(content)
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	for pad > 0 {
		k := min(pad, len(spaces))
		_, _ = zw.Write(spaces[:k])
		pad -= k
	}
	_ = zw.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()),
	}
	return assemble(objs)
}
