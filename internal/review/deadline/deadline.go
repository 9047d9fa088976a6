// Package deadline turns the dates and periods a review reads from a
// contract — its Agreement and Effective Dates, the end of its initial term,
// its renewal term, the notice that stops a renewal, an option to renew and
// a right of first refusal's window — into the dates a lawyer diaries: when
// the term ends, when it renews, the last day to give notice of
// non-renewal, the last day to exercise an option, each with the clause it
// was read from. A date that cannot be computed is listed too, with why: a
// term that runs from an event the contract does not date ("five years from
// the first commercial sale"), a date left blank, a term that runs until
// terminated, a period counted in business days.
//
// It computes; it reads nothing itself but the cells of the review
// (internal/review: the provisions named in Provisions, each reviewed and
// answered by internal/review/answer) and the words of the clauses they
// were read from, for what the cells do not say (whether a renewal is
// automatic or a party's option, a notice window's two ends, the event a
// window runs from). Rules, from drafting conventions:
//
//   - The term's start is the Effective Date, else the Agreement Date.
//   - The initial term ends on the Expiration Date read (a date written,
//     an anniversary, the start plus the initial term); else, when the
//     Expiration Date is not found, on the start plus the Initial Term.
//   - A term that renews by itself rolls forward: while its end is before
//     the day the list is made for (as of), it renews for the renewal period
//     (as many times as the contract allows, when it caps them); the list
//     shows the end of the term now running and the renewal at its end.
//   - Notice of non-renewal: "at least 90 days before the end of the term"
//     must be given on or before the end less the notice period; "not more
//     than 180 nor less than 90 days before" is a window, from the end less
//     the longer period to the end less the shorter.
//   - A renewal at a party's election ("may extend", "at its option") is an
//     option: the last day to exercise it is the end of the term less the
//     notice the clause asks for, else the end of the term.
//   - Months and years are calendar months and years; a day that a month
//     does not have is its last day (31 March less one month is 28 or 29
//     February). Business days are not counted (they depend on holidays):
//     such a date is listed as not computed.
package deadline

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// The provisions of the built-in playbook the deadlines are read from, in
// the order Contract.Cells holds them.
const (
	AgreementDate = "Agreement Date"
	EffectiveDate = "Effective Date"
	Expiration    = "Expiration Date"
	InitialTerm   = "Initial Term"
	Renewal       = "Renewal Term"
	NonRenewal    = "Notice Period to Terminate Renewal"
	FirstRefusal  = "Rofr/Rofo/Rofn"
)

// Provisions are the provisions a Contract's cells answer, in order.
var Provisions = []string{AgreementDate, EffectiveDate, Expiration, InitialTerm, Renewal, NonRenewal, FirstRefusal}

// Kind is what a deadline is.
type Kind string

// The kinds of deadline.
const (
	// KindExpiry: the term now running ends (the initial term, or a
	// renewal term the contract has rolled into).
	KindExpiry Kind = "expiry"
	// KindRenewal: the contract renews by itself at the end of the term.
	KindRenewal Kind = "renewal"
	// KindNonRenewal: the last day to give notice of non-renewal (or, with
	// Start, the window in which it may be given).
	KindNonRenewal Kind = "non_renewal_notice"
	// KindOption: the last day to exercise an option to renew or extend.
	KindOption Kind = "option"
	// KindWindow: a window that opens on an event (a right of first
	// refusal's days after notice of an offer): never dated in advance.
	KindWindow Kind = "window"
)

// Contract is one contract's cells for Provisions (Cells[k] answers
// Provisions[k]; a zero cell is not found).
type Contract struct {
	DocID, DocName string
	// Title is the contract as people name it (names.Display).
	Title string
	Cells []review.Cell
}

// Deadline is one date a lawyer diaries, or one that cannot be computed.
type Deadline struct {
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	Title   string `json:"doc_title,omitempty"`
	Kind    Kind   `json:"kind"`
	// Label says what falls due, in words: "Initial term ends", "Last day
	// to give notice of non-renewal".
	Label string `json:"label"`
	// Date is the day (YYYY-MM-DD); empty when it cannot be computed, and
	// Why then says why.
	Date string `json:"date,omitempty"`
	// Start is, for a window, its first day (Date its last).
	Start string `json:"start,omitempty"`
	// How says how Date was computed ("2019-03-01 + 5 years", "90 days
	// before 2027-03-01").
	How string `json:"how,omitempty"`
	Why string `json:"why,omitempty"`
	// Clauses are where it was read: each provision's clause path and the
	// sentence the value was read from.
	Clauses []Clause `json:"clauses"`
}

