package answer

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Reading a cell's answer. Every reader works on the cell's extracts joined
// into one text (best extract first, one line break between them) and
// reports where it read, in bytes of that text; joined maps those places
// back to an extract and code points of the contract, so the answer's spans
// always lie inside the extract they were read from.

// joined is a cell's extracts as one text.
type joined struct {
	s      string
	starts []int // byte offset of each extract's text in s
	ex     []detect.Extract
}

func joinExtracts(ex []detect.Extract) joined {
	var b strings.Builder
	j := joined{ex: ex}
	for _, e := range ex {
		j.starts = append(j.starts, b.Len())
		b.WriteString(e.Text)
		b.WriteString("\n")
	}
	j.s = b.String()
	return j
}

// joinInOrder joins ex in document order; the spans still name the
// extracts by their index in ex.
func joinInOrder(ex []detect.Extract) joined {
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ex[order[a]].Span.Start < ex[order[b]].Span.Start })
	var b strings.Builder
	j := joined{ex: ex, starts: make([]int, len(ex))}
	for _, i := range order {
		j.starts[i] = b.Len()
		b.WriteString(ex[i].Text)
		b.WriteString("\n")
	}
	j.s = b.String()
	return j
}

// span maps the bytes [lo, hi) of the joined text to a Span. A range
// that runs past its extract is cut at the extract's end.
func (j joined) span(lo, hi int, role string) (Span, bool) {
	k := -1
	for i, st := range j.starts {
		if st <= lo && (k < 0 || st > j.starts[k]) {
			k = i
		}
	}
	if k < 0 || hi <= lo {
		return Span{}, false
	}
	text := j.ex[k].Text
	a, b := lo-j.starts[k], min(hi-j.starts[k], len(text))
	if a >= len(text) || b <= a {
		return Span{}, false
	}
	start := j.ex[k].Span.Start + utf8.RuneCountInString(text[:a])
	end := start + utf8.RuneCountInString(text[a:b])
	return Span{Extract: k, Span: document.Span{Start: start, End: end}, Role: role}, true
}

// NotFound is the answer of a cell that was not found.
func NotFound() *Answer {
	return &Answer{Kind: KindNotFound, Text: "Not found"}
}

