package answer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/review/detect"
)

// The end of a term (EndDate): written dates, anniversaries, defined dates and
// periods counted from a start.

// openingChars is how much of a contract's opening is searched for the date
// a term runs from.
const openingChars = 3000

// reEndCue is a word that puts the end of a term before a date: "until",
// "through", "expires on", "ends on", "terminates on".
var reEndCue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:until|through|thru|expir(?:e|es|ing|ation)(?:\s+(?:on|at|of))?|end(?:s|ing)?\s+on|terminat(?:e|es|ing)\s+on)\b`)
})

// endDate returns the date a term ends, as written in s: "perpetual" when it
// says so; a date right after an end cue ("expires on December 31, 2024");
// else a start date (the first date in s, or start, the contract's own first
// date) plus the first period written ("five (5) years" from 2019-03-01 →
// 2024-03-01).
func endDate(s, start string) (string, bool) {
	d, _, ok := endDateAt(s, start, nil, nil)
	return d, ok
}

// reUntilTerminated is a term with no fixed end: it runs until a party
// ends it or until an event ("will end when terminated by either party",
// "shall expire if the adviser ceases to serve", "continues in force until
// the earlier of …"). Read only from a term clause that writes no date and
// no period.
var reUntilTerminated = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:until|unless)\b|\bend(?:s|ing)?\s+(?:when|upon|on\s+the\s+(?:date|earlier|later))\b|\b(?:expire|terminate)s?\s+(?:if|upon|when|on\s+the\s+(?:date|earlier|later))\b|\bindefinite|\b(?:for\s+so|as)\s+long\s+as\b`)
})

// reFromTo comes before the date a period written as "from … to …" ends
// on: "from the Effective Date to 31 July 2013".
var reFromTo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bfrom\s+[^.;]{1,60}?\s+to\s+`)
})

// Anniversaries. A term often ends on an anniversary of its start: "shall
// terminate on the third anniversary of the Effective Date", "through the
// day prior to the second anniversary of the Effective Date", "until the
// earlier of (a) the fifth (5th) anniversary of this Agreement and (b) …".
var (
	reOrdinal = `(?:(?:twenty|thirty|forty|fifty)[\s-]?)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth|fiftieth`
	reNumOrd  = `\d{1,2}\s?(?:s\s?t|n\s?d|r\s?d|t\s?h)`

	reAnniversary = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:(?:day|date)\s+(?:immediately\s+)?(?:prior\s+to|before|preceding)\s+)?the\s+(` + reOrdinal + `|` + reNumOrd + `)\s*(?:\(\s*(?:` + reNumOrd + `|\d{1,2})\s*\)\s*)?anniversary\s+of\s+(?:the\s+)?`)
	})
	// reEndWord puts an anniversary at the end of the term.
	reEndWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:until|through|thru|expir\w*|end(?:s|ing)?|terminat\w*|conclud\w*|earlier\s+of|later\s+of)\b[^.;]*$`)
	})
	// reOwnDate names the contract's own date as an anniversary's base.
	reOwnDate = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:date\s+(?:hereof|of\s+this\s+agreement|first\s+(?:above\s+)?written|of\s+execution)|this\s+agreement|execution\s+date|signing)`)
	})
)

var ordinalWords = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
	"eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
	"sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50}

// ordinal reads "fifth", "twenty-first", "5th", "5t h"; 0 when s is none.
func ordinal(s string) int {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	if n, err := strconv.Atoi(strings.TrimRight(s, "stndrh")); err == nil {
		return n
	}
	if n, ok := ordinalWords[s]; ok {
		return n
	}
	for tens, v := range tensWords {
		if rest, ok := strings.CutPrefix(s, tens); ok {
			rest = strings.TrimPrefix(rest, "-")
			if u, ok := ordinalWords[rest]; ok && u < 10 {
				return v + u
			}
		}
	}
	return 0
}

