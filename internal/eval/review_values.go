package eval

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Scoring a cell's answer against the label's answer. These are the rules
// docs/EVALUATION.md writes down; each returns 1 (right), -1 (wrong, or no
// answer read) or 0 (not scored: the label carries no answer in a form the
// rule can compare, e.g. a redacted name or a sentence).
//
//   - date (Agreement Date, Effective Date): the label's m/d/yy date equals
//     the answer's YYYY-MM-DD.
//   - end_date (Expiration Date): as date; a label "Perpetual" wants
//     "perpetual".
//   - duration (Renewal Term, Notice Period To Terminate Renewal, …): the
//     label's first period ("successive 1 year", "90 days", "6 months")
//     equals the answer's, years counted as 12 months and weeks as 7 days
//     ("12 months" is "1 year"; "90 days" is not "3 months"; calendar and
//     business days are days); "Perpetual" wants "perpetual"; a
//     label that is only dates is not scored.
//   - jurisdiction (Governing Law): right when the label names the
//     answer's jurisdiction ("Ontario" for "Ontario, Canada"); a redacted
//     label is not scored.
//   - party (Parties): the label lists "Name ("Role")" entries separated by
//     ";". Every named entity of the label must be among the answer's
//     parties, and every party of the answer must be a labelled entity or
//     one of their roles (nothing missing, nothing extra). Names are
//     compared as words, ignoring case, punctuation and company forms (Inc.,
//     LLC, Corporation, …); one may hold the other's words ("Pfizer" and
//     "Pfizer Inc."), or differ by a typo (an edit in every ten letters).
//     Entries that join other entries ("Lender, Endorser and Fitness ("AS
//     Parties")") are groups, and entries that only define "Party" or
//     "Parties" are not parties; redacted names (XXXX, [***]) match any.
//   - text (Document Name): the answer equals the label, ignoring case,
//     punctuation and white space.
//   - yes_no: scored as polarity (polarityRight), not as a value.
func valueRight(format playbook.AnswerFormat, c review.Cell, label string) int {
	label = strings.TrimSpace(label)
	if label == "" {
		return 0
	}
	got := strings.TrimSpace(c.Value)
	if c.Answer != nil && c.Answer.Kind == answer.KindValue {
		got = strings.TrimSpace(c.Answer.Text)
	}
	switch format {
	case playbook.AnswerDate, playbook.AnswerEndDate:
		if strings.EqualFold(label, "perpetual") {
			if format == playbook.AnswerDate {
				return 0
			}
			return rightIf(strings.EqualFold(got, "perpetual"))
		}
		want, ok := cuadDate(label)
		if !ok {
			return 0
		}
		return rightIf(got == want)
	case playbook.AnswerDuration:
		if strings.Contains(strings.ToLower(label), "perpetual") {
			return rightIf(strings.EqualFold(got, "perpetual"))
		}
		want, ok := period(label)
		if !ok {
			return 0
		}
		have, ok := period(got)
		return rightIf(ok && have == want)
	case playbook.AnswerJurisdiction:
		return jurisdictionRight(got, label)
	case playbook.AnswerParty:
		var parties []answer.Party
		if c.Answer != nil {
			parties = c.Answer.Parties
		}
		return partiesRight(parties, label)
	case playbook.AnswerText:
		return rightIf(got != "" && squash(got) == squash(label))
	}
	return 0
}

// polarityRight scores a yes/no cell where the label says the provision is
// there and the cell's extracts show it (found or not): the answer must
// not say No — an excluding reading of a clause that holds the provision
// turns a right cell into a miss. It returns 0 for other cells.
func polarityRight(format playbook.AnswerFormat, c review.Cell, present, hit bool) int {
	if format != playbook.AnswerYesNo || !present || !hit || c.Answer == nil {
		return 0
	}
	return rightIf(c.Answer.Kind != answer.KindNo)
}

func rightIf(ok bool) int {
	if ok {
		return 1
	}
	return -1
}

