package review_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// TestMergerPlaybookComplete checks the built-in merger-agreement playbook
// as the default one is checked: every deal point can be found without
// labels, and the shipped detectors were trained for this playbook (each
// trained model is a deal point's, and the file says how it was made).
func TestMergerPlaybookComplete(t *testing.T) {
	pb, det, err := review.Choose("merger", "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pb.Name != "pakton merger agreement" || pb.Version == "" || pb.Attribution == "" {
		t.Errorf("playbook %q version %q attribution %q", pb.Name, pb.Version, pb.Attribution)
	}
	labels := map[string]bool{}
	for _, p := range pb.Provisions {
		if strings.TrimSpace(p.Definition) == "" || strings.TrimSpace(p.Excludes) == "" || p.Group == "" || len(p.Questions) == 0 {
			t.Errorf("%s: definition, excludes, group or questions missing", p.Name)
		}
		if len(p.Keywords) < 3 || len(p.Examples) < 2 {
			t.Errorf("%s: %d keywords, %d examples; want at least 3 and 2", p.Name, len(p.Keywords), len(p.Examples))
		}
		if !slices.Contains(playbook.AnswerFormats, p.Answer) {
			t.Errorf("%s: answer format %q", p.Name, p.Answer)
		}
		labels[strings.ToLower(p.LabelName())] = true
	}
	if !strings.Contains(det.Command, "--playbook merger") || !strings.Contains(det.Command, "maud_dev.json") {
		t.Errorf("merger detectors made by %q, want the merger playbook trained on the MAUD dev half", det.Command)
	}
	if len(det.Models) < 5 {
		t.Errorf("%d trained merger detectors, want most deal points trained", len(det.Models))
	}
	for _, m := range det.Models {
		if !labels[strings.ToLower(m.Name)] {
			t.Errorf("shipped detector %q is no deal point's of the playbook", m.Name)
		}
	}
	if _, _, err := review.Choose("mergers", "", nil, nil); err == nil || !strings.Contains(err.Error(), `"merger"`) {
		t.Errorf("unknown built-in name: err = %v, want the built-in names listed", err)
	}
	if def, _, _ := review.Choose("", "", nil, nil); def.Provision("Governing Law") == nil {
		t.Error("the default playbook is no longer the CUAD one")
	}
}

// TestMergerReviewSyntheticAgreement reviews a short merger agreement
// written for this test with the built-in merger playbook and its shipped
// detectors: each deal point must be found in the section that holds it.
func TestMergerReviewSyntheticAgreement(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "merger.txt"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parse.Bytes(context.Background(), "merger.txt", data, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pb, det, err := review.Choose("merger", "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := review.NewReviewer(pb, det)
	if err != nil {
		t.Fatal(err)
	}
	row, err := rev.Review(context.Background(), detect.Doc{ID: "m", Name: "merger.txt", Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // deal point → words of the section that holds it
		"Type of Consideration":                     "converted into the right to receive $38.75 in cash",
		"Material Adverse Effect Definition":        "disproportionate effect",
		"No Material Adverse Effect Representation": "Since December 31, 2024",
		"No-Shop":                          "knowingly encourage or facilitate",
		"Fiduciary Exception to No-Shop":   "reasonably likely to lead to a Superior Proposal",
		"Superior Proposal Definition":     "more favorable from a financial point of view",
		"Intervening Event Definition":     "not known or reasonably foreseeable",
		"Knowledge Definition":             "after reasonable inquiry of their direct reports",
		"Ordinary Course Covenant":         "ordinary course of business consistent with past practice",
		"Limitations on Antitrust Efforts": "hold separate order",
		"Specific Performance":             "irreparable damage",
		"Termination Fee":                  "$52,000,000",
		"Covenant Compliance Condition":    "performed or complied in all material respects",
	}
	found := map[string]bool{}
	for _, c := range row.Cells {
		words, ok := want[c.Provision]
		if !ok {
			continue
		}
		found[c.Provision] = true
		var texts []string
		for _, e := range c.Extracts {
			texts = append(texts, e.Text)
		}
		all := strings.Join(texts, " […] ")
		if !c.Found || !strings.Contains(all, words) {
			t.Errorf("%s: found %v (confidence %.2f, %s), extracts %q; want found in the text holding %q", c.Provision, c.Found, c.Confidence, c.Method, cut(all, 300), words)
		}
	}
	for p := range want {
		if !found[p] {
			t.Errorf("no cell for %s", p)
		}
	}
	// The agreement has no financing condition: its conditions article
	// shares the zero-shot scorer's words ("the obligations of Parent …
	// are subject to the following conditions") but says nothing of
	// financing, so the cell is not found.
	for _, c := range row.Cells {
		if c.Provision == "Financing Condition" && c.Found {
			t.Errorf("Financing Condition found (%s, %s): %q", c.Method, c.Answer.Text, cut(c.Extracts[0].Text, 200))
		}
	}
	values := map[string]string{ // deal point → the answer read
		"Type of Consideration":                     "Cash: $38.75 in cash",
		"Material Adverse Effect Definition":        "changes in general economic, political or financial market conditions in the United States; changes in GAAP or applicable Law after the date hereof; any outbreak of hostilities, acts of war, sabotage or terrorism, or any pandemic…; the announcement or pendency of this Agreement or the transactions contemplated hereby; any failure by the Company to meet internal or published projections, forecasts…",
		"Termination Fee":                           "$52,000,000",
		"No Material Adverse Effect Representation": "2024-12-31",
		"Outside Date":                              "2025-12-31",
		"Specific Performance":                      "Yes",
	}
	for _, c := range row.Cells {
		want, ok := values[c.Provision]
		if !ok {
			continue
		}
		if got := c.Answer.Text; got != want {
			t.Errorf("%s: answer %q, want %q", c.Provision, got, want)
		}
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
