package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/review/detect"
)

// sharedData returns the benchmark data directory, or skips the test when it
// is absent (a user's fresh clone does not have it) or when slow suites are
// not enabled.
func sharedData(t testing.TB) string {
	t.Helper()
	if os.Getenv("PAKTON_SLOW") == "" {
		t.Skip("set PAKTON_SLOW=1 to run the benchmark suites")
	}
	dir := filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag")
	if _, err := os.Stat(filepath.Join(dir, "benchmarks", "cuad_dev.json")); err != nil {
		t.Skip("../shared/data is absent")
	}
	return dir
}

// TestLegalBenchTargets guards retrieval quality on the development set,
// words only (no detectors): every floor sits 3 points under the numbers
// docs/EVALUATION.md reports ("By question set and mode", --provisions off), and
// characters returned at most 5% above them, so a regression fails CI.
// Each benchmark is searched in an index of its own corpus (see Run): in a
// shared index CUAD's units set ContractNLI's query expansions, and a change
// to CUAD's clause trees moved ContractNLI R@1 by a point.
func TestLegalBenchTargets(t *testing.T) {
	dir := sharedData(t)
	m, err := MethodByName("pakton")
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(dir, "corpus")
	cuad := filepath.Join(dir, "benchmarks", "cuad_dev.json")
	nli := filepath.Join(dir, "benchmarks", "contractnli_dev.json")

	wide, err := Run(t.Context(), Options{CorpusDir: corpus, Benches: []string{cuad}, Scope: "corpus", Method: m})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(t.Context(), Options{CorpusDir: corpus, Benches: []string{cuad, nli}, Scope: "document", Method: m})
	if err != nil {
		t.Fatal(err)
	}
	c, cd, n := wide.Benchmarks["cuad_dev"], doc.Benchmarks["cuad_dev"], doc.Benchmarks["contractnli_dev"]
	// Document-scoped CUAD: 51.06 / 82.79 / 96.81 on 2026-11-26.
	const cuadDocR1, cuadDocR8, cuadDocR64 = 48.0, 79.7, 93.8
	floors := []struct {
		name  string
		got   float64
		floor float64
	}{
		{"CUAD corpus R@1", c.Recall["1"], 47.2},
		{"CUAD corpus R@8", c.Recall["8"], 79.1},
		{"CUAD corpus R@64", c.Recall["64"], 93.4},
		{"CUAD corpus P@1", c.Precision["1"], 37.3},
		{"CUAD document R@1", cd.Recall["1"], cuadDocR1},
		{"CUAD document R@8", cd.Recall["8"], cuadDocR8},
		{"CUAD document R@64", cd.Recall["64"], cuadDocR64},
		{"ContractNLI R@1", n.Recall["1"], 55},
		{"ContractNLI R@8", n.Recall["8"], 90.5},
		{"ContractNLI R@64", n.Recall["64"], 99.5},
		{"ContractNLI P@1", n.Precision["1"], 35},
		{"CUAD corpus vs document R@1 gap (negated)", -(cd.Recall["1"] - c.Recall["1"]), -2},
		{"CUAD corpus vs document R@8 gap (negated)", -(cd.Recall["8"] - c.Recall["8"]), -2},
		{"CUAD corpus vs document R@64 gap (negated)", -(cd.Recall["64"] - c.Recall["64"]), -2},
		{"CUAD DRM@8 (negated)", -c.DRM["8"], -5},
		{"CUAD chars@1 (negated)", -c.Chars["1"], -580},
		{"CUAD chars@8 (negated)", -c.Chars["8"], -4210},
		{"CUAD chars@64 (negated)", -c.Chars["64"], -27490},
	}
	for _, f := range floors {
		t.Logf("%-45s %10.2f (floor %.2f)", f.name, f.got, f.floor)
		if f.got < f.floor {
			t.Errorf("%s = %.2f, below %.2f", f.name, f.got, f.floor)
		}
	}
}

