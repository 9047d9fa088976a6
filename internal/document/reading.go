package document

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Paragraphs returns where the text's paragraphs start, as a reader sees
// them: sorted code-point offsets, each the first non-space character of a
// line that begins a paragraph, a heading or a list item. A reader shows a
// line break (and some space) before each and lets every other line break
// flow as a space, so a contract extracted from a PDF — one line of text per
// printed line — wraps like a document at any width. Nothing in the text is
// changed: the web app's text view only styles the characters between
// these offsets, so every span still points at exactly its characters.
//
// starts are offsets known to begin a block (the clause tree's nodes); a
// line holding one starts a paragraph. The rest is read off the lines:
//
//   - A text whose lines are not wrapped at a page width (a text file or a
//     DOCX with one line per paragraph: most lines longer than 200
//     characters, or too few lines to tell) keeps every line break.
//   - In a wrapped text a line break stays where the line before it is
//     short (under three quarters of the text's full line, the 90th
//     percentile of line lengths: the last line of a paragraph, a heading,
//     a signature line) or ends in a colon, or where
//     the line after it starts a list item ("(a)", "1.", "2.3", "•"), or
//     where a blank line lies between them. Page furniture (running
//     headers, page numbers) between two lines is read as if it were not
//     there, so a paragraph that runs on over a page break stays one.
//   - Lines made only of furniture never start a paragraph.
func (d *Document) Paragraphs(starts []int) []int {
	lines := d.readingLines()
	if len(lines) == 0 {
		return nil
	}
	starts = slices.Clone(starts)
	slices.Sort(starts)
	for _, b := range d.Blocks {
		if b.Kind == BlockHeading || b.Kind == BlockListItem {
			starts = append(starts, b.Span.Start)
		}
	}
	slices.Sort(starts)
	full := fullLine(lines)
	wrapped := full > 0
	out := []int{lines[0].first}
	for i := 1; i < len(lines); i++ {
		prev, cur := &lines[i-1], &lines[i]
		if !wrapped || breakBetween(prev, cur, full, starts) {
			out = append(out, cur.first)
		}
	}
	return out
}

// readingLine is one line of the text holding something other than white
// space and page furniture.
type readingLine struct {
	first, end int    // code points: first non-space character, end of the last one
	text       string // trimmed
	blankGap   bool   // a blank line (not furniture) lies between it and the line before
	furnGap    bool   // furniture lies between it and the line before
}

func (d *Document) readingLines() []readingLine {
	var out []readingLine
	blank, furn := false, false
	pos := 0 // code points
	for line := range strings.SplitSeq(d.Text, "\n") {
		n := utf8.RuneCountInString(line)
		trimmed := strings.TrimSpace(line)
		lead := utf8.RuneCountInString(line[:len(line)-len(strings.TrimLeftFunc(line, unicode.IsSpace))])
		span := Span{pos + lead, pos + lead + utf8.RuneCountInString(trimmed)}
		switch {
		case trimmed == "":
			blank = true
		case len(d.Furniture) > 0 && d.InFurniture(span):
			furn = true
		default:
			// Furniture at the start of a line (a page number before the
			// text) is not where its paragraph starts.
			for i, r := range trimmed {
				p := span.Start + utf8.RuneCountInString(trimmed[:i])
				if !unicode.IsSpace(r) && (len(d.Furniture) == 0 || !d.InFurniture(Span{p, p + 1})) {
					span.Start = p
					trimmed = trimmed[i:]
					break
				}
			}
			out = append(out, readingLine{first: span.Start, end: span.End, text: trimmed, blankGap: blank && !furn, furnGap: furn})
			blank, furn = false, false
		}
		pos += n + 1
	}
	return out
}

// fullLine returns the length of a full line of a wrapped text (the 90th
// percentile of line lengths), or 0 when the text is not wrapped.
func fullLine(lines []readingLine) int {
	if len(lines) < 8 {
		return 0
	}
	ns := make([]int, len(lines))
	for i, l := range lines {
		ns[i] = l.end - l.first
	}
	slices.Sort(ns)
	p90 := ns[len(ns)*9/10]
	if p90 > 200 || p90 < 20 {
		return 0
	}
	return p90
}

func breakBetween(prev, cur *readingLine, full int, starts []int) bool {
	if i, _ := slices.BinarySearch(starts, prev.end); i < len(starts) && starts[i] <= cur.first {
		return true // a clause starts on this line
	}
	if cur.blankGap {
		// A blank line ends a paragraph, unless furniture shows it is a
		// page break in the middle of a sentence.
		return !(cur.furnGap && continues(prev.text, cur.text))
	}
	switch {
	case 4*(prev.end-prev.first) < 3*full:
		return true
	case strings.HasSuffix(prev.text, ":"):
		return true
	case listItem(cur.text):
		return true
	}
	return false
}

// continues reports whether next reads on from prev mid-sentence.
func continues(prev, next string) bool {
	r, _ := utf8.DecodeLastRuneInString(prev)
	n, _ := utf8.DecodeRuneInString(next)
	return (unicode.IsLower(r) || r == ',' || r == '-') && unicode.IsLower(n)
}

// listItem reports whether a line starts with a list marker followed by a
// space: "(a)", "(iv)", "a)", "1.", "2.3", "2.3.1", "•", "-".
func listItem(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	switch r {
	case '•', '·', '▪', '◦', '‣', '–', '—', '-', '*':
		return strings.HasPrefix(s[size:], " ")
	}
	marker, _, ok := strings.Cut(s, " ")
	if !ok || len(marker) < 2 || len(marker) > 8 {
		return false
	}
	if marker[0] == '(' && marker[len(marker)-1] == ')' {
		return alnum(marker[1 : len(marker)-1])
	}
	if marker[len(marker)-1] == ')' {
		return alnum(marker[:len(marker)-1]) && len(marker) <= 4
	}
	if marker[len(marker)-1] == '.' {
		marker = marker[:len(marker)-1]
	}
	// Digits and dots: "1", "2.3", "2.3.1" (a number ending a sentence,
	// "in 2019.", does not start a line followed by a space often, and
	// four digits are a year, not an item).
	if len(marker) == 0 || len(marker) >= 4 && !strings.Contains(marker, ".") {
		return false
	}
	for _, part := range strings.Split(marker, ".") {
		if part == "" || len(part) > 3 || strings.TrimFunc(part, func(r rune) bool { return r >= '0' && r <= '9' }) != "" {
			return false
		}
	}
	return true
}

func alnum(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