// readAnswer reads a found cell's answer from its extracts, in the
// provision's answer format. A value format whose value the text does not
// give (a date clause that only says "the date of the last signature")
// gives kind "value" with no text: the extract is the answer.
func readAnswer(p *playbook.Provision, prep *detect.Prepared, ex []detect.Extract) *Answer {
	j := joinExtracts(ex)
	if p.Answer != playbook.AnswerText && p.Answer != playbook.AnswerYesNo {
		// values are read in document order, so that a sentence cut
		// between two passages ("… renewal terms of one" | "(1) year
		// each") reads whole
		j = joinInOrder(ex)
	}
	s := j.s
	a := &Answer{Kind: KindValue}
	add := func(lo, hi int, role string) {
		if sp, ok := j.span(lo, hi, role); ok {
			a.Spans = append(a.Spans, sp)
		}
	}
	c := cueWordsOf(p)
	// values written in page furniture or a running line are not answers
	written := func(vs []valueAt) []valueAt {
		if prep == nil {
			return vs
		}
		var out []valueAt
		for _, v := range vs {
			if sp, ok := j.span(v.at, v.end, ""); !ok || !inFurniture(prep, sp.Span) {
				out = append(out, v)
			}
		}
		return out
	}
	switch p.Answer {
	case playbook.AnswerYesNo:
		return polarityAnswer(p, nil, ex, nil)
	case playbook.AnswerDate:
		// a date the contract leaves blank where it dates itself is a
		// candidate too: said as blank, not replaced by another date
		cands := written(allDatesAt(s))
		bs, opening := ownBlankDates(j, s)
		dated := false
		for _, v := range cands {
			dated = dated || v.at < opening
		}
		if len(bs) > 0 && !dated {
			// the opening's only date is blank
			cands = bs[:1]
		} else if len(bs) > 0 {
			cands = append(cands, bs...)
			sort.SliceStable(cands, func(x, y int) bool { return cands[x].at < cands[y].at })
		}
		if v, ok := pickDate(s, cands, c); ok {
			a.Text = v.v
			add(v.at, v.end, "value")
		} else if loc := rePerpetual().FindStringIndex(s); loc != nil && endsSomething(c) {
			// "perpetual" is an end, not the date a contract is made or
			// takes effect
			a.Text = "perpetual"
			add(loc[0], loc[1], "value")
		}
	case playbook.AnswerEndDate:
		start := ""
		if prep != nil {
			start = contractDate(prep)
		}
		if start == "" && prep != nil && len(blankDatesAt(contractOpening(prep, maxOwnDateAt))) == 0 {
			// a contract whose opening writes no date runs from its last
			// dated signature
			if last, _, ok := lastSignature(prep); ok {
				start = last.v
			}
		}
		var defined map[string]string
		if prep != nil {
			defined = datesDefinedIn(prep)
		}
		if d, at, ok := endDateAt(s, start, c, defined); ok {
			a.Text = d
			for _, r := range at {
				add(r[0], r[1], "value")
			}
		}
	case playbook.AnswerDuration:
		cands := written(allDurationsAt(s))
		for _, loc := range rePerpetual().FindAllStringIndex(s, -1) {
			cands = append(cands, valueAt{"perpetual", loc[0], loc[1]})
		}
		cands = append(cands, written(periodicRenewals(s))...)
		sort.SliceStable(cands, func(x, y int) bool { return cands[x].at < cands[y].at })
		if reFee().MatchString(p.Name) {
			cands = timeToPay(s, cands)
		}
		cands = byNotice(s, cands, c)
		if excludesAfterTerm(p) {
			cands = withinTerm(s, cands)
		}
		if renewsSomething(c) {
			cands = renewalPeriods(s, cands)
		}
		if v, ok := pickValue(s, cands, c); ok {
			a.Text = v.v
			if v.v != "perpetual" && !strings.HasPrefix(v.v, "successive ") && reSuccessive().MatchString(s[max(0, v.at-40):v.at]) {
				a.Text = "successive " + v.v
			}
			add(v.at, v.end, "value")
		}
	case playbook.AnswerJurisdiction:
		if name, at := jurisdictionAt(s); name != "" {
			a.Text = name
			add(at, at+len(name), "value")
		}
	case playbook.AnswerParty:
		var names []string
		for _, pa := range partiesAt(s) {
			party := Party{Name: pa.name, Role: pa.role}
			if pa.nameAt >= 0 {
				party.NameSpan, _ = j.span(pa.nameAt, pa.nameEnd, "party")
				add(pa.nameAt, pa.nameEnd, "party")
			}
			if pa.roleAt >= 0 {
				if sp, ok := j.span(pa.roleAt, pa.roleEnd, "party_role"); ok {
					party.RoleSpan = &sp
					a.Spans = append(a.Spans, sp)
				}
			}
			if party.Name == "" && party.RoleSpan != nil {
				// Only a defined name ("the Company"): it is the name.
				party.Name, party.NameSpan, party.RoleSpan, party.Role = party.Role, *party.RoleSpan, nil, ""
				party.NameSpan.Role = "party"
			}
			a.Parties = append(a.Parties, party)
			n := party.Name
			if party.Role != "" {
				n += " (" + party.Role + ")"
			}
			names = append(names, n)
		}
		a.Text = strings.Join(names, "; ")
	case playbook.AnswerText:
		a.Text = titleValue(ex, add)
	case playbook.AnswerConsideration, playbook.AnswerCarveOuts:
		a.Text = dealPointValue(p.Answer, s, add)
	case playbook.AnswerAmount:
		if v, ok := pickValue(s, generalLimits(s, written(amountsAt(s))), c); ok {
			a.Text = v.v
			add(v.at, v.end, "value")
		}
	}
	return a
}

// titleValue is a text cell's answer: a title is the best extract's first
// line, when that line is short and written like a title (a clause is its
// own answer: ""). add is told the title's span.
func titleValue(ex []detect.Extract, add func(lo, hi int, role string)) string {
	if len(ex) == 0 {
		return ""
	}
	// a title opens the best extract: read only its first maxTitleChars
	// characters
	t := ex[0].Text
	if len(t) > maxTitleChars {
		t = t[:maxTitleChars]
	}
	if lo, hi, ok := titleAt(titleLines(t)); ok && len(strings.Fields(t[lo:hi])) >= 2 && (len(strings.Fields(t[:lo])) <= maxTitleLead || startsLine(titleLines(t), lo)) {
		add(lo, hi, "value")
		return strings.Join(strings.Fields(t[lo:hi]), " ")
	}
	return ""
}

// Perpetual reports whether a value reads as perpetual ("in perpetuity",
// "indefinitely").
func Perpetual(v string) bool { return rePerpetual().MatchString(v) }

