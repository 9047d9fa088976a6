package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
)

// runEvalReview runs "pakton eval review".
func runEvalReview(ctx context.Context, args []string) error {
	fs := newCommandFlags("eval review", "[flags]",
		"Reviews labelled contracts against a playbook, offline, and scores every labelled contract x provision:\n"+
			"precision, recall and F1 of found cells (a found cell must show a labelled span), AUPR, precision at 80%\n"+
			"recall, characters returned per found cell and speed. See docs/EVALUATION.md.")
	labelsPath, corpus := addLabelFlags(fs)
	pbPath := addPlaybookFlag(fs)
	detPath := fs.String("detectors", "", "score this detectors file as it is (implies --folds 0 unless --folds is given; ignored with --folds or --zero-shot)")
	folds := fs.Int("folds", 4, "cross-validate: train on the other K-1 parts of the contracts, review each part; 0: score the detectors as they are (the shipped ones were trained on the CUAD review_dev contracts, so that is optimistic on them)")
	zeroShot := fs.Bool("zero-shot", false, "measure every labelled provision as if nobody had labelled it (definition, keywords and examples only)")
	jsonOut, quiet := addReportFlags(fs)
	valuesOut := fs.String("values", "", "write every scored answer of the development contracts (label, answer, right, evidence) to this file, one JSON object a line")
	release := fs.Bool("release", false, "at release time only: also score the value readers on the held-out quarter of the labels (contracts at positions 3 modulo 4) and print its aggregate (docs/EVALUATION.md)")
	neighbours := fs.Bool("neighbours", false, "train each fold with the neighbouring rights' clauses as negatives (measured, not the default: docs/EVALUATION.md)")
	relations := fs.Bool("relations", false, "train each fold on passages read with the passages around them: word clusters in the zero-shot scorer, the provisions neighbouring passages look like (measured, not the default: docs/EVALUATION.md)")
	ranks := fs.Bool("ranks", false, "also print, per provision, how often the first passage that covers a labelled span is the contract's best-scored passage, or among its best three, in the present cells")
	cache := fs.String("cache", "", "keep each fold's trained detectors in this directory and reuse them while labels, playbook and trainer are unchanged")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	foldsSet := false
	fs.Visit(func(f *flag.Flag) { foldsSet = foldsSet || f.Name == "folds" })
	if *detPath != "" && !foldsSet {
		*folds = 0 // a detectors file given is a detectors file to score
	}
	if *folds < 0 || *folds == 1 {
		return fmt.Errorf("eval review: --folds must be 0 (no cross-validation) or 2 or more")
	}
	labelsSet := false
	fs.Visit(func(f *flag.Flag) { labelsSet = labelsSet || f.Name == "labels" })
	if !labelsSet && strings.EqualFold(*pbPath, review.MergerName) {
		*labelsPath = mergerDevLabels // the merger playbook's deal points are MAUD's
	}
	labels, err := eval.LoadReviewLabels(*labelsPath)
	if err != nil {
		return err
	}
	pb, det, err := loadPlaybook(*pbPath, nil)
	if err != nil {
		return err
	}
	if *detPath != "" {
		if det, err = detect.LoadDetectors(*detPath); err != nil {
			return err
		}
	}
	opt := eval.ReviewOptions{Labels: labels, CorpusDir: *corpus, Playbook: pb, Detectors: det, Folds: *folds, ZeroShot: *zeroShot, CacheDir: *cache, Neighbours: *neighbours, Relations: *relations, Ranks: *ranks, Release: *release, Progress: stageProgress(*quiet)}
	if *valuesOut != "" {
		f, err := os.Create(*valuesOut)
		if err != nil {
			return fmt.Errorf("eval review: %w", err)
		}
		defer f.Close()
		enc := json.NewEncoder(f)
		opt.Values = func(v eval.ValueOutcome) { enc.Encode(v) }
	}
	rep, err := eval.RunReview(ctx, opt)
	if err != nil {
		return err
	}
	eval.WriteReviewTable(os.Stdout, rep)
	ex, err := eval.RunExcludingCheck(ctx, pb, det)
	if err != nil {
		return err
	}
	eval.WriteExcludingTable(os.Stdout, ex)
	rep.Excluding = ex
	if *jsonOut != "" {
		if err := writeJSONFile(*jsonOut, rep); err != nil {
			return err
		}
	}
	return nil
}
