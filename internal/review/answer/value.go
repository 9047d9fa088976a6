package answer

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

var (
	// Regular expressions are compiled on first use (sync.OnceValue): compiled
	// at start-up they were a cost every command paid, a one-shot search too.
	rePerpetual = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:perpetual(?:ly)?|in perpetuity|indefinite(?:ly)?)\b`)
	})
	reAmount = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand))?|\b(?:US\$|USD|EUR|GBP|RMB)\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:%|per\s?cent|percent)|\b\d[\d,]*(?:\.\d+)?\s(?:dollars|euros|pounds))`)
	})
)

// A limit written as a measure rather than a sum: "shall in no event
// exceed an amount equal to the price paid for the Services", "exceeds the
// amount paid (excluding reimbursable expenses) to the Agent under this
// Agreement", "limited to the greater of $500,000 and the fees paid in the
// twelve months before the claim". reCeiling is the word that sets the
// ceiling (and an "amount equal to" after it; not "up to", which as often
// bounds a time); reMeasure what it measures by: a sum of money named by
// what is paid or charged, or the greater or lesser of two.
var (
	reCeiling = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:exceed(?:s|ed|ing)?|in\s+excess\s+of|limited\s+to|capped\s+at|(?:a|the)\s+maximum\s+of)\s+(?:(?:an?\s+)?(?:amount|sum)\s+equal\s+to\s+)?`)
	})
	reMeasure = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:(the|any)\s+(?:greater|lesser|higher|lower)\s+of\b|(?:the|all|any)\s+(?:[\w'’()-]+\s+){0,4}?(?:amounts?|fees?|prices?|sums?|charges|compensation|consideration|payments?|royalt(?:y|ies)|revenues?)\b)`)
	})
	// reMeasureEnd ends a measure: a sentence's or a list item's end, a
	// comma (not inside "the greater of …", whose terms are listed with
	// commas), or a proviso.
	reMeasureEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[.;:](?:\s|$)|,\s|\n\s*\n|\s(?:provided|except|unless)\b`)
	})
	reMeasureEndOfTwo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[.;:](?:\s|$)|\n\s*\n|\s(?:provided|except|unless)\b`)
	})
)

// maxMeasureChars bounds a measure read as a value: a longer one is cut
// at a word.
const maxMeasureChars = 300

// amountsAt returns the sums of money and percentages written in s, and
// the limits written as a measure (measuresAt), in order; a sum inside a
// measure ("the greater of $500,000 and the fees paid …") is read as part
// of it.
func amountsAt(s string) []valueAt {
	measures := measuresAt(s)
	var out []valueAt
	for _, loc := range reAmount().FindAllStringIndex(s, -1) {
		inside := false
		for _, m := range measures {
			if loc[0] >= m.at && loc[1] <= m.end {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, valueAt{strings.TrimSpace(s[loc[0]:loc[1]]), loc[0], loc[1]})
		}
	}
	out = append(out, measures...)
	sort.SliceStable(out, func(a, b int) bool { return out[a].at < out[b].at })
	return out
}

