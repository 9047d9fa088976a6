package review_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// TestPlaybookLimits: every number and list of a playbook is bounded at the
// edge, with an error naming the field.
func TestPlaybookLimits(t *testing.T) {
	prov := func(extra string) string {
		return "provisions:\n  - name: A\n    definition: d\n" + extra
	}
	many := func(n int, item string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, item, i)
		}
		return b.String()
	}
	cases := []struct {
		name, yaml, want string
	}{
		{"within overflow", prov("    keywords:\n      - {text: the, near: [x], within: 9223372036854775807}\n"), `field "within"`},
		{"within absurd", prov("    keywords:\n      - {text: the, near: [x], within: 1001}\n"), `field "within"`},
		{"boost nan", prov("    keywords:\n      - {text: the, boost: .nan}\n"), `field "boost"`},
		{"boost inf", prov("    keywords:\n      - {text: the, boost: .inf}\n"), `field "boost"`},
		{"boost huge", prov("    keywords:\n      - {text: the, boost: 1e308}\n"), `field "boost"`},
		{"aliases", "provisions: [&p {name: A, definition: d}, *p, *p]\n", "aliases"},
		{"alias deep", "defs: &d x\nprovisions:\n  - name: A\n    definition: *d\n", "aliases"},
		{"too many provisions", "provisions:\n" + many(playbook.MaxProvisions+1, "  - {name: P%d, definition: d}\n"), `field "provisions": 201 provisions`},
		{"too many keywords", prov("    keywords:\n" + many(playbook.MaxKeywords+1, "      - k%d\n")), `field "keywords"`},
		{"too many near", prov("    keywords:\n      - text: k\n        near: [" + strings.TrimSuffix(many(playbook.MaxNear+1, "n%d,"), ",") + "]\n"), `field "near"`},
		{"too many risks", prov("    risks:\n" + many(playbook.MaxRisks+1, "      - q%d?\n")), `field "risks"`},
		{"too big", prov("    excludes: " + strings.Repeat("x", playbook.MaxPlaybookBytes) + "\n"), "more than the"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := playbook.ParsePlaybook("pb.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, playbook.ErrPlaybook) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want ErrPlaybook naming %q", err, c.want)
			}
		})
	}
	// At the limits, a playbook is accepted.
	ok := prov("    keywords:\n      - {text: the, near: [x], within: 1000, boost: 100}\n")
	if _, err := playbook.ParsePlaybook("pb.yaml", []byte(ok)); err != nil {
		t.Errorf("a playbook at the limits: %v", err)
	}
}

// TestKeywordWindowNoPanic: a keyword window that overflows int, given to
// the reviewer without going through ParsePlaybook (a library caller, an
// old stored playbook), is clamped to the passage instead of panicking.
func TestKeywordWindowNoPanic(t *testing.T) {
	pb := &playbook.Playbook{Name: "x", Provisions: []playbook.Provision{{
		Name: "Governing Law", Definition: "The law that governs the agreement.", Answer: playbook.AnswerText,
		Keywords: []playbook.Keyword{{Text: "the", Near: []string{"laws"}, Within: math.MaxInt, Boost: 1}, {Text: "governed", Near: []string{"state"}, Within: math.MaxInt - 3, Boost: 1}},
	}}}
	rev, err := review.NewReviewer(pb, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := reviewtest.Store(t, "deal")
	tab, _, err := (&review.Run{Store: st, Collection: "deal", Reviewer: rev}).Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range tab.Rows {
		if row.Error != "" {
			t.Errorf("%s: %s", row.DocName, row.Error)
		}
	}
}

// panicky panics on one contract.
type panicky struct {
	*review.Reviewer
	on string
}

func (p panicky) Review(ctx context.Context, d detect.Doc) (review.Row, error) {
	if d.Name == p.on {
		var s []int
		_ = s[len(d.Name)] // the kind of slice panic a bad window caused
	}
	return p.Reviewer.Review(ctx, d)
}

// TestReviewWorkerPanic: a panic while reviewing one contract becomes that
// row's error; the process lives and the other contracts complete.
func TestReviewWorkerPanic(t *testing.T) {
	st := reviewtest.Store(t, "deal")
	infos, err := st.List(t.Context(), "deal")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rev := panicky{Reviewer: reviewtest.Reviewer(t), on: infos[1].Name}
	tab, stats, err := (&review.Run{Store: st, Collection: "deal", Reviewer: rev, Dir: dir, Concurrency: 2}).Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Failed != 1 || len(tab.Rows) != len(infos) {
		t.Fatalf("stats %+v, %d rows: want 1 failed of %d", stats, len(tab.Rows), len(infos))
	}
	for _, row := range tab.Rows {
		if (row.DocName == rev.on) != strings.Contains(row.Error, "internal error") {
			t.Errorf("%s: error %q", row.DocName, row.Error)
		}
	}
}

// TestDetectorNumbers: a detectors file with a number that is not finite or
// is absurd is refused when read, naming the field (such numbers would
// fail the review only at its end, writing a NaN).
func TestDetectorNumbers(t *testing.T) {
	base := `{"format":1,"zero_shot":{"a":%s,"b":-4,"platt":[1,0],"threshold":%s},"idf":{"term":%s},"default_idf":5,
"models":[{"name":"Governing Law","bias":%s,"zero_shot_weight":1,"weights":{"w:law":%s},"platt":[1,0],"threshold":0.5}]}`
	ok := []string{"12", "0.5", "3", "-1", "0.7"}
	file := func(vals []string) string {
		p := filepath.Join(t.TempDir(), "det.json")
		args := make([]any, len(vals))
		for i, v := range vals {
			args[i] = v
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf(base, args...)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := detect.LoadDetectors(file(ok)); err != nil {
		t.Fatalf("a sound file: %v", err)
	}
	for i, c := range []struct {
		at      int
		v, want string
	}{
		{0, "1e308", "zero_shot.a"}, {1, "1.5", "zero_shot.threshold"}, {2, "-2", `idf["term"]`},
		{3, "1e308", `model "Governing Law": field bias`}, {4, "-1e300", `weights["w:law"]`}, {3, "1e400", "detectors"},
	} {
		vals := append([]string(nil), ok...)
		vals[c.at] = c.v
		_, err := detect.LoadDetectors(file(vals))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d (%s = %s): %v, want an error naming %s", i, c.want, c.v, err, c.want)
		}
	}
}
