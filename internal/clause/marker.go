package clause

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/numbering"
)

// A family groups numbering styles by how they nest. Families with a lower
// rank sit above families with a higher one when a new list opens.
type family int

const (
	famSchedule   family = iota // Schedule 1, Exhibit A: always top level
	famArticle                  // Article IV, ARTICLE 4, PART 2
	famSectionKw                // Section 2.3, § 4
	famDecimal                  // 1. / 1.1 / 1.1.1
	famItem                     // (a), a), (i), (A), (1), 1)
	famDefinition               // "X" means ... on its own line
	famClosing                  // IN WITNESS WHEREOF
	famHeading                  // a layout heading block without numbering
)

// interp is one reading of a marker's number: its style key and value. A
// token such as "(i)" has two readings (roman 1, letter 9); the tree builder
// picks one from context.
type interp struct {
	style string // e.g. "(a)", "a.", "(i)", "dec", "sec"
	val   int
}

// marker is a numbering, keyword or definition that may open a node.
type marker struct {
	pos      int    // byte offset where the node would start
	labelEnd int    // byte offset just after the label
	label    string // as the contract shows it, without trailing "." or ":"
	fam      family
	nums     []int // decimal path for famDecimal and famSectionKw
	reads    []interp
	strong   bool // at a line start (or a layout break), not inline
	block    bool // a list item reported by a layout block; level nests it
	// confirmed: an inline marker that opens a list is followed by the
	// list's second member.
	confirmed bool
	level     int // layout level from a Block, -1 when unknown
	heading   string
}

// depth returns the number of components of a hierarchical number.
func (m *marker) depth() int { return len(m.nums) }

// rank orders families for the "open a new list" step: a new list of rank r
// closes every open list of rank >= r first. Items never close anything.
func (m *marker) rank() int {
	switch m.fam {
	case famSchedule:
		return 0
	case famArticle:
		if len(m.reads) > 0 && m.reads[0].style == "art:part" {
			return 1
		}
		return 2
	case famSectionKw:
		return 2 + len(m.nums)
	case famDecimal:
		return 4 + len(m.nums)
	case famClosing:
		return 0
	case famHeading:
		return 1 + m.level
	}
	return 100
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// isHSpace reports whether r is horizontal white space.
func isHSpace(r rune) bool { return r != '\n' && unicode.IsSpace(r) }

// romanValue parses a canonical roman numeral in either case (all one
// case) up to 100, or returns 0.
func romanValue(s string) int {
	n, ok := numbering.ParseRoman(s)
	if !ok || n > 100 {
		return 0
	}
	return n
}

// letterValue returns 1 for "a", 26 for "z", 27 for "aa", 28 for "bb" ... up
// to three letters, and 0 for anything else. Case must be uniform.
func letterValue(s string) int {
	if len(s) > 3 {
		return 0
	}
	return numbering.ParseLetters(s)
}

var wordNumbers = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
	"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20,
}

// Words after a number that show it is a quantity, not a clause number.
var quantityWords = map[string]bool{
	"million": true, "billion": true, "thousand": true, "percent": true, "per": true,
	"years": true, "year": true, "days": true, "day": true, "months": true, "month": true,
	"hours": true, "times": true, "x": true, "mg": true, "kg": true, "pm": true, "am": true,
	"p.m.": true, "a.m.": true, "%": true,
}

// Words after "Section 2.3", "(a)" or "Exhibit A" that show a cross-reference
// rather than a heading.
var refFollowers = map[string]bool{
	"of": true, "and": true, "or": true, "to": true, "hereof": true, "hereto": true,
	"herein": true, "above": true, "below": true, "through": true, "shall": true,
	"is": true, "are": true, "will": true, "in": true, "attached": true, "hereunder": true,
	"thereof": true, "as": true, "for": true, "which": true, "with": true, "that": true,
	"under": true, "has": true, "have": true, "was": true, "by": true, "on": true,
	"sets": true, "set": true, "the": true, "this": true, "may": true, "be": true,
}

// nextWord returns the word starting at byte i of s after horizontal spaces,
// lower-cased, and whether anything other than white space precedes the end
// of the line.
func nextWord(s string, i int) (word string, first rune) {
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	if i >= len(s) || s[i] == '\n' {
		return "", 0
	}
	first, _ = utf8.DecodeRuneInString(s[i:])
	j := i
	for j < len(s) && !isSpaceByte(s[j]) && s[j] != '\n' {
		j++
	}
	w := strings.ToLower(s[i:j])
	w = strings.TrimRight(w, ",;:")
	return w, first
}

