package review

import (
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
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
	ex     []Extract
}

func joinExtracts(ex []Extract) joined {
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

// span maps the bytes [lo, hi) of the joined text to an AnswerSpan. A range
// that runs past its extract is cut at the extract's end.
func (j joined) span(lo, hi int, role string) (AnswerSpan, bool) {
	k := -1
	for i, st := range j.starts {
		if st <= lo {
			k = i
		}
	}
	if k < 0 || hi <= lo {
		return AnswerSpan{}, false
	}
	text := j.ex[k].Text
	a, b := lo-j.starts[k], min(hi-j.starts[k], len(text))
	if a >= len(text) || b <= a {
		return AnswerSpan{}, false
	}
	start := j.ex[k].Span.Start + utf8.RuneCountInString(text[:a])
	end := start + utf8.RuneCountInString(text[a:b])
	return AnswerSpan{Extract: k, Span: document.Span{Start: start, End: end}, Role: role}, true
}

// notFoundAnswer is the answer of a cell that was not found.
func notFoundAnswer() *Answer { return &Answer{Kind: KindNotFound, Text: "Not found"} }

// readAnswer reads a found cell's answer from its extracts, in the
// provision's answer format. A value format whose value the text does not
// give (a date clause that only says "the date of the last signature")
// gives kind "value" with no text: the extract is the answer.
func readAnswer(p *Provision, prep *prepared, ex []Extract) *Answer {
	j := joinExtracts(ex)
	s := j.s
	a := &Answer{Kind: KindValue}
	add := func(lo, hi int, role string) {
		if sp, ok := j.span(lo, hi, role); ok {
			a.Spans = append(a.Spans, sp)
		}
	}
	switch p.Answer {
	case AnswerYesNo:
		a.Kind, a.Text = KindYes, "Yes"
	case AnswerDate:
		if d, lo, hi, ok := firstDateAt(s); ok {
			a.Text = d
			add(lo, hi, "value")
		} else if loc := rePerpetual().FindStringIndex(s); loc != nil {
			a.Text = "perpetual"
			add(loc[0], loc[1], "value")
		}
	case AnswerEndDate:
		start := ""
		if prep != nil {
			// The contract's own first date (its preamble), for a term
			// that runs "from the Effective Date".
			start, _ = FirstDate(prep.ix.Slice(document.Span{Start: 0, End: min(openingChars, prep.ix.Len())}))
		}
		if d, at, ok := endDateAt(s, start); ok {
			a.Text = d
			for _, r := range at {
				add(r[0], r[1], "value")
			}
		}
	case AnswerDuration:
		if loc := rePerpetual().FindStringIndex(s); loc != nil {
			a.Text = "perpetual"
			add(loc[0], loc[1], "value")
		} else if d, lo, hi, ok := firstDurationAt(s); ok {
			a.Text = d
			add(lo, hi, "value")
		}
	case AnswerJurisdiction:
		if name, at := jurisdictionAt(s); name != "" {
			a.Text = name
			add(at, at+len(name), "value")
		}
	case AnswerParty:
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
	case AnswerAmount:
		if loc := reAmount().FindStringIndex(s); loc != nil {
			a.Text = strings.TrimSpace(s[loc[0]:loc[1]])
			add(loc[0], loc[1], "value")
		}
	}
	return a
}

// readValue is the text of readAnswer: the value a found cell shows.
func readValue(p *Provision, prep *prepared, ex []Extract) string {
	return readAnswer(p, prep, ex).Text
}

// answerFromModel is the answer of a cell the model pass found, whose value
// (normalised by modelValue) is v: the offline reading of the verified
// quotations when it reads the same value (it has the spans), else v with
// the span where the quotations write it verbatim, if they do.
func answerFromModel(p *Provision, v string, ex []Extract) *Answer {
	a := readAnswer(p, nil, ex)
	if v == "" || v == a.Text {
		return a
	}
	out := &Answer{Kind: a.Kind, Text: v}
	if a.Kind == KindValue {
		j := joinExtracts(ex)
		if at := strings.Index(strings.ToLower(j.s), strings.ToLower(v)); at >= 0 {
			if sp, ok := j.span(at, at+len(v), "value"); ok {
				out.Spans = []AnswerSpan{sp}
			}
		}
	}
	return out
}
