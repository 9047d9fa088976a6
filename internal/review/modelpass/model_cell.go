package modelpass

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/progress"
	"github.com/pakton/pakton/internal/report"
)

// buildCell turns one provision's model answers into a cell. Every
// quotation is verified against the contract (report.Verify, as for ask):
// found verbatim in the passage it named, it keeps its exact span; found
// elsewhere in the contract, it is re-located there and noted; found
// nowhere, it is dropped and noted. The cell is found only when the
// model's final answer says so and at least one quotation verified.
func buildCell(ctx context.Context, d detect.Doc, p *playbook.Provision, offline review.Cell, a *modelAnswer) review.Cell {
	c := review.Cell{DocID: offline.DocID, DocName: offline.DocName, Provision: p.Name, Method: review.MethodModel, Answer: answer.NotFound()}
	final := a.FollowUp
	if !final.Found {
		// "Not found": the best offline candidate stays for the reviewer
		// to check the abstention against.
		c.Extracts = offline.Extracts
		c.Confidence = final.Confidence
		if a.First.Found {
			c.Notes = append(c.Notes, "the model withdrew its first answer (found) on its second look")
		}
		if offline.Found && len(offline.Extracts) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("the offline finder found it (confidence %.2f) in %s; the model did not", offline.Confidence, where(offline.Extracts[0])))
		}
		return c
	}
	quotes := mergedQuotes(a)
	ex, added, notes := verifyQuotes(ctx, d, quotes, len(a.First.Quotes))
	c.Notes = append(c.Notes, notes...)
	if len(ex) == 0 {
		c.Extracts = offline.Extracts
		c.Confidence = min(final.Confidence, offline.Confidence)
		c.Notes = append(c.Notes, fmt.Sprintf("the model answered found, but none of its %d quotations occurs in the contract: Not found", len(quotes)))
		return c
	}
	c.Found = true
	c.Confidence = final.Confidence * float64(len(quotes)-countPrefix(notes, noteDropped)) / float64(len(quotes))
	for i := range ex {
		ex[i].Score = c.Confidence
	}
	c.Extracts = ex
	if added > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("the second look added %d passage(s) the first answer missed", added))
	}
	v := final.Value
	if isNoValue(v) {
		v = a.First.Value
	}
	c.Value = modelValue(p, v, ex)
	c.Answer = answer.FromModel(p, c.Value, ex)
	for _, r := range a.Risks {
		ra := review.RiskAnswer{Question: r.Question, Answer: r.Answer}
		if ra.Answer == "" {
			ra.Answer = "Not answered"
		}
		ra.Quotes, _, _ = verifyQuotes(ctx, d, r.Quotes, len(r.Quotes))
		if n := len(r.Quotes) - len(ra.Quotes); n > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("risk question %q: %d quotation(s) not in the contract were dropped", r.Question, n))
		}
		c.Risks = append(c.Risks, ra)
	}
	return c
}

const (
	noteDropped   = "dropped a quotation"
	noteRelocated = "re-located a quotation"
)

func countPrefix(list []string, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func where(e detect.Extract) string {
	if e.Path != "" {
		return e.Path
	}
	return e.Span.String()
}

// verifyQuotes checks quotations against the contract and returns the
// extracts of those that occur in it, in document order, overlapping ones
// merged; how many extracts come only from quotations at index firstN or
// later (the follow-up's); and a note per quotation re-located or dropped.
func verifyQuotes(ctx context.Context, d detect.Doc, quotes []quoteAnswer, firstN int) ([]detect.Extract, int, []string) {
	if len(quotes) == 0 {
		return nil, 0, nil
	}
	r := &report.Report{}
	for i, q := range quotes {
		r.Sources = append(r.Sources, report.Source{N: i + 1, DocID: d.ID, DocName: d.Name, Span: q.Within, Quote: q.Text, Status: report.StatusUnchecked})
	}
	report.Verify(ctx, r, oneDoc{d})
	var notes []string
	for _, s := range r.Removed {
		why := "does not occur in the contract"
		if strings.HasPrefix(s.Note, report.NoteTooShort) {
			why = "is not in the passage it names and too short to place elsewhere"
		}
		notes = append(notes, fmt.Sprintf("%s the model gave that %s: %q", noteDropped, why, progress.Shorten(oneLine(s.Quote), 120)))
	}
	tree := detect.TreeOf(d)
	type spanFrom struct {
		span  document.Span
		later bool
	}
	var spans []spanFrom
	for _, s := range r.Sources {
		if s.Status == report.StatusRecited {
			p := quotes[s.N-1].Passage
			notes = append(notes, fmt.Sprintf("%s the model attributed to passage %d: it occurs at %s %s", noteRelocated, p, tree.Path(tree.At(s.Span.Start)), s.Span))
		}
		spans = append(spans, spanFrom{s.Span, s.N > firstN})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].span.Start < spans[j].span.Start })
	var out []detect.Extract
	var later []bool // the extract comes only from follow-up quotations
	for _, s := range spans {
		if n := len(out); n > 0 && s.span.Start <= out[n-1].Span.End {
			out[n-1].Span.End = max(out[n-1].Span.End, s.span.End)
			later[n-1] = later[n-1] && s.later
			continue
		}
		out = append(out, detect.Extract{Span: s.span})
		later = append(later, s.later)
	}
	added := 0
	for _, l := range later {
		if l {
			added++
		}
	}
	for i := range out {
		e := &out[i]
		e.Node = tree.At(e.Span.Start)
		e.Path = tree.Path(e.Node)
		e.Pages = d.Doc.PagesOf(e.Span)
		e.Text = d.Doc.Slice(e.Span)
	}
	return out, added, notes
}

// oneDoc lets report.Verify read one contract.
type oneDoc struct{ d detect.Doc }

func (o oneDoc) Document(_ context.Context, id string) (*document.Document, error) {
	if id != o.d.ID {
		return nil, fmt.Errorf("review: no document %q", id)
	}
	return o.d.Doc, nil
}

func (o oneDoc) ClausePath(_ context.Context, _ string, span document.Span) string {
	t := detect.TreeOf(o.d)
	return t.SpanPath(span)
}

var _ report.Locator = oneDoc{}

// isNoValue reports whether a model's value says there is none.
func isNoValue(v string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), ".\"'")) {
	case "", "not found", "not stated", "n/a", "na", "none", "unknown", "not applicable":
		return true
	}
	return false
}

// modelValue normalizes a model's value in the provision's answer format
// with the offline readers (a date as YYYY-MM-DD, a duration as "N
// units"); when the model gave none, it is read from the extracts as
// offline.
func modelValue(p *playbook.Provision, v string, ex []detect.Extract) string {
	if p.Answer == playbook.AnswerYesNo {
		return "Yes"
	}
	v = strings.TrimSpace(v)
	if isNoValue(v) {
		a, _ := answer.Read(nil, p, ex, nil, true)
		return a.Text
	}
	switch p.Answer {
	case playbook.AnswerDate, playbook.AnswerEndDate:
		if d, ok := answer.FirstDate(v); ok {
			return d
		}
		if answer.Perpetual(v) {
			return "perpetual"
		}
	case playbook.AnswerDuration:
		if answer.Perpetual(v) {
			return "perpetual"
		}
		if d, ok := answer.FirstDuration(v); ok {
			return d
		}
	case playbook.AnswerJurisdiction:
		if j := answer.Jurisdiction(v); j != "" {
			return j
		}
	}
	return v
}