// FromModel is the answer of a cell the model pass found, whose value
// (normalised by the model pass) is v: the offline reading of the verified
// quotations when it reads the same value (it has the spans), else v with
// the span where the quotations write it verbatim, if they do.
func FromModel(p *playbook.Provision, v string, ex []detect.Extract) *Answer {
	a := readAnswer(p, nil, ex)
	if v == "" || v == a.Text {
		return a
	}
	out := &Answer{Kind: a.Kind, Text: v}
	if a.Kind == KindValue {
		j := joinExtracts(ex)
		if at := strings.Index(strings.ToLower(j.s), strings.ToLower(v)); at >= 0 {
			if sp, ok := j.span(at, at+len(v), "value"); ok {
				out.Spans = []Span{sp}
			}
		}
	}
	return out
}

// partyChars is how much of a contract's opening is searched for its
// preamble (a cover page and a table of contents may come first).
const partyChars = 20000

// partyAnswer reads the parties from the contract's preamble and signature
// block (parties.go) and returns the passages that hold them, in document
// order, as the cell's extracts, with the answer read from them. It
// returns nil when no party could be read. scores are the passages'
// probabilities for the provision (the extracts' scores).
func partyAnswer(p *detect.Prepared, scores []float64) ([]detect.Extract, *Answer) {
	reads := partyReads(p)
	if len(reads) == 0 {
		return nil, nil
	}
	var ex []detect.Extract
	extractOf := func(sp document.Span) int {
		for i, e := range ex {
			if e.Span.Contains(sp) {
				return i
			}
		}
		if e, ok := passageExtract(p, sp, scores); ok {
			ex = append(ex, e)
			return len(ex) - 1
		}
		return -1
	}
	a := &Answer{Kind: KindValue}
	var names []string
	for _, r := range reads {
		nsp := p.Index().RuneSpan(r.nameAt, r.nameEnd)
		k := extractOf(nsp)
		if k < 0 {
			continue
		}
		party := Party{Name: strings.Join(strings.Fields(r.name), " "), NameSpan: Span{Extract: k, Span: nsp, Role: "party"}}
		a.Spans = append(a.Spans, party.NameSpan)
		if r.roleAt >= 0 {
			rsp := p.Index().RuneSpan(r.roleAt, r.roleEnd)
			if j := extractOf(rsp); j >= 0 {
				party.Role = strings.Join(strings.Fields(r.role), " ")
				party.RoleSpan = &Span{Extract: j, Span: rsp, Role: "party_role"}
				a.Spans = append(a.Spans, *party.RoleSpan)
			}
		}
		a.Parties = append(a.Parties, party)
		n := party.Name
		if party.Role != "" {
			n += " (" + party.Role + ")"
		}
		names = append(names, n)
	}
	if len(a.Parties) == 0 {
		return nil, nil
	}
	a.Text = strings.Join(names, "; ")
	// Extracts in document order; the spans' extract indices follow.
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return ex[order[x]].Span.Start < ex[order[y]].Span.Start })
	newIdx := make([]int, len(ex))
	sorted := make([]detect.Extract, len(ex))
	for to, from := range order {
		newIdx[from] = to
		sorted[to] = ex[from]
	}
	for i := range a.Spans {
		a.Spans[i].Extract = newIdx[a.Spans[i].Extract]
	}
	for i := range a.Parties {
		a.Parties[i].NameSpan.Extract = newIdx[a.Parties[i].NameSpan.Extract]
		if a.Parties[i].RoleSpan != nil {
			a.Parties[i].RoleSpan.Extract = newIdx[a.Parties[i].RoleSpan.Extract]
		}
	}
	return sorted, a
}

// partyReads returns the parties contract p introduces in its preamble
// (page furniture left out), with those only its signature block names
// when the preamble names fewer than two; in bytes of the contract's text.
// They are read once per contract, or from the contract's stored
// preparation (Sections).
func partyReads(p *detect.Prepared) []partyRead {
	return p.Memo(partiesKey, func() any {
		text := p.Doc().Doc.Text
		if b, ok := p.Section(partiesSection); ok {
			if reads, err := decodeParties(b, len(text)); err == nil {
				return reads
			}
		}
		opening := contractOpening(p, partyChars)
		var reads []partyRead
		for _, r := range preambleParties(opening) {
			if !inFurniture(p, p.Index().RuneSpan(r.nameAt, r.nameEnd)) && !clauseNotName(r.name) {
				reads = append(reads, r)
			}
		}
		// The signature block names the parties the preamble did not (a
		// contract has at least two).
		for _, sp := range signatureParties(text) {
			if len(reads) >= 2 {
				break
			}
			if inFurniture(p, p.Index().RuneSpan(sp.nameAt, sp.nameEnd)) {
				continue
			}
			known := false
			for _, r := range reads {
				known = known || sameParty(r.name, sp.name)
			}
			if !known {
				reads = append(reads, sp)
			}
		}
		return reads
	}).([]partyRead)
}