// anniversaryEnd reads a term that ends on an anniversary: the base is a
// date written right after "anniversary of", else — for the contract's
// own date ("of the date hereof", "of this Agreement") — start, else a date
// written before it in s, else start.
func anniversaryEnd(s, start string, defined map[string]string) (string, [][2]int, bool) {
	for _, m := range reAnniversary().FindAllStringSubmatchIndex(s, -1) {
		if !reEndWord().MatchString(s[max(0, m[0]-100):m[0]]) {
			continue
		}
		n := ordinal(s[m[2]:m[3]])
		if n <= 0 || n > 99 {
			continue
		}
		base, at := start, [][2]int{{m[0], m[1]}}
		rest := s[m[1]:min(len(s), m[1]+60)]
		if d, dAt, dEnd, ok := firstDateAt(rest); ok && dAt <= 3 {
			base = d
			at = [][2]int{{m[0], m[1] + dEnd}}
		} else if d, ok := namedDate(rest[:min(len(rest), 40)], defined); ok && !reOwnDate().MatchString(rest) {
			base = d // "the eighth anniversary of the Commencement Date", defined elsewhere
		} else if !reOwnDate().MatchString(rest) {
			for _, d := range allDatesAt(s[:m[0]]) {
				base = d.v // the last date written before it
				at = [][2]int{{d.at, d.end}, {m[0], m[1]}}
			}
		}
		t, err := time.Parse("2006-01-02", base)
		if err != nil {
			return "", nil, false
		}
		t = t.AddDate(n, 0, 0)
		if !strings.HasPrefix(strings.ToLower(s[m[0]:m[1]]), "the") {
			t = t.AddDate(0, 0, -1) // the day before it
		}
		return t.Format("2006-01-02"), at, true
	}
	return "", nil, false
}

// reEndOfYear ends a term with the calendar year it starts in.
var reEndOfYear = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:until|through|to)\s+(?:the\s+)?end\s+of\s+(?:the\s+)?(?:current|then[\s-]current|same|that)\s+calendar\s+year\b`)
})

// Defined dates. A contract often defines the date its term runs from
// once — ""Commencement Date" means 16 October 2005", "as of March 1, 2019
// (the "Effective Date")", a cover page's "Effective Date: March 1, 1996"
// — and its term clause names it.
var (
	reDateMeans = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`["“]([A-Z][A-Za-z]*(?:\s[A-Z][A-Za-z]*){0,3}\s(?:Date|DATE))["”]\s*(?:shall\s+)?(?:mean|means|is|shall\s+be)\s*:?\s*`)
	})
	reDateDefined = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[\s,]*\(\s*(?:the\s+|hereinafter\s+|herein\s+)?["“]([A-Z][A-Za-z]*(?:\s[A-Z][A-Za-z]*){0,3}\s(?:Date|DATE))["”]`)
	})
	// reDateLabelled is a date written as a labelled field of a cover
	// page or an order form, opening a line or a column of it:
	// "Effective Date: March 1, 1996".
	reDateLabelled = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(?:^|[ \t]{2})[ \t]*([A-Z][A-Za-z]*(?:[ \t][A-Z][A-Za-z]*){0,3}[ \t](?:Date|DATE))[ \t]*:[ \t]*`)
	})
	reDateName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b[A-Z][A-Za-z]*(?:\s[A-Z][A-Za-z]*){0,3}\s(?:Date|DATE)\b`)
	})
)

var reEndName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`expir|terminat|\bend|renewal|closing`)
})

// definedDates returns the dates a contract defines by name, keyed by the
// name in lower case; a name defined twice keeps its first date.
func definedDates(text string) map[string]string {
	out := map[string]string{}
	for _, m := range append(dateMeansMatches(text), dateLabelledMatches(text)...) {
		name := strings.ToLower(text[m[2]:m[3]])
		if d, at, _, ok := firstDateAt(text[m[1]:min(len(text), m[1]+60)]); ok && at <= 3 {
			if _, seen := out[name]; !seen {
				out[name] = d
			}
		}
	}
	for _, d := range allDatesAt(text) {
		if m := reDateDefined().FindStringSubmatch(text[d.end:min(len(text), d.end+60)]); m != nil {
			name := strings.ToLower(m[1])
			if _, seen := out[name]; !seen {
				out[name] = d.v
			}
		}
	}
	return out
}

