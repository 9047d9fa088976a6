package graph

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/pakton/pakton/internal/numbering"
)

// refClass says what kind of unit a reference word names.
type refClass int

const (
	classSection refClass = iota // section, clause, paragraph, §
	classArticle                 // article, part
	classAttach                  // schedule, exhibit, annex, appendix, attachment
)

// refWord matches, in lower-cased text, the words that open a
// cross-reference, anchored at a word start.
// Regular expressions are compiled on first use (sync.OnceValue): compiled
// at start-up they were a cost every command paid, a one-shot search too.
var refWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(sections?|sec\.?|clauses?|sub-?clauses?|articles?|art\.|paragraphs?|para\.|sub-?sections?|sub-?paragraphs?|schedules?|exhibits?|annex(?:es)?|appendix|appendices|attachments?|addend(?:um|a)|parts?)\b\.?[ \t]*(?:\n[ \t]*)?|§§?[ \t]*)`)
})

// refStarts are the first two letters of the reference words.
var refStarts = map[string]bool{"se": true, "cl": true, "ar": true, "pa": true, "sc": true, "ex": true,
	"an": true, "ap": true, "at": true, "ad": true, "su": true}

// refWords returns the byte ranges of the reference words of s. Scanning
// only word starts whose first letter can open one keeps this linear and
// fast; a case-insensitive regular expression over the whole text was ten
// times slower.
func refWords(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); i++ {
		if i > 0 && isWordByte(s[i-1]) && s[i-1] < 0x80 || i+1 >= len(s) {
			continue
		}
		if s[i] != 0xC2 && !refStarts[string([]byte{s[i] | 0x20, s[i+1] | 0x20})] {
			continue
		}
		if e, ok := refWordAtLower(s, i); ok {
			out = append(out, [2]int{i, e})
			i = e - 1
		}
	}
	return out
}

// refWordAtLower matches refWord at byte i of s, ignoring ASCII case, and
// returns where the match ends.
func refWordAtLower(s string, i int) (int, bool) {
	var buf [24]byte
	w := buf[:copy(buf[:], s[i:min(len(s), i+24)])]
	for k, c := range w {
		if c >= 'A' && c <= 'Z' {
			w[k] = c + 0x20
		}
	}
	loc := refWord().FindIndex(w)
	if loc == nil {
		return 0, false
	}
	return i + loc[1], true
}

// keyword is a parsed reference word.
type keyword struct {
	class  refClass
	word   string // normalised singular: "section", "exhibit", ...
	plural bool
}

// prefixKeywords are the reference words known by how they start
// ("Sched.", "Exhibits", "Appendices"), tried in this order.
var prefixKeywords = []struct {
	prefix string
	class  refClass
	word   string
}{
	{"art", classArticle, "article"},
	{"sched", classAttach, "schedule"},
	{"exhibit", classAttach, "exhibit"},
	{"annex", classAttach, "annex"},
	{"append", classAttach, "appendix"},
	{"attach", classAttach, "attachment"},
	{"addend", classAttach, "addendum"},
}

func parseKeyword(w string) (keyword, bool) {
	l := strings.ToLower(strings.TrimRight(strings.TrimSpace(w), "."))
	if strings.HasPrefix(l, "§") {
		return keyword{classSection, "section", l == "§§"}, true
	}
	plural := strings.HasSuffix(l, "s") || l == "appendices" || l == "addenda"
	if l == "part" || l == "parts" {
		// "part" is ordinary English; only "Part 2" / "PART II" count.
		if !unicode.IsUpper(firstRune(w)) {
			return keyword{}, false
		}
		return keyword{classArticle, "part", plural}, true
	}
	for _, p := range prefixKeywords {
		if strings.HasPrefix(l, p.prefix) {
			return keyword{p.class, p.word, plural}, true
		}
	}
	switch {
	case strings.HasPrefix(l, "sub") && strings.Contains(l, "para"), strings.HasPrefix(l, "para"):
		return keyword{classSection, "paragraph", plural}, true
	case strings.Contains(l, "clause"):
		return keyword{classSection, "clause", plural}, true
	}
	return keyword{classSection, "section", plural}, true
}

// shape is the form of a reference label.
type shape int

const (
	shapeNone   shape = iota
	shapeNumber       // 4, 4.1, 4.1.2, with or without "(a)" groups
	shapeParen        // (a), (iv), (2)
	shapeLetter       // A, B-1, "D" (schedules and exhibits)
	shapeRoman        // IV (articles and parts)
)

// label is one parsed reference label: bytes [a, b) of the text.
type label struct {
	a, b   int
	text   string // normalised: "4.1(a)", "(c)", "a", "4"
	shape  shape
	dotted int // components of a number: 1 for "4", 2 for "4.1"
}

// base returns the label without its last "(x)" group: "4.1(a)" → "4.1".
func (l label) base() string {
	if k := strings.LastIndexByte(l.text, '('); k >= 0 {
		return l.text[:k]
	}
	return l.text
}

var (
	numberRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,4}[A-Za-z]?(?:\.\d{1,4}[A-Za-z]?)*`) })
	// statuteRe reads the hyphenated numbers of statutes and regulations
	// ("1.1502-6", "2-207"), which contracts do not use for their own
	// clauses; a hyphen between contract numbers is a range.
	statuteRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:\d{1,4}\.)?\d{3,4}-\d{1,4}\b|^\d-\d{3}\b`) })
	parenRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ ?\((?:[a-z]{1,5}|[A-Z]{1,2}|\d{1,3})\)`) })
	romanRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[IVXL]{1,7}\b`) })
	letterRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[A-Z]{1,2}|\d{1,3}(?:\.\d{1,3})*)(?:-\d{1,3}|-[A-Z]{1,2}|\.\d{1,3})?`)
	})
	quotedRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^["“']([A-Z0-9]{1,3}(?:-\d{1,3})?)["”']`) })
)

