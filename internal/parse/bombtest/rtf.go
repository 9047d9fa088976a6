package bombtest

import (
	"io"
	"strings"
)

func rtfCases() []Case {
	return []Case{
		{
			Name: "rtf-pars", File: "pars.rtf", Want: Either,
			About: "ten million one-letter paragraphs (x\\par)",
			Write: func(w io.Writer) error {
				return repeat(w, `{\rtf1\ansi\deff0 `, `x\par `, `}`, 10_000_000*6+20)
			},
		},
		{
			Name: "rtf-picture-hex", File: "picture.rtf", Want: Ingest,
			About: "25 MB of hexadecimal picture data in a \\pict group, in lines of 128 digits, then one sentence",
			Write: func(w io.Writer) error {
				line := strings.Repeat("89504e470d0a1a0a", 8) + "\r\n"
				return repeat(w, `{\rtf1\ansi\deff0 {\pict\pngblip\picw100\pich100 `, line, `}The Supplier shall deliver the Goods.\par }`, 25<<20)
			},
		},
		{
			Name: "rtf-hex-body", File: "hex-body.rtf", Want: Either,
			About: "25 MB of hexadecimal digits as body text, in lines of 128 (RTF ignores the line breaks: one 25 MB word)",
			Write: func(w io.Writer) error {
				line := strings.Repeat("89504e470d0a1a0a", 8) + "\r\n"
				return repeat(w, `{\rtf1\ansi\deff0 `, line, `\par }`, 25<<20)
			},
		},
		{
			Name: "rtf-long-control", File: "long-control.rtf", Want: Either,
			About: "a control word of 20 MB of letters and a parameter of 20 MB of digits",
			Write: func(w io.Writer) error {
				bw := newBuf(w)
				bw.WriteString(`{\rtf1\ansi `)
				bw.WriteString(`\`)
				for range 20 << 20 {
					bw.WriteByte('a')
				}
				bw.WriteString(` \fs`)
				for range 20 << 20 {
					bw.WriteByte('7')
				}
				bw.WriteString(` The Supplier shall deliver.\par }`)
				return bw.Flush()
			},
		},
		{
			Name: "rtf-deep-groups", File: "deep-groups.rtf", Want: Either,
			About: "5 million groups opened and closed, each a destination with text, nested 500 deep in turn",
			Write: func(w io.Writer) error {
				unit := strings.Repeat(`{\b x`, 500) + strings.Repeat(`}`, 500)
				return repeat(w, `{\rtf1\ansi `, unit, `}`, 30<<20)
			},
		},
	}
}