// Clause is a passage a deadline was read from.
type Clause struct {
	Provision string `json:"provision"`
	Path      string `json:"path,omitempty"`
	Pages     []int  `json:"pages,omitempty"`
	// Span is the clause's passage, code points of the contract's
	// canonical text (a face opens the contract there).
	Span document.Span `json:"span"`
	// Quote is the sentence of the clause the value was read from,
	// verbatim (shortened with "…" when long).
	Quote string `json:"quote"`
}

// Dated reports whether d has a date.
func (d Deadline) Dated() bool { return d.Date != "" }

// Compute returns the deadlines of every contract as of the day asOf
// (YYYY-MM-DD: the day a term that renews by itself is rolled forward to):
// dated ones first, by date, then those that could not be computed, by
// contract.
func Compute(contracts []Contract, asOf time.Time) []Deadline {
	var out []Deadline
	for _, c := range contracts {
		out = append(out, contractDeadlines(c, asOf)...)
	}
	slices.SortStableFunc(out, func(a, b Deadline) int {
		switch {
		case a.Dated() != b.Dated():
			if a.Dated() {
				return -1
			}
			return 1
		case a.Date != b.Date:
			return strings.Compare(a.Date, b.Date)
		}
		return strings.Compare(a.DocName, b.DocName)
	})
	return out
}

// Within returns the dated deadlines of ds that fall on or after from and
// on or before to (a window, when any of its days does).
func Within(ds []Deadline, from, to time.Time) []Deadline {
	lo, hi := from.Format(day), to.Format(day)
	var out []Deadline
	for _, d := range ds {
		if !d.Dated() {
			continue
		}
		first := d.Date
		if d.Start != "" {
			first = d.Start
		}
		if d.Date >= lo && first <= hi {
			out = append(out, d)
		}
	}
	return out
}

const day = "2006-01-02"

// cellOf returns c's cell for provision p (zero when absent).
func (c Contract) cellOf(p string) review.Cell {
	k := slices.Index(Provisions, p)
	if k < 0 || k >= len(c.Cells) {
		return review.Cell{}
	}
	return c.Cells[k]
}

// text is the value a found cell shows ("" for none).
func text(cl review.Cell) string {
	if !cl.Found || cl.Answer == nil {
		return ""
	}
	return strings.TrimSpace(cl.Answer.Text)
}

// termEnd is the end of c's initial term: the deadline (dated, or with why
// not), the day and whether it could be computed.
func termEnd(c Contract, mk func(Kind, string) Deadline) (exp Deadline, end time.Time, ended bool) {
	// the start of the term
	start, startFrom := "", review.Cell{}
	blank := ""
	for _, p := range []string{EffectiveDate, AgreementDate} {
		cl := c.cellOf(p)
		v := text(cl)
		if answer.IsBlankDate(v) {
			if blank == "" {
				blank = p
			}
			continue
		}
		if _, err := time.Parse(day, v); err == nil {
			start, startFrom = v, cl
			break
		}
	}

	// the end of the initial term
	exp = mk(KindExpiry, "Initial term ends")
	ecell := c.cellOf(Expiration)
	icell := c.cellOf(InitialTerm)
	// the initial term counted from the start, when it can be
	fromInitial := func() bool {
		n, unit, ok := period(text(icell))
		if !icell.Found || !ok || start == "" {
			return false
		}
		s, _ := time.Parse(day, start)
		end, ended = add(s, n, unit), true
		exp.Date = end.Format(day)
		exp.How = fmt.Sprintf("%s (%s) + initial term of %s", start, startLabel(startFrom), text(icell))
		exp.Why = ""
		exp.Clauses = append(clauses(icell), clauses(startFrom)...)
		return true
	}
	switch ev := text(ecell); {
	case ecell.Found && answer.Perpetual(ev):
		// a term the Initial Term cell counts is not perpetual: the
		// expiration cell read another clause (a survival clause)
		if !fromInitial() {
			exp.Why = "the term runs until it is terminated or until an event: it has no end date"
			exp.Clauses = clauses(ecell)
		}
	case ecell.Found && ev != "":
		if t, err := time.Parse(day, ev); err == nil {
			end, ended = t, true
			exp.Date = ev
			exp.How = "read from the term clause"
			exp.Clauses = clauses(ecell)
		}
	case ecell.Found:
		if !fromInitial() {
			exp.Why = undatedWhy(ecell, start, blank)
			exp.Clauses = clauses(ecell)
		}
	case icell.Found && text(icell) != "":
		if !fromInitial() {
			exp.Clauses = clauses(icell)
			if _, _, ok := period(text(icell)); !ok {
				exp.Why = fmt.Sprintf("the initial term (%s) is not counted in days, weeks, months or years", text(icell))
			} else {
				exp.Why = undatedWhy(icell, "", blank)
			}
		}
	default:
		exp.Why = "no term or expiry clause was found"
	}
	return exp, end, ended
}

