// Package export writes a review table — one row per contract, one column
// per provision, and the reviewers' decisions on its cells — as CSV, an XLSX
// spreadsheet, JSON, or a self-contained HTML report whose cells link to the
// highlighted source passages. The CLI, the HTTP API and the web app all
// export through it, so a file looks the same whichever face wrote it.
package export

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// Formats are the export formats, in the order files are written.
var Formats = []string{"csv", "xlsx", "json", "html"}

// NotFound is what a cell shows when the provision was not found.
const NotFound = "Not found"

// Review is what an export holds.
type Review struct {
	Table     *review.Table
	Decisions review.Decisions
	// Title heads the HTML report and the spreadsheet (default: the
	// playbook's name).
	Title      string
	Collection string
	Created    time.Time
	// Text returns a contract's canonical text, so the HTML report can show
	// each extract in its context; nil shows the extracts alone.
	Text func(docID string) (string, error)
	// Row, when set, returns row i of Table whole: every format then reads
	// the rows one at a time from it, and Table.Rows may hold them without
	// their extracts (review.Run.Light), so the table of a large collection
	// is never all in memory. CSV and JSON are written as the rows are
	// read; the spreadsheet and the HTML report hold what they write (the
	// answers and the sources of the cells with evidence) until the end.
	Row func(i int) (review.Row, error)
}

// eachRow calls fn with every row of the table in order, read through Row
// when it is set.
func (rv *Review) eachRow(fn func(i int, row *review.Row) error) error {
	for i := range rv.Table.Rows {
		row := &rv.Table.Rows[i]
		if rv.Row != nil {
			whole, err := rv.Row(i)
			if err != nil {
				return err
			}
			row = &whole
		}
		if err := fn(i, row); err != nil {
			return err
		}
	}
	return nil
}

