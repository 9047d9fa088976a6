package clause

// Finding candidate markers: numbering, keywords and definitions at line
// starts, layout block starts and wide gaps, with running page headers
// glued to a line set aside.

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// scan finds every marker at a strong position: a line start, a layout
// block start, or the first character after a run of three or more spaces.
func (p *parser) scan() []marker {
	s := p.s
	var out []marker
	blockAt := map[int]document.Block{}
	if len(p.blocks) > 0 {
		for _, b := range p.blocks {
			if b.Kind == document.BlockListItem || b.Kind == document.BlockHeading || b.Kind == document.BlockParagraph {
				bo := p.ix.Byte(b.Span.Start)
				bo = skipSpace(s, bo)
				if _, dup := blockAt[bo]; !dup || b.Kind != document.BlockParagraph {
					blockAt[bo] = b
				}
			}
		}
	}
	try := func(pos int) bool {
		if b, ok := blockAt[pos]; ok {
			if m, ok := p.blockMarker(pos, b); ok {
				out = append(out, m)
				delete(blockAt, pos)
				return true
			}
			delete(blockAt, pos)
		}
		if m, ok := scanMarker(s, pos); ok {
			if wrappedReference(s, m) {
				return false
			}
			m.strong = true
			out = append(out, m)
			return true
		}
		if m, ok := scanLearned(s, pos, p.learned); ok {
			m.strong = true
			out = append(out, m)
			return true
		}
		return false
	}
	headers := runningHeaders(s)
	p.learned = learnKeywords(s)
	i := 0
	for i < len(s) {
		// i is at a line start.
		j := i
		for j < len(s) && s[j] != '\n' {
			r, w := utf8.DecodeRuneInString(s[j:])
			if !isHSpace(r) {
				break
			}
			j += w
		}
		n0 := len(out)
		if j < len(s) && s[j] != '\n' && !try(j) {
			// A running page header glued to the start of the line:
			// "Confidential Execution Version 6.3 Commercialization Plan".
			for _, h := range headers {
				if strings.HasPrefix(s[j:], h) {
					if k := j + len(h); k < len(s) && isSpaceByte(s[k]) {
						try(skipHSpace(s, k))
					}
					break
				}
			}
		}
		// Soft breaks inside the line. A quoted term right after the
		// line's number ("1.1      "Licensed Technology" shall mean") is
		// the numbered clause's own text, as it is after one space: the
		// width of the gap a tab or a typist left does not make it a
		// definition of its own.
		afterLabel := -1
		if len(out) > n0 && out[n0].pos == j {
			afterLabel = skipHSpace(s, out[n0].labelEnd)
		}
		k := j
		run := 0
		for k < len(s) && s[k] != '\n' {
			c := s[k]
			if c == ' ' || c == '\t' {
				run++
				if c == '\t' {
					run += 2
				}
				k++
				continue
			}
			if run >= 3 && c != '\r' {
				if k == afterLabel {
					if m, ok := scanMarker(s, k); ok && m.fam == famDefinition {
						run = 0
						k++
						continue
					}
				}
				try(k)
			}
			run = 0
			if c < utf8.RuneSelf {
				k++
			} else {
				_, w := utf8.DecodeRuneInString(s[k:])
				k += w
			}
		}
		i = k + 1
	}
	// Blocks whose start fell inside a line.
	if len(blockAt) > 0 {
		var rest []int
		for pos := range blockAt {
			rest = append(rest, pos)
		}
		sort.Ints(rest)
		for _, pos := range rest {
			// A paragraph that starts inside a line is the text after a
			// list number its reader wrote before it ("a. " then the
			// item's paragraph): it opens no node of its own.
			if b := blockAt[pos]; b.Kind == document.BlockParagraph && pos > 0 && s[pos-1] != '\n' {
				continue
			}
			if pos < len(s) {
				try(pos)
			}
		}
		sort.SliceStable(out, func(a, b int) bool { return out[a].pos < out[b].pos })
	}
	if !p.noInline {
		out = mergeMarkers(out, scanInline(s, out))
	}
	// Two readings at one position (a block and the text), or a marker
	// inside another's label: keep the first.
	dedup := out[:0]
	for _, m := range out {
		if len(dedup) > 0 && m.pos < max(dedup[len(dedup)-1].labelEnd, dedup[len(dedup)-1].pos+1) {
			continue
		}
		dedup = append(dedup, m)
	}
	return dedup
}

