package review

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
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

var months = map[string]time.Month{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// dateForms are compiled on first use, like the package's other
// expressions: compiling them at start-up was a cost every command paid.
var dateForms = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// March 1, 2019 / Mar. 1st 2019 (an ordinal's letters may be split
		// by a PDF's text: "1s t")
		regexp.MustCompile(`(?i)\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})(?:s\s?t|n\s?d|r\s?d|t\s?h)?[,.]?\s+(\d{4})\b`),
		// 1st day of March, 2019 / 1 March 2019 / "19t h day of", "as of1
		// August 2019" (a space lost)
		regexp.MustCompile(`(?i)(?:\b|of)(\d{1,2})\s?(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s+(?:day\s+of[\s_\-–—]+|of\s+)?(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?\s+(\d{4})\b`),
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
// YYYY-MM-DD (impossible dates and years outside 1900–2200 skipped).
func allDatesAt(s string) []valueAt {
	var out []valueAt
	for i, re := range dateForms() {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
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
				continue
			}
			t := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
			if t.Day() != d {
				continue // 31 February
			}
			at := m[0]
			if i == 1 {
				at = m[2] // not the "of" of "as of1 August"
			}
			out = append(out, valueAt{t.Format("2006-01-02"), at, m[1]})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].at < out[b].at })
	// one date per place (two forms may match overlapping text)
	var kept []valueAt
	for _, v := range out {
		if len(kept) > 0 && v.at < kept[len(kept)-1].end {
			continue
		}
		kept = append(kept, v)
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
	var out []valueAt
	dates := allDatesAt(s)
	re := reDurationValue()
	for from := 0; from < len(s); {
		ix := re.FindStringSubmatchIndex(s[from:])
		if ix == nil {
			break
		}
		for k := range ix {
			if ix[k] >= 0 {
				ix[k] += from
			}
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

// jurisdictions are the US states and territories, Canadian provinces and
// the countries most often chosen as governing law; a well-known closed list,
// not fitted to any benchmark.
var jurisdictions = []string{
	"Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
	"District of Columbia", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
	"Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
	"Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey",
	"New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon",
	"Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah",
	"Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "Puerto Rico",
	"Alberta", "British Columbia", "Manitoba", "New Brunswick", "Newfoundland", "Nova Scotia", "Ontario",
	"Quebec", "Saskatchewan",
	"England and Wales", "England", "Scotland", "Northern Ireland", "Ireland", "United Kingdom",
	"Germany", "France", "Switzerland", "Netherlands", "Luxembourg", "Belgium", "Sweden", "Norway",
	"Denmark", "Finland", "Spain", "Italy", "Austria", "Israel", "India", "China",
	"People's Republic of China", "Hong Kong", "Singapore", "Japan", "Korea", "Taiwan", "Australia",
	"New South Wales", "Victoria", "New Zealand", "Canada", "Mexico", "Brazil", "Cayman Islands",
	"British Virgin Islands", "Bermuda", "South Africa", "United Arab Emirates", "Malaysia", "Philippines",
	"United States",
}

var reJurisdictions = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(jurisdictions))
	for i, j := range jurisdictions {
		out[i] = regexp.MustCompile(`\b` + regexp.QuoteMeta(j) + `\b`)
	}
	return out
})

var reLawOf = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)laws?\s+of\s+(?:the\s+)?(?:state\s+of\s+|commonwealth\s+of\s+|province\s+of\s+)?`)
})

// Jurisdiction returns the jurisdiction whose law a governing-law passage
// names: the one right after "laws of" when there is one, else the first
// named; "" when none is.
func Jurisdiction(s string) string {
	j, _ := jurisdictionAt(s)
	return j
}

// jurisdictionAt is Jurisdiction, also returning where the name starts in s
// (bytes; it ends len(name) later).
func jurisdictionAt(s string) (string, int) {
	for _, m := range reLawOf().FindAllStringIndex(s, -1) {
		rest := s[m[1]:min(len(s), m[1]+60)]
		if j, at := firstJurisdiction(rest, true); j != "" {
			if j == "United States" {
				// "the laws of the United States of America and of the
				// State of Texas": federal law and the state's — the
				// state's is the one chosen
				after := s[m[1]+at+len(j) : min(len(s), m[1]+at+len(j)+150)]
				if k := strings.IndexAny(after, ".;"); k >= 0 {
					after = after[:k]
				}
				if st := reAndStateOf().FindStringIndex(after); st != nil {
					if j2, at2 := firstJurisdiction(after[st[1]:], true); j2 != "" && j2 != j {
						return j2, m[1] + at + len(j) + st[1] + at2
					}
				}
			}
			return j, m[1] + at
		}
	}
	// "governed by English law"
	if m := reLawAdjective().FindStringSubmatchIndex(s); m != nil {
		if j, ok := lawAdjectives[strings.ToLower(s[m[2]:m[3]])]; ok {
			return j, m[2]
		}
	}
	return firstJurisdiction(s, false)
}

// reAndStateOf names a second jurisdiction after a first: "and of the
// State of", "and the Commonwealth of".
var reAndStateOf = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:and|or)\s+(?:of\s+)?(?:the\s+)?(?:laws\s+of\s+(?:the\s+)?)?(?:state|commonwealth|province)\s+of\s+(?:the\s+)?`)
})