func jurisdictionRight(got, answer string) int {
	// CUAD's answers name the country too ("Ontario, Canada") or list
	// several laws ("California; Hong Kong"): the value is right when the
	// answer names it ("England and Wales": both).
	if got == "" || strings.Contains(answer, "[") {
		if got == "" && !strings.Contains(answer, "[") {
			return -1
		}
		return 0 // a redacted answer
	}
	words := " " + strings.Join(strings.FieldsFunc(strings.ToLower(answer), func(r rune) bool { return r == ',' || r == ';' || r == ' ' }), " ") + " "
	for _, part := range strings.Split(strings.ToLower(got), " and ") {
		if !strings.Contains(words, " "+strings.Join(strings.Fields(part), " ")+" ") {
			return -1
		}
	}
	return 1
}

// cuadDate reads CUAD's m/d/yy (or m/d/yyyy) answer as an ISO date.
func cuadDate(s string) (string, bool) {
	var m, d, y int
	if n, err := fmt.Sscanf(s, "%d/%d/%d", &m, &d, &y); n != 3 || err != nil {
		return "", false
	}
	if y < 100 {
		y += 2000
		if y > 2050 {
			y -= 100
		}
	}
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d), true
}

var reLabelPeriod = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]*(?:\(\d+\)\s*)?(?:calendar\s+|business\s+)?(day|week|month|year)s?\b`)
})

var smallNumbers = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

// period reads the first period in s ("successive 1 year", "90 days", "6
// months") as a number of months or of days ("m12", "d90").
func period(s string) (string, bool) {
	m := reLabelPeriod().FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		n = smallNumbers[strings.ToLower(m[1])]
	}
	if n <= 0 {
		return "", false
	}
	switch strings.ToLower(m[2]) {
	case "year":
		return fmt.Sprintf("m%d", 12*n), true
	case "month":
		return fmt.Sprintf("m%d", n), true
	case "week":
		return fmt.Sprintf("d%d", 7*n), true
	}
	return fmt.Sprintf("d%d", n), true
}

// squash lower-cases s and keeps only its letters and digits.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// companyForms are the words of a company's legal form, ignored when names
// are compared.
var companyForms = map[string]bool{
	"inc": true, "incorporated": true, "corp": true, "corporation": true, "co": true, "company": true,
	"llc": true, "l": true, "c": true, "ltd": true, "limited": true, "lp": true, "llp": true, "plc": true,
	"gmbh": true, "ag": true, "sa": true, "s": true, "a": true, "nv": true, "n": true, "v": true, "bv": true, "b": true,
	"pty": true, "the": true, "de": true, "cv": true, "srl": true, "spa": true, "kk": true, "oy": true, "ab": true, "as": true,
}

// nameWords are the words of a party's name that identify it.
func nameWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !companyForms[w] {
			out = append(out, w)
		}
	}
	return out
}

// sameName reports whether two party names name the same party: the words
// of one hold the other's, or they differ by a typo (one edit in every ten
// letters, at least one: labels misspell names — "Pifzer Inc.").
func sameName(a, b string) bool {
	wa, wb := nameWords(a), nameWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return squash(a) != "" && squash(a) == squash(b)
	}
	ja, jb := strings.Join(wa, ""), strings.Join(wb, "")
	if d := editDistance(ja, jb); d <= max(1, min(len(ja), len(jb))/10) {
		return true
	}
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	set := map[string]bool{}
	for _, w := range wb {
		set[w] = true
	}
	for _, w := range wa {
		if !set[w] {
			return false
		}
	}
	return true
}

var reRedacted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)x{3,}|\[\*|\*\*\*|_{3,}`) })

var reReferred = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:referred|individually|collectively|each|together|jointly|as)\b`)
})

// labelParty is one entry of a CUAD parties answer.
type labelParty struct {
	name     string
	roles    []string
	redacted bool
	group    bool // joins other entries ("Lender, Endorser and Fitness")
}

var reQuoted = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["“”'‘’]([^"“”'‘’]{1,60})["“”'‘’]`)
})