// wrapWords are the words after which a keyword label is a reference, not
// a heading: "pursuant to Section 12.1", "set forth in Exhibit A".
var wrapWords = map[string]bool{
	"in": true, "to": true, "of": true, "under": true, "with": true, "per": true, "see": true,
	"through": true, "as": true, "on": true, "by": true, "from": true,
	"within": true, "including": true,
}

// refNouns are the words a number after them is the reference of:
// "Section" then "5.1", "Exhibit" then "1.C".
var refNouns = map[string]bool{
	"section": true, "sections": true, "clause": true, "clauses": true, "paragraph": true,
	"paragraphs": true, "subsection": true, "subsections": true, "subparagraph": true,
	"subparagraphs": true, "article": true, "articles": true, "schedule": true, "schedules": true,
	"exhibit": true, "exhibits": true, "annex": true, "appendix": true, "item": true, "items": true,
	"part": true, "§": true,
}

// wrappedReference reports whether marker m starts a line only because the
// line before, which ends in a word that takes a reference after it,
// wrapped there, as a PDF's text keeps a page's lines: a keyword label after
// "… pursuant to" ("Section 12.1 ("Term and Termination"), (i) …"), "set
// forth in" ("Exhibit A.") or a comma, a number after "… Section" or
// "as Exhibit" ("1.C, applicable destruction fees"). A blank line between
// them is a break, and so is a short line or a heading.
func wrappedReference(s string, m marker) bool {
	words, keyword := refNouns, false
	switch m.fam {
	case famSectionKw, famArticle, famSchedule:
		words, keyword = wrapWords, true
	case famDecimal, famItem:
	default:
		return false
	}
	j := m.pos
	for j > 0 && isSpaceByte(s[j-1]) {
		j--
	}
	if j == 0 || s[j-1] != '\n' {
		return false
	}
	line := strings.TrimRight(s[:j-1], " \t\r\f")
	if line == "" || line[len(line)-1] == '\n' {
		return false
	}
	line = line[strings.LastIndexByte(line, '\n')+1:]
	// A wrapped line runs to the margin; a short one ending in a noun is
	// a heading ("Payment Schedule") or a list item ("b) second item").
	if utf8.RuneCountInString(strings.TrimSpace(line)) < minWrappedLine {
		return false
	}
	// So is a heading ("14. Document Delivery: Fees from Sales of Articles").
	body := strings.TrimLeft(line, " \t")
	if pm, ok := scanMarker(body, 0); ok {
		body = body[pm.labelEnd:]
	}
	if isHeadingLine(body) {
		return false
	}
	k := strings.LastIndexAny(line, " \t")
	w := line[k+1:]
	// A sentence the line leaves open at a comma goes on with the keyword
	// label: "… for the time period set forth therein)," then "ARTICLE 10
	// (Confidentiality), ARTICLE 11 (Dispute Resolution), and …".
	if keyword && strings.HasSuffix(w, ",") {
		return true
	}
	// A reference names its noun with a capital ("as Exhibit" then "1.C");
	// "pertaining to that article" then "4. Services" is a sentence's end
	// and the next clause.
	if m.fam == famDecimal || m.fam == famItem {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) && w != "§" {
			return false
		}
	}
	return words[strings.ToLower(w)]
}

// minWrappedLine is the shortest line (in characters) taken for running
// text that wrapped at the margin.
const minWrappedLine = 40

func skipHSpace(s string, i int) int {
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	return i
}

// runningHeaders returns line prefixes of two to six words that start at
// least three lines and read as a heading ("Confidential Execution
// Version"): page headers that text extraction glued to the line after
// them. Longest first.
func runningHeaders(s string) []string {
	counts := map[string]int{}
	for i := 0; i < len(s); {
		e := strings.IndexByte(s[i:], '\n')
		if e < 0 {
			e = len(s) - i
		}
		line := s[i : i+e]
		i += e + 1
		line = strings.TrimLeft(line, " \t\r\f")
		if len(line) < 12 || !isUpperByte(line[0]) {
			continue
		}
		// End of each of the first six words.
		w, k := 0, 0
		for k < len(line) && w < 6 {
			for k < len(line) && !isSpaceByte(line[k]) {
				k++
			}
			w++
			if w >= 2 && k < len(line) {
				counts[line[:k]]++
			}
			for k < len(line) && isSpaceByte(line[k]) {
				k++
			}
		}
	}
	var out []string
	for h, c := range counts {
		if c >= 3 && len(h) >= 10 && isHeadingLine(h) && !strings.HasSuffix(h, ".") {
			if _, ok := scanMarker(h+" ", 0); ok {
				continue
			}
			out = append(out, h)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if len(out[a]) != len(out[b]) {
			return len(out[a]) > len(out[b])
		}
		return out[a] < out[b]
	})
	if len(out) > 50 {
		out = out[:50]
	}
	return out
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += w
	}
	return i
}