// reNoticeAfter follows a period that measures a notice ("sixty (60)
// days' prior written notice", "30 days before the end of the term");
// reNoticeBefore precedes one ("on not less than 90 days", "giving 30
// days").
var (
	reNoticeAfter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^[\s)'’]*(?:s\b)?[\s'’]*(?:\([^()]{1,30}\)\s*)?(?:prior|advance|in\s+advance|before|written|notice|of\s+(?:prior\s+)?(?:written\s+)?notice)\b`)
	})
	reNoticeBefore = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:at\s+least|not\s+less\s+than|no\s+less\s+than|minimum\s+of|giving|gives|give|upon|on)\s*$`)
	})
)

// byNotice keeps, of the periods a clause writes, the notice periods when
// the provision is about a notice (its cue words hold "notice"), and the
// others when it is about a term: "renews for successive one (1) year
// periods unless either party gives sixty (60) days' prior notice" has a
// renewal term of one year and a notice period of 60 days. When no
// candidate is of the kind wanted, all are kept for a term, none for a
// notice.
func byNotice(s string, cands []valueAt, c cues) []valueAt {
	wantNotice := false
	for _, t := range detect.Analyze("notice") {
		_, wantNotice = c[t]
	}
	var keep []valueAt
	for _, v := range cands {
		notice := reNoticeAfter().MatchString(s[v.end:min(len(s), v.end+60)]) || reNoticeBefore().MatchString(s[max(0, v.at-25):v.at])
		if notice == wantNotice {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 && !wantNotice {
		return cands
	}
	// a notice provision whose clause writes no notice period has no
	// value there: a term's period is not a notice
	return keep
}

// renewsSomething reports whether a provision's cue words are about a
// renewal and not about a notice: the period it asks for is a renewal's.
func renewsSomething(c cues) bool {
	has := func(w string) bool {
		for _, t := range detect.Analyze(w) {
			if _, ok := c[t]; ok {
				return true
			}
		}
		return false
	}
	return has("renewal") && !has("notice")
}

// A period that runs after the contract ends — "during the term of this
// Agreement and for a period of three (3) years thereafter", "for two
// years after the termination of this Agreement" — measures an obligation
// that survives it, not the term: "continues for five (5) years
// thereafter" (after the Effective Date) is the term.
var (
	reAfterTheEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\W{0,3}(?:[\w'’]+\s+){0,3}?(?:after|following|from|succeeding)\s+(?:the\s+)?(?:(?:effective\s+)?date\s+of\s+)?(?:any\s+|such\s+|its\s+)?(?:termination|expiration|expiry|end\s+of\s+(?:the|this|its)\s+(?:term|agreement))`)
	})
	reDuringTheTermAnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:during|throughout)\s+the\s+(?:term|life|duration)\b[^.;]{0,100}\band\s+(?:for\s+)?(?:an?\s+(?:additional\s+|further\s+)?period\s+of\s+)?$`)
	})
)

// excludesAfterTerm reports whether the provision says, in its own
// excludes, that what survives the contract is not it (the built-in
// Initial Term: "not … of post-termination obligations").
func excludesAfterTerm(p *playbook.Provision) bool {
	return strings.Contains(strings.ToLower(p.Excludes), "post-termination")
}

// reOfTheContract is what a sentence that measures the contract's term
// speaks of: the agreement or a term ("the three (3) month period
// commencing on the date of the first order" of new cards speaks of
// neither).
var reOfTheContract = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:agreement|contract|term)\b`)
})