// scanMarker reads a numbering marker, keyword label or definition at byte p
// of s. p is at a non-space character.
func scanMarker(s string, p int) (marker, bool) {
	m := marker{pos: p, level: -1}
	if p >= len(s) {
		return m, false
	}
	c := s[p]
	switch {
	case c == '(':
		return scanParen(s, p)
	case c >= '0' && c <= '9':
		return scanDecimal(s, p)
	case c == '"' || strings.HasPrefix(s[p:], "“") || c == '\'':
		return scanDefinition(s, p)
	case c == 0xC2 && strings.HasPrefix(s[p:], "§"):
		return scanKeyword(s, p)
	case (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
		if m, ok := scanKeyword(s, p); ok {
			return m, true
		}
		if m, ok := scanClosing(s, p); ok {
			return m, true
		}
		if m, ok := scanLetter(s, p); ok {
			return m, true
		}
		return scanDefinition(s, p)
	}
	return m, false
}

// scanParen reads "(a)", "(iv)", "(A)", "(12)".
func scanParen(s string, p int) (marker, bool) {
	m := marker{pos: p, level: -1, fam: famItem}
	j := p + 1
	for j < len(s) && j-p <= 6 && isAlnumByte(s[j]) {
		j++
	}
	if j >= len(s) || s[j] != ')' || j == p+1 {
		return m, false
	}
	tok := s[p+1 : j]
	m.labelEnd = j + 1
	m.label = s[p:m.labelEnd]
	if !m.readToken(tok, "(", ")") {
		return m, false
	}
	if !itemFollowerOK(s, m.labelEnd) {
		return m, false
	}
	return m, true
}

func isAlnumByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// readToken fills m.reads from a list token such as "a", "iv", "B", "12".
func (m *marker) readToken(tok, open, close string) bool {
	if tok == "" {
		return false
	}
	if tok[0] >= '0' && tok[0] <= '9' {
		v := 0
		for i := 0; i < len(tok); i++ {
			if tok[i] < '0' || tok[i] > '9' {
				return false
			}
			v = v*10 + int(tok[i]-'0')
		}
		if len(tok) > 3 || v == 0 {
			return false
		}
		m.reads = append(m.reads, interp{open + "1" + close, v})
		return true
	}
	upper := tok[0] >= 'A' && tok[0] <= 'Z'
	if r := romanValue(tok); r > 0 {
		st := open + "i" + close
		if upper {
			st = open + "I" + close
		}
		m.reads = append(m.reads, interp{st, r})
	}
	if l := letterValue(tok); l > 0 {
		st := open + "a" + close
		if upper {
			st = open + "A" + close
		}
		// A single roman letter other than i is far more often a letter.
		if len(m.reads) > 0 && tok != "i" && tok != "I" {
			m.reads = append([]interp{{st, l}}, m.reads...)
		} else {
			m.reads = append(m.reads, interp{st, l})
		}
	}
	return len(m.reads) > 0
}

// itemFollowerOK rejects list markers followed by words that show a
// cross-reference ("(a) of this Section") or by nothing usable.
func itemFollowerOK(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	c := s[i]
	if c == ',' || c == ';' || c == ')' || c == '.' && i+1 < len(s) && s[i+1] != ' ' {
		return false
	}
	w, _ := nextWord(s, i)
	return !refFollowers[w] || w == "the" || w == "to" || w == "in" || w == "that" || w == "this" || w == "for" || w == "by" || w == "on" || w == "with" || w == "as" || w == "be" || w == "may"
}

// scanDecimal reads "1.", "1.1", "1.1.1.", "1)", "12 ".
func scanDecimal(s string, p int) (marker, bool) {
	m := marker{pos: p, level: -1, fam: famDecimal}
	j := p
	var nums []int
	for {
		k := j
		v := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' && k-j < 4 {
			v = v*10 + int(s[k]-'0')
			k++
		}
		if k == j || (k < len(s) && s[k] >= '0' && s[k] <= '9') {
			return m, false
		}
		nums = append(nums, v)
		j = k
		if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
			j++
			continue
		}
		break
	}
	if len(nums) > 5 || nums[0] == 0 || nums[0] > 300 {
		return m, false
	}
	for _, v := range nums[1:] {
		if v > 200 {
			return m, false
		}
	}
	m.label = s[p:j]
	trail := byte(0)
	if j < len(s) && (s[j] == '.' || s[j] == ')') {
		trail = s[j]
		j++
	}
	m.labelEnd = j
	if j < len(s) && !isSpaceByte(s[j]) && s[j] != '\n' {
		// "1.Definitions" occurs, and so does "2.1Term." when a PDF
		// extractor loses the gap between a clause number and its heading
		// (pdfium on some PDFs); anything else glued to a number does not.
		r, w := utf8.DecodeRuneInString(s[j:])
		r2, _ := utf8.DecodeRuneInString(s[min(len(s), j+w):])
		if !unicode.IsUpper(r) || trail == 0 && (len(nums) < 2 || !unicode.IsLower(r2)) {
			return m, false
		}
	}
	w, first := nextWord(s, j)
	if first >= '0' && first <= '9' || first == '$' || first == '%' || first == '-' || first == '/' {
		return m, false // dates, amounts, ranges
	}
	if quantityWords[w] {
		return m, false
	}
	if trail == ')' {
		if len(nums) > 1 {
			return m, false
		}
		m.fam = famItem
		m.label = s[p:j]
		m.reads = []interp{{"1)", nums[0]}}
		return m, true
	}
	if first == 0 && trail == 0 && len(nums) == 1 {
		return m, false // a bare number on a line: a page number
	}
	if trail == 0 && (unicode.IsLower(first) || first == ',' || first == ';') {
		return m, false
	}
	if trail == 0 && len(nums) == 1 {
		// "1 DEFINITIONS" needs a capital and two spaces or a tab.
		if !unicode.IsUpper(first) || !(j+1 < len(s) && (s[j] == '\t' || isSpaceByte(s[j+1]))) {
			return m, false
		}
	}
	m.nums = nums
	m.reads = []interp{{"dec", nums[len(nums)-1]}}
	return m, true
}

