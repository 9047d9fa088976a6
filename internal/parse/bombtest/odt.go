package bombtest

import (
	"fmt"
	"io"
	"strings"
)

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`

const (
	odtContentHead = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `><office:body><office:text>`
	odtContentTail = `</office:text></office:body></office:document-content>`
	// partSize keeps each part just under the 64 MiB a package part may
	// expand to.
	partSize = 63 << 20
)

// odt writes an OpenDocument text whose content.xml body is written by
// body and whose styles.xml is styles (nil: none).
func odt(w io.Writer, body func(io.Writer) error, styles func(io.Writer) error) error {
	parts := []part{
		{name: "mimetype", store: true, body: text("application/vnd.oasis.opendocument.text")},
		{name: "content.xml", body: body},
	}
	if styles != nil {
		parts = append(parts, part{name: "styles.xml", body: styles})
	}
	return writeZip(w, parts...)
}

func odtCases() []Case {
	return []Case{
		{
			Name: "odt-spaces", File: "spaces.odt", Want: Refuse,
			About: "a thousand short paragraphs, each a word and text:s asking for 1,000 spaces, repeated to fill a 63 MiB content.xml: about 1.6 GB of text from a small file",
			Write: func(w io.Writer) error {
				var block strings.Builder
				for i := range 1000 {
					fmt.Fprintf(&block, `<text:p>w%d<text:s text:c="1000"/>x</text:p>`, i)
				}
				return odt(w, func(w io.Writer) error { return repeat(w, odtContentHead, block.String(), odtContentTail, partSize) }, nil)
			},
		},
		{
			Name: "odt-paragraph-60mb", File: "paragraph.odt", Want: Either,
			About: "one paragraph of 60 MB of ordinary words",
			Write: func(w io.Writer) error {
				return odt(w, func(w io.Writer) error {
					io.WriteString(w, odtContentHead+"<text:p>")
					if err := prose(w, 60<<20, 0, ""); err != nil {
						return err
					}
					_, err := io.WriteString(w, "</text:p>"+odtContentTail)
					return err
				}, nil)
			},
		},
		{
			Name: "odt-two-parts", File: "two-parts.odt", Want: Either,
			About: "styles.xml of 63 MiB of paragraph styles each the child of the one before, and content.xml of 63 MiB of short paragraphs naming them",
			Write: func(w io.Writer) error {
				styles := func(w io.Writer) error {
					bw := newBuf(w)
					bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?><office:document-styles ` + odfNS + `><office:styles>`)
					for i, n := 0, 0; n < partSize-200; i++ {
						k, _ := fmt.Fprintf(bw, `<style:style style:name="P%d" style:family="paragraph" style:parent-style-name="P%d" style:display-name="Body %d"/>`, i, i+1, i)
						n += k
					}
					bw.WriteString(`</office:styles></office:document-styles>`)
					return bw.Flush()
				}
				content := func(w io.Writer) error {
					bw := newBuf(w)
					bw.WriteString(odtContentHead)
					for i, n := 0, 0; n < partSize-200; i++ {
						k, _ := fmt.Fprintf(bw, `<text:p text:style-name="P%d">The Supplier shall deliver item %d.</text:p>`, i%600000, i)
						n += k
					}
					bw.WriteString(odtContentTail)
					return bw.Flush()
				}
				return odt(w, content, styles)
			},
		},
	}
}