// reUponTheEnd opens a sentence about what follows the contract's end:
// "Upon termination of this Agreement, the Reseller may sell its stock for
// three (3) months".
var reUponTheEnd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W{0,3}(?:[a-z0-9]{1,3}[.)]\s+)?(?:upon|after|following|on)\s+(?:the\s+)?(?:any\s+|such\s+)?(?:termination|expiration|expiry)\b`)
})

// withinTerm keeps the periods that measure the contract's term: written
// in a sentence about the agreement or a term, and not running after the
// contract ends.
func withinTerm(s string, cands []valueAt) []valueAt {
	var keep []valueAt
	for _, v := range cands {
		if reAfterTheEnd().MatchString(s[v.end:min(len(s), v.end+80)]) || reDuringTheTermAnd().MatchString(s[max(0, v.at-160):v.at]) {
			continue
		}
		lo, hi := 0, len(s)
		if ends := reSentenceEnd().FindAllStringIndex(s[:v.at], -1); len(ends) > 0 {
			lo = ends[len(ends)-1][1]
		}
		if e := reSentenceEnd().FindStringIndex(s[v.end:]); e != nil {
			hi = v.end + e[0]
		}
		if v.v != "perpetual" && !reOfTheContract().MatchString(s[lo:hi]) || reUponTheEnd().MatchString(s[lo:v.at]) {
			continue
		}
		keep = append(keep, v)
	}
	return keep
}

// reInitialBefore qualifies a period as the first term's: "the initial
// twenty (20) year term", "an original term of".
var reInitialBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:initial|original|first)\s+(?:term\s+of\s+|period\s+of\s+)?$`)
})

// renewalPeriods keeps, of the periods a clause writes, those written as
// a renewal's — after "renew … for", "extended for (up to)", "successive",
// or read from a renewal written without a number — when there are any,
// and leaves out those qualified as the initial term's: "an initial term
// of two (2) years … renewed for additional, successive periods of one (1)
// year each" renews for one year.
func renewalPeriods(s string, cands []valueAt) []valueAt {
	var renewal, other []valueAt
	for _, v := range cands {
		before := s[max(0, v.at-60):v.at]
		switch {
		case strings.HasPrefix(v.v, "successive ") || reSuccessive().MatchString(s[max(0, v.at-40):v.at]) || reRenewalBefore().MatchString(before):
			renewal = append(renewal, v)
		case !reInitialBefore().MatchString(s[max(0, v.at-30):v.at]):
			other = append(other, v)
		}
	}
	if len(renewal) > 0 {
		return renewal
	}
	if len(other) > 0 {
		return other
	}
	return cands
}

// pickValue returns the candidate the cue words point at (pickNear).
func pickValue(s string, cands []valueAt, c cues) (valueAt, bool) {
	if len(cands) == 0 {
		return valueAt{}, false
	}
	ranges := make([][2]int, len(cands))
	for i, v := range cands {
		ranges[i] = [2]int{v.at, v.end}
	}
	return cands[pickNear(s, ranges, c)], true
}

// A renewal written without a number: "renews automatically from year to
// year", "on a year-to-year basis", "automatically renewing annually",
// "shall renew automatically each year" — a renewal term of one year (one
// month for "month to month", "monthly"), when a word of renewing or
// continuing comes before it in its sentence.
var (
	rePeriodic = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:(year|month)[\s-]+to[\s-]+(?:year|month)|(annually|yearly|monthly)|(?:each|every)\s+(year|month))\b`)
	})
	reRenewWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:renew\w*|extend\w*|extension|continu\w*)\b[^.;]{0,80}$`)
	})
)

// periodicRenewals returns the renewals of s written without a number, as
// "successive 1 year" or "successive 1 month".
func periodicRenewals(s string) []valueAt {
	var out []valueAt
	for _, m := range rePeriodic().FindAllStringSubmatchIndex(s, -1) {
		if !reRenewWord().MatchString(s[max(0, m[0]-100):m[0]]) {
			continue
		}
		unit := ""
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				unit = strings.ToLower(s[m[2*g]:m[2*g+1]])
			}
		}
		switch unit {
		case "annually", "yearly":
			unit = "year"
		case "monthly":
			unit = "month"
		}
		out = append(out, valueAt{"successive 1 " + unit, m[0], m[1]})
	}
	return out
}

