package answer

import (
	"regexp"
	"strings"
	"sync"
)

// Blank dates. A contract filed before it was dated keeps the blanks its
// drafter left for the date: "dated as of ____________, 2009", "made this
// ___ day of ________, 2009", "entered into on March ___, 2009" — or, once
// the underscores are lost in conversion, "dated as of , 2009". Such a date
// is said as blank, with what is written of it ("left blank (2009)", "left
// blank (March 2009)"), never replaced by another date the text writes.

// BlankDate is the prefix of a date the contract leaves blank.
const BlankDate = "left blank"

var (
	reMonthName = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	// reBlank is a blank: underscores, or brackets around nothing, dots or
	// bullets — not a redaction ("[***]"), which hides a date written
	reBlank = `(?:_{2,}|\[\s*[_•●.\s]*\])`
	// reBlankDates are the forms of a blank date, each with the groups
	// month (may be empty) and year (may be empty).
	reBlankDates = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			// "the ___ day of ________, 2009", "the ___ day of March, 2009"
			regexp.MustCompile(`(?i)\b(?:the\s+)?` + reBlank + `\s*(?:day\s+of|of)\s+(?:` + reBlank + `|(?P<month>` + reMonthName[1:len(reMonthName)-1] + `))\.?\s*,?\s*(?P<year>(?:19|20)\d\d)?`),
			// "March ___, 2009", "____ __, 2009", "___________, 2009"
			regexp.MustCompile(`(?i)(?:\b(?P<month>` + reMonthName[1:len(reMonthName)-1] + `)\.?\s*)?` + reBlank + `(?:\s*` + reBlank + `)?\s*,?\s*(?P<year>(?:19|20)\d\d)\b`),
			// a blank lost in conversion: "dated as of , 2009", "made on
			// ________" with no year written
			regexp.MustCompile(`(?i)\b(?:dated|as\s+of|made\s+(?:on|this)|effective|entered\s+into\s+(?:on|as\s+of))(?:\s+the)?\s*(?:,\s*(?P<year>(?:19|20)\d\d)\b|` + reBlank + `(?P<month>)\s*(?:[.;,)(]|$))`),
			// a title whose date line lost its blank: "AGENCY AGREEMENT
			// , 2009"
			regexp.MustCompile(`\b(?:AGREEMENT|CONTRACT)\s{0,8},[ \t]*(?P<year>(?:19|20)\d\d)\b(?P<month>)`),
		}
	})
)

// blankDatesAt returns the blank dates written in s, as "left blank",
// "left blank (2009)" or "left blank (March 2009)", with where they are.
func blankDatesAt(s string) []valueAt {
	var out []valueAt
	for _, re := range reBlankDates() {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			month, year := "", ""
			for i, name := range re.SubexpNames() {
				if m[2*i] < 0 {
					continue
				}
				switch name {
				case "month":
					month = s[m[2*i]:m[2*i+1]]
				case "year":
					year = s[m[2*i]:m[2*i+1]]
				}
			}
			v := BlankDate
			switch {
			case month != "" && year != "":
				v += " (" + monthName(month) + " " + year + ")"
			case year != "":
				v += " (" + year + ")"
			case month != "":
				v += " (" + monthName(month) + ")"
			}
			out = append(out, valueAt{v, m[0], m[1]})
		}
	}
	// one reading per place: the first form that read it
	var kept []valueAt
	for _, v := range out {
		overlap := false
		for _, k := range kept {
			if v.at < k.end && k.at < v.end {
				overlap = true
				break
			}
		}
		if !overlap {
			kept = append(kept, v)
		}
	}
	return kept
}

// monthName writes a month as a date does ("mar" → "March").
func monthName(s string) string {
	mo, ok := months[strings.ToLower(strings.TrimSuffix(s, "."))]
	if !ok {
		return s
	}
	return mo.String()
}

// IsBlankDate reports whether a date answer says the date is left blank.
func IsBlankDate(v string) bool { return strings.HasPrefix(v, BlankDate) }

// Dates of signature. A contract may take effect on the date it is signed
// ("effective as of the date of the last signature below", "the date on
// which this Agreement is executed by both parties") and write that date
// only in its signature block ("Date: March 3, 2019"). Such a date cell is
// read from the dates of the signature block: the latest, the day the last
// party signed.

// reSigningDate says a date is the date the contract is signed.
var reSigningDate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:date\s+(?:of\s+)?(?:the\s+)?(?:last|latest|final|later|second)\s+(?:of\s+the\s+)?(?:signature|execution|party\s+to\s+(?:sign|execute))|(?:date|day)\s+(?:on\s+which|when|that)\s+(?:this\s+\w+\s+(?:is|has\s+been|shall\s+have\s+been)\s+)?(?:signed|executed|countersigned|fully\s+executed)|(?:date|day)\s+(?:on\s+which|when|that)\s+(?:the\s+|both\s+|all\s+)?(?:parties|each\s+party)\s+(?:hereto\s+)?(?:have\s+)?(?:sign|signed|execute|executed)|date\s+(?:last\s+)?(?:signed|executed)\s+(?:below|hereunder)|date\s+of\s+(?:its\s+)?(?:full\s+)?(?:execution|signature)|upon\s+(?:its\s+)?(?:full\s+)?execution|(?:later|last|latest)\s+of\s+the\s+(?:dates|signature\s+dates)|(?:signature|execution)\s+date)`)
})

// reDateLabel opens a signature block's date line: "Date:", "Dated:", or
// "Date" opening a line — not "a Schedule to the Agreement dated …" — or
// the place of signing that opens a line of its own ("Hamburg, November
// 19th, 2012").
var reDateLabel = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|\n|\s{2,}|_)\s*(?:date(?:d)?(?:\s+signed)?|signed\s+on)\s*:?\s*$|\b(?:date(?:d)?(?:\s+signed)?|signed\s+on)\s*:\s*$|(?:^|\n)[ \t]*(?-i:[A-Z][\pL.'-]+(?:[ \t][A-Z][\pL.'-]+){0,2}),[ \t]*(?:(?:on|the)[ \t]+)?$`)
})

// signatureDates returns the dates of a contract's signature block: those
// after its last "IN WITNESS WHEREOF" (or in its last 4,000 bytes) that a
// date label ("Date:") opens; bytes of text.
func signatureDates(text string) []valueAt {
	lo := max(0, len(text)-4000)
	if at := lastWitness(text); at >= 0 && at < lo {
		lo = at
	}
	block := text[lo:]
	var out []valueAt
	for _, d := range allDatesAt(block) {
		if reDateLabel().MatchString(block[max(0, d.at-20):d.at]) {
			out = append(out, valueAt{d.v, lo + d.at, lo + d.end})
		}
	}
	return out
}
