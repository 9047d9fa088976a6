package bombtest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"strings"
)

// Seeds returns small files of the kit's shapes for one format, a few KB
// each, for the seed corpora of the readers' fuzz targets: the same
// amplifications as the cases (repeated spacing, runs of one character,
// storages shared or cyclic, strips pointing at one block, long control
// words, deep nesting) at a size plain "go test" reads in milliseconds.
// Formats: odt, rtf, doc, msg, tiff, png, jpeg, eml, docx, html, txt.
func Seeds(format string) [][]byte {
	var out [][]byte
	add := func(write func(w io.Writer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			panic(fmt.Sprintf("bombtest: seed of %s: %v", format, err))
		}
		out = append(out, b.Bytes())
	}
	switch format {
	case "odt":
		add(func(w io.Writer) error {
			var block strings.Builder
			for i := range 20 {
				fmt.Fprintf(&block, `<text:p>w%d<text:s text:c="1000"/>x</text:p>`, i)
			}
			return odt(w, text(odtContentHead+block.String()+odtContentTail), nil)
		})
		add(func(w io.Writer) error {
			return odt(w, func(w io.Writer) error {
				io.WriteString(w, odtContentHead+"<text:p>")
				prose(w, 2000, 0, "")
				_, err := io.WriteString(w, "</text:p>"+odtContentTail)
				return err
			}, nil)
		})
		add(func(w io.Writer) error {
			var st, body strings.Builder
			st.WriteString(`<?xml version="1.0" encoding="UTF-8"?><office:document-styles ` + odfNS + `><office:styles>`)
			for i := range 30 {
				fmt.Fprintf(&st, `<style:style style:name="P%d" style:family="paragraph" style:parent-style-name="P%d" style:display-name="Body %d"/>`, i, i+1, i)
				fmt.Fprintf(&body, `<text:p text:style-name="P%d">The Supplier shall deliver item %d.</text:p>`, i, i)
			}
			st.WriteString(`</office:styles></office:document-styles>`)
			return odt(w, text(odtContentHead+body.String()+odtContentTail), text(st.String()))
		})
	case "rtf":
		add(func(w io.Writer) error { return repeat(w, `{\rtf1\ansi\deff0 `, `x\par `, `}`, 3000) })
		hex := strings.Repeat("89504e470d0a1a0a", 8) + "\r\n"
		add(func(w io.Writer) error {
			return repeat(w, `{\rtf1\ansi\deff0 {\pict\pngblip\picw100\pich100 `, hex, `}The Supplier shall deliver the Goods.\par }`, 3000)
		})
		add(func(w io.Writer) error { return repeat(w, `{\rtf1\ansi\deff0 `, hex, `\par }`, 3000) })
		add(text(`{\rtf1\ansi \` + strings.Repeat("a", 2000) + ` \fs` + strings.Repeat("7", 2000) + ` The Supplier shall deliver.\par }`))
		add(func(w io.Writer) error {
			return repeat(w, `{\rtf1\ansi `, strings.Repeat(`{\b x`, 50)+strings.Repeat(`}`, 50), `}`, 3000)
		})
	case "doc":
		add(func(w io.Writer) error {
			t := shortParagraphs(1500)
			chpx, papx := oneCharRuns(t)
			return (&wordDoc{text: t, chpxPages: chpx, papxPages: papx}).write(w)
		})
		add(func(w io.Writer) error {
			t := shortParagraphs(600)
			chpx, _ := oneCharRuns(t[:chpxPerPage])
			return (&wordDoc{text: t, chpxPages: chpx, chpxBin: make([]int, 300)}).write(w)
		})
	case "msg":
		add(func(w io.Writer) error { // storages shared by many paths, 3 deep
			b := newMsg()
			leaf := []uint32{
				b.stream("__properties_version1.0", make([]byte, 8)),
				b.stream("__substg1.0_3707001F", utf16le("contract.txt")),
				b.stream("__substg1.0_37010102", leafText(300)),
			}
			below := b.sharedAttachments(2, leaf)
			for d := 3; d >= 1; d-- {
				msg := append(b.message(24, fmt.Sprintf("Level %d", d), "See attached."), below...)
				sub := b.storage("__substg1.0_3701000D", msg...)
				below = b.sharedAttachments(2, []uint32{b.stream("__properties_version1.0", make([]byte, 8)), sub})
			}
			return b.write(w, append(b.message(32, "Signed contracts", "Attached."), below...))
		})
		add(func(w io.Writer) error { // a storage holding its own ancestor
			b := newMsg()
			top := b.message(32, "Loop", "Attached.")
			sub := b.add(entry("__substg1.0_3701000D", cfbStorage, -1))
			atts := b.sharedAttachments(2, []uint32{b.stream("__properties_version1.0", make([]byte, 8)), sub})
			root := siblings(b.dirs, append(top, atts...))
			b.dirs[0].child = root
			b.dirs[sub].child = root
			return writeCFB(w, b.dirs, b.streams)
		})
		add(func(w io.Writer) error { // data streams sharing sectors
			b := newMsg()
			b.streams = append(b.streams, leafText(5000))
			data := len(b.streams) - 1
			var atts []uint32
			for i := range 4 {
				atts = append(atts, b.storage(attachName(i),
					b.stream("__properties_version1.0", make([]byte, 8)),
					b.stream("__substg1.0_3707001F", utf16le(fmt.Sprintf("contract %d.txt", i))),
					b.add(entry("__substg1.0_37010102", cfbStream, data))))
			}
			return b.write(w, append(b.message(32, "Shared", "Attached."), atts...))
		})
	case "tiff":
		add(func(w io.Writer) error { return sharedStripTIFF(w, 3, 16, 256) })
	case "png":
		add(func(w io.Writer) error { return blankPNG(w, 24, 24) })
	case "jpeg":
		add(func(w io.Writer) error {
			return jpeg.Encode(w, bounded{image.NewUniform(color.Gray{Y: 250}), image.Rect(0, 0, 24, 24)}, &jpeg.Options{Quality: 50})
		})
	case "eml":
		add(func(w io.Writer) error {
			bw := newBuf(w)
			bw.WriteString(emlHead + "Subject: ")
			prose(bw, 2000, 0, "")
			bw.WriteString("\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe signed agreement.\r\n")
			return bw.Flush()
		})
		add(func(w io.Writer) error {
			inner := emlHead + "Subject: Innermost\r\nContent-Type: text/plain\r\n\r\nThe Supplier shall deliver.\r\n"
			for d := 3; d >= 1; d-- {
				b := fmt.Sprintf("b%d", d)
				inner = fmt.Sprintf("%sSubject: Level %d\r\nContent-Type: multipart/mixed; boundary=%q\r\n\r\n--%s\r\nContent-Type: text/plain\r\n\r\nForwarded.\r\n--%s\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment; filename=\"level%d.eml\"\r\n\r\n%s\r\n--%s--\r\n", emlHead, d, b, b, b, d+1, inner, b)
			}
			_, err := io.WriteString(w, inner)
			return err
		})
	case "docx":
		add(func(w io.Writer) error {
			return docx(w, func(w io.Writer) error {
				return repeat(w, docxHead, `<w:p><w:r><w:t>a</w:t></w:r></w:p>`, `</w:body></w:document>`, 3000)
			})
		})
		add(func(w io.Writer) error {
			return docx(w, func(w io.Writer) error {
				io.WriteString(w, docxHead+`<w:p><w:r><w:t xml:space="preserve">`)
				prose(w, 2000, 0, "")
				_, err := io.WriteString(w, `</w:t></w:r></w:p></w:body></w:document>`)
				return err
			})
		})
	case "html":
		add(func(w io.Writer) error {
			return repeat(w, "<html><body>", "<p>1. The Supplier shall deliver the Goods on time.</p>\n", "</body></html>", 3000)
		})
		add(func(w io.Writer) error {
			return repeat(w, "<html><body><table><tr>", "<td>x</td>", "</tr></table></body></html>", 3000)
		})
	case "txt":
		add(func(w io.Writer) error { return oneLineDefinitions(w, 3000) })
	default:
		panic("bombtest: no seeds for " + format)
	}
	return out
}