// A limit written for the whole contract ("For any cause of action arising
// under this Agreement, each party's liability … shall not exceed
// U.S.$5,000,000") is the general cap; one written for a part of it ("for
// breach of Article II", "arising from the indemnity set forth in the
// License") is a cap carved out of it or beside it.
var (
	reWholeContract = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bthis[\s_-]+agreement\b|\bhereunder\b`)
	})
	reLiability = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bliab`) })
	// reDefinedAfter is a name defined for the measure just read ("(the
	// "General Cap")"): not part of the value.
	reDefinedAfter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\s*\((?:the\s+|each,?\s+|a\s+)?["“][^"”]{1,60}["”]\)\s*$`)
	})
	reNamedPart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:article|section|clause|paragraph|exhibit|schedule|annex)\s+\(?[0-9ivxlc]`)
	})
)

// maxCeilingGap is how far after its ceiling word ("shall not exceed") a
// sum may be written and still be the limit it sets.
const maxCeilingGap = 40

// generalLimits returns the candidates that are limits written for the
// whole contract, or cands when none is: a general cap is read before the
// caps carved out of it.
func generalLimits(s string, cands []valueAt) []valueAt {
	var out []valueAt
	for _, v := range cands {
		lo := 0
		if ends := reSentenceEnd().FindAllStringIndex(s[:v.at], -1); len(ends) > 0 {
			lo = ends[len(ends)-1][1]
		}
		pre := s[lo:v.at]
		c := reCeiling().FindAllStringIndex(pre, -1)
		if len(c) == 0 || len(pre)-c[len(c)-1][1] > maxCeilingGap {
			continue
		}
		// the part a liability is for is named after the word liability
		// ("liability for breach of Article II"), not before it ("Subject
		// to Section 10.3, each party's liability …")
		scope := pre
		if l := reLiability().FindAllStringIndex(pre, -1); len(l) > 0 {
			scope = pre[l[len(l)-1][0]:]
		}
		if reWholeContract().MatchString(pre) && !reNamedPart().MatchString(scope) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return cands
	}
	return out
}

// measuresAt returns the limits of s written as a measure, each from its
// first word to the end of its phrase, its spaces collapsed in the value.
func measuresAt(s string) []valueAt {
	var out []valueAt
	for _, loc := range reCeiling().FindAllStringIndex(s, -1) {
		at := loc[1]
		m := reMeasure().FindStringSubmatchIndex(s[at:])
		if m == nil || m[2] < 0 && strings.Contains(strings.ToLower(s[at:at+m[1]]), " of ") {
			// "exceed the term of the licence": a measure's head is what
			// is paid, not a thing of something else
			continue
		}
		rest := s[at:min(len(s), at+maxMeasureChars)]
		endRe := reMeasureEnd()
		if m[2] >= 0 { // "the greater of": its terms are separated by commas
			endRe = reMeasureEndOfTwo()
		}
		end := len(rest)
		if e := endRe.FindStringIndex(rest[m[1]:]); e != nil {
			end = m[1] + e[0]
		} else if at+len(rest) < len(s) {
			// cut at the last whole word
			if i := strings.LastIndexAny(rest, " \t\n"); i > m[1] {
				end = i
			}
		}
		if d := reDefinedAfter().FindStringIndex(rest[m[1]:end]); d != nil {
			end = m[1] + d[0]
		}
		v := strings.Join(strings.Fields(rest[:end]), " ")
		out = append(out, valueAt{v, at, at + len(strings.TrimRight(rest[:end], " \t\n"))})
	}
	return out
}

var months = map[string]time.Month{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// underlineGap is the space between a date's last part and its year: the
// underline a filing draws under the words above may fall between them
// ("31 December, ---------  1996"), a run of dashes or underscores that is
// no part of the date. A date with a part missing is a blank date
// (value_blank.go).
const underlineGap = `(?:\s|[-_]{2,})*\s`

// dateForms are compiled on first use, like the package's other
// expressions: compiling them at start-up was a cost every command paid.
var dateForms = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// March 1, 2019 / Mar. 1st 2019 (an ordinal's letters may be split
		// by a PDF's text: "1s t", or read by OCR as "15%")
		regexp.MustCompile(`(?i)\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})(?:s\s?t|n\s?d|r\s?d|t\s?h|%)?[,.]?` + underlineGap + `(\d{4})\b`),
		// 1st day of March, 2019 / 1 March 2019 / "19t h day of", "as of1
		// August 2019" (a space lost), "15% day of March" (an ordinal's
		// letters read by OCR as a per cent sign)
		regexp.MustCompile(`(?i)(?:\b|of)(\d{1,2})\s?(?:(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s+|%\s+day\s+of[\s_\-–—]+)(?:day\s+of[\s_\-–—]+|of\s+)?(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?` + underlineGap + `(\d{4})\b`),
		// 2019-03-01
		regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`),
		// 03/01/2019, 03-01-2019, 3/1/19 (US order; day first when the
		// first number cannot be a month: 18/9/2008)
		regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b`),
		regexp.MustCompile(`\b(\d{1,2})-(\d{1,2})-(\d{4})\b`),
	}
})

// FirstDate returns the first calendar date written in s, as YYYY-MM-DD;
// impossible dates (31 February) and years outside 1900–2200 are skipped.
func FirstDate(s string) (string, bool) {
	d, _, ok := firstDate(s)
	return d, ok
}

// firstDate is FirstDate, also returning where the date starts in s.
func firstDate(s string) (string, int, bool) {
	d, at, _, ok := firstDateAt(s)
	return d, at, ok
}

// firstDateAt is FirstDate, also returning where the date starts and ends
// in s (bytes).
func firstDateAt(s string) (string, int, int, bool) {
	all := allDatesAt(s)
	if len(all) == 0 {
		return "", len(s) + 1, 0, false
	}
	return all[0].v, all[0].at, all[0].end, true
}

// valueAt is a value read from a text and where it is written (bytes).
type valueAt struct {
	v       string
	at, end int
}

// allDatesAt returns every calendar date written in s, in order, as
// YYYY-MM-DD (impossible dates and years outside 1900–2200 skipped). The
// date forms run only over the windows of s a date can be written in
// (dateWindows), which finds the same dates as running them over s.
func allDatesAt(s string) []valueAt {
	wins, ok := dateWindows(s)
	if !ok {
		wins = []dateWindow{{0, len(s), formsAll}}
	}
	return datesIn(s, wins)
}

// datesIn is allDatesAt reading the dates in windows of s, each with the
// forms it may hold.
func datesIn(s string, wins []dateWindow) []valueAt {
	var out []valueAt
	for i, re := range dateForms() {
		for _, w := range wins {
			if w.forms&(1<<i) == 0 {
				continue
			}
			for _, m := range re.FindAllStringSubmatchIndex(s[w.at:w.end], -1) {
				for k := range m {
					if m[k] >= 0 {
						m[k] += w.at
					}
				}
				if v, ok := dateMatch(s, i, m); ok {
					out = append(out, v)
				}
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].at < out[b].at })
	// one date per place (two forms may match overlapping text)
	return withoutOverlaps(out, func(v valueAt) (int, int) { return v.at, v.end })
}

// dateMatch reads the date of date form i's match m in s.
func dateMatch(s string, i int, m []int) (valueAt, bool) {
	g := func(k int) string { return s[m[2*k]:m[2*k+1]] }
	var y, d int
	var mo time.Month
	switch i {
	case 0:
		mo, d, y = months[strings.ToLower(g(1))], atoi(g(2)), atoi(g(3))
	case 1:
		d, mo, y = atoi(g(1)), months[strings.ToLower(g(2))], atoi(g(3))
	case 2:
		y, mo, d = atoi(g(1)), time.Month(atoi(g(2))), atoi(g(3))
	case 3, 4:
		mo, d, y = time.Month(atoi(g(1))), atoi(g(2)), atoi(g(3))
		if mo > 12 && d <= 12 {
			mo, d = time.Month(d), int(mo)
		}
		if len(g(3)) == 2 {
			// a two-digit year: 00–49 are 2000–2049
			y += 1900
			if y < 1950 {
				y += 100
			}
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1900 || y > 2200 {
		return valueAt{}, false
	}
	t := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return valueAt{}, false // 31 February
	}
	at := m[0]
	if i == 1 {
		at = m[2] // not the "of" of "as of1 August"
	}
	return valueAt{t.Format("2006-01-02"), at, m[1]}, true
}

// withoutOverlaps keeps, of matches sorted by where they start, each one
// that starts at or after the end of the last one kept: where matches
// overlap, the first in the order wins.
func withoutOverlaps[T any](sorted []T, span func(T) (at, end int)) []T {
	var kept []T
	lastEnd := 0
	for _, m := range sorted {
		at, end := span(m)
		if len(kept) > 0 && at < lastEnd {
			continue
		}
		kept = append(kept, m)
		lastEnd = end
	}
	return kept
}

// Numbers written in words, as contracts write periods: "five (5)
// years", "twenty-four months", "one hundred twenty (120) days".
var (
	unitWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
	teenWords = map[string]int{"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
	tensWords = map[string]int{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
)

const (
	reUnitWord = `one|two|three|four|five|six|seven|eight|nine`
	reTensWord = `(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:` + reUnitWord + `)\b)?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|` + reUnitWord
	reNumWord  = `(?:` + reUnitWord + `|a)\s+hundred(?:\s+(?:and\s+)?(?:` + reTensWord + `))?|` + reTensWord
)

// wordNumber reads a number written in words ("twenty-four", "one hundred
// and twenty"); 0 when s is not one.
func wordNumber(s string) int {
	n, cur := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '-' || r == '\t' || r == '\n' || r == '\r' }) {
		switch {
		case w == "and":
		case w == "a" && cur == 0:
			cur = 1
		case w == "hundred":
			n += max(cur, 1) * 100
			cur = 0
		case unitWords[w] > 0:
			cur += unitWords[w]
		case teenWords[w] > 0:
			cur += teenWords[w]
		case tensWords[w] > 0:
			cur += tensWords[w]
		default:
			return 0
		}
	}
	return n + cur
}

// reDurationValue is a period of time: a number (in figures, in words, or
// both: "five (5)"), at most one word that qualifies the unit ("calendar",
// "business", "Contract", "Lease", "full", "additional"), and the unit.
var reDurationValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(\d{1,4}|` + reNumWord + `)\b[\s-]*(?:\(\s*(\d{1,4})\s*\)[\s-]*)?(?:([a-z]{3,})[\s-]+)?(day|month|year|week)s?\b`)
})

