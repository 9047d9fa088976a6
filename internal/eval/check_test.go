package eval

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review"
)

// TestProvisionCheck measures the provision check of offline answers (the
// "found / not found" an evidence report adds when a question clearly asks
// about a playbook provision): every CUAD dev question template, asked of
// every labelled contract, with detectors cross-validated (4 folds, as
// TestReviewTargets). PAKTON_SLOW=1; about 2 minutes.
func TestProvisionCheck(t *testing.T) {
	dir := sharedData(t)
	labels, err := review.LoadLabels(filepath.Join(dir, "..", "cuad", "review_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	bench, err := LoadBenchmark(filepath.Join(dir, "benchmarks", "cuad_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	// One question per category: the part after "Consider …;".
	questions := map[string]string{}
	for _, q := range bench.Tests {
		if _, ok := questions[strings.ToLower(q.Category)]; ok {
			continue
		}
		text := q.Query
		if i := strings.Index(text, ";"); i >= 0 {
			text = strings.TrimSpace(text[i+1:])
		}
		questions[strings.ToLower(q.Category)] = text
	}
	pb, _ := review.Builtin()
	ctx := context.Background()
	docs, err := review.LoadTraining(ctx, filepath.Join(dir, "corpus"), labels, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var asked, fired, rightProv, claimsNF, trueNF, claimsF, trueF, presentAsked, presentNF int
	const folds = 4
	for f := range folds {
		var train []review.TrainingDoc
		for i, d := range docs {
			if i%folds != f {
				train = append(train, d)
			}
		}
		det, _, err := review.Train(ctx, train, pb, review.TrainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		all, err := review.NewReviewer(pb, det)
		if err != nil {
			t.Fatal(err)
		}
		for cat, q := range questions {
			names := all.AskedProvisions(q)
			sub, err := pb.Select(names)
			if err != nil {
				t.Fatal(err)
			}
			var rev *review.Reviewer
			if len(names) > 0 {
				if rev, err = review.NewReviewer(sub, det); err != nil {
					t.Fatal(err)
				}
			}
			matched := false
			for _, n := range names {
				matched = matched || strings.EqualFold(n, cat)
			}
			for i, d := range docs {
				if i%folds != f {
					continue
				}
				lb, ok := labelFor(d.Labels, cat)
				if !ok {
					continue
				}
				asked++
				if lb.Present {
					presentAsked++
				}
				if rev == nil {
					continue
				}
				fired++
				if matched {
					rightProv++
				}
				row, err := rev.ReviewPrepared(ctx, d.Prep)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, c := range row.Cells {
					found = found || c.Found
				}
				if found {
					claimsF++
					if lb.Present {
						trueF++
					}
				} else {
					claimsNF++
					if !lb.Present {
						trueNF++
					} else {
						presentNF++
					}
				}
			}
		}
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("%d category questions × labelled contracts = %d asks (%d with the provision present)", len(questions), asked, presentAsked)
	t.Logf("check fired on %d (%.1f%%); it checked the asked category on %d (%.1f%% of fired)", fired, pct(fired, asked), rightProv, pct(rightProv, fired))
	t.Logf("\"found\" claims %d, right %d (%.1f%%); \"not found\" claims %d, right %d (%.1f%%)", claimsF, trueF, pct(trueF, claimsF), claimsNF, trueNF, pct(trueNF, claimsNF))
	t.Logf("\"not found\" said of a contract that has the provision: %d of %d present asks (%.1f%%)", presentNF, presentAsked, pct(presentNF, presentAsked))
	if claimsNF > 0 && pct(trueNF, claimsNF) < 80 {
		t.Errorf("\"not found\" right only %.1f%% of the time", pct(trueNF, claimsNF))
	}
}
