package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/review/detect"
)

// runEvalDealRoom runs "pakton eval dealroom".
func runEvalDealRoom(ctx context.Context, args []string) error {
	fs := newCommandFlags("eval dealroom", "[flags]",
		"Asks the built-in deal-room questions (\"Which of our contracts can be terminated for convenience?\")\n"+
			"of the labelled contracts, answered per contract by the review engine, and scores each list against\n"+
			"the labels: precision, recall and F1 over contracts. See docs/EVALUATION.md.")
	labelsPath, corpus := addLabelFlags(fs)
	folds := fs.Int("folds", 4, "cross-validate the detectors in K folds: each contract is reviewed with the detectors trained without it")
	workers := fs.Int("workers", 2, "contracts reviewed at once")
	jsonOut, quiet := addReportFlags(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *folds < 2 {
		return fmt.Errorf("eval dealroom: --folds must be 2 or more (the detectors must not review their own training contracts)")
	}
	labels, err := detect.LoadLabels(*labelsPath)
	if err != nil {
		return err
	}
	questions, err := eval.DealRoomQuestions()
	if err != nil {
		return err
	}
	rep, err := eval.RunDealRoom(ctx, *corpus, labels, questions, *folds, *workers, stageProgress(*quiet))
	if err != nil {
		return err
	}
	writeDealRoomTable(stdout, rep)
	if *jsonOut != "" {
		return writeJSONFile(*jsonOut, rep)
	}
	return nil
}

// writeDealRoomTable prints a deal-room evaluation.
func writeDealRoomTable(w io.Writer, rep *eval.DealRoomReport) {
	fmt.Fprintf(w, "deal-room questions over %d labelled contracts, detectors %s\n", rep.Contracts, rep.Mode)
	fmt.Fprintf(w, "%-72s %-28s %5s %5s %5s %6s %6s %6s\n", "question", "provision asked", "pos", "list", "undec", "P", "R", "F1")
	for _, q := range rep.Questions {
		asked := q.Asked
		if asked == "" {
			asked = "(none matched)"
		}
		if q.Condition != "" {
			asked += " [" + q.Condition + "]"
		}
		fmt.Fprintf(w, "%-72s %-28s %5d %5d %5d %6.3f %6.3f %6.3f\n", clipText(q.Question, 72), clipText(asked, 28), q.Positive, q.Listed, q.Undecided, q.Precision, q.Recall, q.F1)
	}
	fmt.Fprintf(w, "macro F1 %.3f; pooled precision %.3f, recall %.3f, F1 %.3f\n", rep.MacroF1, rep.MicroPrecision, rep.MicroRecall, rep.MicroF1)
}

// clipText cuts s to n characters.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