func contractDeadlines(c Contract, asOf time.Time) []Deadline {
	mk := func(kind Kind, label string) Deadline {
		return Deadline{DocID: c.DocID, DocName: c.DocName, Title: c.Title, Kind: kind, Label: label}
	}
	var out []Deadline
	exp, end, ended := termEnd(c, mk)

	// renewal
	rcell := c.cellOf(Renewal)
	ncell := c.cellOf(NonRenewal)
	renews := rcell.Found && text(rcell) != "" && !answer.Perpetual(text(rcell))
	option := renews && isOption(rcell)
	var rn int
	var runit string
	rok := false
	rtext := strings.TrimPrefix(text(rcell), "successive ")
	if renews {
		rn, runit, rok = period(rtext)
	}
	current := end // the end of the term now running
	rolled := 0
	limit := renewalLimit(rcell)
	if ended && renews && !option && rok {
		for current.Before(asOf) && (limit == 0 || rolled < limit) {
			current = add(current, rn, runit)
			rolled++
		}
	}
	if rolled > 0 {
		exp.Label = "Renewal term ends"
		exp.How = fmt.Sprintf("initial term ended %s; renewed %d time%s for %s", end.Format(day), rolled, plural(rolled), rtext)
		exp.Date = current.Format(day)
		exp.Clauses = append(exp.Clauses, clauses(rcell)...)
	}

	switch {
	case renews && !option:
		switch {
		case !rok:
			r := mk(KindRenewal, "Renews automatically")
			r.Clauses = clauses(rcell)
			r.Why = fmt.Sprintf("the renewal period (%s) is not counted in days, weeks, months or years", text(rcell))
			out = append(out, exp, r)
		case !ended:
			r := mk(KindRenewal, "Renews automatically")
			r.Clauses = clauses(rcell)
			r.Why = "the term's end date could not be computed: " + exp.Why
			out = append(out, exp, r)
		case limit > 0 && rolled >= limit:
			exp.Label = "Term ends (no renewal left)"
			exp.How += fmt.Sprintf("; the contract allows %d renewal%s", limit, plural(limit))
			out = append(out, exp)
		default:
			// the term's end and the renewal are one event
			exp.Kind = KindRenewal
			exp.Label = strings.Replace(exp.Label, "ends", "ends and renews automatically", 1) + " for " + rtext
			exp.How += "; renews unless notice of non-renewal is given"
			exp.Clauses = append(exp.Clauses, clauses(rcell)...)
			out = append(out, exp)
		}
		if !(limit > 0 && rolled >= limit) {
			out = append(out, nonRenewal(mk, ncell, rcell, current, ended, exp.Why))
		}
	case option:
		out = append(out, exp)
		o := optionDeadline(mk, rcell, end, ended, exp.Why)
		out = append(out, o)
	case ncell.Found:
		// a notice to stop a renewal the renewal cell did not find
		out = append(out, exp, nonRenewal(mk, ncell, rcell, current, ended, exp.Why))
	default:
		out = append(out, exp)
	}

	// a right of first refusal, offer or negotiation: days after an event
	if fc := c.cellOf(FirstRefusal); fc.Found {
		w := mk(KindWindow, "Right of first refusal, offer or negotiation: window to respond")
		w.Clauses = clauses(fc)
		s := firstText(fc)
		if ev, dur := eventWindow(s); ev != "" {
			w.Why = fmt.Sprintf("runs %s from %s, an event the contract does not date", dur, ev)
		} else {
			w.Why = "opens on an event (an offer or a notice of one), which the contract does not date"
		}
		out = append(out, w)
	}
	return out
}

