package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/usecase"
)

// CompareInput are the arguments of compare_contracts.
type CompareInput struct {
	Contract string `json:"contract" jsonschema:"the contract to check: its id or name from list_documents"`
	Against  string `json:"against" jsonschema:"the template (the firm's standard form) or the other version to compare it with: id or name"`
}

// CompareDoc names one side of a comparison.
type CompareDoc struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// CompareOutput is the structured result of compare_contracts: the
// template's clauses missing from the contract, those changed (with the
// word-level difference) and the contract's added clauses, each with its
// clause path and heading on both sides (compare.Result). Clause texts are
// cut to clauseTextLen code points (get_clause reads the rest) and long
// runs of unchanged words inside a difference are elided.
type CompareOutput struct {
	Contract CompareDoc       `json:"contract"`
	Against  CompareDoc       `json:"against"`
	Missing  []compare.Clause `json:"missing"`
	Changed  []compare.Change `json:"changed"`
	Added    []compare.Clause `json:"added"`
	Same     int              `json:"same" jsonschema:"clauses of the template whose words the contract keeps"`
	Moved    int              `json:"moved" jsonschema:"of those, clauses found elsewhere in the contract"`
	// Similarity is the share of the template's words found, in order, in
	// the contract.
	Similarity float64 `json:"similarity"`
}

const (
	clauseTextLen = 400
	keptRunLen    = 120
)

func (h *handlers) compare(ctx context.Context, _ *mcpsdk.CallToolRequest, in CompareInput) (*mcpsdk.CallToolResult, CompareOutput, error) {
	var out CompareOutput
	if strings.TrimSpace(in.Contract) == "" || strings.TrimSpace(in.Against) == "" {
		return nil, out, errors.New("give contract and against: a document id or name each, from list_documents")
	}
	c, err := h.corpus(ctx)
	if err != nil {
		return nil, out, err
	}
	var sides [2]compare.Side
	var docs [2]CompareDoc
	for i, ref := range []string{in.Contract, in.Against} {
		info, err := findDoc(ctx, c, ref)
		if err != nil {
			return nil, out, err
		}
		if sides[i], err = usecase.CompareSide(ctx, c.Store, c.Collection, info.ID); err != nil {
			return nil, out, fmt.Errorf("reading document %s: %w", info.Name, err)
		}
		docs[i] = CompareDoc{ID: info.ID, Name: info.Name}
	}
	if err := ctx.Err(); err != nil {
		return nil, out, err
	}
	r := compare.Compare(sides[0], sides[1], compare.Options{})
	out = CompareOutput{Contract: docs[0], Against: docs[1], Missing: cutClauses(r.Missing), Added: cutClauses(r.Added),
		Changed: make([]compare.Change, 0, len(r.Changed)), Same: r.Same, Moved: r.Moved, Similarity: r.Similarity}
	for _, ch := range r.Changed {
		ch.Template.Text, _ = cut(ch.Template.Text, clauseTextLen)
		ch.Contract.Text, _ = cut(ch.Contract.Text, clauseTextLen)
		for j, op := range ch.Diff {
			if op.Op == "=" {
				ch.Diff[j].Text = compare.Elide(op.Text, keptRunLen)
			}
		}
		out.Changed = append(out.Changed, ch)
	}
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: compareText(out)}}}, out, nil
}

// cutClauses returns clauses with their texts cut for a tool result.
func cutClauses(cs []compare.Clause) []compare.Clause {
	out := make([]compare.Clause, len(cs))
	for i, c := range cs {
		c.Text, _ = cut(c.Text, clauseTextLen)
		out[i] = c
	}
	return out
}

// compareText is the readable form of a comparison: one line per clause.
func compareText(o CompareOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s compared with %s: %d clauses the same, %d changed, %d missing, %d added (%s of the template's words kept).\n",
		o.Contract.Name, o.Against.Name, o.Same, len(o.Changed), len(o.Missing), len(o.Added), compare.Percent(o.Similarity, len(o.Changed)+len(o.Missing)+len(o.Added) > 0))
	head := func(c compare.Clause) string {
		p := c.Path
		if p == "" {
			p = "the opening"
		}
		if c.Paragraphs {
			p = "paragraphs in " + p
		}
		if c.Heading != "" {
			return p + " (" + c.Heading + ")"
		}
		return p
	}
	for _, c := range o.Missing {
		fmt.Fprintf(&b, "- missing: %s\n", head(c))
	}
	for _, ch := range o.Changed {
		var d []string
		for _, op := range ch.Diff {
			switch op.Op {
			case "-":
				d = append(d, "[-"+op.Text+"-]")
			case "+":
				d = append(d, "{+"+op.Text+"+}")
			}
		}
		sub := ""
		if len(ch.Substantive) > 0 {
			sub = " — substantive: " + strings.Join(ch.Substantive, "; ")
		}
		fmt.Fprintf(&b, "- changed: %s → %s: %s%s\n", head(ch.Template), head(ch.Contract), strings.Join(d, " "), sub)
	}
	for _, c := range o.Added {
		fmt.Fprintf(&b, "- added: %s\n", head(c))
	}
	return b.String()
}
