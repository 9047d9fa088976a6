package eval

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The polarity check. Clauses that mention a provision's words but exclude
// it ("Neither party may terminate this Agreement for convenience") are
// written for pakton (excluding/clauses.json), each reviewed inside a short
// contract of its own; the review must never answer Yes (or Conditional)
// for the provision a clause excludes. An excluding clause shown as "No"
// (the evidence, not found) and "Not found" are both right.

//go:embed excluding/clauses.json
var excludingJSON []byte

// ExcludingClause is one clause of the polarity check.
type ExcludingClause struct {
	Provision string `json:"provision"`
	Set       string `json:"set"` // "dev", "held_out", "held_out_2", "held_out_3" or "held_out_4"
	Heading   string `json:"heading"`
	Clause    string `json:"clause"`
}

// ExcludingResult is one clause's outcome.
type ExcludingResult struct {
	ExcludingClause
	Kind  string `json:"kind"` // the cell's answer kind
	Found bool   `json:"found"`
	Yes   bool   `json:"yes"` // a Yes or Conditional: wrong
}

// ExcludingReport is the polarity check's outcome, per set.
type ExcludingReport struct {
	Clauses  int               `json:"clauses"`
	Yes      int               `json:"yes"`       // wrong: Yes or Conditional on an excluding clause
	No       int               `json:"no"`        // shown as excluding (kind no)
	NotFound int               `json:"not_found"` // plain Not found
	HeldOut  ExcludingTally    `json:"held_out"`
	HeldOut2 ExcludingTally    `json:"held_out_2"`
	HeldOut3 ExcludingTally    `json:"held_out_3"`
	HeldOut4 ExcludingTally    `json:"held_out_4"`
	Dev      ExcludingTally    `json:"dev"`
	Results  []ExcludingResult `json:"results"`
}

// ExcludingTally counts one set's outcomes.
type ExcludingTally struct {
	Clauses, Yes, No, NotFound int
}

// ExcludingClauses returns the polarity check's clauses.
func ExcludingClauses() ([]ExcludingClause, error) {
	var f struct {
		Clauses []ExcludingClause `json:"clauses"`
	}
	if err := json.Unmarshal(excludingJSON, &f); err != nil {
		return nil, fmt.Errorf("eval: excluding clauses: %w", err)
	}
	return f.Clauses, nil
}

// excludingContract writes a short services contract whose third clause is
// c.
func excludingContract(c ExcludingClause) string {
	return strings.Join([]string{
		"SERVICES AGREEMENT",
		`This Services Agreement is made on 1 March 2021 between Northwind Traders Inc., a Delaware corporation ("Northwind"), and Contoso Services Ltd, a company registered in England ("Contoso").`,
		"1. Services. Contoso shall provide to Northwind the services described in Schedule 1.",
		"2. Fees. Northwind shall pay each invoice within thirty (30) days of receipt.",
		"3. " + c.Heading + ". " + c.Clause,
		"4. Governing Law. This Agreement is governed by the laws of the State of New York.",
		"IN WITNESS WHEREOF the parties have signed this Agreement on the date written above.",
		"NORTHWIND TRADERS INC.\nBy: ____________",
		"CONTOSO SERVICES LTD\nBy: ____________",
	}, "\n\n") + "\n"
}

// RunExcludingCheck reviews every excluding clause's contract with pb and
// det (det nil: the built-in detectors) and counts the answers given for
// the provision each clause excludes. Clauses for provisions pb does not
// have are skipped.
func RunExcludingCheck(ctx context.Context, pb *playbook.Playbook, det *detect.Detectors) (*ExcludingReport, error) {
	clauses, err := ExcludingClauses()
	if err != nil {
		return nil, err
	}
	if det == nil {
		_, det = review.Builtin()
	}
	rev, err := review.NewReviewer(pb, det)
	if err != nil {
		return nil, err
	}
	rep := &ExcludingReport{}
	for i, c := range clauses {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if pb.Provision(c.Provision) == nil {
			continue
		}
		name := fmt.Sprintf("excluding-%02d.txt", i+1)
		doc, err := parse.Bytes(ctx, name, []byte(excludingContract(c)), parse.Options{})
		if err != nil {
			return nil, fmt.Errorf("eval: excluding check %s: %w", name, err)
		}
		prep, err := detect.Prepare(detect.Doc{ID: name, Name: name, Doc: doc})
		if err != nil {
			return nil, err
		}
		row, err := rev.ReviewPrepared(ctx, prep)
		if err != nil {
			return nil, err
		}
		cell := row.Cells[slicesIndex(pb, c.Provision)]
		r := ExcludingResult{ExcludingClause: c, Found: cell.Found, Kind: string(answer.KindNotFound)}
		if cell.Answer != nil {
			r.Kind = string(cell.Answer.Kind)
		}
		r.Yes = cell.Found && (r.Kind == string(answer.KindYes) || r.Kind == string(answer.KindConditional))
		rep.Results = append(rep.Results, r)
		t := &rep.Dev
		switch c.Set {
		case "held_out":
			t = &rep.HeldOut
		case "held_out_2":
			t = &rep.HeldOut2
		case "held_out_3":
			t = &rep.HeldOut3
		case "held_out_4":
			t = &rep.HeldOut4
		}
		rep.Clauses++
		t.Clauses++
		switch {
		case r.Yes:
			rep.Yes++
			t.Yes++
		case r.Kind == string(answer.KindNo):
			rep.No++
			t.No++
		default:
			rep.NotFound++
			t.NotFound++
		}
	}
	return rep, nil
}

// slicesIndex is the index of the provision named name in pb.
func slicesIndex(pb *playbook.Playbook, name string) int {
	for i, p := range pb.Provisions {
		if strings.EqualFold(p.Name, name) {
			return i
		}
	}
	return -1
}

// WriteExcludingTable prints the polarity check.
func WriteExcludingTable(w io.Writer, r *ExcludingReport) {
	if r.Clauses == 0 {
		fmt.Fprintln(w, "\npolarity check: none of the playbook's provisions has excluding clauses written for it")
		return
	}
	fmt.Fprintf(w, "\npolarity check: %d clauses that exclude their provision, each in a short contract of its own\n", r.Clauses)
	line := func(name string, t ExcludingTally) {
		fmt.Fprintf(w, "  %-10s %3d clauses: %d answered Yes (must be 0), %d shown as excluding (No), %d Not found\n", name, t.Clauses, t.Yes, t.No, t.NotFound)
	}
	line("dev", r.Dev)
	line("held out", r.HeldOut)
	line("held out 2", r.HeldOut2)
	line("held out 3", r.HeldOut3)
	line("held out 4", r.HeldOut4)
	for _, x := range r.Results {
		// held_out_4 is unseen: its counts only, never its clauses
		if x.Yes && x.Set != "held_out_4" {
			fmt.Fprintf(w, "  Yes on %s (%s): %s\n", x.Provision, x.Set, x.Clause)
		}
	}
}