// notQualifiers are words that cannot qualify a period's unit: "5 per
// year" is a rate, "one or two years" two numbers.
var notQualifiers = map[string]bool{"per": true, "the": true, "each": true, "every": true, "and": true, "for": true,
	"from": true, "than": true, "any": true, "such": true, "this": true, "that": true, "its": true, "their": true,
	"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true, "nine": true, "ten": true}

// FirstDuration returns the first period of time written in s, normalised
// as "N unit(s)" ("five (5) years" → "5 years").
func FirstDuration(s string) (string, bool) {
	d, _, _, ok := firstDurationAt(s)
	return d, ok
}

// firstDurationAt is FirstDuration, also returning where the period is
// written in s (bytes).
func firstDurationAt(s string) (string, int, int, bool) {
	all := allDurationsAt(s)
	if len(all) == 0 {
		return "", 0, 0, false
	}
	return all[0].v, all[0].at, all[0].end, true
}

// allDurationsAt returns every period of time written in s, in order,
// normalised as "N unit(s)". A number that is part of a date ("the 1 st
// day of May 2020") is not a period.
func allDurationsAt(s string) []valueAt {
	return durationsWith(s, newDurationFinder(s).next)
}

// durationsWith is allDurationsAt with find(from) giving the first match of
// reDurationValue in s[from:], its groups' offsets in s (nil for none).
func durationsWith(s string, find func(from int) []int) []valueAt {
	var out []valueAt
	dates := allDatesAt(s)
	for from := 0; from < len(s); {
		ix := find(from)
		if ix == nil {
			break
		}
		g := func(k int) string {
			if ix[2*k] < 0 {
				return ""
			}
			return s[ix[2*k]:ix[2*k+1]]
		}
		next := ix[1]
		qual := strings.ToLower(g(3))
		n := 0
		if g(2) != "" {
			n = atoi(g(2))
		} else if v, err := strconv.Atoi(g(1)); err == nil {
			n = v
		} else {
			n = wordNumber(g(1))
		}
		unit := strings.ToLower(g(4))
		ok := n > 0 && !notQualifiers[qual] && !(unit == "year" && n >= 1000)
		for _, d := range dates {
			if d.at < ix[1] && ix[0] < d.end {
				ok = false
			}
		}
		if !ok {
			// not a period: look again after its first word, so that a
			// word taken for a number or qualifier does not hide the
			// period written after it ("three per year", "initial five
			// years")
			next = ix[0] + 1
			if w := strings.IndexFunc(s[ix[0]:], func(r rune) bool { return r == ' ' || r == '-' || r == '(' }); w > 0 {
				next = ix[0] + w
			}
			from = next
			continue
		}
		from = next
		if qual == "calendar" || qual == "business" || qual == "consecutive" {
			unit = qual + " " + unit
		}
		if n != 1 {
			unit += "s"
		}
		out = append(out, valueAt{fmt.Sprintf("%d %s", n, unit), ix[0], ix[1]})
	}
	return out
}

var (
	reBetween = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)\b(?:between|among|by and between|by and among)\s+(.{3,400}?)(?:\.\s|\n\s*\n|WHEREAS|RECITALS|$)`)
	})
	rePartySep  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i),?\s+\band\b\s+|;\s*`) })
	reShortName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(\s*(?:the\s+)?["“]([^"”]{2,40})["”]`) })
	reEntity    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Z0-9][\w&.,'’\- ]{1,120}?(?:Inc|Corp|Corporation|Company|Co|LLC|L\.L\.C|Ltd|Limited|LP|L\.P|LLP|PLC|plc|GmbH|AG|S\.A|SA|N\.V|B\.V|AB|Pty|Trust|Bank|Partners|Holdings|Group)\.?)\b`)
	})
)

