package names

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// The date a contract is named by is the date it gives itself, where a
// contract dates itself: in its title block or the sentences of its
// preamble, before its recitals ("WHEREAS"), the words that open its
// operative part ("as follows:") and its first numbered section — a date
// written in a section is a date the agreement speaks of (a record date,
// an eligibility date), not its own. Within that opening:
//
//   - a date written after another document's name is that document's
//     ("pursuant to the License Agreement dated June 1, 2010"); one written
//     after this contract's name is its own ("This Agreement (the
//     "Agreement") is made as of …", "THIS AMENDMENT, dated …"), as is one
//     written where no document is named;
//   - a date left blank ("___________ __, 2000", "AGENCY AGREEMENT , 2009")
//     is the contract's own date, said as blank: nobody leaves blank the
//     date of a document already made. It gives the year it writes and no
//     date.
//
// The date a review's Agreement Date cell reads (internal/review/answer)
// follows the same conventions, and reads blank dates with BlankDates.

// dateRe matches a calendar date as contracts write it. The parts of a date
// may be split by the underline a filing draws ("31 December, ---------
// 1996"): a run of dashes or underscores between them is no part of the
// date.
var dateRe = sync.OnceValue(func() *regexp.Regexp {
	m := `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`
	gap := `(?:\s|[-_]{2,})*\s`
	return regexp.MustCompile(`(?i)\b(?:` +
		m + `\s+\d{1,2}(?:st|nd|rd|th)?,?` + gap + `(?:19|20)\d\d` + // June 1, 2020
		`|\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?` + m + `,?` + gap + `(?:19|20)\d\d` + // 31 October 2019, 1st day of April, 2018
		`|\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)\d\d` + // 06/01/2020
		`|` + m + `,?\s+(?:19|20)\d\d` + // June 2020
		`)\b`)
})

var yearRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:19|20)\d\d`) })

// written is a date read from a text: as written (spaces collapsed,
// underlines dropped), its year, where it is (bytes) and whether it is
// left blank.
type written struct {
	text    string
	year    int
	at, end int
	blank   bool
}

// writtenDates returns the calendar dates written in s, in order. Every
// date ends with its year: the pattern is tried only just before each
// year, not over the whole text.
func writtenDates(s string) []written {
	var out []written
	for i := 0; i+4 <= len(s); i++ {
		if !(s[i] == '1' && s[i+1] == '9' || s[i] == '2' && s[i+1] == '0') || !isDigitByte(s[i+2]) || !isDigitByte(s[i+3]) ||
			i > 0 && isDigitByte(s[i-1]) || i+4 < len(s) && isDigitByte(s[i+4]) {
			continue
		}
		from := max(0, i-200)
		for from > 0 && !isRuneStart(s[from]) {
			from--
		}
		if len(out) > 0 {
			from = max(from, out[len(out)-1].end)
		}
		for _, m := range dateRe().FindAllStringIndex(s[from:i+4], -1) {
			if from+m[1] != i+4 {
				continue
			}
			var words []string
			for _, w := range strings.Fields(s[from+m[0] : i+4]) {
				if strings.Trim(w, "-_") != "" {
					words = append(words, w)
				}
			}
			y, _ := strconv.Atoi(s[i : i+4])
			out = append(out, written{text: strings.Join(words, " "), year: y, at: from + m[0], end: i + 4})
		}
	}
	return out
}

// Blank is a date a contract leaves blank, with what it writes of it.
type Blank struct {
	Month string // the month written ("March"), or ""
	Year  string // the year written ("2009"), or ""
	// At and End are where the blank date is written (bytes).
	At, End int
}

const (
	reMonthName = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`
	// reBlank is a blank: underscores, or brackets around nothing, dots or
	// bullets — not a redaction ("[***]"), which hides a date written.
	reBlank = `(?:_{2,}|\[\s*[_•●.\s]*\])`
	// reDashes is a blank typed as dashes: read as a blank only where a
	// date's part is expected (after "day of", after its month, after
	// "dated"), since a filing also draws dashes to underline the words
	// above them.
	reDashes = `-{3,}`
)