// Write writes rv in one format ("csv", "xlsx", "json" or "html").
func Write(w io.Writer, format string, rv *Review) error {
	switch format {
	case "csv":
		return CSV(w, rv)
	case "xlsx":
		return XLSX(w, rv)
	case "json":
		return JSON(w, rv)
	case "html":
		return HTML(w, rv)
	}
	return fmt.Errorf("export: unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// ContentType returns the media type of a format.
func ContentType(format string) string {
	switch format {
	case "csv":
		return "text/csv; charset=utf-8"
	case "xlsx":
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case "json":
		return "application/json"
	case "html":
		return "text/html; charset=utf-8"
	}
	return "application/octet-stream"
}

// ParseFormats reads a comma-separated list of formats; "all" or empty is
// every format.
func ParseFormats(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return Formats, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("unknown export format %q (want %s)", f, strings.Join(Formats, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// WriteFiles writes rv in each format into dir as review.<format>, each
// file replaced atomically, and returns the paths written.
//
// Temporary files an earlier run left when it was killed mid-write (older
// than a minute: not a concurrent writer's) are removed first.
func WriteFiles(dir string, formats []string, rv *Review) ([]string, error) {
	atomicfile.RemoveStale(dir, time.Minute)
	var out []string
	for _, f := range formats {
		path := filepath.Join(dir, "review."+f)
		if err := atomicfile.WriteFunc(path, 0o644, func(w io.Writer) error { return Write(w, f, rv) }); err != nil {
			return out, fmt.Errorf("export: %w", err)
		}
		out = append(out, path)
	}
	return out, nil
}

// FileName is the name an export of rv in format is downloaded as: the
// review's title (or its playbook's name and "review"), then the day it was
// made — "Supplier contracts 2026-12-06.xlsx". Characters no file system
// takes in a name (/ \ : * ? " < > | and control characters) become spaces,
// white space is collapsed, the name is cut to 80 characters, and a name
// left empty becomes "review".
func (rv *Review) FileName(format string) string {
	base := rv.Title
	if base == "" && rv.Table != nil && rv.Table.Playbook != "" {
		base = rv.Table.Playbook + " review"
	}
	base = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return ' '
		}
		return r
	}, base)
	base = strings.Join(strings.Fields(base), " ")
	if r := []rune(base); len(r) > 80 {
		base = string(r[:80])
	}
	base = strings.Trim(base, " .")
	if base == "" {
		base = "review"
	}
	if !rv.Created.IsZero() {
		base += " " + rv.Created.UTC().Format("2006-01-02")
	}
	return base + "." + format
}

// title returns the report's title.
func (rv *Review) title() string {
	if rv.Title != "" {
		return rv.Title
	}
	return "Review: " + rv.Table.Playbook
}

// shownAnswer is what a cell says once its decision is applied.
type shownAnswer struct {
	// Kind is the answer's kind: "yes", "no", "conditional", "value",
	// "found" (a found provision whose answer is its clause: no value) or
	// "not_found".
	Kind string
	// Line is the one-line answer: "Yes", "No", "Conditional: <condition>",
	// who holds it on what terms ("Customer: Yes, 60 days' notice;
	// Provider: only during any Renewal Term"), the value, "Found" or "Not
	// found".
	Line      string
	Condition string
	// Text is the extract(s), the corrected text, or "Not found".
	Text  string
	Value string
	// Found: the provision is there (found, or corrected with a text or a
	// value other than No). Evidence: the cell has passages to show —
	// found, or a clause that excludes the provision (kind "no").
	Found, Evidence bool
	// Located: the cell's extracts are where its answer is (not so when
	// the reviewer corrected the text).
	Located bool
	// Spans are where the engine read the answer, inside the extracts.
	Spans []answer.Span
	// Was is the engine's one-line answer that a correction replaced.
	Was      string
	Verdict  review.Verdict
	Decision *review.Decision
}

// engineAnswer reads the engine's answer of a cell: its Answer, or for a
// cell made before answers were read, its found flag and value.
func engineAnswer(c *review.Cell) shownAnswer {
	a := shownAnswer{Kind: "not_found", Line: NotFound, Text: NotFound, Value: c.Value}
	if x := c.Answer; x != nil {
		a.Kind, a.Line, a.Condition, a.Spans = string(x.Kind), x.Text, x.Condition, x.Spans
		switch {
		case x.Kind == answer.KindNotFound:
			a.Kind, a.Line = "not_found", NotFound
		case x.Kind == answer.KindValue && x.Text == "":
			a.Kind, a.Line = "found", "Found"
		case x.Summary != "":
			a.Line = x.Summary // who holds it, on what terms
		case x.Kind == answer.KindConditional && x.Condition != "":
			a.Line = "Conditional: " + x.Condition
		case a.Line == "":
			a.Line = kindLine(a.Kind)
		}
	} else if c.Found {
		a.Kind, a.Line = valueKind(c.Value)
	}
	a.Found = c.Found
	a.Evidence = len(c.Extracts) > 0 && (c.Found || a.Kind == "no")
	a.Located = a.Evidence
	if a.Evidence {
		a.Text = extractText(c)
	}
	return a
}

// valueKind reads a value as an answer: Yes, No, another value, or (empty)
// Found.
func valueKind(v string) (kind, line string) {
	v = strings.TrimSpace(v)
	switch {
	case strings.EqualFold(v, "yes"):
		return "yes", "Yes"
	case strings.EqualFold(v, "no"):
		return "no", "No"
	case v != "":
		return "value", v
	}
	return "found", "Found"
}

func kindLine(kind string) string {
	switch kind {
	case "yes":
		return "Yes"
	case "no":
		return "No"
	case "conditional":
		return "Conditional"
	case "found", "value":
		return "Found"
	}
	return NotFound
}

// answerOf applies a cell's decision. A corrected cell shows the corrected
// answer (the corrected value, else Found with the corrected text) and
// keeps the engine's in Was; an accepted or rejected cell shows the
// engine's answer, with the verdict beside it.
func answerOf(c *review.Cell, d *review.Decision) shownAnswer {
	a := engineAnswer(c)
	a.Decision = d
	if d == nil {
		return a
	}
	a.Verdict = d.Verdict
	if d.Verdict == review.Corrected {
		a.Was = a.Line
		a.Condition, a.Spans = "", nil
		if d.Value != "" {
			a.Value = d.Value
			a.Kind, a.Line = valueKind(d.Value)
		} else {
			a.Kind, a.Line = "found", "Found"
		}
		a.Found = a.Kind != "no"
		if d.Text != "" {
			a.Text, a.Located = d.Text, false
		}
	}
	return a
}

// reviewed says how a decided cell was reviewed, for the faces that put it
// beside the answer: "✓ accepted", "✗ rejected", "✎ corrected (was: Yes)";
// "" when nobody decided.
func (a shownAnswer) reviewed() string {
	switch a.Verdict {
	case review.Accepted:
		return "✓ accepted"
	case review.Rejected:
		return "✗ rejected"
	case review.Corrected:
		if a.Was != "" && a.Was != a.Line {
			return "✎ corrected (was: " + a.Was + ")"
		}
		return "✎ corrected"
	}
	return ""
}

// located returns where a cell's answer is: the extracts' clause paths,
// pages and spans, and the answer's own spans, each joined with "; " —
// empty for a cell with nothing to locate.
func located(c *review.Cell, a shownAnswer) (paths, pgs, spans, answerSpans string) {
	if !a.Located {
		return "", "", "", ""
	}
	var ps, ss, as []string
	var all []int
	for _, e := range c.Extracts {
		if e.Path != "" && !slices.Contains(ps, e.Path) {
			ps = append(ps, e.Path)
		}
		ss = append(ss, e.Span.String())
		for _, p := range e.Pages {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	slices.Sort(all)
	for _, s := range a.Spans {
		as = append(as, s.Span.String())
	}
	return strings.Join(ps, "; "), pageList(all), strings.Join(ss, "; "), strings.Join(as, "; ")
}

// pageList renders sorted pages as ranges: "3", "3-4", "3-5, 9".
func pageList(p []int) string {
	var out []string
	for i := 0; i < len(p); {
		j := i
		for j+1 < len(p) && p[j+1] == p[j]+1 {
			j++
		}
		if j == i {
			out = append(out, fmt.Sprint(p[i]))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", p[i], p[j]))
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

// extractText joins a cell's extracts.
func extractText(c *review.Cell) string {
	parts := make([]string, 0, len(c.Extracts))
	for _, e := range c.Extracts {
		parts = append(parts, strings.TrimSpace(e.Text))
	}
	return strings.Join(parts, " […] ")
}

// confidence renders a confidence as a fraction with two decimals.
func confidence(c float64) string { return fmt.Sprintf("%.2f", c) }

var emptyExtract detect.Extract
