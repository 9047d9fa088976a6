package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/review"
)

// TestMergerReviewTargets cross-validates the merger-agreement playbook on
// the MAUD dev half, 4 folds by agreement, and holds the numbers
// docs/EVALUATION.md reports ("Merger agreements by deal point") to floors
// 3 points (0.03) under them (PAKTON_SLOW=1; about 5 minutes on two idle
// cores, with a 30-minute deadline).
func TestMergerReviewTargets(t *testing.T) {
	dir := sharedData(t) // …/data/legalbenchrag
	path := filepath.Join(dir, "benchmarks", "maud_dev.json")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no MAUD dev half in ../shared/data")
	}
	labels, err := LoadReviewLabels(path)
	if err != nil {
		t.Fatal(err)
	}
	pb, _, err := review.Choose(review.MergerName, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	rep, err := RunReview(ctx, ReviewOptions{Labels: labels, CorpusDir: filepath.Join(dir, "corpus"), Playbook: pb, Folds: 4})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Micro
	t.Logf("4-fold CV by agreement: P %.3f R %.3f F1 %.3f AUPR %.3f chars/found %.0f, macro F1 %.3f",
		o.Precision, o.Recall, o.F1, o.AUPR, o.CharsPerFound, rep.MacroF1)
	if rep.Documents != 75 || rep.Cells != 839 {
		t.Errorf("%d agreements, %d cells scored; want the dev half's 75 and 839", rep.Documents, rep.Cells)
	}
	for _, c := range []struct {
		name       string
		got, floor float64
	}{{"micro F1", o.F1, mergerFloorMicro}, {"macro F1", rep.MacroF1, mergerFloorMacro}, {"MAE definition F1", rep.Provisions["Material Adverse Effect Definition"].F1, mergerFloorMAE}} {
		if c.got < c.floor {
			t.Errorf("%s %.3f below its floor %.2f", c.name, c.got, c.floor)
		}
	}
}

// Floors of TestMergerReviewTargets: 3 points under docs/EVALUATION.md.
const (
	mergerFloorMicro = 0.884
	mergerFloorMacro = 0.856
	mergerFloorMAE   = 0.827
)