// scanLetter reads "a)", "a.", "iv.", "A.", "IV." at a line start.
func scanLetter(s string, p int) (marker, bool) {
	m := marker{pos: p, level: -1, fam: famItem}
	j := p
	for j < len(s) && j-p <= 6 && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')) {
		j++
	}
	if j >= len(s) || j == p || (s[j] != '.' && s[j] != ')') {
		return m, false
	}
	tok := s[p:j]
	close := string(s[j])
	m.labelEnd = j + 1
	m.label = s[p:m.labelEnd]
	if m.labelEnd < len(s) && !isSpaceByte(s[m.labelEnd]) {
		return m, false
	}
	if close == "." {
		// "A. Smith", "U.S.", "etc." — a letter with a period needs a capital
		// or quote after it, and lower-case tokens must be one or a roman.
		_, first := nextWord(s, m.labelEnd)
		if !unicode.IsUpper(first) && first != '"' && first != '“' && first != '(' {
			return m, false
		}
		if len(tok) > 1 && romanValue(tok) == 0 {
			return m, false
		}
	}
	if !m.readToken(tok, "", close) {
		return m, false
	}
	if !itemFollowerOK(s, m.labelEnd) {
		return m, false
	}
	return m, true
}

var keywordFamilies = []struct {
	word string
	fam  family
}{
	{"article", famArticle}, {"part", famArticle},
	{"section", famSectionKw}, {"§", famSectionKw},
	{"schedule", famSchedule}, {"exhibit", famSchedule}, {"annex", famSchedule},
	{"appendix", famSchedule}, {"attachment", famSchedule}, {"addendum", famSchedule},
}