// parseLabel reads one label at byte i for a reference word of class c.
func parseLabel(s string, i int, c refClass) (label, bool) {
	rest := s[i:min(len(s), i+40)]
	var l label
	switch {
	case c == classAttach:
		if m := quotedRef().FindStringSubmatch(rest); m != nil {
			l = label{a: i, b: i + len(m[0]), text: strings.ToLower(m[1]), shape: shapeLetter}
			break
		}
		m := letterRe().FindString(rest)
		if m == "" {
			return l, false
		}
		l = label{a: i, b: i + len(m), text: strings.ToLower(m), shape: shapeLetter}
	case strings.HasPrefix(rest, "("):
		m := parenRe().FindString(rest)
		if m == "" {
			return l, false
		}
		l = label{a: i, b: i + len(m), text: m, shape: shapeParen}
		for {
			g := parenRe().FindString(s[l.b:min(len(s), l.b+10)])
			if g == "" || strings.HasPrefix(g, " ") {
				break
			}
			l.b += len(g)
			l.text += g
		}
	case c == classArticle && romanRe().MatchString(rest):
		m := romanRe().FindString(rest)
		n, ok := romanValue(m)
		if !ok {
			return l, false
		}
		l = label{a: i, b: i + len(m), text: strconv.Itoa(n), shape: shapeRoman, dotted: 1}
	default:
		m := statuteRe().FindString(rest)
		if m == "" {
			m = numberRe().FindString(rest)
		}
		if m == "" {
			return l, false
		}
		l = label{a: i, b: i + len(m), text: strings.ToLower(m), shape: shapeNumber, dotted: strings.Count(m, ".") + 1}
		for {
			g := parenRe().FindString(s[l.b:min(len(s), l.b+10)])
			if g == "" {
				break
			}
			// "Section 5 (Term)" is a heading in parentheses, not a label:
			// parenRe only takes short lower-case, single capital or
			// numeric groups.
			l.b += len(g)
			l.text += strings.TrimSpace(g)
		}
	}
	if l.b < len(s) && (isWordByte(s[l.b]) && s[l.b] < 0x80) {
		return label{}, false
	}
	if l.b+1 < len(s) && s[l.b] == '.' && s[l.b+1] >= '0' && s[l.b+1] <= '9' {
		return label{}, false // a number we could not read whole
	}
	l.text = strings.ReplaceAll(l.text, " ", "")
	return l, true
}

