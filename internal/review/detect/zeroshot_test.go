package detect

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

// builtinPlaybook reads the built-in playbook (internal/review/builtin,
// which package review embeds).
func builtinPlaybook(t *testing.T) *playbook.Playbook {
	t.Helper()
	pb, err := playbook.LoadPlaybook(filepath.Join("..", "builtin", "playbook.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// TestBuiltinKeywordsHaveWords checks that every built-in keyword and near
// phrase keeps a word once analyzed.
func TestBuiltinKeywordsHaveWords(t *testing.T) {
	pb := builtinPlaybook(t)
	for _, p := range pb.Provisions {
		for _, k := range p.Keywords {
			if len(Analyze(k.Text)) == 0 {
				t.Errorf("%s: keyword %q has no words", p.Name, k.Text)
			}
			for _, n := range k.Near {
				if len(Analyze(n)) == 0 {
					t.Errorf("%s: keyword %q: near %q has no words", p.Name, k.Text, n)
				}
			}
		}
	}
}

// TestBuiltinExamplesHitKeywords checks that the keyword rules fire on the
// provision's own example clauses: a keyword whose proximity rule never
// matches typical drafting (a misspelt near word, a window too small) would
// leave the zero-shot scorer without its strongest signal.
func TestBuiltinExamplesHitKeywords(t *testing.T) {
	pb := builtinPlaybook(t)
	checkExamplesHitKeywords(t, pb)
}

func checkExamplesHitKeywords(t *testing.T, pb *playbook.Playbook) {
	t.Helper()
	zs := newZeroShot(pb, nil)
	for j, p := range pb.Provisions {
		if len(p.Keywords) == 0 {
			continue
		}
		for i, e := range p.Examples {
			if keywordHits(Analyze(e), zs.phrases[j]) == 0 {
				t.Errorf("%s: %s: example %d matches none of its keywords: %q", pb.Source, p.Name, i+1, e)
			}
		}
	}
}

// TestExamplePlaybooksHitKeywords checks the keyword rules of the
// playbooks shipped in examples/playbooks.
func TestExamplePlaybooksHitKeywords(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "playbooks", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example playbooks in examples/playbooks (%v)", err)
	}
	for _, f := range files {
		pb, err := playbook.LoadPlaybook(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		checkExamplesHitKeywords(t, pb)
	}
}

// TestDocsPlaybookExamplesHitKeywords checks the keyword rules of every
// playbook in docs/PLAYBOOKS.md.
func TestDocsPlaybookExamplesHitKeywords(t *testing.T) {
	path := filepath.Join("..", "..", "..", "docs", "PLAYBOOKS.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range strings.Split(string(data), "```yaml\n")[1:] {
		b, _, _ = strings.Cut(b, "```")
		if !strings.Contains(b, "provisions:") {
			continue
		}
		pb, err := playbook.ParsePlaybook(path, []byte(b))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		checkExamplesHitKeywords(t, pb)
	}
}

// TestBuiltinClauseBankSeparates checks that each built-in provision's
// zero-shot scorer tells its own example clauses from the other provisions'
// examples: every example, left out of its provision's profile, must score
// above nearly all the examples of other provisions (AUC ≥ 0.95 per
// provision). Word weights are uniform (no detectors) so retraining cannot
// move the result. This is a check of distinctiveness on the playbook's own
// clause bank, not a measure of quality on contracts (docs/EVALUATION.md).
func TestBuiltinClauseBankSeparates(t *testing.T) {
	pb := builtinPlaybook(t)
	type example struct {
		prov int
		nth  int
	}
	var bank []example
	prep := &Prepared{}
	for j, p := range pb.Provisions {
		for i, e := range p.Examples {
			bank = append(bank, example{j, i})
			prep.passages = append(prep.passages, Passage{Words: Analyze(e)})
		}
	}
	for j, p := range pb.Provisions {
		var above, pairs int
		for i := range p.Examples {
			loo := *pb
			loo.Provisions = slices.Clone(pb.Provisions)
			loo.Provisions[j].Examples = slices.Delete(slices.Clone(p.Examples), i, i+1)
			scores := newZeroShot(&loo, nil).scores(prep)[j]
			own := slices.Index(bank, example{j, i})
			for k, e := range bank {
				if e.prov == j {
					continue
				}
				pairs++
				if scores[own] > scores[k] {
					above++
				}
			}
		}
		if auc := float64(above) / float64(pairs); auc < 0.95 {
			t.Errorf("%s: its left-out examples outscore %.1f%% of other provisions' examples, want ≥ 95%%", p.Name, 100*auc)
		}
	}
}

// TestMergerExamplesHitKeywords checks the keyword rules of the built-in
// merger-agreement playbook against its own example clauses.
func TestMergerExamplesHitKeywords(t *testing.T) {
	pb, err := playbook.LoadPlaybook(filepath.Join("..", "builtin", "merger.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checkExamplesHitKeywords(t, pb)
}

// TestLogTFExact checks that the table of logarithms gives exactly what
// math.Log does, for the frequencies it holds and for others.
func TestLogTFExact(t *testing.T) {
	for k := 1; k < 600; k++ {
		for _, tf := range []float64{float64(k) / 2, float64(k) / 3, float64(k)*headingShare + 0.25} {
			if got, want := logTF(tf), math.Log(tf); got != want {
				t.Fatalf("logTF(%v) = %v, math.Log %v", tf, got, want)
			}
		}
	}
}