// reSuccessive is a word before a renewal period that says it repeats.
var reSuccessive = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:successive|consecutive)\b[^.;]{0,25}$`)
})

// contractDate is the date a contract is made or takes effect, as its
// preamble writes it: among the dates in its opening (page furniture
// left out), the one nearest "dated", "as of", "effective", "made",
// "entered into" or "commencing"; "" when the opening has no date. It is
// read once per contract, or from the contract's stored preparation
// (Sections).
func contractDate(p *detect.Prepared) string {
	return p.Memo(dateKey, func() any {
		if b, ok := p.Section(dateSection); ok && (len(b) == 0 || len(b) == len("2006-01-02")) {
			return string(b)
		}
		return preambleDate(p)
	}).(string)
}

// preambleDate is contractDate read from the contract's opening.
func preambleDate(p *detect.Prepared) string {
	opening := contractOpening(p, openingChars)
	var cands []valueAt
	for _, v := range allDatesAt(opening) {
		if !inFurniture(p, p.Index().RuneSpan(v.at, v.end)) {
			cands = append(cands, v)
		}
	}
	v, ok := pickDate(opening, cands, startCues)
	if !ok {
		return ""
	}
	return v.v
}

// startCues are the words that put a contract's own date in its preamble.
var startCues = cues{"date": 2, "effect": 2, "made": 1, "enter": 1, "commenc": 1, "as": 0.5}

// polarityAnswer reads a yes/no provision's answer from a cell's extracts
// (polarity.go) beside its neighbours nb (neighbour.go): the first extract,
// best first, that grants the provision gives Yes or Conditional; when
// every extract that mentions it excludes it, the answer is No and the
// evidence excludes the provision.
func polarityAnswer(p *playbook.Provision, nb []*playbook.Provision, ex []detect.Extract, occasion []bool) *Answer {
	a := polarityAnswerOnce(p, nb, ex, occasion)
	if a.Kind != KindYes && a.Kind != KindConditional || len(a.Spans) == 0 {
		return a
	}
	// the general statement first, the narrow ones after it: a cap on
	// "liability for damage to property" read first gives way to a later
	// extract that caps the "total liability under this Agreement"
	k := a.Spans[0].Extract
	if k < 0 || k >= len(ex) || !narrowScope(ex[k].Text) || generalScope(ex[k].Text) {
		return a
	}
	for m := k + 1; m < len(ex); m++ {
		if !generalScope(ex[m].Text) || narrowScope(ex[m].Text) {
			continue
		}
		b := polarityAnswerOnce(p, nb, ex[m:m+1], nil)
		if b.Kind != KindYes && b.Kind != KindConditional || len(b.Spans) == 0 {
			continue
		}
		for i := range b.Spans {
			b.Spans[i].Extract = m
		}
		return b
	}
	return a
}

var (
	// reNarrowScope ties a statement to one kind of claim or loss:
	// "liability for damage to tangible property", "liability with
	// respect to a Data Breach".
	reNarrowScope = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bliabilit(?:y|ies)\s+(?:\S+\s+){0,3}?(?:for|with\s+respect\s+to|in\s+respect\s+of|arising\s+from)\s+(?:any\s+)?(?:damage|loss|injury|destruction|death|breach|infringement|claims?\s+(?:for|of|arising)|[A-Z][a-z]+\s+[A-Z])`)
	})
	// reGeneralScope states a whole: "total liability under this
	// Agreement", "aggregate liability arising out of or relating to this
	// Agreement".
	reGeneralScope = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:total|aggregate|cumulative|entire|maximum)\s+(?:\S+\s+){0,2}?liabilit(?:y|ies)\b|\bliabilit(?:y|ies)\s+(?:\S+\s+){0,8}?(?:under|arising\s+(?:out\s+of|under)|in\s+connection\s+with|relating\s+to)\s+this\s+agreement\b`)
	})
)

// narrowScope reports whether s ties its statement to one kind of claim
// or loss; generalScope whether it states one for the whole contract.
func narrowScope(s string) bool  { return reNarrowScope().MatchString(s) }
func generalScope(s string) bool { return reGeneralScope().MatchString(s) }

// statedCausesReason says why a clause that allows the act only on stated
// causes does not grant a right that needs none.
const statedCausesReason = "the clause allows it only on stated causes, not without cause"

// noCauseSentence reads, in a clause whose focus allows a no-cause right only
// on stated causes, a sentence that grants the right in its playbook's
// defining words (a keyword of boost 3) and says it needs no cause: its
// polarity, focus and condition in s's bytes.
func noCauseSentence(p *playbook.Provision, nb []*playbook.Provision, s string) (polarity, bool) {
	if !needsNoCause(p) {
		return polarity{}, false
	}
	done := -1
	for _, sg := range segments(s) {
		a, b := sg.sentence[0], sg.sentence[1]
		if a == done || a < 0 || b > len(s) || a >= b {
			continue
		}
		done = a
		sent := s[a:b]
		if !saysNoCause(sent) || detect.KeywordWeight(p, sent, 3) == 0 {
			continue
		}
		_, pol, n := readBeside(p, nb, sent)
		if n != nil || pol.weight == 0 || pol.kind == KindNo || onStatedCauses(p, sent, pol) {
			continue
		}
		pol.focus[0] += a
		pol.focus[1] += a
		if pol.kind == KindConditional {
			pol.cond[0] += a
			pol.cond[1] += a
		}
		return pol, true
	}
	return polarity{}, false
}

// polarityAnswerOnce is polarityAnswer's reading, extract by extract.
// occasion, when given, marks the extracts that are items of a list of
// stated causes (listedOccasions).
func polarityAnswerOnce(p *playbook.Provision, nb []*playbook.Provision, ex []detect.Extract, occasion []bool) *Answer {
	var no, causes, beside *Answer
	noWeight, causesWeight := 0.0, 0.0
	for i, e := range ex {
		text, pol, n := readBeside(p, nb, e.Text)
		j := joinExtracts(ex[i : i+1])
		at := func(r [2]int, role string) []Span {
			sp, ok := j.span(r[0], r[1], role)
			if !ok {
				return nil
			}
			sp.Extract = i
			return []Span{sp}
		}
		switch {
		case pol.weight == 0:
			continue
		case n != nil:
			// the clause grants a neighbouring right the playbook says
			// the provision is not
			if beside == nil {
				beside = &Answer{Kind: KindNotFound, Text: "Not found", Reason: neighbourReason(p, n)}
				beside.Spans = at(pol.focus, "value")
			}
			continue
		case pol.kind == KindNo:
			if no == nil {
				no = &Answer{Kind: KindNo, Text: "No", Excludes: true, Spans: at(pol.focus, "exclusion")}
				noWeight = pol.weight
			}
			continue
		case onStatedCauses(p, text, pol) || i < len(occasion) && occasion[i] && needsNoCause(p):
			if g, ok := noCauseSentence(p, nb, text); ok {
				// another sentence of the clause grants the right in the
				// playbook's defining words and says it needs no cause
				// ("PivX may terminate this Agreement for convenience by
				// giving … notice", before a termination on insolvency)
				if g.kind == KindConditional {
					return &Answer{Kind: KindConditional, Text: "Conditional", Condition: g.condition,
						Spans: append(at(g.focus, "value"), at(g.cond, "condition")...)}
				}
				return &Answer{Kind: KindYes, Text: "Yes", Spans: at(g.focus, "value")}
			}
			// a right the playbook defines as needing no cause ("without
			// cause", "for convenience") is not granted by a clause that
			// allows the act only on stated causes ("Manufacturer may
			// terminate … by written notice: (a) if Net Purchases …"):
			// that clause grants a neighbouring right
			if causes == nil {
				causes = &Answer{Kind: KindNotFound, Text: "Not found",
					Reason: statedCausesReason}
				causes.Spans = at(pol.focus, "value")
				causesWeight = pol.weight
			}
			continue
		case causes != nil && pol.weight < causesWeight:
			// nor does a weaker mention ("Upon the expiration or
			// termination of this Agreement, … may repurchase …")
			// outweigh a clause that allows the act only on stated causes
			continue
		case no != nil && pol.weight < noWeight:
			// a weaker mention ("may terminate … if …") does not outweigh
			// a clause that excludes the provision in its own words
			continue
		case pol.kind == KindConditional:
			return &Answer{Kind: KindConditional, Text: "Conditional", Condition: pol.condition,
				Spans: append(at(pol.focus, "value"), at(pol.cond, "condition")...)}
		default:
			return &Answer{Kind: KindYes, Text: "Yes", Spans: at(pol.focus, "value")}
		}
	}
	if no != nil {
		return no
	}
	if causes != nil {
		return causes
	}
	if beside != nil {
		return beside
	}
	return &Answer{Kind: KindYes, Text: "Yes"}
}

// A term clause often defers to a definition: "The Term of this Agreement
// shall be for the Contract Period" … ""Contract Period" shall mean that
// period of time from February 21, 2011 through December 31, 2012". When a
// cell's best extract writes no end of its own and names such a term, the
// end date is read from the term's definition, whose passage becomes the
// cell's first extract.
var (
	reDefersTo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:for|during|throughout|be|is|until\s+the\s+end\s+of)\s+the\s+([A-Z][A-Za-z]*(?:\s[A-Z][A-Za-z]*){0,3})\b`)
	})
	reMeansAfter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^["”]\s*(?:shall\s+)?(?:mean|means|has\s+the\s+meaning|is\s+defined\s+as)\b`)
	})
)