// blockMarker turns a layout block into a marker. A list item whose label
// the text shows ("16.2", "(b)": the reader wrote the number its list
// generates) is placed by its number, as the same text typed would be, so a
// contract gives one tree whether its numbers are typed or generated; list
// levels are not comparable across a document's lists ("1.2" at level 2 of
// one list is not under "(a)" at level 1 of another). A list item whose label
// the text does not repeat gets a zero-width label and is placed by its level.
func (p *parser) blockMarker(pos int, b document.Block) (marker, bool) {
	if m, ok := scanMarker(p.s, pos); ok {
		m.strong = true
		return m, true
	}
	if b.Kind == document.BlockHeading {
		if m, ok := scanGluedNumber(p.s, pos); ok {
			m.strong = true
			return m, true
		}
	}
	lab := strings.TrimSpace(b.Label)
	if b.Kind == document.BlockHeading && lab != "" {
		// A numbered heading whose words the number does not introduce
		// as a typed one would ("2.1⇥to carry out the Development
		// Work"): its reader generated "2.1" from the outline, so it is
		// that clause.
		if tm, ok := scanMarker(lab+" Clause", 0); ok && tm.fam == famDecimal && tm.labelEnd >= len(strings.TrimRight(lab, ".")) {
			m := marker{pos: pos, labelEnd: pos, label: strings.TrimRight(lab, "."), fam: famDecimal, nums: tm.nums, reads: tm.reads, level: -1, strong: true}
			if strings.HasPrefix(p.s[pos:], lab) {
				m.labelEnd = pos + len(lab)
			}
			return m, true
		}
	}
	switch b.Kind {
	case document.BlockListItem:
		if b.Label == "" {
			return marker{}, false
		}
		m := marker{pos: pos, labelEnd: pos, label: b.Label, fam: famItem, level: b.Level, strong: true, block: true}
		if tm, ok := scanMarker(lab+" Clause", 0); ok && tm.labelEnd >= len(strings.TrimRight(lab, ".")) {
			m.fam, m.nums, m.reads = tm.fam, tm.nums, tm.reads
		} else {
			m.reads = []interp{{"list", 0}}
		}
		m.label = strings.TrimRight(lab, ".")
		return m, true
	case document.BlockHeading:
		end := strings.IndexByte(p.s[pos:], '\n')
		if end < 0 {
			end = len(p.s) - pos
		}
		h := strings.TrimSpace(p.s[pos : pos+end])
		if h == "" || len(h) > 200 {
			return marker{}, false
		}
		return marker{pos: pos, labelEnd: pos, fam: famHeading, level: b.Level, strong: true, heading: h, reads: []interp{{"heading", 0}}}, true
	}
	return marker{}, false
}

// scanGluedNumber reads a heading whose number is glued to its words
// ("2.1OVERVIEW.", "12.3Limits", "2.2to provide", "1.5"Term" means",
// "1.44***"): LibreOffice writes an outline number so
// into HTML, whose headings have no list label of their own, and a reader
// sees the number and the heading run together. Only a heading block is
// read so; in running text "1.5MW" is a quantity.
func scanGluedNumber(s string, p int) (marker, bool) {
	j := p
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
		j++
	}
	if j == p || !strings.Contains(s[p:j], ".") && (j >= len(s) || s[j] != '.') {
		return marker{}, false // a bare "3" glued to a word is not a number
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	if !unicode.IsLetter(r) && !strings.ContainsRune("\"“'*([", r) {
		return marker{}, false
	}
	end := strings.IndexByte(s[j:], '\n')
	if end < 0 {
		end = len(s) - j
	}
	// The same number with a space after it, read as any other; one
	// without a final period is given one, since the heading's words
	// after it may be a sentence's ("2.2to provide the Services").
	num := s[p:j]
	if !strings.HasSuffix(num, ".") {
		num += "."
	}
	m, ok := scanMarker(num+" "+s[j:j+end], 0)
	if !ok || m.fam != famDecimal {
		return marker{}, false
	}
	m.pos += p
	m.labelEnd = p + min(m.labelEnd, j-p)
	return m, true
}
