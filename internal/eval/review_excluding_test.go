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
	t.Logf("dev %+v, held out %+v, held out 2 %+v, held out 3 %+v, held out 4 %+v", rep.Dev, rep.HeldOut, rep.HeldOut2, rep.HeldOut3, rep.HeldOut4)
	// The target is none. held_out, held_out_2 and held_out_3 became
	// development sets (their failures were read and fixed: 0 of 74);
	// held_out_4 (unseen) measured 0 of 20 Yes when it was written and after
	// the reader's last change (docs/EVALUATION.md): a Yes on it fails the test,
	// which names no clause.
	if n := rep.HeldOut.Yes + rep.HeldOut2.Yes + rep.HeldOut3.Yes; n > 0 {
		t.Errorf("%d excluding clauses of held_out, held_out_2 and held_out_3 answered Yes", n)
	}
	if n := rep.HeldOut4.Yes; n > 0 {
		t.Errorf("%d held_out_4 excluding clauses answered Yes (unseen set: see the counts, not the clauses)", n)
	}
}
