package export

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/review"
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

// shortRunes bounds the extract shown in a grid cell.
const shortRunes = 160

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
	Found      bool
	Short      string
	Value      string
	Confidence float64
	Class      string
	Verdict    string
}

type htmlSource struct {
	Anchor, Contract, Provision, Verdict, Note, Value, Method string
	Found                                                     bool
	Confidence                                                float64
	Corrected                                                 string
	Passages                                                  []htmlPassage
	Risks                                                     []review.RiskAnswer
	Notes                                                     []string // how the cell was made (model pass)
}

type htmlPassage struct {
	Path, Pages, Span   string
	Before, Text, After string
	ClippedB, ClippedA  bool
}

// HTML writes the self-contained HTML report.
func HTML(w io.Writer, rv *Review) error {
	t := rv.Table
	out := htmlReview{Title: rv.title(), Collection: rv.Collection, Playbook: t.Playbook, Provisions: t.Provisions, Contracts: len(t.Rows)}
	if !rv.Created.IsZero() {
		out.Created = rv.Created.UTC().Format("2006-01-02 15:04 UTC")
	}
	for i := range t.Rows {
		row := &t.Rows[i]
		hr := htmlRow{Name: row.DocName, ID: row.DocID, Error: row.Error}
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
			hc := htmlCell{Provision: p, Found: a.Found, Short: clip(a.Text, shortRunes), Value: a.Value,
				Confidence: c.Confidence, Class: cellClass(a.Found, c.Confidence), Verdict: string(a.Verdict)}
			// A "Not found" cell's best candidate is not a source: only
			// found or decided cells link to one (it also keeps the report
			// of a large review to a size a browser opens).
			if (c.Found && len(c.Extracts) > 0) || d != nil {
				hc.Anchor = fmt.Sprintf("s-%d-%d", i, j)
				src := htmlSource{Anchor: hc.Anchor, Contract: row.DocName, Provision: p, Found: c.Found,
					Confidence: c.Confidence, Value: c.Value, Method: c.Method, Risks: c.Risks, Notes: c.Notes}
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
				for _, e := range c.Extracts {
					src.Passages = append(src.Passages, passageOf(e, text, textErr))
				}
				out.Sources = append(out.Sources, src)
			}
			hr.Cells = append(hr.Cells, hc)
		}
		out.Rows = append(out.Rows, hr)
	}
	return reportTmpl().Execute(w, out)
}

func valueNote(v string) string {
	if v == "" {
		return ""
	}
	return "(value: " + v + ")"
}

// passageOf shows an extract inside the contract text around it; when the
// text is unavailable or no longer matches the extract, the extract alone.
func passageOf(e review.Extract, text []rune, err error) htmlPassage {
	p := htmlPassage{Path: e.Path, Pages: pages(e.Pages), Span: e.Span.String(), Text: e.Text}
	if err != nil || e.Span.End > len(text) || e.Span.Start < 0 || string(text[e.Span.Start:e.Span.End]) != e.Text {
		return p
	}
	lo := max(0, e.Span.Start-contextRunes)
	hi := min(len(text), e.Span.End+contextRunes)
	p.Before, p.After = string(text[lo:e.Span.Start]), string(text[e.Span.End:hi])
	p.ClippedB, p.ClippedA = lo > 0, hi < len(text)
	return p
}

// cellClass colours a cell by its answer and confidence.
func cellClass(found bool, c float64) string {
	switch {
	case !found:
		return "nf"
	case c >= 0.8:
		return "hi"
	case c >= 0.5:
		return "mid"
	}
	return "lo"
}

// clip shortens s to n runes on a word boundary.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