var reBareRole = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\(\s*([A-Z][^()"“”'‘’]{0,40})\)`) })

// labelParties reads a CUAD parties answer.
func labelParties(answer string) []labelParty {
	var out []labelParty
	for _, e := range strings.Split(answer, ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		// a whole answer in brackets: "(Acme Inc. ("Company"); …)"
		if len(e) > 1 && e[0] == '(' && unicode.IsUpper(rune(e[1])) {
			e = e[1:]
		}
		name := e
		if i := strings.IndexAny(e, "(\"“"); i >= 0 {
			name = e[:i]
		}
		name = strings.Trim(strings.TrimSpace(name), ",")
		lp := labelParty{name: name, redacted: reRedacted().MatchString(name)}
		generic := true
		// a short name in brackets without quotes ("Berkshire Bank
		// (Berkshire)("Party" or "Parties")") makes the entry a party's
		if m := reBareRole().FindStringSubmatch(e[len(name):]); m != nil {
			lp.roles = append(lp.roles, strings.TrimSpace(m[1]))
			generic = false
		}
		for _, m := range reQuoted().FindAllStringSubmatch(e[len(name):], -1) {
			r := strings.TrimSpace(m[1])
			lp.roles = append(lp.roles, r)
			generic = generic && (strings.EqualFold(strings.TrimSuffix(strings.TrimSuffix(r, "."), "s"), "party") || strings.EqualFold(r, "parties"))
		}
		// Not an entity: no name, words that describe how the parties are
		// referred to ("individually referred to as"), or an entry that
		// only defines "Party"/"Parties".
		if r, _ := utf8.DecodeRuneInString(name); name == "" || unicode.IsLower(r) && reReferred().MatchString(name) || len(lp.roles) > 0 && generic {
			continue
		}
		out = append(out, lp)
	}
	// A group entry names other entries (by name or role) joined by "and"
	// or commas.
	for i := range out {
		parts := strings.FieldsFunc(out[i].name, func(r rune) bool { return r == ',' })
		var pieces []string
		for _, p := range parts {
			pieces = append(pieces, strings.Split(p, " and ")...)
		}
		if len(pieces) < 2 {
			continue
		}
		known := 0
		for _, p := range pieces {
			p = strings.TrimSpace(p)
			for j := range out {
				if j == i {
					continue
				}
				hit := sameName(p, out[j].name)
				for _, r := range out[j].roles {
					hit = hit || sameName(p, r)
				}
				if hit {
					known++
					break
				}
			}
		}
		out[i].group = known == len(pieces)
	}
	return out
}

// partiesRight scores an answer's parties against a CUAD parties answer.
func partiesRight(got []answer.Party, label string) int {
	want := labelParties(label)
	var entities []labelParty
	for _, w := range want {
		if !w.group {
			entities = append(entities, w)
		}
	}
	if len(entities) == 0 {
		return 0
	}
	if len(got) == 0 {
		return -1
	}
	matches := func(g answer.Party, w labelParty) bool {
		if w.redacted {
			return true
		}
		if sameName(g.Name, w.name) {
			return true
		}
		for _, r := range w.roles {
			if sameName(g.Name, r) {
				return true
			}
		}
		return false
	}
	for _, w := range entities {
		found := false
		for _, g := range got {
			if !w.redacted && sameName(g.Name, w.name) || w.redacted && matches(g, w) {
				found = true
				break
			}
		}
		if !found {
			return -1
		}
	}
	for _, g := range got {
		ok := false
		for _, w := range want {
			if matches(g, w) {
				ok = true
				break
			}
		}
		if !ok {
			return -1
		}
	}
	return 1
}

// editDistance is the edit distance between a and b (bytes; insertions,
// deletions, substitutions and transpositions of neighbours).
func editDistance(a, b string) int {
	pprev := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1) // a transposition
			}
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(b)]
}