// lawAdjectives are the adjectives of the jurisdictions most often chosen
// by name ("English law", "Swiss law").
var lawAdjectives = map[string]string{
	"english": "England", "scottish": "Scotland", "irish": "Ireland", "german": "Germany", "french": "France",
	"swiss": "Switzerland", "dutch": "Netherlands", "swedish": "Sweden", "norwegian": "Norway", "danish": "Denmark",
	"finnish": "Finland", "spanish": "Spain", "italian": "Italy", "austrian": "Austria", "israeli": "Israel",
	"indian": "India", "chinese": "China", "japanese": "Japan", "korean": "Korea", "australian": "Australia",
	"canadian": "Canada", "mexican": "Mexico", "brazilian": "Brazil", "belgian": "Belgium", "luxembourg": "Luxembourg",
	"singapore": "Singapore", "hong kong": "Hong Kong",
}

var reLawAdjective = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(english|scottish|irish|german|french|swiss|dutch|swedish|norwegian|danish|finnish|spanish|italian|austrian|israeli|indian|chinese|japanese|korean|australian|canadian|mexican|brazilian|belgian|luxembourg|singapore|hong\s+kong)\s+law\b`)
})

// reJurisdictionsUpper are the jurisdictions in capitals ("THE LAWS OF
// THE STATE OF DELAWARE"), read where a clause is written in capitals.
var reJurisdictionsUpper = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(jurisdictions))
	for i, j := range jurisdictions {
		out[i] = regexp.MustCompile(`\b` + regexp.QuoteMeta(strings.ToUpper(j)) + `\b`)
	}
	return out
})

func firstJurisdiction(s string, anchored bool) (string, int) {
	if j, at := firstJurisdictionIn(s, anchored, reJurisdictions()); j != "" {
		return j, at
	}
	return firstJurisdictionIn(s, anchored, reJurisdictionsUpper())
}

func firstJurisdictionIn(s string, anchored bool, res []*regexp.Regexp) (string, int) {
	best, bestAt := "", len(s)+1
	for i, re := range res {
		loc := re.FindStringIndex(s)
		if loc == nil || (anchored && loc[0] > 2) {
			continue
		}
		// Prefer the earliest, then the longest ("New York" over "York").
		if loc[0] < bestAt || (loc[0] == bestAt && len(jurisdictions[i]) > len(best)) {
			best, bestAt = jurisdictions[i], loc[0]
		}
	}
	return best, bestAt
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

// Parties returns the names of the parties a preamble introduces ("between
// Acme Inc. ("Acme") and Beta LLC ("Beta")"): the entity names, followed by
// their short names where given.
func Parties(s string) []string {
	var out []string
	for _, p := range partiesAt(s) {
		name := p.name
		if p.role != "" {
			if name == "" {
				name = p.role
			} else {
				name += " (" + p.role + ")"
			}
		}
		out = append(out, name)
	}
	return out
}

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

// openingChars is how much of a contract's opening is searched for the date
// a term runs from.
const openingChars = 3000

// reEndCue is a word that puts the end of a term before a date: "until",
// "through", "expires on", "ends on", "terminates on".
var reEndCue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:until|through|thru|expir(?:e|es|ing|ation)(?:\s+(?:on|at|of))?|end(?:s|ing)?\s+on|terminat(?:e|es|ing)\s+on)\b`)
})

// EndDate returns the date a term ends, as written in s: "perpetual" when it
// says so; a date right after an end cue ("expires on December 31, 2024");
// else a start date (the first date in s, or start, the contract's own first
// date) plus the first period written ("five (5) years" from 2019-03-01 →
// 2024-03-01).
func EndDate(s, start string) (string, bool) {
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
// (the "Effective Date")" — and its term clause names it.
var (
	reDateMeans = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`["“]([A-Z][A-Za-z]*(?:\s[A-Z][A-Za-z]*){0,3}\s(?:Date|DATE))["”]\s*(?:shall\s+)?(?:mean|means|is|shall\s+be)\s*:?\s*`)
	})
	reDateDefined = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[\s,]*\(\s*(?:the\s+|hereinafter\s+|herein\s+)?["“]([A-Z][A-Za-z]*(?:\s[A-Z][A-Za-z]*){0,3}\s(?:Date|DATE))["”]`)
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
	for _, m := range reDateMeans().FindAllStringSubmatchIndex(text, -1) {
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

func endDateAt(s, start string, c cues, defined map[string]string) (string, [][2]int, bool) {
	for _, re := range []*regexp.Regexp{reEndCue(), reFromTo()} {
		for _, m := range re.FindAllStringIndex(s, -1) {
			rest := s[m[1]:min(len(s), m[1]+80)]
			if d, at, end, ok := firstDateAt(rest); ok && at <= 25 {
				return d, [][2]int{{m[1] + at, m[1] + end}}, true
			}
		}
	}
	if loc := rePerpetual().FindStringIndex(s); loc != nil {
		return "perpetual", [][2]int{{loc[0], loc[1]}}, true
	}
	if d, at, ok := anniversaryEnd(s, start, defined); ok {
		return d, at, true
	}
	// "shall remain in effect until the end of the current calendar year"
	if m := reEndOfYear().FindStringIndex(s); m != nil {
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
		if !reNoticeAfter().MatchString(s[d.end:min(len(s), d.end+60)]) && !reNoticeBefore().MatchString(s[max(0, d.at-25):d.at]) {
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
