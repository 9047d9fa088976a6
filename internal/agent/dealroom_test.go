package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/report"
)

// TestEvidencePerContract: a question about the whole deal room is answered
// per contract — the contracts that have the provision listed with their
// answers and clauses, the others counted — in the report and its Markdown;
// a question about one named contract is not.
func TestEvidencePerContract(t *testing.T) {
	lib := sharedLib(t)
	ctx := context.Background()
	r, err := Evidence(ctx, lib, Request{Question: "Which of our contracts are governed by New York law?"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dr := r.DealRoom
	if dr == nil || dr.Method != "review" || dr.Provision != "Governing Law" || dr.Condition != "New York" {
		t.Fatalf("deal room %+v", dr)
	}
	if dr.Checked != 5 || dr.With != len(r.Contracts) || dr.With+dr.Lacking+dr.NotMatching+dr.Undecided != dr.Checked {
		t.Errorf("counts %+v for %d contracts listed", dr, len(r.Contracts))
	}
	for _, c := range r.Contracts {
		if c.Answer != "New York" || len(c.Citations) == 0 || !strings.Contains(c.Citations[0].Text, "New York") || c.Citations[0].Path == "" {
			t.Errorf("contract %+v", c)
		}
	}
	if !strings.HasPrefix(r.Summary, "Asked of 5 contracts:") {
		t.Errorf("summary %q", r.Summary)
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## Per contract") || !strings.Contains(b.String(), "| contract | answer | clause | page |") {
		t.Errorf("markdown lacks the per-contract table:\n%s", b.String())
	}

	// A question no playbook provision matches: each contract's best passage.
	r, err = Evidence(ctx, lib, Request{Question: "Which contracts mention the Acme brand colours?"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.DealRoom == nil || r.DealRoom.Method != "search" || r.DealRoom.With+r.DealRoom.Lacking != r.DealRoom.Checked {
		t.Errorf("search fallback: %+v", r.DealRoom)
	}

	// One named contract: no per-contract list.
	r, err = Evidence(ctx, lib, Request{Question: "What law governs the master services agreement?"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.DealRoom != nil {
		t.Errorf("a question about one contract was answered per contract: %+v", r.DealRoom)
	}
}

// TestEvidencePerContractNamesTheOthers: the contracts without the provision
// are listed by name, and one whose clause excludes it says which clause
// (the distribution agreement's 12.1: no termination for convenience).
func TestEvidencePerContractNamesTheOthers(t *testing.T) {
	lib := sharedLib(t)
	r, err := Evidence(context.Background(), lib, Request{Question: "Which contracts can be terminated for convenience?"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dr := r.DealRoom
	if dr == nil || dr.Provision != "Termination for Convenience" {
		t.Fatalf("deal room %+v", dr)
	}
	var excluded *report.ContractStatus
	for i, o := range dr.Others {
		if strings.Contains(o.Name, "distribution-agreement") {
			excluded = &dr.Others[i]
		}
	}
	if excluded == nil || excluded.Status != "lacks" || !strings.HasPrefix(excluded.Why, "excluded by ") || !strings.Contains(excluded.Why, "12.1") {
		t.Fatalf("the distribution agreement among the others: %+v (all: %+v)", excluded, dr.Others)
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, o := range dr.Others {
		if o.DocTitle == "" || o.DocTitle == o.Name {
			t.Errorf("%s is not named as people name it (doc_title %q)", o.Name, o.DocTitle)
		}
		if want := "- " + o.DocTitle + " (" + o.Name + ") — "; !strings.Contains(b.String(), want) {
			t.Errorf("markdown does not name %s as %q:\n%s", o.Name, want, b.String())
		}
	}
}

// TestEvidencePerContractAsksTheNotice: a deal-room question that asks "on
// what notice" gets each contract's notice period, per party where the
// parties hold the right on different terms (the services agreement's
// customer on 60 days, its provider on 180 days in a renewal term), in the
// report and in a column of its Markdown table.
func TestEvidencePerContractAsksTheNotice(t *testing.T) {
	lib := sharedLib(t)
	r, err := Evidence(context.Background(), lib, Request{Question: "Which of our contracts can be terminated for convenience, and on what notice?"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dr := r.DealRoom
	if dr == nil || dr.Provision != "Termination for Convenience" || dr.Ask != "notice" {
		t.Fatalf("deal room %+v", dr)
	}
	var msa *report.ContractAnswer
	for i, c := range r.Contracts {
		if strings.Contains(c.Name, "master-services") {
			msa = &r.Contracts[i]
		}
	}
	if msa == nil {
		t.Fatalf("the services agreement is not listed: %+v", r.Contracts)
	}
	if !strings.HasPrefix(msa.Answer, "Customer: Yes, 60 days' notice") || !strings.Contains(msa.Answer, "Provider: only during any Renewal Term, 180 days' notice") {
		t.Errorf("answer %q", msa.Answer)
	}
	if msa.Asked != "Customer: 60 days; Provider: 180 days (only during any Renewal Term)" {
		t.Errorf("notice asked %q", msa.Asked)
	}
	// the clause named first is the one the answer was read from: the
	// Customer's right, 11.2(a)
	if len(msa.Citations) == 0 || !strings.HasSuffix(msa.Citations[0].Path, "11.2 > (a)") || !strings.Contains(msa.Citations[0].Text, "sixty (60) days") {
		t.Errorf("first citation %+v, want 11.2(a)", msa.Citations)
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| contract | answer | notice | clause | page |") || !strings.Contains(b.String(), "| Customer: 60 days; Provider: 180 days") {
		t.Errorf("markdown lacks the notice column:\n%s", b.String())
	}
}

// The one-line summary names the value asked for only when some contract
// has the provision: "none have it … for each, the notice period it states"
// promises a list that is not there.
func TestPerContractLineAsksOnlyWhereFound(t *testing.T) {
	none := &report.DealRoom{Method: "review", Provision: "Termination for Convenience", Ask: "notice", Checked: 7, Lacking: 7}
	if l := PerContractLine(none); strings.Contains(l, "notice period") {
		t.Errorf("no contract has it, yet: %q", l)
	}
	some := &report.DealRoom{Method: "review", Provision: "Termination for Convenience", Ask: "notice", Checked: 7, With: 2, Lacking: 5}
	if l := PerContractLine(some); !strings.Contains(l, "for each that has it, the notice period it states") {
		t.Errorf("two contracts have it: %q", l)
	}
}