// optionDeadline is the last day (or window) to exercise an option to renew or
// extend, read from the renewal clause.
func optionDeadline(mk func(Kind, string) Deadline, rcell review.Cell, end time.Time, ended bool, endWhy string) Deadline {
	o := mk(KindOption, "Last day to exercise the option to renew or extend")
	o.Clauses = clauses(rcell)
	if !ended {
		o.Why = "the term's end date could not be computed: " + endWhy
	} else {
		s := firstText(rcell)
		o.Date = end.Format(day)
		o.How = "the end of the term (the clause states no earlier time)"
		if n, unit, at, ok := noticeAt(s); ok {
			o.Clauses = clausesAt(rcell, at)
			o.Date = add(end, -n, unit).Format(day)
			o.How = fmt.Sprintf("%s before the end of the term on %s", durText(n, unit), end.Format(day))
			if ln, lu, ok := windowOpens(s, n, unit); ok {
				o.Label = "Window to exercise the option to renew or extend"
				o.Start = add(end, -ln, lu).Format(day)
				o.How = fmt.Sprintf("not earlier than %s and not later than %s before the end of the term on %s", durText(ln, lu), durText(n, unit), end.Format(day))
			}
		} else if _, unit, _, _ := noticeAt(s); unit != "" {
			o.Date, o.How = "", ""
			o.Why = fmt.Sprintf("the notice is counted in %s, which depend on holidays", unit)
		}
	}
	return o
}

// nonRenewal is the last day (or window) to give notice of non-renewal.
func nonRenewal(mk func(Kind, string) Deadline, ncell, rcell review.Cell, end time.Time, ended bool, endWhy string) Deadline {
	d := mk(KindNonRenewal, "Last day to give notice of non-renewal")
	src := ncell
	s := firstText(ncell)
	n, unit, ok := 0, "", false
	if ncell.Found {
		n, unit, ok = period(text(ncell))
	}
	if !ok {
		// the renewal clause itself: "unless either party gives sixty
		// (60) days' notice"
		if n2, u2, at, ok2 := noticeAt(firstText(rcell)); ok2 {
			n, unit, ok, src, s = n2, u2, true, rcell, firstText(rcell)
			d.Clauses = clausesAt(rcell, at)
		} else if u2 != "" {
			unit = u2
		}
	}
	if d.Clauses == nil {
		d.Clauses = clauses(src)
	}
	if src.Provision != rcell.Provision && rcell.Found {
		d.Clauses = append(d.Clauses, clauses(rcell)...)
	}
	switch {
	case !ok && strings.Contains(unit, "business"):
		d.Why = "the notice period is counted in business days, which depend on holidays"
	case !ok && ncell.Found:
		d.Why = fmt.Sprintf("the notice period (%s) could not be counted", text(ncell))
	case !ok:
		d.Why = "the contract renews unless notice is given, but states no notice period"
	case !ended:
		d.Why = "the term's end date could not be computed: " + endWhy
	default:
		d.Date = add(end, -n, unit).Format(day)
		d.How = fmt.Sprintf("%s before the end of the term on %s", durText(n, unit), end.Format(day))
		if ln, lu, ok := windowOpens(s, n, unit); ok {
			d.Label = "Window to give notice of non-renewal"
			d.Start = add(end, -ln, lu).Format(day)
			d.How = fmt.Sprintf("not more than %s and not less than %s before the end of the term on %s", durText(ln, lu), durText(n, unit), end.Format(day))
		}
	}
	return d
}

// startLabel names the provision a start date was read from.
func startLabel(c review.Cell) string {
	if c.Provision == "" {
		return "start"
	}
	return c.Provision
}

// firstText is the text of a cell's first extract (the one its answer was
// read from), "" for none.
func firstText(c review.Cell) string {
	if len(c.Extracts) == 0 {
		return ""
	}
	return c.Extracts[0].Text
}

// clauses returns where a found cell was read: its first extract's clause
// and the sentence its value was read from.
func clauses(c review.Cell) []Clause {
	if !c.Found || len(c.Extracts) == 0 {
		return nil
	}
	ex := c.Extracts[0]
	return []Clause{{Provision: c.Provision, Path: ex.Path, Pages: ex.Pages, Span: ex.Span, Quote: quote(ex, c.Answer)}}
}

// clausesAt is clauses quoting the sentence of c's first extract at byte at.
func clausesAt(c review.Cell, at int) []Clause {
	if !c.Found || len(c.Extracts) == 0 {
		return nil
	}
	ex := c.Extracts[0]
	return []Clause{{Provision: c.Provision, Path: ex.Path, Pages: ex.Pages, Span: ex.Span, Quote: sentenceAt(ex.Text, at)}}
}

// maxQuote is the longest quote kept, in characters.
const maxQuote = 400

