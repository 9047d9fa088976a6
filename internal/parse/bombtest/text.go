package bombtest

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/pakton/pakton/internal/parse/pdftest"
)

// oneLineDefinitions writes n bytes of inline definitions on one line.
func oneLineDefinitions(w io.Writer, n int) error {
	bw := newBuf(w)
	k, _ := bw.WriteString("AGREEMENT\n\n1. Definitions\n\n")
	for i := 0; k < n; i++ {
		m, _ := fmt.Fprintf(bw, "the widget maker (the \"Term%d\") and ", i)
		k += m
	}
	return bw.Flush()
}

func textCases() []Case {
	return []Case{
		{
			Name: "txt-definitions-20mb", File: "definitions.txt", Want: Either,
			About: "20 MB of inline definitions (the \"TermN\") on one line",
			Write: func(w io.Writer) error { return oneLineDefinitions(w, 20<<20) },
		},
		{
			Name: "txt-200mb", File: "large.txt", Want: Either,
			About: "200 MB of ordinary sentences in paragraphs of five, under the 256 MiB file limit",
			Write: func(w io.Writer) error { return prose(w, 200<<20, 5, "\n\n") },
		},
		{
			Name: "txt-paragraphs", File: "paragraphs.txt", Want: Either,
			About: "ten million one-letter paragraphs",
			Write: func(w io.Writer) error { return repeat(w, "", "a\n\n", "", 30_000_000) },
		},
		{
			Name: "txt-one-word", File: "one-word.txt", Want: Either,
			About: "one 50 MB word",
			Write: func(w io.Writer) error { return repeat(w, "", strings.Repeat("x", 1024), "", 50<<20) },
		},
		{
			Name: "txt-deep-clauses", File: "deep-clauses.txt", Want: Either,
			About: "20 MB of numbered clauses nested nine deep (1., 1.1, …, 1.1.1.1.1.1.1.1.1) with a sentence each, so every clause holds all below it",
			Write: func(w io.Writer) error {
				bw := newBuf(w)
				var num [9]int
				for n, i := 0, 0; n < 20<<20; i++ {
					d := i % 9
					num[d]++
					for k := d + 1; k < 9; k++ {
						num[k] = 0
					}
					parts := make([]string, d+1)
					for k := range parts {
						parts[k] = fmt.Sprint(num[k])
					}
					label := strings.Join(parts, ".")
					if d == 0 {
						label += "."
					}
					m, _ := fmt.Fprintf(bw, "%s The Supplier shall deliver the Goods described in clause %s.\n\n", label, label)
					n += m
				}
				return bw.Flush()
			},
		},
	}
}

const emlHead = "From: Seller <seller@example.com>\r\nTo: Buyer <buyer@example.com>\r\nDate: Mon, 2 Mar 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"