// partyAt is a party read from a text, with where its name and role are
// (bytes; -1 when absent).
type partyAt struct {
	name, role      string
	nameAt, nameEnd int
	roleAt, roleEnd int
}

// partiesAt is Parties with the places each name and role was read.
func partiesAt(s string) []partyAt {
	m := reBetween().FindStringSubmatchIndex(s)
	if m == nil {
		return nil
	}
	lo, hi := m[2], m[3]
	var out []partyAt
	seen := map[string]bool{}
	at := lo
	seps := rePartySep().FindAllStringIndex(s[lo:hi], -1)
	seps = append(seps, []int{hi - lo, hi - lo})
	for _, sep := range seps {
		partLo, partHi := at, lo+sep[0]
		at = lo + sep[1]
		raw := s[partLo:partHi]
		trim := strings.TrimLeft(raw, " \t\r\n")
		off := partLo + len(raw) - len(trim)
		part := strings.TrimRight(trim, " \t\r\n")
		p := partyAt{nameAt: -1, roleAt: -1}
		if e := reEntity().FindStringSubmatchIndex(part); e != nil {
			name := part[e[2]:e[3]]
			trimmed := strings.TrimRight(name, ", ")
			p.name, p.nameAt, p.nameEnd = trimmed, off+e[2], off+e[2]+len(trimmed)
		}
		if sn := reShortName().FindStringSubmatchIndex(part); sn != nil {
			p.role, p.roleAt, p.roleEnd = part[sn[2]:sn[3]], off+sn[2], off+sn[3]
		}
		key := p.name + "\x00" + p.role
		if (p.name != "" || p.role != "") && !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// Written is a value written in a text, normalised ("5 years",
// "2019-03-01"), with where it is written (bytes of the text).
type Written struct {
	Value   string
	At, End int
}

// Durations returns every period of time written in s, in order, normalised
// as FirstDuration normalises one; a number that is part of a date is not a
// period. The deadline list reads notice periods and windows with it.
func Durations(s string) []Written {
	var out []Written
	for _, d := range allDurationsAt(s) {
		out = append(out, Written{Value: d.v, At: d.at, End: d.end})
	}
	return out
}

// durationFinder finds reDurationValue's matches in a text by trying the
// expression only where a match can start: its number begins at a word
// boundary with a digit, a number word or "a" and white space ("a
// hundred"), and a unit ("day", "month", "year", "week") follows. At such a
// place the expression, anchored, is tried on the text up to the first
// character no match can hold (what follows that character is never
// looked at). Reading a long term clause costs a few short tries instead
// of the expression's pass over every character.
type durationFinder struct {
	s, lower string
	lastUnit int // where the last unit word starts in lower; -1 for none
}

func newDurationFinder(s string) *durationFinder {
	f := &durationFinder{s: s, lower: lowerASCII(s), lastUnit: -1}
	// "wee": the Kelvin sign folds to the k of "week"
	for _, u := range [...]string{"day", "month", "year", "wee"} {
		f.lastUnit = max(f.lastUnit, strings.LastIndex(f.lower, u))
	}
	return f
}

// numberWords begin every number reDurationValue writes in words
// ("sixteen" and "sixty" begin with "six"); none holds an "s" but at its
// start, nor a "k".
var numberWords = [...]string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
	"thirteen", "fifteen", "twenty", "thirty", "forty", "fifty"}

// reDurationAnchored is reDurationValue matched only at the start of its
// input.
var reDurationAnchored = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + reDurationValue().String() + `)`)
})