// quote is the sentence of ex that holds the answer's value (the first
// value span in ex), else ex's first sentence, shortened to maxQuote.
func quote(ex detect.Extract, a *answer.Answer) string {
	s := ex.Text
	at := 0
	if a != nil {
		for _, sp := range a.Spans {
			if sp.Extract == 0 && sp.Role == "value" && sp.Span.Start >= ex.Span.Start {
				at = byteOffset(s, sp.Span.Start-ex.Span.Start)
				break
			}
		}
	}
	return sentenceAt(s, at)
}

// sentenceAt is the sentence of s that holds byte at, spaces collapsed,
// shortened to maxQuote.
func sentenceAt(s string, at int) string {
	at = min(max(at, 0), len(s))
	lo := sentenceStart(s, at)
	hi := len(s)
	if k := reSentenceEnd().FindStringIndex(s[at:]); k != nil {
		hi = at + k[1]
	}
	q := strings.Join(strings.Fields(s[lo:hi]), " ")
	if utf8.RuneCountInString(q) > maxQuote {
		r := []rune(q)
		q = string(r[:maxQuote]) + " …"
	}
	return q
}

// sentenceStart is where the sentence holding byte at of s starts: after
// the last line break, or the last "." or ";" followed by a space, before
// at — not after the point inside a clause number ("12.2") or an amount.
func sentenceStart(s string, at int) int {
	for i := at - 1; i >= 0; i-- {
		switch s[i] {
		case '\n':
			return i + 1
		case '.', ';':
			if i+1 < at && unicode.IsSpace(rune(s[i+1])) {
				return i + 1
			}
		}
	}
	return 0
}

var reSentenceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.;](?:\s|$)|\n\s*\n`) })

// byteOffset is the byte offset of code point n of s (len(s) past its end).
func byteOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	k := 0
	for i := range s {
		if k == n {
			return i
		}
		k++
	}
	return len(s)
}

var rePeriod = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:successive\s+)?(\d+)\s+(?:(calendar|business|consecutive)\s+)?(day|week|month|year)s?$`)
})

// period reads a normalised period ("5 years", "90 days", "30 calendar
// days"); false for one not counted in calendar units ("10 business
// days").
func period(v string) (int, string, bool) {
	m := rePeriod().FindStringSubmatch(strings.ToLower(strings.TrimSpace(v)))
	if m == nil || m[2] == "business" {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 || n > 10000 {
		return 0, "", false
	}
	return n, m[3], true
}

// add adds n units (day, week, month, year; n may be negative) to t; a day
// the target month does not have is that month's last day.
func add(t time.Time, n int, unit string) time.Time {
	switch unit {
	case "day":
		return t.AddDate(0, 0, n)
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "year":
		n *= 12
	}
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
}

func durText(n int, unit string) string {
	return fmt.Sprintf("%d %s%s", n, unit, plural(n))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// reOption is a renewal at a party's election, not by itself.
var reOption = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:option|at\s+(?:its|their|his|her)\s+(?:sole\s+)?(?:election|discretion)|may\s+(?:elect\s+to\s+|choose\s+to\s+)?(?:renew|extend)|(?:elect|elects|election)\s+to\s+(?:renew|extend)|right\s+to\s+(?:renew|extend)|may\s+(?:request|seek|propose)\s+(?:an?\s+)?(?:renewal|extension))\b`)
})

// reAutomatic is a renewal that happens by itself.
var reAutomatic = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:automatic(?:ally)?|unless\s+(?:either|one|a|the)\b|evergreen|shall\s+(?:be\s+)?(?:renew|extend|continue))`)
})

// isOption reports whether a renewal cell's clause is a party's option
// rather than a renewal that happens unless stopped.
func isOption(c review.Cell) bool {
	s := firstText(c)
	if !reOption().MatchString(s) {
		return false
	}
	for _, m := range reAutomatic().FindAllStringIndex(s, -1) {
		if !reNegated().MatchString(s[max(0, m[0]-30):m[0]]) {
			return false
		}
	}
	return true
}

// reNegated ends the words before a renewal word that deny it: "does not
// renew automatically", "shall not be automatically renewed".
var reNegated = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:not|never|no)\s+(?:\w+\s+){0,2}$`)
})

// reNoticeBefore is a notice period measured back from the end of a term:
// "at least ninety (90) days before the end", "60 days' prior written
// notice", "no later than six months prior to the expiration".
var reNoticeBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^['’]?\s*(?:s['’]?\s*)?(?:prior|advance|written|\(|\)|\s)*(?:notice|before|prior\s+to|in\s+advance)`)
})