func emailCases() []Case {
	return []Case{
		{
			Name: "eml-subject-5mb", File: "subject.eml", Want: Either,
			About: "a 5 MB subject line",
			Write: func(w io.Writer) error {
				bw := newBuf(w)
				bw.WriteString(emlHead + "Subject: ")
				prose(bw, 5<<20, 0, "")
				bw.WriteString("\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe signed agreement.\r\n")
				return bw.Flush()
			},
		},
		{
			Name: "eml-nested", File: "nested.eml", Want: Either,
			About: "messages attached inside messages eight deep, unencoded, the innermost carrying a 30 MB text attachment",
			Write: func(w io.Writer) error {
				inner := func(w io.Writer) error {
					bw := newBuf(w)
					bw.WriteString(emlHead + "Subject: Innermost\r\nContent-Type: multipart/mixed; boundary=\"b9\"\r\n\r\n--b9\r\nContent-Type: text/plain\r\n\r\nAttached.\r\n--b9\r\nContent-Type: text/plain; name=\"contract.txt\"\r\nContent-Disposition: attachment; filename=\"contract.txt\"\r\n\r\n")
					prose(bw, 30<<20, 5, "\r\n\r\n")
					bw.WriteString("\r\n--b9--\r\n")
					return bw.Flush()
				}
				for d := 8; d >= 1; d-- {
					prev, level := inner, d
					inner = func(w io.Writer) error {
						b := fmt.Sprintf("b%d", level)
						fmt.Fprintf(w, "%sSubject: Level %d\r\nContent-Type: multipart/mixed; boundary=%q\r\n\r\n--%s\r\nContent-Type: text/plain\r\n\r\nForwarded.\r\n--%s\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment; filename=\"level%d.eml\"\r\n\r\n", emlHead, level, b, b, b, level+1)
						if err := prev(w); err != nil {
							return err
						}
						_, err := fmt.Fprintf(w, "\r\n--%s--\r\n", b)
						return err
					}
				}
				return inner(w)
			},
		},
		{
			Name: "eml-many-attachments", File: "attachments.eml", Want: Either,
			About: "998 attachments of 100 KB of contract text each, in one message (a message is stored with its attachments in one commit)",
			Write: func(w io.Writer) error {
				bw := newBuf(w)
				bw.WriteString(emlHead + "Subject: The contracts\r\nContent-Type: multipart/mixed; boundary=\"bb\"\r\n\r\n--bb\r\nContent-Type: text/plain\r\n\r\nAll of them.\r\n")
				body := base64.StdEncoding.EncodeToString(leafText(100 << 10))
				for i := range 998 {
					fmt.Fprintf(bw, "--bb\r\nContent-Type: text/plain; name=\"c%d.txt\"\r\nContent-Disposition: attachment; filename=\"contract %d.txt\"\r\nContent-Transfer-Encoding: base64\r\n\r\n", i, i)
					for k := 0; k < len(body); k += 76 {
						bw.WriteString(body[k:min(len(body), k+76)])
						bw.WriteString("\r\n")
					}
				}
				bw.WriteString("--bb--\r\n")
				return bw.Flush()
			},
		},
	}
}

const docxHead = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`

func docx(w io.Writer, body func(io.Writer) error) error {
	return writeZip(w,
		part{name: "[Content_Types].xml", body: text(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`)},
		part{name: "word/document.xml", body: body})
}

func docxCases() []Case {
	return []Case{
		{
			Name: "docx-paragraphs", File: "paragraphs.docx", Want: Either,
			About: "a 63 MiB document.xml of 1.8 million one-letter paragraphs",
			Write: func(w io.Writer) error {
				return docx(w, func(w io.Writer) error {
					return repeat(w, docxHead, `<w:p><w:r><w:t>a</w:t></w:r></w:p>`, `</w:body></w:document>`, partSize)
				})
			},
		},
		{
			Name: "docx-paragraph-60mb", File: "paragraph.docx", Want: Either,
			About: "one paragraph of 60 MB of ordinary words",
			Write: func(w io.Writer) error {
				return docx(w, func(w io.Writer) error {
					io.WriteString(w, docxHead+`<w:p><w:r><w:t xml:space="preserve">`)
					prose(w, 60<<20, 0, "")
					_, err := io.WriteString(w, `</w:t></w:r></w:p></w:body></w:document>`)
					return err
				})
			},
		},
	}
}

func htmlCases() []Case {
	return []Case{
		{
			Name: "html-paragraphs", File: "paragraphs.html", Want: Either,
			About: "23 MB of HTML: 400,000 ordinary paragraphs",
			Write: func(w io.Writer) error {
				bw := newBuf(w)
				bw.WriteString("<html><body>")
				for i := range 400_000 {
					fmt.Fprintf(bw, "<p>%d. The Supplier shall deliver the Goods on time.</p>\n", i)
				}
				bw.WriteString("</body></html>")
				return bw.Flush()
			},
		},
		{
			Name: "html-wide-table", File: "wide-table.html", Want: Either,
			About: "one table row of 900,000 cells",
			Write: func(w io.Writer) error {
				return repeat(w, "<html><body><table><tr>", "<td>x</td>", "</tr></table></body></html>", 9_000_000)
			},
		},
	}
}

func pdfCases() []Case {
	return []Case{
		{
			Name: "pdf-text-ops", File: "ops.pdf", Want: Refuse,
			About: "a 68 KB one-page PDF of two million text operations",
			Write: func(w io.Writer) error { _, err := w.Write(pdftest.ManyTextOps(2_000_000)); return err },
		},
		{
			Name: "pdf-flate", File: "flate.pdf", Want: Refuse,
			About: "a 1 MB PDF whose content stream inflates to 1 GiB",
			Write: func(w io.Writer) error { _, err := w.Write(pdftest.FlateBomb(1 << 30)); return err },
		},
	}
}