// next returns reDurationValue's first match in s[from:] with its groups,
// as offsets in s; nil for none.
func (f *durationFinder) next(from int) []int {
	s, l := f.s, f.lower
	for q := from; q < f.lastUnit; q++ {
		c := s[q]
		wordBefore := q > from && isWordByte(s[q-1])
		if c >= utf8.RuneSelf {
			// the long s folds to the s of "six" and "seven"; after a
			// word character it is at a word boundary: the expression
			// itself from here
			if wordBefore && strings.HasPrefix(s[q:], "ſ") {
				return shifted(reDurationValue().FindStringSubmatchIndex(s[from:]), from)
			}
			continue
		}
		if wordBefore || !startsNumber(l[q:]) {
			continue
		}
		end := q
		for end < len(s) && mayHoldDuration(s[end]) {
			end++
		}
		if ix := reDurationAnchored().FindStringSubmatchIndex(s[q:min(len(s), end+1)]); ix != nil {
			return shifted(ix, q)
		}
	}
	return nil
}

// startsNumber reports whether l (lowered) begins with what begins a
// number of reDurationValue: a digit, a number word, or "a" and white
// space.
func startsNumber(l string) bool {
	switch c := l[0]; {
	case '0' <= c && c <= '9':
		return true
	case c == 'a':
		return len(l) > 1 && isSpaceByte(l[1])
	}
	for _, w := range numberWords {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	return false
}

// mayHoldDuration reports whether a match of reDurationValue may hold byte
// c: letters, digits, white space, hyphens, brackets, and every byte of a
// character outside ASCII (the long s and the Kelvin sign fold to letters).
func mayHoldDuration(c byte) bool {
	return isWordByte(c) && c != '_' || isSpaceByte(c) || c == '\v' || c == '-' || c == '(' || c == ')' || c >= utf8.RuneSelf
}

// isSpaceByte reports whether c is white space of \s.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// shifted returns ix with its offsets moved by d (unset groups left -1).
func shifted(ix []int, d int) []int {
	for k := range ix {
		if ix[k] >= 0 {
			ix[k] += d
		}
	}
	return ix
}