// TestProvisionFusionTargets measures search with the review detectors'
// passage first for provision questions, as eval legalbench does by
// default: detectors trained in two folds so no contract is searched with
// detectors trained on it, and each question matched to provisions with its
// own provision's playbook questions held out of that provision's profile
// (the new-types and paraphrased sets were written next to the playbook).
// No set may lose to plain search (by more than half a point at R@1), and
// every floor sits 3 points under
// docs/EVALUATION.md's numbers.
func TestProvisionFusionTargets(t *testing.T) {
	dir := sharedData(t)
	data := filepath.Dir(dir)
	m, err := MethodByName("pakton")
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(dir, "corpus")
	dev := filepath.Join(dir, "benchmarks", "cuad_dev.json")
	b, err := LoadBenchmark(dev)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := LoadReview(filepath.Join(data, "cuad", "review_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	nt, err := NewTypes(b, rv, corpus)
	if err != nil {
		t.Fatal(err)
	}
	para, err := Paraphrase(b)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	ntPath, paraPath := filepath.Join(tmp, "cuad_dev_newtypes.json"), filepath.Join(tmp, "cuad_dev_paraphrased.json")
	if err := WriteBenchmark(ntPath, nt); err != nil {
		t.Fatal(err)
	}
	if err := WriteBenchmark(paraPath, para); err != nil {
		t.Fatal(err)
	}
	labels, err := detect.LoadLabels(filepath.Join(data, "cuad", "review_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := CrossValidatedProvisions(t.Context(), corpus, labels, 2, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	src.HoldOutQuestions = true
	benches := []string{dev, ntPath, paraPath}
	plain, err := Run(t.Context(), Options{CorpusDir: corpus, Benches: benches, Method: m})
	if err != nil {
		t.Fatal(err)
	}
	fused, err := Run(t.Context(), Options{CorpusDir: corpus, Benches: benches, Method: m, Provisions: src})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cuad_dev", "cuad_dev_newtypes", "cuad_dev_paraphrased"} {
		p, f := plain.Benchmarks[name], fused.Benchmarks[name]
		t.Logf("%s: R@1 %.2f → %.2f, R@8 %.2f → %.2f, R@64 %.2f → %.2f, chars@1 %.0f → %.0f, detectors first %.1f%%",
			name, p.Recall["1"], f.Recall["1"], p.Recall["8"], f.Recall["8"], p.Recall["64"], f.Recall["64"], p.Chars["1"], f.Chars["1"], f.ProvisionTop1)
		// A loss past half a point at R@1 or 0.2 at R@64 fails. Below that
		// the sets move by single questions: on the paraphrased set the
		// detectors' passage first is 0.31 below words alone at R@1 and
		// above them at R@8 and R@64.
		if f.Recall["1"] < p.Recall["1"]-0.5 || f.Recall["64"] < p.Recall["64"]-0.2 {
			t.Errorf("%s: the detectors' passages cost recall", name)
		}
		if f.ShortTop1 > 0 || f.MidTokenTop1 > 0 {
			t.Errorf("%s: %.1f%% of first hits under 40 characters, %.1f%% inside a word", name, f.ShortTop1, f.MidTokenTop1)
		}
		if f.ProvisionTop1 == 0 {
			t.Errorf("%s: the detectors never came first", name)
		}
	}
	for _, f := range []struct {
		bench, k string
		floor    float64
	}{
		{"cuad_dev", "1", 51.8}, {"cuad_dev", "8", 80.4}, {"cuad_dev", "64", 93.6},
		{"cuad_dev_newtypes", "1", 9.0}, {"cuad_dev_newtypes", "8", 47.5}, {"cuad_dev_newtypes", "64", 86.8},
		{"cuad_dev_paraphrased", "1", 33.8}, {"cuad_dev_paraphrased", "8", 69.6}, {"cuad_dev_paraphrased", "64", 89.9},
	} {
		if r := fused.Benchmarks[f.bench].Recall[f.k]; r < f.floor {
			t.Errorf("%s R@%s %.2f, below the floor %.1f", f.bench, f.k, r, f.floor)
		}
	}
}

// TestLearnedTargets guards the words learnt from labelled questions on
// the MAUD and PrivacyQA development halves, words only (no detectors),
// learnt in 4 folds by document as eval legalbench does by default: every
// floor sits 3 points under docs/EVALUATION.md's measurement ("Regression
// floors"), characters returned at most 5% above it.
func TestLearnedTargets(t *testing.T) {
	dir := sharedData(t)
	maud := filepath.Join(dir, "benchmarks", "maud_dev.json")
	pqa := filepath.Join(dir, "benchmarks", "privacy_qa_dev.json")
	if _, err := os.Stat(maud); err != nil {
		t.Skip("no MAUD dev half in ../shared/data")
	}
	m, err := MethodByName("pakton")
	if err != nil {
		t.Fatal(err)
	}
	benches := []string{maud, pqa}
	rep, err := Run(t.Context(), Options{CorpusDir: filepath.Join(dir, "corpus"), Benches: benches, Scope: "corpus", Method: m,
		Learn: &LearnSource{From: benches, Folds: 4}})
	if err != nil {
		t.Fatal(err)
	}
	ma, pq := rep.Benchmarks["maud_dev"], rep.Benchmarks["privacy_qa_dev"]
	floors := []struct {
		name  string
		got   float64
		floor float64
	}{
		{"MAUD R@1", ma.Recall["1"], 42.3},
		{"MAUD R@8", ma.Recall["8"], 76.2},
		{"MAUD R@64", ma.Recall["64"], 92.1},
		{"MAUD P@1", ma.Precision["1"], 64.7},
		{"PrivacyQA R@1", pq.Recall["1"], 18.1},
		{"PrivacyQA R@8", pq.Recall["8"], 58.4},
		{"PrivacyQA R@64", pq.Recall["64"], 93.2},
		{"MAUD chars@1 (negated)", -ma.Chars["1"], -615},
		{"MAUD chars@8 (negated)", -ma.Chars["8"], -4553},
		{"MAUD chars@64 (negated)", -ma.Chars["64"], -33578},
	}
	for _, f := range floors {
		t.Logf("%-45s %10.2f (floor %.2f)", f.name, f.got, f.floor)
		if f.got < f.floor {
			t.Errorf("%s = %.2f, below %.2f", f.name, f.got, f.floor)
		}
	}
}
