package answer

import (
	"regexp"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/names"
)

// Blank dates. A contract filed before it was dated keeps the blanks its
// drafter left for the date: "dated as of ____________, 2009", "made this
// ___ day of ________, 2009", "entered into on March ___, 2009" — or, once
// the underscores are lost in conversion, "dated as of , 2009", or typed as
// dashes where a part is missing, "December ---------, 1996". Such a date
// is said as blank, with what is written of it ("left blank (2009)", "left
// blank (March 2009)"), never replaced by another date the text writes.

// BlankDate is the prefix of a date the contract leaves blank.
const BlankDate = "left blank"

// blankDatesAt returns the blank dates written in s (names.BlankDates:
// the one reading of blank dates, which a contract's name follows too), as
// "left blank", "left blank (2009)" or "left blank (March 2009)", with
// where they are.
func blankDatesAt(s string) []valueAt {
	var out []valueAt
	for _, b := range names.BlankDates(s) {
		v := BlankDate
		switch {
		case b.Month != "" && b.Year != "":
			v += " (" + b.Month + " " + b.Year + ")"
		case b.Year != "":
			v += " (" + b.Year + ")"
		case b.Month != "":
			v += " (" + b.Month + ")"
		}
		out = append(out, valueAt{v, b.At, b.End})
	}
	return out
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
