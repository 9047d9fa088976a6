package parse

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// keepRune reports whether r belongs in canonical text: control characters,
// non-characters and unpaired surrogates do not.
func keepRune(r rune) bool {
	switch {
	case r < 0, r == utf8.RuneError, r > unicode.MaxRune:
		return false
	case r == '\t', r == '\n':
		return true
	case r < 0x20, r >= 0x7F && r < 0xA0:
		return false
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return true
}

// canonicalRune returns the character a PDF's text means by r where r is
// canonically equivalent to another: Unicode normalization replaces U+037E
// GREEK QUESTION MARK by the semicolon and U+0387 GREEK ANO TELEIA by the
// middle dot, and fonts of SEC filings map their semicolon glyph to U+037E.
// A reader sees a semicolon; the clause parser, which ends an item at "; and
// (iii)", and a search for the text typed read one too. The code-point count
// is unchanged, so every offset holds.
func canonicalRune(r rune) rune {
	switch r {
	case 0x037E:
		return ';'
	case 0x0387:
		return 0x00B7
	}
	return r
}

// dropOverprinted drops a line that repeats the line before it, word for
// word, from the same starting point: the page shows it once. Producers
// draw a line twice for a bolder look, or leave an earlier copy of it under
// a later one; pdfium reports both, and the text would hold the words twice
// where a reader sees them once.
func dropOverprinted(lines []pdfLine) []pdfLine {
	out := lines[:0]
	for _, l := range lines {
		if n := len(out); n > 0 {
			p := out[n-1]
			if p.placed && l.placed && p.text == l.text && math.Abs(p.base-l.base) < overprintSlack && math.Abs(p.x-l.x) < overprintSlack {
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

// overprintSlack is how far apart, in points, two copies of a line may
// start and still be one line drawn twice (a bolder look offsets the second
// copy by a fraction of a point; the next line of a page is a font size
// below).
const overprintSlack = 1.0

// bodyFontSize returns the font size most characters in the document use.
func bodyFontSize(pages [][]pdfLine) float64 {
	hist := map[float64]int{}
	for _, lines := range pages {
		for _, l := range lines {
			if l.size > 0 {
				hist[l.size] += utf8.RuneCountInString(l.text)
			}
		}
	}
	best, bestN := 0.0, 0
	for s, n := range hist {
		if n > bestN || (n == bestN && s < best) {
			best, bestN = s, n
		}
	}
	return best
}

// layoutLines renders one page's lines as text, inserting a blank line
// where the step between two baselines is clearly larger than the page's
// usual line pitch, and returns the byte ranges of heading lines (a font at
// least 20% larger than the body text, on a short line).
func layoutLines(lines []pdfLine, body float64) (string, [][2]int) {
	// The usual pitch is the most common step between baselines (rounded
	// to half a point; ties go to the smaller step): paragraph gaps are the
	// exception on a page, and a double-spaced page has a double pitch.
	count := map[float64]int{}
	for i := 1; i < len(lines); i++ {
		a, b := lines[i-1], lines[i]
		if a.placed && b.placed && a.base-b.base > 0.5 {
			count[roundSize(a.base-b.base)]++
		}
	}
	pitch, best := 0.0, 0
	for p, n := range count {
		if n > best || (n == best && p < pitch) {
			pitch, best = p, n
		}
	}
	var b strings.Builder
	var heads [][2]int
	for i, l := range lines {
		if i > 0 && paragraphGap(lines[i-1], l, pitch) {
			b.WriteByte('\n')
		}
		start := b.Len()
		b.WriteString(l.text)
		if body > 0 && l.size >= body*1.2 && utf8.RuneCountInString(l.text) <= 120 && strings.IndexFunc(l.text, unicode.IsLetter) >= 0 {
			heads = append(heads, [2]int{start, b.Len()})
		}
		b.WriteByte('\n')
	}
	return b.String(), heads
}

// paragraphGap reports whether a blank line belongs between lines a and b.
func paragraphGap(a, b pdfLine, pitch float64) bool {
	if !a.placed || !b.placed {
		return false
	}
	size := max(a.size, b.size, 1)
	step := a.base - b.base
	switch {
	case step < -size: // b sits above a: a new column, or a jump back up the page
		return true
	case step <= 0.5: // same baseline: pieces of one visual line
		return false
	case pitch <= 0:
		return step > 2*size
	}
	// The white space above b must also be clearly more than a line's
	// leading, measured in b's own font size.
	return step > 1.4*pitch && step > 1.6*max(b.size, 1)
}

// cleanPlainText brings text from pdftotext or tesseract into canonical
// form: valid UTF-8, no control characters, lines trimmed at the right,
// runs of blank lines collapsed to one, no blank lines at either end.
func cleanPlainText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.Map(func(r rune) rune {
			switch {
			case r == '\t' || r == 0xA0:
				return ' '
			case r == '\r' || r == '\f' || r == '\v':
				return ' '
			case !keepRune(r):
				return -1
			}
			return canonicalRune(r)
		}, line)
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteByte('\n')
			blank = false
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
