package review

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review/detect"
)

// Learning from a reviewer. A reviewer's decisions on a review's cells are
// labels: each says whether the provision is in the contract and, when it
// is, where. DecisionTraining turns them into training contracts for
// Train, so that a firm's own provision — or a built-in one that misses on
// its contracts — improves from its own corrections:
//
//   - accepted, found: the provision is there, in the cell's extracts;
//   - accepted, not found (a plain "Not found" or a clause shown as
//     excluding it): the provision is absent;
//   - rejected, found: the extracts are not the provision; it is taken as
//     absent (a reviewer who knows where it is corrects the cell instead);
//   - corrected with the right text: the provision is where that text is
//     (found in the contract verbatim, white space and quotes aside);
//   - corrected with a value only, on a found cell: the extracts were right
//     (only the answer was not), so the provision is there.
//
// A rejected "Not found", or a value given for a cell with no extract,
// says the provision is there but not where: it cannot teach a detector
// and is counted as unusable. A corrected text that does not occur in the
// contract is an error naming the cell.

// DecisionStats counts how a review's decisions were used.
type DecisionStats struct {
	Decisions int `json:"decisions"`
	Present   int `json:"present"`  // labels that the provision is there (with its spans)
	Absent    int `json:"absent"`   // labels that it is not
	Unusable  int `json:"unusable"` // decisions that say it is there without saying where
	Contracts int `json:"contracts"`
}

// DecisionTraining returns the contracts a reviewer decided cells of, each
// labelled with those decisions, ready for Train. t is the review the
// decisions were taken on (its cells say where a found provision was); load
// reads a contract by its document id. A label names the provision of the
// cell (Provision.LabelName of the playbook the training uses must match
// it).
func DecisionTraining(ctx context.Context, t *Table, ds Decisions, load func(ctx context.Context, id string) (detect.Doc, error)) ([]detect.TrainingDoc, DecisionStats, error) {
	detect.RecordFeatureNames()
	var st DecisionStats
	if t == nil {
		return nil, st, fmt.Errorf("review train: decisions need the review table they were taken on")
	}
	byDoc := map[string][]Decision{}
	var order []string
	for _, d := range ds {
		if d.DocID == "" || d.Provision == "" {
			continue
		}
		if _, ok := byDoc[d.DocID]; !ok {
			order = append(order, d.DocID)
		}
		byDoc[d.DocID] = append(byDoc[d.DocID], d)
	}
	sort.Strings(order)
	var out []detect.TrainingDoc
	for _, id := range order {
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		doc, err := load(ctx, id)
		if err != nil {
			return nil, st, fmt.Errorf("review train: contract %s of the decisions: %w", id, err)
		}
		if doc.Doc == nil {
			return nil, st, fmt.Errorf("review train: contract %s of the decisions has no text", id)
		}
		ld := &detect.LabelledDoc{FilePath: id}
		for _, d := range byDoc[id] {
			st.Decisions++
			cell := t.Cell(id, d.Provision)
			if cell == nil {
				return nil, st, fmt.Errorf("review train: decision on %s / %q: the review has no such cell", id, d.Provision)
			}
			lb, ok, err := decisionLabel(doc, cell, d)
			if err != nil {
				return nil, st, err
			}
			if !ok {
				st.Unusable++
				continue
			}
			if lb.Present {
				st.Present++
			} else {
				st.Absent++
			}
			ld.Labels = append(ld.Labels, lb)
		}
		if len(ld.Labels) == 0 {
			continue
		}
		prep, err := detect.Prepare(doc)
		if err != nil {
			return nil, st, err
		}
		out = append(out, detect.TrainingDoc{Prep: prep, Labels: ld})
	}
	st.Contracts = len(out)
	return out, st, nil
}

// decisionLabel is the label one decision gives; ok is false when the
// decision cannot teach where the provision is.
func decisionLabel(d detect.Doc, cell *Cell, dec Decision) (detect.Label, bool, error) {
	lb := detect.Label{Provision: cell.Provision}
	spansOf := func() [][2]int {
		var out [][2]int
		for _, e := range cell.Extracts {
			if !e.Span.Empty() {
				out = append(out, [2]int{e.Span.Start, e.Span.End})
			}
		}
		return out
	}
	switch dec.Verdict {
	case Accepted:
		if cell.Found {
			lb.Present, lb.Spans = true, spansOf()
			return lb, len(lb.Spans) > 0, nil
		}
		return lb, true, nil
	case Rejected:
		if cell.Found {
			return lb, true, nil
		}
		return lb, false, nil
	case Corrected:
		if text := strings.TrimSpace(dec.Text); text != "" {
			sp, ok := report.Locate(d.Doc.Text, text)
			if !ok || sp.Empty() {
				// text copied from the contract exactly, cut mid-word
				// ("n case of an order …"): Locate matches whole words only
				if i := strings.Index(d.Doc.Text, text); i >= 0 {
					start := utf8.RuneCountInString(d.Doc.Text[:i])
					sp, ok = document.Span{Start: start, End: start + utf8.RuneCountInString(text)}, true
				}
			}
			if !ok || sp.Empty() {
				return lb, false, fmt.Errorf("review train: the correction of %s / %q gives text that is not in the contract: %q", cell.DocName, cell.Provision, shorten(text, 80))
			}
			lb.Present, lb.Spans = true, [][2]int{{sp.Start, sp.End}}
			return lb, true, nil
		}
		if cell.Found {
			lb.Present, lb.Spans = true, spansOf()
			return lb, len(lb.Spans) > 0, nil
		}
		return lb, false, nil
	}
	return lb, false, fmt.Errorf("review train: decision on %s / %q: unknown verdict %q", cell.DocName, cell.Provision, dec.Verdict)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