// noticeIn reads the notice period a clause measures back from the end of
// the term; unit is set (and ok false) when the only one is in business
// days.
func noticeIn(s string) (n int, unit string, ok bool) {
	n, unit, _, ok = noticeAt(s)
	return n, unit, ok
}

// noticeAt is noticeIn, also returning where the period is written (bytes).
func noticeAt(s string) (n int, unit string, at int, ok bool) {
	for _, d := range answer.Durations(s) {
		if !reNoticeBefore().MatchString(s[d.End:]) {
			continue
		}
		if n, u, ok := period(d.Value); ok {
			return n, u, d.At, true
		}
		if strings.Contains(d.Value, "business") {
			unit = "business days"
		}
	}
	return 0, unit, 0, false
}

// reWindowOpen is the longer bound of a notice window: "not more than 180
// days", "no earlier than six months", "not sooner than".
var reWindowOpen = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:not|no)\s+(?:more|earlier|sooner|greater)\s+than\s*$`)
})

// windowOpens reads, from a notice clause, the longer bound of a window
// whose shorter bound is n units: the period after "not more than" that is
// longer than n units.
func windowOpens(s string, n int, unit string) (int, string, bool) {
	short := add(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), -n, unit)
	for _, d := range answer.Durations(s) {
		if !reWindowOpen().MatchString(s[max(0, d.At-30):d.At]) {
			continue
		}
		ln, lu, ok := period(d.Value)
		if ok && add(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), -ln, lu).Before(short) {
			return ln, lu, true
		}
	}
	return 0, "", false
}

// reRenewalCount caps the renewals: "two (2) additional terms", "up to
// three successive renewal periods", "renewed once".
var reRenewalCount = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:up\s+to\s+|a\s+maximum\s+of\s+|no\s+more\s+than\s+)?(one|two|three|four|five|\d)\s*(?:\(\s*\d\s*\)\s*)?(?:additional|successive|further|consecutive|subsequent)?\s*(?:renewal\s+)?(?:terms|periods|times|renewals)\b|\b(?:renewed|extended)\s+(once|twice)\b`)
})

var countWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "once": 1, "twice": 2}

// renewalLimit is how many renewals the clause allows (0: no cap written).
func renewalLimit(c review.Cell) int {
	m := reRenewalCount().FindStringSubmatch(firstText(c))
	if m == nil {
		return 0
	}
	w := strings.ToLower(m[1] + m[2])
	if n, ok := countWords[w]; ok {
		return n
	}
	n, _ := strconv.Atoi(w)
	return n
}

// reFromEvent is the event a period runs from: "five (5) years from the
// date of first commercial sale", "within thirty (30) days after receipt of
// such notice".
var reFromEvent = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:\(\s*\d+\s*\)\s*)?(?:\w+\s+){0,2}?(?:from|after|following|of|commencing\s+(?:on|upon)|beginning\s+(?:on|upon)|upon)\s+((?:the\s+)?[^.;,()]{3,90})`)
})

// eventWindow returns the event a period written in s runs from, and the
// period ("", "" when s names none).
func eventWindow(s string) (event, dur string) {
	for _, d := range answer.Durations(s) {
		if m := reFromEvent().FindStringSubmatch(s[d.End:]); m != nil {
			ev := strings.Join(strings.Fields(m[1]), " ")
			if _, isDate := answer.FirstDate(ev); isDate {
				continue
			}
			return ev, d.Value
		}
	}
	return "", ""
}

// undatedWhy says why the end of a term found in c could not be dated.
func undatedWhy(c review.Cell, start, blank string) string {
	s := firstText(c)
	if ev, dur := eventWindow(s); ev != "" && !mentionsDefinedStart(ev) {
		return fmt.Sprintf("the term runs %s from %s, an event the contract does not date", dur, ev)
	}
	switch {
	case blank != "":
		return fmt.Sprintf("the term runs from the contract's date, and the %s is left blank", strings.ToLower(blank))
	case start == "":
		if len(answer.Durations(s)) > 0 {
			return "the term is a period from a start date the contract does not state"
		}
		return "the term clause writes no date or period that could be counted"
	}
	return "the term clause writes no date or period that could be counted"
}

// reDefinedStart is a start the review reads as a date when the contract
// writes one: the Effective Date, the date of this agreement.
var reDefinedStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:the\s+)?(?:effective\s+date|date\s+(?:hereof|of\s+this\s+agreement)|this\s+agreement|execution|commencement\s+date)`)
})

func mentionsDefinedStart(ev string) bool { return reDefinedStart().MatchString(ev) }
