// Package export writes a review table — one row per contract, one column
// per provision, and the reviewers' decisions on its cells — as CSV, an XLSX
// spreadsheet, JSON, or a self-contained HTML report whose cells link to the
// highlighted source passages. The CLI, the HTTP API and the web app all
// export through it, so a file looks the same whichever face wrote it.
package export

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
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
	for _, f := range Formats {
		jobs.RemoveStale(dir, ".review-", "."+f, time.Minute)
	}
	var out []string
	for _, f := range formats {
		path := filepath.Join(dir, "review."+f)
		tmp, err := os.CreateTemp(dir, ".review-*."+f)
		if err != nil {
			return out, fmt.Errorf("export %s: %w", path, err)
		}
		tmp.Chmod(0o644) // as a file the user wrote, not a private temporary
		err = Write(tmp, f, rv)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return out, fmt.Errorf("export %s: %w", path, err)
		}
		out = append(out, path)
	}
	return out, nil
}

// title returns the report's title.
func (rv *Review) title() string {
	if rv.Title != "" {
		return rv.Title
	}
	return "Review: " + rv.Table.Playbook
}

// answer is what a cell says once its decision is applied.
type answer struct {
	Text     string // the extract(s), "Not found", or the corrected text
	Value    string
	Found    bool
	Verdict  review.Verdict
	Decision *review.Decision
}

// answerOf applies a cell's decision. A corrected cell shows the corrected
// text and value; an accepted or rejected cell shows the engine's answer,
// with the verdict beside it.
func answerOf(c *review.Cell, d *review.Decision) answer {
	a := answer{Text: NotFound, Value: c.Value, Found: c.Found, Decision: d}
	if c.Found {
		a.Text = extractText(c)
	}
	if d == nil {
		return a
	}
	a.Verdict = d.Verdict
	if d.Verdict == review.Corrected {
		if d.Text != "" {
			a.Text, a.Found = d.Text, true
		}
		if d.Value != "" {
			a.Value = d.Value
		}
	}
	return a
}

// extractText joins a cell's extracts.
func extractText(c *review.Cell) string {
	parts := make([]string, 0, len(c.Extracts))
	for _, e := range c.Extracts {
		parts = append(parts, strings.TrimSpace(e.Text))
	}
	return strings.Join(parts, " […] ")
}

// pages renders page numbers ("3", "3-4", "3, 7").
func pages(p []int) string {
	if len(p) == 0 {
		return ""
	}
	if len(p) == 2 && p[1] == p[0]+1 {
		return fmt.Sprintf("%d-%d", p[0], p[1])
	}
	s := make([]string, len(p))
	for i, n := range p {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// confidence renders a confidence as a fraction with two decimals.
func confidence(c float64) string { return fmt.Sprintf("%.2f", c) }

var emptyExtract review.Extract
