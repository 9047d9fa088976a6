package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/review/detect"
)

// runEvalLearning runs "pakton eval learning": the learning curve of
// provisions held out of the detectors, from a simulated reviewer's
// decisions.
func runEvalLearning(ctx context.Context, args []string) error {
	fs := newCommandFlags("eval learning", "[flags]",
		"Holds provisions out of the detectors (found zero-shot), then trains each from a simulated\n"+
			"reviewer's decisions on 5, 10, 20, 40 contracts (\"pakton review train --review\" on top of the\n"+
			"other detectors) and scores it on contracts no detector saw. See docs/EVALUATION.md.")
	labelsPath, corpus := addLabelFlags(fs)
	pbPath := addPlaybookFlag(fs)
	provs := fs.String("provisions", "Audit Rights,Minimum Commitment,Post-Termination Services", "provisions held out of the detectors and learned from decisions (comma-separated)")
	sizesFlag := fs.String("sizes", "5,10,20,40", "numbers of decided contracts (comma-separated)")
	draws := fs.Int("draws", 3, "draws of the decided contracts per size")
	folds := fs.Int("folds", 2, "folds: each in turn is the unseen contracts scored")
	jsonOut, quiet := addReportFlags(fs)
	cache := fs.String("cache", "", "keep each fold's detectors (trained without the provisions) in this directory and reuse them")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	var sizes []int
	for _, s := range splitList(*sizesFlag) {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return fmt.Errorf("eval learning: --sizes: %q is not a positive number", s)
		}
		sizes = append(sizes, n)
	}
	if *folds < 2 || *draws < 1 {
		return fmt.Errorf("eval learning: --folds must be 2 or more and --draws 1 or more")
	}
	labels, err := detect.LoadLabels(*labelsPath)
	if err != nil {
		return err
	}
	pb, _, err := loadPlaybook(*pbPath, nil)
	if err != nil {
		return err
	}
	opt := eval.LearningOptions{Labels: labels, CorpusDir: *corpus, Playbook: pb, Provisions: splitList(*provs), Sizes: sizes, Draws: *draws, Folds: *folds, CacheDir: *cache}
	if !*quiet {
		opt.Progress = func(stage string, done, total int) {
			fmt.Fprintf(os.Stderr, "\r%-70.70s %d/%d", stage, done, total)
		}
	}
	rep, err := eval.RunLearningCurve(ctx, opt)
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	eval.WriteLearningTable(stdout, rep)
	if *jsonOut != "" {
		return writeJSONFile(*jsonOut, rep)
	}
	return nil
}
