package parse

import (
	"strings"

	"github.com/pakton/pakton/internal/charset"
)

// RTF stores 8-bit text in a code page the file names (\ansicpg, a font's
// \fcharset); internal/charset decodes it.

// charsetCodePage maps an RTF \fcharset number to a code page.
func charsetCodePage(n int) string {
	switch n {
	case 2:
		return "symbol"
	case 77:
		return "mac"
	case 128:
		return "932"
	case 129:
		return "949"
	case 134:
		return "936"
	case 136:
		return "950"
	case 161:
		return "1253"
	case 162:
		return "1254"
	case 163:
		return "1258"
	case 177:
		return "1255"
	case 178:
		return "1256"
	case 186:
		return "1257"
	case 204:
		return "1251"
	case 222:
		return "874"
	case 238:
		return "1250"
	}
	return "" // ANSI, default: the document's code page
}

// decodeCodePage decodes b in code page cp; an unknown code page is read
// as Windows-1252, and the Symbol font's bytes map to the private-use
// characters Word uses for them (bullets become ordinary glyphs later).
func decodeCodePage(b []byte, cp string) string {
	if cp == "symbol" {
		var sb strings.Builder
		for _, c := range b {
			if c < 0x80 { // letters and digits stay themselves; Symbol's Greek is rare in contracts
				sb.WriteByte(c)
				continue
			}
			sb.WriteRune(0xF000 + rune(c))
		}
		return bulletGlyphs(sb.String())
	}
	if s, ok := charset.Decode(b, cp); ok {
		return canonicalText(s)
	}
	return decodeWindows1252(b)
}