// definedEndAnswer reads an end date from the definition of the term the
// best extract names; nil when it names none or the definition gives no
// end.
func definedEndAnswer(p *detect.Prepared, pr *playbook.Provision, ex []detect.Extract, scores []float64) ([]detect.Extract, *Answer) {
	if len(ex) == 0 {
		return nil, nil
	}
	best := ex[0].Text
	dates := datesDefinedIn(p)
	start := contractDate(p)
	if d, _, ok := endDateAt(best, start, nil, dates); ok && (d != "perpetual" || rePerpetual().MatchString(best)) {
		return nil, nil // the clause writes its own end ("unless terminated" is not one)
	}
	text := p.Doc().Doc.Text
	for _, m := range reDefersTo().FindAllStringSubmatchIndex(best, -1) {
		name := best[m[2]:m[3]]
		if words := strings.Fields(name); reDocWord().MatchString(words[len(words)-1]) {
			continue // "for the Supply Agreement" names a document, not a term
		}
		for _, q := range []string{"\"" + name, "“" + name} {
			for from := 0; ; {
				k := strings.Index(text[from:], q)
				if k < 0 {
					break
				}
				k += from
				from = k + len(q)
				if !reMeansAfter().MatchString(text[k+len(q) : min(len(text), k+len(q)+30)]) {
					continue
				}
				def := text[k:min(len(text), k+600)]
				if e := reSentenceEnd().FindStringIndex(def); e != nil {
					def = def[:e[0]+1]
				}
				d, at, ok := endDateAt(def, start, cueWordsOf(pr), dates)
				if !ok {
					break
				}
				sp := p.Index().RuneSpan(k, k+len(def))
				out, idx := extractHolding(p, ex, document.Span{Start: sp.Start, End: sp.Start + 1}, scores)
				if idx < 0 {
					return nil, nil
				}
				a := &Answer{Kind: KindValue, Text: d}
				e := out[idx]
				for _, r := range at {
					rs := p.Index().RuneSpan(k+r[0], k+r[1])
					if e.Span.Contains(rs) {
						a.Spans = append(a.Spans, Span{Extract: idx, Span: rs, Role: "value"})
					}
				}
				return out, a
			}
		}
	}
	return nil, nil
}

