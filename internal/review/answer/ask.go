package answer

import (
	"regexp"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Ask is a value a deal-room question asks for beside the provision it is
// about: "Which of our contracts can be terminated for convenience, and on
// what notice?" asks for each contract's notice period, "Which contracts
// cap liability, and at how much?" for the cap, "Which contracts restrict
// assignment, and under which law?" for the governing law. The value is
// read per contract from the provision's cell (AskedValue), per party
// where the parties hold the right on different terms.
type Ask struct {
	// Kind is what is asked: "notice", "period", "amount", "jurisdiction"
	// or "date".
	Kind string `json:"kind"`
	// Text is the question's words that ask it ("on what notice").
	Text string `json:"text"`
}

// The kinds of value a question may ask for.
const (
	AskNotice       = "notice"
	AskPeriod       = "period"
	AskAmount       = "amount"
	AskJurisdiction = "jurisdiction"
	AskDate         = "date"
)

// askForms are the questions' ways of asking for a value, most specific
// first ("how much notice" asks for a notice, not an amount).
var askForms = sync.OnceValue(func() []struct {
	kind string
	re   *regexp.Regexp
} {
	return []struct {
		kind string
		re   *regexp.Regexp
	}{
		{AskNotice, regexp.MustCompile(`(?i)\b(?:(?:on|with|upon|at|after|giving)\s+(?:what|which|how\s+much)(?:\s+period\s+of)?\s+(?:prior\s+)?notice|how\s+much\s+(?:prior\s+)?notice|how\s+(?:long|many\s+days(?:'|’)?)\s+(?:of\s+)?notice|what\s+(?:is\s+the\s+)?notice(?:\s+period)?|(?:with|and)\s+(?:the|their|its)\s+notice\s+periods?)\b`)},
		{AskJurisdiction, regexp.MustCompile(`(?i)\b(?:(?:under|by|in)\s+(?:which|what)\s+(?:law|laws|jurisdiction|state(?:'|’)s\s+law)|(?:which|what)\s+(?:governing\s+)?(?:law|laws|jurisdiction)\s+(?:governs|applies|apply|govern)|(?:which|what)\s+governing\s+law)\b`)},
		{AskPeriod, regexp.MustCompile(`(?i)\b(?:for\s+how\s+long|how\s+long|for\s+what\s+(?:period|term|time)|what\s+(?:period|term|duration)|how\s+many\s+(?:days|weeks|months|years))\b`)},
		{AskAmount, regexp.MustCompile(`(?i)\b(?:(?:at|for|of|to)\s+how\s+much|how\s+much|(?:at|for|of|to)\s+what\s+(?:amount|sum|level|figure)|what\s+(?:amount|sum|fee|fees|price|cap|limit))\b`)},
		{AskDate, regexp.MustCompile(`(?i)\b(?:(?:on|by|from|until)\s+(?:what|which)\s+date|what\s+date|by\s+when)\b`)},
	}
})

// ParseAsk reads the value a deal-room question about provision p asks
// for, or returns nil when it asks for none, or when the provision's own
// answer is that value (a question about the Notice Period to Terminate
// Renewal asks nothing beside it).
func ParseAsk(question string, p *playbook.Provision) *Ask {
	for _, f := range askForms() {
		loc := f.re.FindStringIndex(question)
		if loc == nil {
			continue
		}
		if f.kind == AskJurisdiction && p.Answer == playbook.AnswerJurisdiction ||
			f.kind == AskDate && (p.Answer == playbook.AnswerDate || p.Answer == playbook.AnswerEndDate) ||
			(f.kind == AskPeriod || f.kind == AskNotice) && p.Answer == playbook.AnswerDuration ||
			f.kind == AskAmount && p.Answer == playbook.AnswerAmount {
			return nil
		}
		return &Ask{Kind: f.kind, Text: strings.TrimSpace(question[loc[0]:loc[1]])}
	}
	return nil
}

// AskedValue reads the value ask asks for from a found cell: its answer a
// (its holders' notices, per party where they differ) and its extracts
// ex. It returns the value ("Customer: 60 days; Provider: 180 days",
// "New York", "US$1,000,000") and where it was read (spans inside ex), or
// "" when the cell does not say.
func (ask *Ask) AskedValue(p *playbook.Provision, a *Answer, ex []detect.Extract) (string, []Span) {
	if ask == nil || len(ex) == 0 {
		return "", nil
	}
	if ask.Kind == AskNotice && a != nil {
		var parts []string
		var spans []Span
		distinct := map[string]bool{}
		plain := true
		for _, h := range a.Holders {
			if h.Notice == "" || h.Kind == KindNo {
				continue
			}
			line := h.Party + ": " + h.Notice
			if h.Kind == KindConditional {
				line += " (" + conditionPhrase(h.Condition) + ")"
				plain = false
			}
			parts = append(parts, line)
			distinct[h.Notice] = true
			for _, sp := range h.Spans {
				if sp.Role == "notice" {
					spans = append(spans, sp)
				}
			}
		}
		switch {
		case len(distinct) == 1 && plain:
			for n := range distinct {
				return n, spans
			}
		case len(parts) > 0:
			return strings.Join(parts, "; "), spans
		}
	}
	j := joinExtracts(ex)
	c := cueWordsOf(p)
	span := func(v valueAt) (string, []Span) {
		sp, ok := j.span(v.at, v.end, "value")
		if !ok {
			return v.v, nil
		}
		return v.v, []Span{sp}
	}
	switch ask.Kind {
	case AskNotice:
		// the first extract, best first, that asks for notice
		for i, e := range ex {
			at := j.starts[i]
			if n, r, ok := noticeIn(e.Text); ok {
				return span(valueAt{n, at + r[0], at + r[1]})
			}
		}
	case AskPeriod:
		var cands []valueAt
		for _, v := range allDurationsAt(j.s) {
			if !reNoticeFollows().MatchString(j.s[v.end:min(len(j.s), v.end+60)]) {
				cands = append(cands, v)
			}
		}
		if v, ok := pickValue(j.s, cands, c); ok {
			return span(v)
		}
	case AskAmount:
		if v, ok := pickValue(j.s, generalLimits(j.s, amountsAt(j.s)), c); ok {
			return span(v)
		}
	case AskJurisdiction:
		if a != nil && p.Answer == playbook.AnswerJurisdiction && a.Text != "" {
			return a.Text, a.Spans
		}
		if name, at := jurisdictionAt(j.s); name != "" {
			return span(valueAt{name, at, at + len(name)})
		}
	case AskDate:
		if v, ok := pickDate(j.s, allDatesAt(j.s), c); ok {
			return span(v)
		}
	}
	return "", nil
}
