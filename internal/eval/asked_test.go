package eval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review"
)

// TestAskedCategories measures which provision a question is matched to on
// questions whose provision is known: the CUAD dev queries in the
// benchmark's wording and in our rewrites, and the deal-room questions,
// each matched with its own provision's playbook questions held out of that
// provision's profile (as eval legalbench and eval dealroom do). It logs
// how many questions the matcher answers and how many of those name the
// right provision, and guards both (measured: CUAD dev 1,123 right of 1,163
// answered, rewrites 148 of 280, deal room 10 of 10; floors a little under).
// PAKTON_SLOW=1; seconds.
func TestAskedCategories(t *testing.T) {
	dir := sharedData(t)
	bench, err := LoadBenchmark(filepath.Join(dir, "benchmarks", "cuad_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	reworded, err := Paraphrase(bench)
	if err != nil {
		t.Fatal(err)
	}
	deal, err := DealRoomQuestions()
	if err != nil {
		t.Fatal(err)
	}
	pb, det := review.Builtin()
	matchers := map[string]*review.Reviewer{}
	asked := func(cat, q string) []string {
		name := ""
		for _, p := range pb.Provisions {
			if strings.EqualFold(p.Name, cat) {
				name = p.Name
			}
		}
		m, ok := matchers[name]
		if !ok {
			if m, err = review.MatcherWithout(pb, det, name); err != nil {
				t.Fatal(err)
			}
			matchers[name] = m
		}
		return m.AskedProvisions(q)
	}
	type set struct {
		name string
		qs   [][2]string // category, question
	}
	var sets []set
	for _, b := range []*Benchmark{bench, reworded} {
		s := set{name: b.Name}
		for _, q := range b.Tests {
			s.qs = append(s.qs, [2]string{q.Category, q.Query})
		}
		sets = append(sets, s)
	}
	d := set{name: "deal room"}
	for _, q := range deal {
		d.qs = append(d.qs, [2]string{q.Provision, q.Question})
	}
	sets = append(sets, d)
	for _, s := range sets {
		answered, right := 0, 0
		per := map[string]map[string]int{}
		for _, q := range s.qs {
			got := asked(q[0], q[1])
			if per[q[0]] == nil {
				per[q[0]] = map[string]int{}
			}
			per[q[0]][strings.Join(got, "+")]++
			if len(got) > 0 {
				answered++
			}
			if slices.ContainsFunc(got, func(n string) bool { return strings.EqualFold(n, q[0]) }) {
				right++
			}
			if testing.Verbose() && s.name == "deal room" {
				t.Logf("  %q → %v", q[1], got)
			}
		}
		if os.Getenv("PAKTON_ASKED_DETAIL") != "" {
			for c, m := range per {
				t.Logf("  %s %s: %v", s.name, c, m)
			}
		}
		t.Logf("%s: %d questions, answered %d, right %d (%.1f%%)", s.name, len(s.qs), answered, right, pct(right, answered))
		if f := askedFloors[s.name]; right < f.right || pct(right, answered) < f.rate {
			t.Errorf("%s: %d right of %d answered, under the floor of %d at %.0f%%", s.name, right, answered, f.right, f.rate)
		}
	}
}

// askedFloors are TestAskedCategories' floors: right answers and the share
// of answers that are right.
var askedFloors = map[string]struct {
	right int
	rate  float64
}{
	"cuad_dev":             {1090, 93},
	"cuad_dev_paraphrased": {135, 50},
	"deal room":            {10, 95},
}