// romanValue converts an upper-case Roman numeral of an article or part
// (I to LXXXIX), leniently: "IIII" reads as 4.
func romanValue(r string) (int, bool) {
	n, _ := numbering.ParseRoman(r)
	return n, n > 0 && n < 90
}

// connector reads the words that join labels in a list or a range at byte
// i: ",", "and", "or", "and/or", "through", "to", "-", "–". It returns the
// byte after it and whether it opens a range.
func connector(s string, i int) (int, bool, bool) {
	j := skipSpace(s, i)
	// A short lower-case aside between items: "13 (as amended), 14 and 15".
	if j < len(s) && s[j] == '(' {
		if k := strings.IndexByte(s[j:min(len(s), j+30)], ')'); k > 2 && connective(s[j+1:j+k]) && strings.IndexFunc(s[j+1:j+k], unicode.IsLetter) >= 0 && strings.Count(s[j+1:j+k], " ") > 0 {
			j = skipSpace(s, j+k+1)
			i = j
		}
	}
	comma := false
	if j < len(s) && s[j] == ',' {
		comma = true
		j = skipSpace(s, j+1)
	}
	for _, w := range []string{"and/or", "and", "or", "through", "thru", "to", "inclusive"} {
		if e, ok := hasWordPrefix(s, j, w); ok {
			if w == "inclusive" {
				return i, false, false
			}
			return skipSpace(s, e), w == "through" || w == "thru" || w == "to", true
		}
	}
	for _, d := range []string{"-", "–", "—", "&"} {
		if strings.HasPrefix(s[j:], d) {
			return skipSpace(s, j+len(d)), d != "&", true
		}
	}
	if comma {
		return j, false, true
	}
	return i, false, false
}

// sameShape reports whether next continues a list that began with first.
func sameShape(first, next label, kw keyword) bool {
	switch {
	case next.shape == shapeParen:
		return true
	case first.shape != next.shape:
		return false
	case first.shape == shapeNumber && !kw.plural:
		// "Section 4.1 or 4.2" and "Section 125 or 401(k)" are lists;
		// "Section 9 and 30 days" is not.
		return first.dotted >= 2 && next.dotted == first.dotted || strings.Contains(next.text, "(")
	}
	return true
}

// expandRange lists the labels strictly between a and b when they differ
// only in their last number or letter: 4.1 → 4.3 gives 4.2; (a) → (d)
// gives (b), (c). At most 30; nil when the range cannot be read.
func expandRange(a, b label) []string {
	if a.shape != b.shape {
		return nil
	}
	if a.shape == shapeNumber || a.shape == shapeRoman {
		ia, ib := strings.LastIndexByte(a.text, '.'), strings.LastIndexByte(b.text, '.')
		if a.text[:ia+1] != b.text[:ib+1] || strings.Contains(a.text, "(") || strings.Contains(b.text, "(") {
			return nil
		}
		x, err1 := strconv.Atoi(a.text[ia+1:])
		y, err2 := strconv.Atoi(b.text[ib+1:])
		if err1 != nil || err2 != nil || y <= x || y-x > 30 {
			return nil
		}
		var out []string
		for n := x + 1; n < y; n++ {
			out = append(out, a.text[:ia+1]+strconv.Itoa(n))
		}
		return out
	}
	if a.shape == shapeParen {
		pa, pb := a.base(), b.base()
		if pa != pb && !(pa == a.text && pb == b.text) {
			return nil
		}
		la := a.text[len(a.text)-len(lastGroup(a.text)):]
		lb := b.text[len(b.text)-len(lastGroup(b.text)):]
		if len(la) != 3 || len(lb) != 3 || lb[1] <= la[1] || lb[1]-la[1] > 26 {
			return nil // single letters or digits only; roman ranges are rare
		}
		var out []string
		prefix := a.text[:len(a.text)-3]
		for c := la[1] + 1; c < lb[1]; c++ {
			out = append(out, prefix+"("+string(c)+")")
		}
		return out
	}
	return nil
}

func lastGroup(t string) string {
	if k := strings.LastIndexByte(t, '('); k >= 0 {
		return t[k:]
	}
	return t
}
