package eval

import (
	"context"
	"testing"

	"github.com/pakton/pakton/internal/review"
)

// TestExcludingCheck runs the polarity check with the built-in playbook and
// detectors: no dev clause that excludes its provision may be answered Yes,
// and the held-out sets may not do worse than measured.
func TestExcludingCheck(t *testing.T) {
	pb, det := review.Builtin()
	rep, err := RunExcludingCheck(context.Background(), pb, det)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Clauses < 60 {
		t.Fatalf("%d clauses checked, want the whole set", rep.Clauses)
	}
	for _, r := range rep.Results {
		// only the dev set's clauses are named: the held-out sets are read
		// as counts (docs/EVALUATION.md)
		if r.Yes && r.Set == "dev" {
			t.Errorf("Yes for %s (%s) on an excluding clause: %s", r.Provision, r.Set, r.Clause)
		}
	}
	t.Logf("dev %+v, held out %+v, held out 2 %+v, held out 3 %+v", rep.Dev, rep.HeldOut, rep.HeldOut2, rep.HeldOut3)
	// The target is none. held_out and held_out_2 became development sets
	// (their failures were read and fixed: 0 of 58); held_out_3 measured 2
	// of 16 Yes when this floor was set (docs/EVALUATION.md): a regression
	// fails the test.
	if n := rep.HeldOut.Yes + rep.HeldOut2.Yes; n > 0 {
		t.Errorf("%d excluding clauses of held_out and held_out_2 answered Yes", n)
	}
	if n := rep.HeldOut3.Yes; n > 2 {
		t.Errorf("%d held_out_3 excluding clauses answered Yes, more than the 2 measured", n)
	}
}
