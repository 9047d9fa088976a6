package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
)

// TestReviewTrainFromDecisions: a reviewer's decisions on a review are
// labels for "pakton review train --review": accepted, rejected and
// corrected cells become a detector for the provision they decide.
func TestReviewTrainFromDecisions(t *testing.T) {
	dir, pb := reviewDeal(t)
	out := filepath.Join(dir, "out")
	if _, _, err := capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "review.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rv struct {
		Table review.Table `json:"table"`
	}
	if err := json.Unmarshal(raw, &rv); err != nil {
		t.Fatal(err)
	}

	// No decisions yet: a clear error.
	trained := filepath.Join(dir, "det.json")
	_, _, err = capture(t, trainCmd, "--playbook", pb, "--review", filepath.Join(out, "review.json"), "--out", trained, "-q")
	if err == nil || !strings.Contains(err.Error(), "no decisions") {
		t.Fatalf("training without decisions: %v", err)
	}

	// Decide every contract's Governing Law: accept the found cells, and
	// correct one with the text of its governing-law sentence.
	var ds review.Decisions
	for _, row := range rv.Table.Rows {
		c := rv.Table.Cell(row.DocID, "Governing Law")
		if c == nil {
			t.Fatalf("no Governing Law cell for %s", row.DocName)
		}
		switch {
		case c.Found && len(ds) == 0 && len(c.Extracts) > 0:
			ds = append(ds, review.Decision{DocID: row.DocID, Provision: c.Provision, Verdict: review.Corrected, Text: c.Extracts[0].Text})
		case c.Found:
			ds = append(ds, review.Decision{DocID: row.DocID, Provision: c.Provision, Verdict: review.Accepted})
		default:
			ds = append(ds, review.Decision{DocID: row.DocID, Provision: c.Provision, Verdict: review.Rejected})
		}
	}
	data, _ := json.Marshal(ds)
	os.WriteFile(filepath.Join(out, "decisions.json"), data, 0o644)
	stdout, stderr, err := capture(t, trainCmd, "--playbook", pb, "--review", filepath.Join(out, "review.json"), "--out", trained, "-q")
	if err != nil {
		t.Fatalf("review train: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "decisions: 5") || !strings.Contains(stdout, "Governing Law") {
		t.Errorf("output:\n%s", stdout)
	}
	det, err := detect.LoadDetectors(trained)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(det.TrainedOn, "5 decisions") || !strings.Contains(det.Command, "--review") {
		t.Errorf("file provenance: trained on %q, command %q", det.TrainedOn, det.Command)
	}

	// A correction whose text is not in the contract is refused, naming it.
	ds[0].Text = "This text appears in no contract at all."
	data, _ = json.Marshal(ds)
	os.WriteFile(filepath.Join(out, "decisions.json"), data, 0o644)
	_, _, err = capture(t, trainCmd, "--playbook", pb, "--review", filepath.Join(out, "review.json"), "--out", trained, "-q")
	if err == nil || !strings.Contains(err.Error(), "not in the contract") {
		t.Fatalf("a correction outside the contract: %v", err)
	}
}

// trainCmd is "pakton review train" with the signature capture wants.
func trainCmd(_ context.Context, args []string) error { return runReviewTrain(args) }
