package answer

import (
	"regexp"
	"sync"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Read reads the answer of provision p from the extracts chosen for it in
// contract c (best first), and returns it with the extracts it was read
// from: the chosen ones, or — for the parties, a title and an end date
// defined elsewhere — the passages of c that hold the answer, each with
// its score from scores (every passage's probability for p, in passage
// order).
//
// found says whether the provision was found (the best passage's
// confidence reached its threshold). A cell not found has the answer Not
// found, unless its best extract is a clause that excludes a yes/no
// provision: that answer (kind No, Excludes set) is shown below the
// threshold too. A found cell whose evidence excludes the provision gets
// an answer with Excludes set as well; the caller then shows the cell as
// not found.
//
// c may be nil: the answer is then read from the extracts alone (the model
// pass reads its verified quotations so), and scores are not used.
//
// Read reads p alone; ReadAmong reads it beside the provisions its
// playbook says it is not.
func Read(c *detect.Prepared, p *playbook.Provision, ex []detect.Extract, scores []float64, found bool) (*Answer, []detect.Extract) {
	return ReadAmong(c, p, nil, ex, scores, found)
}

// ReadAmong is Read beside p's neighbours nb, the provisions its playbook's
// Excludes names (playbook.Playbook.Excluded): a yes/no provision is not
// answered Yes or Conditional from a clause that holds only a neighbour's
// keywords (neighbour.go); such a cell is Not found, and says which
// neighbour its clause is.
func ReadAmong(c *detect.Prepared, p *playbook.Provision, nb []*playbook.Provision, ex []detect.Extract, scores []float64, found bool) (*Answer, []detect.Extract) {
	if !found {
		// a clause that excludes the provision is shown as such even
		// below the threshold; its cue weight is checked first, as most
		// contracts lack a provision and their best clause weighs too
		// little to be read (the clause's roles and polarity cost
		// regular expressions over it)
		if p.Answer == playbook.AnswerYesNo && len(ex) > 0 && exclusionWeight(p, ex[0].Text) >= minExclusionWeight {
			if a := polarityAnswer(p, nb, maskInoperative(ex[:1], rolesOf(c, p, ex[:1])), nil); a.Excludes {
				return a, ex
			}
		}
		// a date provision the contract defines by its own date has it,
		// whatever its passages scored
		if a, at, ok := definedAsOwnDate(c, p, ex, scores); ok {
			return a, at
		}
		return NotFound(), ex
	}
	if c != nil {
		var at []detect.Extract
		var a *Answer
		switch p.Answer {
		case playbook.AnswerParty:
			// The parties are read where a contract introduces them (its
			// preamble and signature block), not where the detector finds
			// a clause that mentions their names.
			at, a = partyAnswer(c, scores)
		case playbook.AnswerText:
			// A provision that asks for the contract's title is read
			// where the contract writes it.
			if asksForTitle(p) {
				at, a = titleAnswer(c, ex, scores)
			}
		case playbook.AnswerEndDate:
			// A term clause that defers to a definition ("for the
			// Contract Period") is read from the definition.
			at, a = definedEndAnswer(c, p, ex, scores)
		}
		if a != nil {
			return a, at
		}
	}
	if p.Answer != playbook.AnswerYesNo {
		a := readAnswer(p, c, ex)
		if p.Answer == playbook.AnswerEndDate && c != nil && (a.Text == "" || a.Text == "perpetual") {
			// "until the earlier of the following:" ends where its list
			// items say
			if lex := withListItems(c, ex, scores); len(lex) > len(ex) {
				if la := readAnswer(p, c, lex); la.Text != "" && la.Text != "perpetual" {
					a, ex = la, lex
				}
			}
		}
		if p.Answer == playbook.AnswerEndDate && c != nil {
			// the end the contract's opening gives itself ("shall
			// terminate on July 31, 2009") over a term read from an
			// exhibit's or another instrument's clause
			if oa, oex, ok := openingEnd(c, a, ex, scores); ok {
				return oa, leadWithAnswer(oa, oex)
			}
		}
		if p.Answer == playbook.AnswerDate && c != nil && a.Text == "" {
			// "made as of 31 December," | "1996, between …": a date its
			// passage cuts short is read on into the passage that holds
			// its year
			if ra, rex, ok := dateRunsOn(c, p, ex, scores); ok {
				return ra, leadWithAnswer(ra, rex)
			}
			// "effective on the date on which the Parties sign": the
			// date of the last signature, where the signatures are dated
			if sa, sex, ok := signedOn(c, ex, scores); ok {
				return sa, leadWithAnswer(sa, sex)
			}
			// "effective as of the date first above written": the date
			// the contract's opening writes
			if sa, sex, ok := datedAbove(c, ex, scores); ok {
				return sa, leadWithAnswer(sa, sex)
			}
			// the provision's term defined by the contract's own date
			// ("“Effective Date” means … the date specified in the
			// preamble hereof") where the passages found do not say it
			if sa, sex, ok := definedAsOwnDate(c, p, ex, scores); ok {
				return sa, sex
			}
			// a contract whose opening writes no date, not even a blank
			// one, is made when the last party signs: the date of its
			// last dated signature
			if sa, sex, ok := undatedSigned(c, ex, scores); ok {
				return sa, leadWithAnswer(sa, sex)
			}
		}
		return a, leadWithAnswer(a, ex)
	}
	// Yes, Conditional or No only from a clause that operates (role.go)
	roles := rolesOf(c, p, ex)
	reads := roles
	if top := bestExtract(ex); top >= 0 && roles[top] != roleOperative {
		// the passage that found the provision does not operate: another
		// clause answers only when it scores near it, not a clause far
		// below the threshold that happens to share a word
		reads = append([]role(nil), roles...)
		for i, e := range ex {
			if e.Score < ex[top].Score/2 {
				reads[i] = roles[top]
			}
		}
	}
	op := joinPageBreaks(c, maskInoperative(ex, reads))
	a := polarityAnswer(p, nb, op, listedOccasions(c, p, op))
	if a.Kind == KindNotFound && a.Reason == statedCausesReason && c != nil {
		// "… may be terminated as follows:" is a list of occasions only
		// when its items name them
		if ia, iex, ok := grantedByItems(c, p, nb, op, a, scores); ok {
			withFees, ia := withHolders(c, p, nb, iex, ia, scores)
			iex = append(iex, withFees[len(iex):]...)
			return ia, leadWithAnswer(ia, iex)
		}
	}
	if a.Kind == KindYes && len(a.Spans) == 0 {
		// nothing that operates speaks of the provision: a clause that
		// only mentions it is not the provision
		for i, e := range ex {
			if roles[i] != roleOperative && exclusionWeight(p, e.Text) > 0 {
				return &Answer{Kind: KindNotFound, Text: "Not found",
					Reason: "mentioned only in " + roles[i].String() + where(e)}, lead(ex, i)
			}
		}
	}
	if a.Kind == KindNotFound {
		return a, ex
	}
	// who holds the right, on what terms
	withFees, a := withHolders(c, p, nb, op, a, scores)
	// the extracts a holder's terms added follow the cell's own
	ex = append(append([]detect.Extract(nil), ex...), withFees[len(ex):]...)
	return a, leadWithAnswer(a, ex)
}

// bestExtract returns the index of the extract with the highest score (-1
// for none).
func bestExtract(ex []detect.Extract) int {
	k := -1
	for i, e := range ex {
		if k < 0 || e.Score > ex[k].Score {
			k = i
		}
	}
	return k
}

// where names the clause of e, " (path)", or nothing.
func where(e detect.Extract) string {
	if e.Path == "" {
		return ""
	}
	return " (" + e.Path + ")"
}

// lead returns ex with extract k first (the others in their order).
func lead(ex []detect.Extract, k int) []detect.Extract {
	if k <= 0 || k >= len(ex) {
		return ex
	}
	out := make([]detect.Extract, 0, len(ex))
	out = append(out, ex[k])
	out = append(out, ex[:k]...)
	return append(out, ex[k+1:]...)
}

// leadWithAnswer puts first the extract the answer was read from (its
// first value or exclusion span), so that the clause a cell names is the
// one that holds the answer's words; a's spans are renumbered in place.
func leadWithAnswer(a *Answer, ex []detect.Extract) []detect.Extract {
	k := -1
	for _, sp := range a.Spans {
		if sp.Role == "value" || sp.Role == "exclusion" {
			k = sp.Extract
			break
		}
	}
	if k <= 0 || k >= len(ex) {
		return ex
	}
	renum := func(i int) int {
		switch {
		case i == k:
			return 0
		case i < k:
			return i + 1
		}
		return i
	}
	for i := range a.Spans {
		a.Spans[i].Extract = renum(a.Spans[i].Extract)
	}
	for h := range a.Holders {
		for i := range a.Holders[h].Spans {
			a.Holders[h].Spans[i].Extract = renum(a.Holders[h].Spans[i].Extract)
		}
	}
	return lead(ex, k)
}

// What the answer readers find in a whole contract once, kept with the
// prepared contract (detect.Prepared.Memo).
type memoKey int

const (
	runningKey    memoKey = iota // running lines (runningLines)
	datesKey                     // defined dates (datesDefinedIn)
	partiesKey                   // the parties (partyReads)
	termsKey                     // the terms defined in quotation marks (definesTerm)
	agreeingKey                  // where the operative part starts (agreeingAt)
	dateKey                      // the contract's own date (contractDate)
	signedKey                    // the latest dated signature (lastSignature)
	openingEndKey                // the end the opening writes (openingEndOf)
	breaksKey                    // running lines and page furniture, by start (pageBreaks)
)

// runningLines returns c's running lines, found on first use.
func runningLines(c *detect.Prepared) []document.Span {
	return c.Memo(runningKey, func() any {
		if b, ok := c.Section(runningSection); ok {
			if spans, err := decodeSpans(b, c.Index().Len()); err == nil {
				return spans
			}
		}
		return repeatedLines(c.Index(), c.Doc().Doc.Text)
	}).([]document.Span)
}

// datesDefinedIn returns the dates c defines, found on first use (it reads
// the whole contract) or read from the contract's stored preparation
// (Sections).
func datesDefinedIn(c *detect.Prepared) map[string]string {
	return c.Memo(datesKey, func() any {
		if b, ok := c.Section(datesSection); ok {
			if dates, err := decodeDates(b); err == nil {
				return dates
			}
		}
		return definedDates(c.Doc().Doc.Text)
	}).(map[string]string)
}

// signedOn reads a date the extracts define as the date of signature from
// the dated signatures of c: the latest (the day the last party signed);
// when the signatures are not dated, the date the contract's opening gives
// it ("made and executed on this the 18th day of May, 2001"). The passage
// that holds it is added to the extracts.
func signedOn(c *detect.Prepared, ex []detect.Extract, scores []float64) (*Answer, []detect.Extract, bool) {
	if !reSigningDate().MatchString(joinExtracts(ex).s) {
		return nil, nil, false
	}
	last, sp, ok := lastSignature(c)
	if !ok {
		// signatures not dated: the date the contract says it is made
		// and executed on, in its opening
		v, at, ok := openingDate(c)
		if !ok {
			return nil, nil, false
		}
		last, sp = v, at
	}
	out, k := extractAppended(c, append([]detect.Extract(nil), ex...), sp, scores)
	if k < 0 {
		return nil, nil, false
	}
	return &Answer{Kind: KindValue, Text: last.v, Spans: []Span{{Extract: k, Span: sp, Role: "value"}}}, out, true
}

// lastSignature returns the latest date of c's signature block and where
// it is written (code points); false when the signatures are not dated.
// It is read on first use and kept with c.
func lastSignature(c *detect.Prepared) (valueAt, document.Span, bool) {
	s := c.Memo(signedKey, func() any {
		var r signature
		r.v, r.sp, r.ok = readLastSignature(c)
		return r
	}).(signature)
	return s.v, s.sp, s.ok
}

// signature is what lastSignature returns.
type signature struct {
	v  valueAt
	sp document.Span
	ok bool
}

func readLastSignature(c *detect.Prepared) (valueAt, document.Span, bool) {
	text := c.Doc().Doc.Text
	var last valueAt
	for _, d := range signatureDates(text) {
		if d.v > last.v {
			last = d
		}
	}
	if last.v == "" {
		return valueAt{}, document.Span{}, false
	}
	lo := utf8.RuneCountInString(text[:last.at])
	return last, document.Span{Start: lo, End: lo + utf8.RuneCountInString(text[last.at:last.end])}, true
}

// undatedSigned reads the date of a contract whose opening writes none
// (no date, no blank left for one) from its last dated signature; the
// passage that holds it is added to the extracts.
func undatedSigned(c *detect.Prepared, ex []detect.Extract, scores []float64) (*Answer, []detect.Extract, bool) {
	if len(blankDatesAt(contractOpening(c, maxOwnDateAt))) > 0 {
		return nil, nil, false
	}
	last, sp, ok := lastSignature(c)
	if !ok {
		return nil, nil, false
	}
	// (a short contract's opening may reach its signatures)
	if _, at, ok := openingDate(c); ok && at != sp {
		return nil, nil, false
	}
	out, k := extractAppended(c, append([]detect.Extract(nil), ex...), sp, scores)
	if k < 0 {
		return nil, nil, false
	}
	return &Answer{Kind: KindValue, Text: last.v, Spans: []Span{{Extract: k, Span: sp, Role: "value"}}}, out, true
}

// openingDate returns the date c's opening gives the contract (page
// furniture left out), and where it is written (code points).
func openingDate(c *detect.Prepared) (valueAt, document.Span, bool) {
	opening := contractOpening(c, openingChars)
	var cands []valueAt
	for _, v := range allDatesAt(opening) {
		if !inFurniture(c, c.Index().RuneSpan(v.at, v.end)) {
			cands = append(cands, v)
		}
	}
	v, ok := pickDate(opening, cands, startCues)
	if !ok {
		return valueAt{}, document.Span{}, false
	}
	return v, c.Index().RuneSpan(v.at, v.end), true
}

// reDateAbove refers to the date a contract's opening writes: "the date
// first above written", "the day and year first set forth above", "the
// date hereof", "the date of this Agreement", "the date specified in the
// preamble".
var reDateAbove = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:(?:date|day)\s+(?:specified|set\s+(?:forth|out)|stated|written|given|referred\s+to)\s+in\s+the\s+(?:preamble|heading|opening\s+paragraph|first\s+paragraph|introductory\s+paragraph)|(?:day\s+and\s+)?(?:date|year)\s+(?:first\s+)?(?:above|hereinabove|herein\s*above)\s+(?:written|set\s+(?:forth|out)|stated|mentioned)|(?:date|day\s+and\s+year)\s+(?:first\s+)?(?:written|set\s+(?:forth|out)|stated|mentioned)\s+above|date\s+(?:hereof|of\s+this\s+agreement))\b`)
})

// datedAbove reads a date the extracts give as the contract's own ("shall
// become effective as of the day and year first above written") from the
// date c's opening writes; the passage that holds it is added to the
// extracts.
func datedAbove(c *detect.Prepared, ex []detect.Extract, scores []float64) (*Answer, []detect.Extract, bool) {
	if !reDateAbove().MatchString(joinExtracts(ex).s) {
		return nil, nil, false
	}
	v, sp, ok := openingDate(c)
	if !ok {
		return nil, nil, false
	}
	out, k := extractAppended(c, append([]detect.Extract(nil), ex...), sp, scores)
	if k < 0 {
		return nil, nil, false
	}
	return &Answer{Kind: KindValue, Text: v.v, Spans: []Span{{Extract: k, Span: sp, Role: "value"}}}, out, true
}

var (
	// reDateCut is a date cut short at the end of a passage: a day and a
	// month ("31 December,"), or a month and a day ("December 31,"),
	// and nothing after them.
	reDateCut = sync.OnceValue(func() *regexp.Regexp {
		m := `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
		return regexp.MustCompile(`(?i)(?:\b\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?` + m + `|\b` + m + `\.?\s+\d{1,2}(?:st|nd|rd|th)?)[,.]?\s*$`)
	})
	// reYearOn is the year that continues such a date in the text after
	// the passage, past white space and the underline a filing draws
	// ("---------").
	reYearOn = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\s|[-_]{2,})*((?:19|20)\d\d)\b`)
	})
)

// maxYearOn is how far after a passage cut inside a date (bytes) its
// year may be written.
const maxYearOn = 200

// dateRunsOn reads a date an extract's passage cuts short — the clause
// parser ends a paragraph at a wide gap, and a filing may draw its
// underline there ("made as of 31 December, ---------  1996") — from the
// extracts and the passage that holds its year, which is added to them;
// the answer cites the year as well as the words its passage holds.
func dateRunsOn(c *detect.Prepared, p *playbook.Provision, ex []detect.Extract, scores []float64) (*Answer, []detect.Extract, bool) {
	text := c.Doc().Doc.Text
	for _, e := range ex {
		if !reDateCut().MatchString(e.Text) {
			continue
		}
		b := c.Index().Byte(e.Span.End)
		m := reYearOn().FindStringSubmatchIndex(text[b:min(len(text), b+maxYearOn)])
		if m == nil {
			continue
		}
		year := c.Index().RuneSpan(b+m[2], b+m[3])
		out, k := extractAppended(c, append([]detect.Extract(nil), ex...), year, scores)
		if k < 0 {
			continue
		}
		a := readAnswer(p, c, out)
		if a.Text == "" {
			continue
		}
		// the value's span stops at its passage's end: its year is
		// cited too
		for _, sp := range a.Spans {
			if sp.Role == "value" && sp.Span.End == e.Span.End {
				a.Spans = append(a.Spans, Span{Extract: k, Span: year, Role: "value"})
				break
			}
		}
		return a, out, true
	}
	return nil, nil, false
}