// reBlankDates are the forms of a blank date, each with the groups month
// (may be empty) and year (may be empty).
var reBlankDates = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// "the ___ day of ________, 2009", "the ___ day of March, 2009"
		regexp.MustCompile(`(?i)\b(?:the\s+)?` + reBlank + `\s*(?:day\s+of|of)\s+(?:` + reBlank + `|(?P<month>` + reMonthName + `))\.?\s*,?\s*(?P<year>(?:19|20)\d\d)?`),
		// "the ------ day of ---------, 1996"
		regexp.MustCompile(`(?i)\b(?:the\s+)?` + reDashes + `\s*day\s+of\s+(?:` + reDashes + `|(?P<month>` + reMonthName + `))\.?\s*,?\s*(?P<year>(?:19|20)\d\d)?`),
		// "March ___, 2009", "____ __, 2009", "___________, 2009"
		regexp.MustCompile(`(?i)(?:\b(?P<month>` + reMonthName + `)\.?\s*)?` + reBlank + `(?:\s*` + reBlank + `)?\s*,?\s*(?P<year>(?:19|20)\d\d)\b`),
		// "December ---------, 1996"
		regexp.MustCompile(`(?i)\b(?P<month>` + reMonthName + `)\.?\s*` + reDashes + `\s*,?\s*(?P<year>(?:19|20)\d\d)\b`),
		// a blank lost in conversion: "dated as of , 2009", "made on
		// ________" with no year written
		regexp.MustCompile(`(?i)\b(?:dated|as\s+of|made\s+(?:on|this)|effective|entered\s+into\s+(?:on|as\s+of))(?:\s+the)?\s*(?:,\s*(?P<year>(?:19|20)\d\d)\b|` + reBlank + `(?P<month>)\s*(?:[.;,)(]|$))`),
		// "dated as of ---------, 1996"
		regexp.MustCompile(`(?i)\b(?:dated|as\s+of|made\s+(?:on|this)|effective|entered\s+into\s+(?:on|as\s+of))(?:\s+the)?\s*` + reDashes + `(?:\s*` + reDashes + `)?\s*,?\s*(?P<year>(?:19|20)\d\d)?\b(?P<month>)`),
		// a title whose date line lost its blank: "AGENCY AGREEMENT
		// , 2009"
		regexp.MustCompile(`\b(?:AGREEMENT|CONTRACT)\s{0,8},[ \t]*(?P<year>(?:19|20)\d\d)\b(?P<month>)`),
	}
})

// BlankDates returns the dates s leaves blank — "dated as of
// ____________, 2009", "made this ___ day of ________, 2009", "entered
// into on March ___, 2009", "dated as of , 2009" once the underscores are
// lost in conversion, "AGENCY AGREEMENT , 2009" — in order, one per place.
// A blank is never part of a date written whole: "31 December, ---------
// 1996" is 31 December 1996 (the dashes underline it).
func BlankDates(s string) []Blank {
	var out []Blank
	for _, re := range reBlankDates() {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			b := Blank{At: m[0], End: m[1]}
			for i, name := range re.SubexpNames() {
				if m[2*i] < 0 {
					continue
				}
				switch name {
				case "month":
					b.Month = monthWord(s[m[2*i]:m[2*i+1]])
				case "year":
					b.Year = s[m[2*i]:m[2*i+1]]
				}
			}
			out = append(out, b)
		}
	}
	// one reading per place: the first form that read it; none inside a
	// date written whole
	whole := writtenDates(s)
	var kept []Blank
	for _, b := range out {
		overlap := false
		for _, k := range kept {
			if b.At < k.End && k.At < b.End {
				overlap = true
				break
			}
		}
		for _, w := range whole {
			if b.At < w.end && w.at < b.End {
				overlap = true
				break
			}
		}
		if !overlap {
			kept = append(kept, b)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].At < kept[j].At })
	return kept
}

// monthWord writes a month as a date does ("mar" → "March").
func monthWord(s string) string {
	l := strings.ToLower(strings.TrimSuffix(s, "."))
	for _, m := range months {
		if len(l) >= 3 && strings.HasPrefix(m, l[:3]) {
			return strings.ToUpper(m[:1]) + m[1:]
		}
	}
	return s
}

// preambleDate returns the date a contract gives itself in its opening
// (head; at most 3,000 bytes of it are read) as written, and its year; a
// date left blank gives its year only.
func preambleDate(head string) (string, int) {
	h := headOf(head, 3000)
	h = h[:datingEnd(h)]
	cands := writtenDates(h)
	for _, b := range BlankDates(h) {
		y, _ := strconv.Atoi(b.Year)
		cands = append(cands, written{year: y, at: b.At, end: b.End, blank: true})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].at < cands[j].at })
	for _, c := range cands {
		switch {
		case c.blank:
			return "", c.year
		case !monthOK(c.text) || anotherDocuments(h, c.at):
			continue
		}
		return c.text, c.year
	}
	return "", 0
}

// firstDate returns the first date written in s, or "".
func firstDate(s string) string {
	for _, d := range writtenDates(s) {
		if monthOK(d.text) {
			return d.text
		}
	}
	return ""
}