// scanKeyword reads "Article IV", "ARTICLE 4", "Section 2.3", "§ 4",
// "Schedule 1", "EXHIBIT A", "PART 2".
func scanKeyword(s string, p int) (marker, bool) {
	m := marker{pos: p, level: -1}
	var kw string
	for _, k := range keywordFamilies {
		if len(s)-p >= len(k.word) && strings.EqualFold(s[p:p+len(k.word)], k.word) {
			kw, m.fam = s[p:p+len(k.word)], k.fam
			break
		}
	}
	if kw == "" {
		return m, false
	}
	// Keywords in running text are Title or upper case, never lower.
	if kw[0] >= 'a' && kw[0] <= 'z' {
		return m, false
	}
	j := p + len(kw)
	if kw == "§" {
		if j < len(s) && strings.HasPrefix(s[j:], "§") {
			return m, false
		}
	} else if j >= len(s) || !isSpaceByte(s[j]) {
		return m, false
	}
	for j < len(s) && isSpaceByte(s[j]) {
		j++
	}
	// "ARTICLE – 1", "SCHEDULE - I": a dash between keyword and number.
	if kw != "§" && j > p+len(kw) {
		for _, d := range []string{"–", "—", "-"} {
			if strings.HasPrefix(s[j:], d) && j+len(d) < len(s) && isSpaceByte(s[j+len(d)]) {
				j = skipHSpace(s, j+len(d))
				break
			}
		}
	}
	// The number: digits with dots, a roman numeral, a letter, a word number,
	// optionally quoted for schedules (Schedule "A").
	q := j
	quoted := false
	if j < len(s) && (s[j] == '"' || strings.HasPrefix(s[j:], "“")) {
		quoted = true
		if s[j] == '"' {
			j++
		} else {
			j += len("“")
		}
	}
	k := j
	for k < len(s) && (isAlnumByte(s[k]) || (s[k] == '.' && k+1 < len(s) && s[k+1] >= '0' && s[k+1] <= '9' && k > j && s[k-1] >= '0' && s[k-1] <= '9') || (s[k] == '-' && k+1 < len(s) && isAlnumByte(s[k+1]) && k > j)) {
		k++
	}
	if k == j {
		return m, false
	}
	tok := s[j:k]
	if quoted {
		if k < len(s) && s[k] == '"' {
			k++
		} else if strings.HasPrefix(s[k:], "”") {
			k += len("”")
		} else {
			return m, false
		}
	}
	m.label = s[p:k]
	_ = q
	m.labelEnd = k
	// Cross-references: "Section 2.3(a)", "Section 2.3 of", "Exhibit A attached".
	if k < len(s) && (s[k] == '(' || s[k] == ',' || s[k] == ';' || s[k] == ')') {
		return m, false
	}
	if k < len(s) && s[k] != '.' && s[k] != ':' && !isSpaceByte(s[k]) && s[k] != '\n' && !strings.HasPrefix(s[k:], "–") && !strings.HasPrefix(s[k:], "—") {
		return m, false
	}
	dotted := k < len(s) && (s[k] == '.' || s[k] == ':')
	w, first := nextWord(s, k+boolInt(dotted))
	// "Section 1. The Offering" is a heading; "Section 1 the" and
	// "Section 1 of" are references. A period and a capital make the
	// difference.
	if refFollowers[w] && !(dotted && unicode.IsUpper(first) && (m.fam == famArticle || shortHeadingAt(s, k+1))) || (unicode.IsLower(first) && m.fam != famSchedule) {
		return m, false
	}
	if m.fam == famSchedule && unicode.IsLower(first) {
		return m, false
	}
	switch m.fam {
	case famSectionKw:
		nums, ok := parseDotted(tok)
		if !ok {
			if r := romanValue(tok); r > 0 && strings.ToUpper(tok) == tok {
				nums = []int{r}
			} else if v, ok := wordNumbers[strings.ToLower(tok)]; ok {
				nums = []int{v}
			} else {
				return m, false
			}
		}
		m.nums = nums
		m.reads = []interp{{"sec", nums[len(nums)-1]}}
	case famArticle:
		v := 0
		if nums, ok := parseDotted(tok); ok && len(nums) == 1 {
			v = nums[0]
		} else if r := romanValue(tok); r > 0 && strings.ToUpper(tok) == tok {
			v = r
		} else if w, ok := wordNumbers[strings.ToLower(tok)]; ok {
			v = w
		} else if len(tok) == 1 && tok[0] >= 'A' && tok[0] <= 'Z' {
			v = int(tok[0]-'A') + 1
		}
		if v == 0 {
			return m, false
		}
		m.nums = []int{v}
		m.reads = []interp{{"art:" + strings.ToLower(kw), v}}
	case famSchedule:
		// "Exhibit 10.31" is an SEC filing's exhibit number, not a schedule.
		if nums, ok := parseDotted(tok); ok && len(nums) > 1 && (nums[0] >= 10 || strings.EqualFold(kw, "exhibit") && p < 500) {
			return m, false
		}
		m.reads = []interp{{"sched", 0}}
	}
	return m, true
}

// shortHeadingAt reports whether the text at byte i, up to the period that
// ends it on the same line, reads as a heading: "The Offering." does,
// "The Company shall ..." (a reference wrapped to a line start, then its
// sentence) does not.
func shortHeadingAt(s string, i int) bool {
	end := min(len(s), i+100)
	line := s[i:end]
	if k := strings.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	k := strings.IndexByte(line, '.')
	if k < 0 {
		// "Section 2. The Acknowledgement Agreement" alone on its line,
		// a blank line after it.
		rest := s[min(len(s), i+len(line)):]
		return isHeadingLine(line) && (rest == "" || strings.HasPrefix(strings.TrimLeft(rest, " \t\r"), "\n\n") || strings.HasPrefix(rest, "\n\n"))
	}
	return isHeadingLine(line[:k])
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func parseDotted(tok string) ([]int, bool) {
	var nums []int
	for _, part := range strings.Split(tok, ".") {
		if part == "" || len(part) > 3 {
			return nil, false
		}
		v := 0
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return nil, false
			}
			v = v*10 + int(part[i]-'0')
		}
		nums = append(nums, v)
	}
	if len(nums) == 0 || nums[0] == 0 {
		return nil, false
	}
	return nums, true
}

// scanClosing recognises the signature block opener.
func scanClosing(s string, p int) (marker, bool) {
	const w = "IN WITNESS WHEREOF"
	if len(s)-p >= len(w) && strings.EqualFold(s[p:p+len(w)], w) {
		return marker{pos: p, labelEnd: p, fam: famClosing, level: -1, reads: []interp{{"closing", 0}}}, true
	}
	return marker{}, false
}
