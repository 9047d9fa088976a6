package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/usecase"
)

// Limits of review_collection.
const (
	// MaxPlaybookYAML is the longest playbook text accepted, in bytes.
	MaxPlaybookYAML = playbook.MaxPlaybookBytes
	// MaxReviewCells bounds contracts × provisions of one call, so the
	// answer fits an assistant's context; a larger review is narrowed with
	// provisions or docs (or run with the CLI or the HTTP API).
	MaxReviewCells = 2000
	// MaxReviewExtract is the most characters of one found cell's extract
	// returned; a longer one is cut and marked truncated (its span still
	// covers it all).
	MaxReviewExtract = 600
)

// ReviewInput are the arguments of review_collection.
type ReviewInput struct {
	Playbook     string   `json:"playbook,omitempty" jsonschema:"the playbook to use: \"builtin\" (the default: the CUAD categories and a due-diligence list) or \"merger\" (merger-agreement deal points)"`
	PlaybookYAML string   `json:"playbook_yaml,omitempty" jsonschema:"your own playbook as YAML text (see pakton docs/PLAYBOOKS.md); overrides playbook"`
	Provisions   []string `json:"provisions,omitempty" jsonschema:"review only these provisions, by name (e.g. [\"Governing Law\", \"Cap on Liability\"]); all when empty"`
	Docs         []string `json:"docs,omitempty" jsonschema:"review only these documents: ids or names from list_documents; all when empty"`
}

// ReviewCell is one found provision of one contract.
type ReviewCell struct {
	Provision   string          `json:"provision"`
	Confidence  float64         `json:"confidence" jsonschema:"probability in [0, 1] that the provision is there"`
	Value       string          `json:"value,omitempty" jsonschema:"the answer read from the text in the provision's format (a date, duration, jurisdiction, parties, amount, Yes)"`
	Kind        string          `json:"kind" jsonschema:"the answer's kind: value, yes, no (the contract excludes the provision: see excluded), conditional"`
	Answer      string          `json:"answer,omitempty" jsonschema:"the one-line answer: the value, Yes, No or Conditional; empty when the clause itself is the answer"`
	Condition   string          `json:"condition,omitempty" jsonschema:"for a conditional answer, the condition, in the contract's words"`
	Holders     []answer.Holder `json:"holders,omitempty" jsonschema:"who holds the right (or is bound by the restriction) and on what terms: party, kind, condition, notice, further terms"`
	Summary     string          `json:"summary,omitempty" jsonschema:"who holds it on what terms in one line, e.g. Customer: Yes, 60 days' notice; Provider: only during any Renewal Term"`
	AnswerSpans []document.Span `json:"answer_spans,omitempty" jsonschema:"where the answer was read: [start, end) code points inside the extracts"`
	Path        string          `json:"path,omitempty" jsonschema:"clause path of the first extract"`
	Pages       []int           `json:"pages,omitempty"`
	Span        document.Span   `json:"span" jsonschema:"[start, end) in code points of the first extract"`
	Text        string          `json:"text" jsonschema:"the verbatim text of the extracts"`
	Truncated   bool            `json:"truncated,omitempty"`
	Extracts    int             `json:"extracts" jsonschema:"number of passages found for the cell"`
}

// ReviewRow is one contract of the review.
type ReviewRow struct {
	DocID    string       `json:"doc_id"`
	DocName  string       `json:"doc_name"`
	URI      string       `json:"uri"`
	Error    string       `json:"error,omitempty" jsonschema:"why the contract could not be reviewed"`
	Found    []ReviewCell `json:"found"`
	Excluded []ReviewCell `json:"excluded,omitempty" jsonschema:"provisions the contract excludes (answer No), each with the excluding clause"`
	NotFound []string     `json:"not_found" jsonschema:"provisions not found in this contract (excluded ones too)"`
}

// ReviewOutput is the structured result of review_collection.
type ReviewOutput struct {
	Collection string      `json:"collection"`
	Playbook   string      `json:"playbook"`
	Provisions []string    `json:"provisions"`
	Contracts  int         `json:"contracts"`
	FoundCells int         `json:"found_cells"`
	Rows       []ReviewRow `json:"rows"`
}