var (
	// rePayWord says a segment is about paying.
	rePayWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:pay\w*|paid|due|invoic\w*|net|remit\w*|settle\w*|receipt)\b`)
	})
	// reDisputeWord says a segment is about disputing or objecting, not
	// paying.
	reDisputeWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:disput\w*|contest\w*|object\w*|challeng\w*|quer(?:y|ies))\b`)
	})
	// reNoticeWord says a segment measures a notice: "on sixty (60) days'
	// notice of a price change" is not a time to pay.
	reNoticeWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bnotice\b`)
	})
	// reTermNoun follows a period that measures a term, not a time to
	// pay: "the initial one-year term", "a two (2) year renewal period".
	reTermNoun = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\W{0,3}(?:initial\s+|renewal\s+)?(?:term|terms|renewal|period\s+of\s+this\s+agreement)\b`)
	})
)

// timeToPay keeps, of the periods a payment provision's extracts write,
// those that measure the time to pay: a period in a segment about paying
// ("Net forty-five (45) days after the date of invoice"), not one that
// measures a window to dispute an invoice ("within twenty-five (25) days
// … dispute"), a notice or a term ("the initial one-year term").
func timeToPay(s string, cands []valueAt) []valueAt {
	segs := segments(s)
	segOf := func(at int) string {
		for _, sg := range segs {
			if sg.at <= at && at < sg.end {
				return s[sg.at:sg.end]
			}
		}
		return ""
	}
	var pay, other []valueAt
	for _, v := range cands {
		seg := segOf(v.at)
		switch {
		case reDisputeWord().MatchString(seg), reNoticeWord().MatchString(seg), reTermNoun().MatchString(s[v.end:]):
			continue
		case rePayWord().MatchString(seg):
			pay = append(pay, v)
		default:
			other = append(other, v)
		}
	}
	if len(pay) > 0 {
		return pay
	}
	return other
}

// maxOwnDateAt is how far into the best extract (bytes) a contract dates
// itself: its title and opening sentence.
const maxOwnDateAt = 600

// ownBlankDates returns the blank dates of the opening of j's best extract
// ("AGENCY AGREEMENT , 2009", "dated as of ____________, 2009"), and where
// the opening ends (bytes of s).
func ownBlankDates(j joined, s string) ([]valueAt, int) {
	end := len(s)
	if len(j.starts) > 1 {
		end = j.starts[1]
	}
	end = min(end, maxOwnDateAt)
	return blankDatesAt(s[:end]), end
}

// endsSomething reports whether a date provision's cue words speak of an
// end (expiry, termination): only then can its date be "perpetual".
func endsSomething(c cues) bool {
	for _, w := range []string{"expire", "expiration", "expiry", "terminate", "termination", "end"} {
		if c[detect.StemWord(w)] > 0 {
			return true
		}
	}
	return false
}