var (
	// reAsFollows opens a contract's operative part.
	reAsFollows = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bas\s+follows\b`)
	})
	// reAgreeing is what the sentence that opens an operative part says
	// before "as follows": that the parties agree or confirm.
	reAgreeing = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:agree|agrees|agreed|agreement|confirm|confirms|covenant|covenants)\b`)
	})
	// reSection is a numbered section's heading at the start of a line:
	// "Section 1. The Offering", "ARTICLE I", "1. PURPOSE", "2.1 Term".
	reSection = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*(?:(?i:section|article)[ \t]+(?:\d{1,3}|[IVXivx]{1,5})\b\.?|\d{1,2}\.(?:\d{1,2}\.?)*)\s+[A-Z(]`)
	})
)

// datingEnd returns where the part of a contract's opening h that may
// date it ends: at its recitals; at the words that open its operative part
// ("… hereby confirm their agreement with … as follows:"); or, once the
// preamble has begun (this agreement named, or its parties introduced), at
// its first numbered section that does not itself hold the preamble ("1.
// Hosting Agreement. This Agreement … is entered into by …" does) and is
// no entry of a table of contents ("1. DEFINITIONS 1").
func datingEnd(h string) int {
	end := len(h)
	if i := recitals(h); i >= 0 {
		end = i
	}
	for _, loc := range reAsFollows().FindAllStringIndex(h[:end], -1) {
		if reAgreeing().MatchString(h[sentenceStart(h, loc[0]):loc[0]]) {
			end = loc[1]
			break
		}
	}
	lower := asciiLower(h[:end])
	begun := strings.Index(lower, "this agreement")
	if in := introductions(lower, 1); len(in) > 0 && (begun < 0 || in[0][0] < begun) {
		begun = in[0][0]
	}
	if begun < 0 {
		return end
	}
	for _, loc := range reSection().FindAllStringIndex(h[:end], -1) {
		if loc[0] < begun {
			continue
		}
		line := lower[loc[0]:min(end, loc[0]+160)]
		if strings.Contains(line, "this agreement") || len(introductions(line, 1)) > 0 {
			continue
		}
		if nl := strings.IndexByte(line, '\n'); nl >= 0 && nl <= 100 {
			if t := strings.TrimRight(line[:nl], " \t\r"); t != "" && isDigitByte(t[len(t)-1]) {
				continue // a contents entry and its page
			}
		}
		return loc[0]
	}
	return end
}

// docWords are the words that name a document (TypeWords, and the kinds
// of document an agreement refers to).
var docWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range TypeWords {
		if !strings.Contains(w, " ") && w != "terms" {
			m[w] = true
			m[w+"s"] = true
		}
	}
	for _, w := range []string{"plan", "order", "note", "indenture", "instrument", "certificate", "guarantee", "guaranty", "charter", "protocol", "understanding", "undertaking", "warrant", "sublease", "sublicense"} {
		m[w] = true
		m[w+"s"] = true
	}
	return m
})

// ownWords before a document's name make it this one.
var ownWords = map[string]bool{"this": true, "hereby": true, "herein": true, "present": true}

// anotherDocuments reports whether the date at byte at of h is another
// document's: the nearest name of a document before it in its sentence
// (within twelve words) is not this contract's — not after "this" (within
// five words), not a name defined in brackets ("(the "Agreement")"), not a
// title that opens the sentence ("AMENDMENT NO. 2 TO SERVICES AGREEMENT,
// dated …"; a sentence that opens with a preposition opens with no title).
func anotherDocuments(h string, at int) bool {
	start := sentenceStart(h, at)
	type word struct {
		w  string
		at int
	}
	var ws []word
	for i := start; i < at; {
		r := rune(h[i])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i++
			continue
		}
		j := i
		for j < at && (unicode.IsLetter(rune(h[j])) || unicode.IsDigit(rune(h[j]))) {
			j++
		}
		ws = append(ws, word{h[i:j], i})
		i = j
	}
	for k := len(ws) - 1; k >= 0 && k >= len(ws)-12; k-- {
		if !docWords()[strings.ToLower(ws[k].w)] {
			continue
		}
		before := h[max(start, ws[k].at-12):ws[k].at]
		if strings.Contains(before, "(") && strings.ContainsAny(before, "\"“'") {
			return false
		}
		for j := k - 1; j >= 0 && j >= k-5; j-- {
			if ownWords[strings.ToLower(ws[j].w)] {
				return false
			}
		}
		title := k == 0 || !prepositions[strings.ToLower(ws[0].w)]
		for j := k - 1; j >= 0 && title; j-- {
			w := ws[j].w
			title = unicode.IsUpper(rune(w[0])) || unicode.IsDigit(rune(w[0])) || smallWord[w]
		}
		return !title
	}
	return false
}

// prepositions open a sentence's phrase, not a title: "Pursuant to the
// License Agreement dated …".
var prepositions = map[string]bool{"pursuant": true, "under": true, "in": true, "according": true, "as": true, "by": true,
	"with": true, "for": true, "to": true, "on": true, "subject": true, "per": true, "further": true, "reference": true}

// sentenceStart returns where the sentence holding byte at of h starts:
// after the last full stop before it that ends a sentence, semicolon or
// blank line (at most 600 bytes back).
func sentenceStart(h string, at int) int {
	lo := max(0, at-600)
	for i := at - 1; i > lo; i-- {
		switch h[i] {
		case ';':
			return i + 1
		case '\n':
			if h[i-1] == '\n' {
				return i + 1
			}
		case '.':
			// a full stop, and a bracket or quote it closes
			j := i + 1
			for j < len(h) && j <= i+2 && strings.IndexByte(")]\"'", h[j]) >= 0 {
				j++
			}
			if j < len(h) && unicode.IsSpace(rune(h[j])) && !abbrevBefore(h[:i]) {
				return i + 1
			}
		}
	}
	return lo
}