// namedDate returns the date of the first defined date s names.
func namedDate(s string, defined map[string]string) (string, bool) {
	if len(defined) == 0 {
		return "", false
	}
	for _, m := range reDateName().FindAllStringIndex(s, -1) {
		name := strings.ToLower(s[m[0]:m[1]])
		if reEndName().MatchString(name) {
			continue // a date a term ends on is not one it runs from
		}
		// "the Effective Date" also matches "This Effective Date": try
		// the name without its leading words too
		for {
			if d, ok := defined[name]; ok {
				return d, true
			}
			k := strings.IndexByte(name, ' ')
			if k < 0 || !strings.Contains(name[k+1:], " ") {
				break
			}
			name = name[k+1:]
		}
	}
	return "", false
}

// reFromDate joins a period to the date it runs from.
var reFromDate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W{0,3}(?:\w+\W+){0,3}?(?:from|commencing|beginning|starting|after|following)\s+(?:on\s+)?$`)
})

// endDateAt is EndDate, also returning the places in s it was read from
// (bytes): the date written, or the start date (when in s) and the period.
// c, when given, chooses the term's period among several (pickNear).
// reRenewalBefore comes before a renewal's period: "renew for (an
// additional) …", "extended for …", "renewal term(s) of …".
var reRenewalBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:renew\w*|extend\w*|extension)\s+(?:\S+\s+){0,5}?(?:for|of|by)\s+(?:an?\s+|one\s+|up\s+to\s+)?(?:additional|further|successive|consecutive|subsequent)?\s*(?:periods?\s+of\s+|terms?\s+of\s+)?$`)
})

// reDeadlineBefore comes before a period that is a deadline or one named
// before, not a term: "pay within thirty (30) days", "at the end of such
// fifteen (15) day period".
var reDeadlineBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:within|such|said)\s+(?:the\s+)?$`)
})

// reAfterEvent follows a period counted from an event rather than a date:
// "terminate 36 months after such Termination Election", "shall expire
// three years after the day it effected such waiver". The words after it,
// up to the end of the phrase, are read by reDateWords.
var reAfterEvent = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W{0,3}(?:\w+\W+){0,2}?(?:after|following)\s+([^.;:,()]{1,60})`)
})

