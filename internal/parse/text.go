package parse

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// Canonical text of a plain-text file.
//
// Benchmarks give code-point offsets into the original .txt files, so the
// canonical text changes the input as little as possible:
//
//   - Valid UTF-8 with "\n" line endings and no stray control characters is
//     kept byte for byte (form feeds included).
//   - A leading UTF-8 byte-order mark becomes one space: it is a character
//     of the file as offsets count it (Python reads it as U+FEFF), so the
//     offsets of the rest stay put, but it is no part of the first word.
//   - "\r\n" becomes "\n" (this shifts offsets after it, exactly as Python's
//     universal newlines do) and a lone "\r" becomes "\n" (offsets unchanged).
//   - Control characters other than \t, \n and \f (and C1 controls
//     U+0080..U+009F) become one space each, and each invalid UTF-8 byte
//     becomes one U+FFFD, so code-point offsets of the rest stay put.
//   - UTF-16 with a BOM, or BOM-less UTF-16 that is recognisably so (every
//     other byte NUL), is decoded.
//   - Bytes that are mostly not UTF-8 (more invalid sequences than valid
//     multi-byte ones) are decoded as Windows-1252, the usual encoding of
//     old contracts saved on Windows; otherwise the invalid bytes are
//     replaced as above, because one stray byte in a UTF-8 file should not
//     turn its accented letters into mojibake.

// sniffLen is how much of a file the binary check looks at.
const sniffLen = 8 << 10

func parseText(data []byte, lim *textBudget) (*document.Document, error) {
	// Canonical text is at least half the file (a CR LF becomes one LF;
	// nothing else shrinks), a quarter of a UTF-16 one, so a file past that
	// is refused before it is decoded.
	if lim != nil {
		most := 2
		if _, utf16 := looksUTF16(data); utf16 || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
			most = 4
		}
		if len(data) > most*lim.maxText {
			return nil, errTextLimit(lim.maxText)
		}
	}
	s, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	return &document.Document{Format: "text", Text: s}, nil
}

// decodeText turns the bytes of a text file into canonical text.
func decodeText(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		s, err := decodeText(data[3:])
		if err != nil {
			return "", err
		}
		return " " + s, nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return canonicalText(decodeUTF16(data[2:], false)), nil
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return canonicalText(decodeUTF16(data[2:], true)), nil
	}
	if be, ok := looksUTF16(data); ok {
		return canonicalText(decodeUTF16(data, be)), nil
	}
	if looksBinary(data) {
		return "", fmt.Errorf("%w: looks like binary data, not text", ErrNotText)
	}
	if utf8.Valid(data) {
		return canonicalText(string(data)), nil
	}
	if mostlyNotUTF8(data) {
		return canonicalText(decodeWindows1252(data)), nil
	}
	return canonicalText(string(data)), nil
}

// looksBinary reports whether the start of data is binary: a NUL byte, or
// more than one byte in ten a control character no text file uses.
func looksBinary(data []byte) bool {
	sample := data[:min(len(data), sniffLen)]
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	ctl := 0
	for _, c := range sample {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1A && c != 0x1B {
			ctl++
		}
	}
	return ctl*10 > len(sample)
}

// looksUTF16 recognises BOM-less UTF-16 text: in its sample, almost all
// bytes at one parity are NUL and almost none at the other.
func looksUTF16(data []byte) (bigEndian, ok bool) {
	n := min(len(data), sniffLen) &^ 1
	if n < 8 {
		return false, false
	}
	var zeros [2]int
	for i := 0; i < n; i++ {
		if data[i] == 0 {
			zeros[i&1]++
		}
	}
	half := n / 2
	switch {
	case zeros[1]*10 >= half*9 && zeros[0]*20 <= half:
		return false, true
	case zeros[0]*10 >= half*9 && zeros[1]*20 <= half:
		return true, true
	}
	return false, false
}

func decodeUTF16(b []byte, bigEndian bool) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if bigEndian {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	if len(b)%2 == 1 {
		u = append(u, utf8.RuneError)
	}
	return string(utf16.Decode(u))
}

// mostlyNotUTF8 reports whether data has more invalid UTF-8 sequences than
// valid multi-byte ones.
func mostlyNotUTF8(data []byte) bool {
	bad, good := 0, 0
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, w := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && w == 1 {
			bad++
		} else {
			good++
		}
		i += w
	}
	return bad > good
}

// cp1252 maps bytes 0x80..0x9F of Windows-1252; the five bytes it leaves
// undefined map to U+FFFD.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

func decodeWindows1252(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case c < 0xA0:
			sb.WriteRune(cp1252[c-0x80])
		default:
			sb.WriteRune(rune(c))
		}
	}
	return sb.String()
}

// canonicalText normalises line endings, replaces each invalid UTF-8 byte
// with U+FFFD and each disallowed control character with a space. Text that
// needs none of this is returned unchanged (same string, no copy).
func canonicalText(s string) string {
	if cleanText(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++ // CRLF: keep the LF only
					continue
				}
				sb.WriteByte('\n')
			case isBadControl(rune(c)):
				sb.WriteByte(' ')
			default:
				sb.WriteByte(c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			sb.WriteRune(utf8.RuneError)
		case isBadControl(r):
			sb.WriteByte(' ')
		default:
			sb.WriteString(s[i : i+w])
		}
		i += w
	}
	return sb.String()
}

// cleanText reports whether s is already canonical.
func cleanText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\r' || isBadControl(rune(c)) {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && w == 1) || isBadControl(r) {
			return false
		}
		i += w
	}
	return true
}

// isBadControl reports whether r is a control character canonical text does
// not keep. Form feed stays: it marks page breaks in text exports.
func isBadControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == '\f':
		return false
	case r < 0x20 || r == 0x7F:
		return true
	case r >= 0x80 && r <= 0x9F:
		return true
	}
	return false
}
