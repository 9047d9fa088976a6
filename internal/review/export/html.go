package export

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// The HTML report is one file with its CSS and script inline and no
// network access: a grid of contracts × provisions whose cells link to a
// "Sources" section, where every extract is shown highlighted inside the
// contract text around it (contextRunes either side).
//
//go:embed report.html.tmpl
var reportTemplate string

// reportTmpl is parsed on first use, not at start-up: every command (a
// one-shot search too) would pay for it.
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct": func(c float64) string { return fmt.Sprintf("%.0f%%", 100*c) },
	}).Parse(reportTemplate))
})

// contextRunes is how much contract text the HTML report shows around an
// extract.
const contextRunes = 250

type htmlReview struct {
	Title      string
	Collection string
	Created    string
	Playbook   string
	Provisions []string
	Rows       []htmlRow
	Sources    []htmlSource
	Contracts  int
	Found      int
	Cells      int
	Decided    int
}

type htmlRow struct {
	Name, ID, Error string
	Cells           []htmlCell
}

type htmlCell struct {
	Provision  string
	Anchor     string // "" when the cell has no source to show
	Kind       string // the answer's kind (answer.Kind)
	Line       string // the one-line answer
	Confidence float64
	Low        bool // the engine is unsure either way (20–60 %)
	Class      string
	Verdict    string
	Reviewed   string // "✓ accepted", "✎ corrected (was: Yes)"
}

type htmlSource struct {
	Anchor, Contract, Provision, Verdict, Note, Method string
	Kind, Line, Condition, Reviewed                    string
	Found, Excludes                                    bool
	Confidence                                         float64
	Corrected                                          string
	Passages                                           []htmlPassage
	Risks                                              []review.RiskAnswer
	Notes                                              []string // how the cell was made (model pass)
}

type htmlPassage struct {
	Path, Pages, Span  string
	Before, After      string
	Text               []htmlSegment // the extract, the answer's spans marked
	ClippedB, ClippedA bool
}

// htmlSegment is a piece of an extract: the answer's words (Answer) or
// the text around them.
type htmlSegment struct {
	Text   string
	Answer bool
}

// HTML writes the self-contained HTML report.
func HTML(w io.Writer, rv *Review) error {
	t := rv.Table
	out := htmlReview{Title: rv.title(), Collection: rv.Collection, Playbook: t.Playbook, Provisions: t.Provisions, Contracts: len(t.Rows)}
	if !rv.Created.IsZero() {
		out.Created = rv.Created.UTC().Format("2006-01-02 15:04 UTC")
	}
	err := rv.eachRow(func(i int, row *review.Row) error {
		hr := htmlRow{Name: contractName(row), ID: row.DocID, Error: row.Error}
		var text []rune
		var textErr error
		loaded := false
		for j, p := range t.Provisions {
			c := cellOf(row, p)
			if c == nil {
				hr.Cells = append(hr.Cells, htmlCell{Provision: p, Class: "none"})
				continue
			}
			out.Cells++
			d := rv.Decisions.Find(row.DocID, p)
			if d != nil {
				out.Decided++
			}
			a := answerOf(c, d)
			if a.Found {
				out.Found++
			}
			low := c.Confidence >= 0.2 && c.Confidence < 0.6 && a.Verdict != review.Corrected
			hc := htmlCell{Provision: p, Kind: a.Kind, Line: a.Line, Confidence: c.Confidence, Low: low,
				Class: "k-" + a.Kind, Verdict: string(a.Verdict), Reviewed: a.reviewed()}
			if low {
				hc.Class += " low"
			}
			// A "Not found" cell's best candidate is not a source: only
			// cells with evidence (found, or a clause that excludes the
			// provision) or a decision link to one (it also keeps the
			// report of a large review to a size a browser opens).
			if a.Evidence || d != nil {
				hc.Anchor = fmt.Sprintf("s-%d-%d", i, j)
				src := htmlSource{Anchor: hc.Anchor, Contract: contractName(row), Provision: p, Found: c.Found, Excludes: a.Kind == "no" && a.Evidence,
					Confidence: c.Confidence, Method: c.Method, Risks: c.Risks, Notes: c.Notes,
					Kind: a.Kind, Line: a.Line, Condition: a.Condition, Reviewed: a.reviewed()}
				if d != nil {
					src.Verdict, src.Note = string(d.Verdict), d.Note
					if d.Verdict == review.Corrected {
						src.Corrected = strings.TrimSpace(d.Text + " " + valueNote(d.Value))
					}
				}
				if !loaded && rv.Text != nil {
					var s string
					s, textErr = rv.Text(row.DocID)
					text, loaded = []rune(s), true
				}
				spans := engineAnswer(c).Spans
				for x, e := range c.Extracts {
					if !a.Evidence && d != nil && !c.Found {
						break // a decided "Not found": its candidate is not a source
					}
					src.Passages = append(src.Passages, passageOf(e, x, spans, text, textErr))
				}
				out.Sources = append(out.Sources, src)
			}
			hr.Cells = append(hr.Cells, hc)
		}
		out.Rows = append(out.Rows, hr)
		return nil
	})
	if err != nil {
		return err
	}
	return reportTmpl().Execute(w, out)
}

func valueNote(v string) string {
	if v == "" {
		return ""
	}
	return "(value: " + v + ")"
}

// passageOf shows an extract inside the contract text around it, with
// the answer's spans in extract x marked; when the text is unavailable or
// no longer matches the extract, the extract alone.
func passageOf(e detect.Extract, x int, spans []answer.Span, text []rune, err error) htmlPassage {
	p := htmlPassage{Path: e.Path, Pages: pageList(e.Pages), Span: e.Span.String(), Text: segments(e, x, spans)}
	if err != nil || e.Span.End > len(text) || e.Span.Start < 0 || string(text[e.Span.Start:e.Span.End]) != e.Text {
		return p
	}
	lo := max(0, e.Span.Start-contextRunes)
	hi := min(len(text), e.Span.End+contextRunes)
	p.Before, p.After = string(text[lo:e.Span.Start]), string(text[e.Span.End:hi])
	p.ClippedB, p.ClippedA = lo > 0, hi < len(text)
	return p
}

// segments cuts extract x's text at the answer's spans inside it.
func segments(e detect.Extract, x int, spans []answer.Span) []htmlSegment {
	r := []rune(e.Text)
	var out []htmlSegment
	at := 0
	var in []document.Span
	for _, s := range spans {
		if s.Extract == x && e.Span.Contains(s.Span) && !s.Span.Empty() {
			in = append(in, s.Span)
		}
	}
	slices.SortFunc(in, func(a, b document.Span) int { return a.Start - b.Start })
	for _, s := range in {
		a, b := s.Start-e.Span.Start, s.End-e.Span.Start
		if a < at || b > len(r) {
			continue // overlaps the one before, or the extract's text is shorter than its span
		}
		if a > at {
			out = append(out, htmlSegment{Text: string(r[at:a])})
		}
		out = append(out, htmlSegment{Text: string(r[a:b]), Answer: true})
		at = b
	}
	if at < len(r) || len(out) == 0 {
		out = append(out, htmlSegment{Text: string(r[min(at, len(r)):])})
	}
	return out
}