func (h *handlers) review(ctx context.Context, req *mcpsdk.CallToolRequest, in ReviewInput) (*mcpsdk.CallToolResult, ReviewOutput, error) {
	var out ReviewOutput
	if len(in.PlaybookYAML) > MaxPlaybookYAML {
		return nil, out, fmt.Errorf("playbook_yaml is larger than %d bytes", MaxPlaybookYAML)
	}
	pb, det, err := review.Choose(in.Playbook, "playbook_yaml", []byte(in.PlaybookYAML), in.Provisions)
	if err != nil {
		return nil, out, err
	}
	c, err := h.corpus(ctx)
	if err != nil {
		return nil, out, err
	}
	run, err := usecase.Reviewing{Store: c.Store, Collection: c.Collection, Playbook: pb, Detectors: det}.Run()
	if err != nil {
		return nil, out, err
	}
	run.Progress = reviewProgress(ctx, req)
	for _, ref := range in.Docs {
		info, err := findDoc(ctx, c, ref)
		if err != nil {
			return nil, out, err
		}
		run.Docs = append(run.Docs, info.ID)
	}
	n := len(run.Docs)
	if n == 0 {
		infos, err := c.Store.List(ctx, c.Collection)
		if err != nil {
			return nil, out, err
		}
		n = len(infos)
	}
	if cells := n * len(pb.Provisions); cells > MaxReviewCells {
		return nil, out, fmt.Errorf("this review would be %d contracts × %d provisions = %d cells, more than the %d one call returns: "+
			"pass provisions (the ones the user cares about) or docs, or run the review with pakton review or the HTTP API",
			n, len(pb.Provisions), cells, MaxReviewCells)
	}
	tab, stats, err := run.Table(ctx)
	if err != nil {
		return nil, out, fmt.Errorf("reviewing the collection: %w", err)
	}
	if len(tab.Rows) == 0 {
		return nil, out, usecase.EmptyCollection(c.Collection)
	}
	out = ReviewOutput{Collection: c.Collection, Playbook: pb.Name, Provisions: tab.Provisions, Contracts: stats.Contracts, FoundCells: stats.Found}
	for _, row := range tab.Rows {
		r := ReviewRow{DocID: row.DocID, DocName: row.DocName, URI: docURI(c.Collection, row.DocID), Error: row.Error, Found: []ReviewCell{}, NotFound: []string{}}
		for _, cell := range row.Cells {
			excluded := cell.Answer != nil && cell.Answer.Excludes && len(cell.Extracts) > 0
			if !cell.Found || len(cell.Extracts) == 0 {
				r.NotFound = append(r.NotFound, cell.Provision)
				if !excluded {
					continue
				}
			}
			first := cell.Extracts[0]
			parts := make([]string, len(cell.Extracts))
			for i, e := range cell.Extracts {
				parts[i] = strings.TrimSpace(e.Text)
			}
			text, cut := cut(strings.Join(parts, " […] "), MaxReviewExtract)
			rc := ReviewCell{Provision: cell.Provision, Confidence: round2(cell.Confidence), Value: cell.Value, Kind: string(answer.KindValue),
				Path: first.Path, Pages: first.Pages, Span: first.Span, Text: text, Truncated: cut, Extracts: len(cell.Extracts)}
			if a := cell.Answer; a != nil {
				rc.Kind, rc.Answer, rc.Condition = string(a.Kind), a.Text, a.Condition
				rc.Holders, rc.Summary = a.Holders, a.Summary
				for _, sp := range a.Spans {
					rc.AnswerSpans = append(rc.AnswerSpans, sp.Span)
				}
			} else if cell.Value != "" {
				rc.Answer = cell.Value
			}
			if excluded {
				r.Excluded = append(r.Excluded, rc)
				continue
			}
			r.Found = append(r.Found, rc)
		}
		out.Rows = append(out.Rows, r)
	}
	return textResult(reviewText(out)), out, nil
}

// reviewText renders the review compactly for the assistant: per contract,
// each found provision with its value, location and extract, then the
// provisions not found.
func reviewText(out ReviewOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review of collection %q with playbook %s: %d contracts × %d provisions, %d cells found. "+
		"Extracts are verbatim; spans are code points of each document's text (resource uri). \"Not found\" means the provision's evidence is not in the contract.\n",
		out.Collection, out.Playbook, out.Contracts, len(out.Provisions), out.FoundCells)
	for _, r := range out.Rows {
		fmt.Fprintf(&b, "\n## %s (%s)\n", r.DocName, r.DocID)
		if r.Error != "" {
			fmt.Fprintf(&b, "Could not be reviewed: %s\n", r.Error)
			continue
		}
		for _, c := range append(r.Found, r.Excluded...) {
			fmt.Fprintf(&b, "- %s", c.Provision)
			switch {
			case c.Kind == string(answer.KindNo):
				b.WriteString(": No — the contract excludes it")
			case c.Summary != "":
				fmt.Fprintf(&b, ": %s — %s", c.Answer, c.Summary)
			case c.Kind == string(answer.KindConditional) && c.Condition != "":
				fmt.Fprintf(&b, ": Conditional — %s", c.Condition)
			case c.Answer != "":
				fmt.Fprintf(&b, ": %s", c.Answer)
			}
			loc := []string{}
			if c.Path != "" {
				loc = append(loc, c.Path)
			}
			if len(c.Pages) > 0 {
				loc = append(loc, fmt.Sprintf("p. %d", c.Pages[0]))
			}
			loc = append(loc, c.Span.String())
			if len(c.AnswerSpans) > 0 {
				loc = append(loc, "answer at "+c.AnswerSpans[0].String())
			}
			loc = append(loc, fmt.Sprintf("confidence %.2f", c.Confidence))
			fmt.Fprintf(&b, " (%s) — %q", strings.Join(loc, ", "), oneLine(c.Text))
			if c.Truncated {
				b.WriteString(" [truncated]")
			}
			b.WriteString("\n")
		}
		if len(r.NotFound) > 0 {
			fmt.Fprintf(&b, "- Not found: %s\n", strings.Join(r.NotFound, "; "))
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// reviewProgress sends one progress notification per reviewed contract
// when the client asked for them.
func reviewProgress(ctx context.Context, req *mcpsdk.CallToolRequest) func(review.RunProgress) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(p review.RunProgress) {
		msg := fmt.Sprintf("reviewed %d of %d contracts", p.Done, p.Total)
		if p.Current != "" {
			msg += ": " + p.Current
		}
		_ = req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(p.Done), Total: float64(p.Total), Message: msg})
	}
}