// reDateWords says a phrase names a date or the contract's own making: "the
// Effective Date", "the date hereof", "execution of this Agreement",
// "June 15, 2020".
var reDateWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bdates?\b|\bhereof\b|\bexecut\w*|\bsign\w*|\bthis\s+agreement\b|\bcommencement\b|\beffective\b|\b(?:1[89]|2[01])\d\d\b`)
})

// afterEvent reports whether the period d of s is counted from an event
// that is not a date ("after such Termination Election"): its end is no
// date the contract writes, so the period gives no end date.
func afterEvent(s string, d valueAt) bool {
	m := reAfterEvent().FindStringSubmatchIndex(s[d.end:min(len(s), d.end+100)])
	return m != nil && !reDateWords().MatchString(s[d.end+m[2]:d.end+m[3]])
}

// perpetualGate and endOfYearGate gate rePerpetual and reEndOfYear
// (pieceGate).
var (
	perpetualGate = pieceGate{{"perpetu"}, {"indefinite"}}
	endOfYearGate = pieceGate{{"end", "calendar", "year"}}
)

// perpetualIn is rePerpetual's first match in s (l: s with its ASCII
// capitals lowered).
func perpetualIn(s, l string) []int {
	if !perpetualGate.admits(l) {
		return nil
	}
	return rePerpetual().FindStringIndex(s)
}

// endOfYearIn is reEndOfYear's first match in s (l: s with its ASCII
// capitals lowered).
func endOfYearIn(s, l string) []int {
	if !endOfYearGate.admits(l) {
		return nil
	}
	return reEndOfYear().FindStringIndex(s)
}

func endDateAt(s, start string, c cues, defined map[string]string) (string, [][2]int, bool) {
	for _, re := range []*regexp.Regexp{reEndCue(), reFromTo()} {
		for _, m := range re.FindAllStringIndex(s, -1) {
			rest := s[m[1]:min(len(s), m[1]+80)]
			if d, at, end, ok := firstDateAt(rest); ok && at <= 25 {
				return d, [][2]int{{m[1] + at, m[1] + end}}, true
			}
		}
	}
	l := lowerASCII(s)
	if loc := perpetualIn(s, l); loc != nil {
		return "perpetual", [][2]int{{loc[0], loc[1]}}, true
	}
	if d, at, ok := anniversaryEnd(s, start, defined); ok {
		return d, at, true
	}
	// "shall remain in effect until the end of the current calendar year"
	if m := endOfYearIn(s, l); m != nil {
		base := start
		if ds := allDatesAt(s[:m[0]]); len(ds) > 0 {
			base = ds[len(ds)-1].v
		}
		if len(base) >= 4 {
			return base[:4] + "-12-31", [][2]int{{m[0], m[1]}}, true
		}
	}
	var at [][2]int
	// a notice period does not measure the term ("shall expire if the
	// adviser ceases to serve …; terminable on sixty (60) days' notice")
	var durs []valueAt
	for _, d := range allDurationsAt(s) {
		if !reNoticeAfter().MatchString(s[d.end:min(len(s), d.end+60)]) && !reNoticeBefore().MatchString(s[max(0, d.at-25):d.at]) &&
			!reDeadlineBefore().MatchString(s[max(0, d.at-25):d.at]) && !afterEvent(s, d) {
			durs = append(durs, d)
		}
	}
	if len(durs) == 0 {
		if loc := reUntilTerminated().FindStringIndex(s); loc != nil {
			return "perpetual", [][2]int{{loc[0], loc[1]}}, true
		}
		return "", nil, false
	}
	// the term's period, not a notice period or a renewal's ("an initial
	// term of three (3) years, renewing for successive one (1) year
	// periods unless either party gives sixty (60) days' notice")
	durs = byNotice(s, durs, c)
	var initial []valueAt
	for _, d := range durs {
		if !reSuccessive().MatchString(s[max(0, d.at-40):d.at]) && !reRenewalBefore().MatchString(s[max(0, d.at-60):d.at]) {
			initial = append(initial, d)
		}
	}
	if len(initial) > 0 {
		durs = initial
	}
	dur, _ := pickValue(s, durs, c)
	// the start: the date the period runs from — a date written in the
	// same clause before it — else the contract's own date
	for _, d := range allDatesAt(s) {
		if d.at < dur.end && dur.at < d.end {
			continue // a date the period is written inside of, or over
		}
		if d.at < dur.at {
			start = d.v
			at = [][2]int{{d.at, d.end}}
		} else if reFromDate().MatchString(s[dur.end:d.at]) {
			start = d.v // "two (2) years from June 15, 2020"
			at = [][2]int{{d.at, d.end}}
			break
		}
	}
	if len(at) == 0 {
		// no date written in the clause: a date it names that the
		// contract defines elsewhere ("commence on the Commencement Date"
		// … "Commencement Date" means 16 October 2005)
		if d, ok := namedDate(s, defined); ok {
			start = d
		}
	}
	if start == "" {
		return "", nil, false
	}
	at = append(at, [2]int{dur.at, dur.end})
	t, err := time.Parse("2006-01-02", start)
	if err != nil {
		return "", nil, false
	}
	var n int
	var unit string
	fmt.Sscanf(dur.v, "%d %s", &n, &unit)
	switch {
	case strings.HasPrefix(unit, "year"):
		t = t.AddDate(n, 0, 0)
	case strings.HasPrefix(unit, "month"):
		t = t.AddDate(0, n, 0)
	case strings.HasPrefix(unit, "week"):
		t = t.AddDate(0, 0, 7*n)
	case strings.HasPrefix(unit, "day"), strings.HasPrefix(unit, "calendar"):
		t = t.AddDate(0, 0, n)
	default:
		return "", nil, false // business days: not computed
	}
	return t.Format("2006-01-02"), at, true
}

// The end a contract's opening gives itself. An opening that writes when
// the contract ends — "is effective as of August 1, 2004 and shall
// terminate on July 31, 2009", "July 31, 2009 (the "Expiration Date")" —
// states the main agreement's own term; a clause of an exhibit or of an
// instrument attached to it ("this Agreement shall remain in force until
// terminated") does not override it.
var (
	// reOpeningEndCue puts a contract's end before a date: "shall
	// terminate on", "will expire on", "ends on".
	reOpeningEndCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:(?:shall|will)\s+(?:terminate|expire|end)|terminates|expires|ends)\s+(?:on|at\s+the\s+close\s+of\s+business\s+on)\s+`)
	})
	// reEndDateName is the name of a date a contract ends on.
	reEndDateName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:termination|expiration|expiry|end)\s+date$`)
	})
)

// openingEndAt returns the date a contract's opening (its first openingChars
// characters) says the contract ends on, and where it is written there
// (bytes).
func openingEndAt(opening string) (valueAt, bool) {
	var best valueAt
	found := false
	take := func(v valueAt) {
		if !found || v.at < best.at {
			best, found = v, true
		}
	}
	for _, m := range reOpeningEndCue().FindAllStringIndex(opening, -1) {
		if d, at, end, ok := firstDateAt(opening[m[1]:min(len(opening), m[1]+40)]); ok && at <= 3 {
			take(valueAt{d, m[1] + at, m[1] + end})
			break
		}
	}
	for _, d := range allDatesAt(opening) {
		if m := reDateDefined().FindStringSubmatch(opening[d.end:min(len(opening), d.end+60)]); m != nil && reEndDateName().MatchString(m[1]) {
			take(d)
			break
		}
	}
	return best, found
}

// openingEndOf is openingEndAt of c's opening, read on first use and kept
// with c.
func openingEndOf(c *detect.Prepared) (valueAt, bool) {
	e := c.Memo(openingEndKey, func() any {
		var r openingEndRead
		r.v, r.ok = openingEndAt(contractOpening(c, openingChars))
		return r
	}).(openingEndRead)
	return e.v, e.ok
}

// openingEndRead is what openingEndOf returns.
type openingEndRead struct {
	v  valueAt
	ok bool
}

// openingEnd answers an end-date cell from the contract's opening when the
// opening writes the contract's end and the cell's own reading a differs
// from it; the passage that writes it leads the extracts.
func openingEnd(c *detect.Prepared, a *Answer, ex []detect.Extract, scores []float64) (*Answer, []detect.Extract, bool) {
	v, ok := openingEndOf(c)
	if !ok || v.v == a.Text {
		return nil, nil, false
	}
	sp := c.Index().RuneSpan(v.at, v.end)
	if inFurniture(c, sp) {
		return nil, nil, false
	}
	out, k := extractHolding(c, ex, sp, scores)
	if k < 0 {
		return nil, nil, false
	}
	return &Answer{Kind: KindValue, Text: v.v, Spans: []Span{{Extract: k, Span: sp, Role: "value"}}}, out, true
}

// maxListChars is how far after a clause that ends in a colon its list
// items are read (code points).
const maxListChars = 800

// withListItems returns ex with, after it, the passages that follow an
// extract ending in a colon ("shall remain in effect until the earlier of
// the following:"): its list items, which say when the term ends. The
// passages added are at most maxListChars past the extract, scored from
// scores.
func withListItems(c *detect.Prepared, ex []detect.Extract, scores []float64) []detect.Extract {
	out := ex
	for _, e := range ex {
		if !strings.HasSuffix(strings.TrimSpace(e.Text), ":") {
			continue
		}
		for k, ps := range c.Passages() {
			if ps.Span.Start < e.Span.End || ps.Span.Start > e.Span.End+maxListChars {
				continue
			}
			held := false
			for _, o := range out {
				held = held || o.Span.Contains(ps.Span)
			}
			if held {
				continue
			}
			score := 0.0
			if k < len(scores) {
				score = scores[k]
			}
			out = append(out[:len(out):len(out)], c.Extract(k, score))
		}
	}
	return out
}
