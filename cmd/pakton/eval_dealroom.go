package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/review"
)

// runEvalDealRoom runs "pakton eval dealroom".
func runEvalDealRoom(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("eval dealroom", flag.ContinueOnError)
	fs.SetOutput(stderr)
	labelsPath := fs.String("labels", "../shared/data/cuad/review_dev.json", "labels file (format: docs/PLAYBOOKS.md)")
	corpus := fs.String("corpus", "../shared/data/legalbenchrag/corpus", "directory the labels' file paths are relative to")
	folds := fs.Int("folds", 4, "cross-validate the detectors in K folds: each contract is reviewed with the detectors trained without it")
	workers := fs.Int("workers", 2, "contracts reviewed at once")
	jsonOut := fs.String("json", "", "write the JSON report to this file")
	quiet := fs.Bool("q", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pakton eval dealroom [flags]\n\n"+
			"Asks the built-in deal-room questions (\"Which of our contracts can be terminated for convenience?\")\n"+
			"of the labelled contracts, answered per contract by the review engine, and scores each list against\n"+
			"the labels: precision, recall and F1 over contracts. See docs/EVALUATION.md.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("eval dealroom: unexpected argument %q", fs.Arg(0))
	}
	if *folds < 2 {
		return fmt.Errorf("eval dealroom: --folds must be 2 or more (the detectors must not review their own training contracts)")
	}
	labels, err := review.LoadLabels(*labelsPath)
	if err != nil {
		return err
	}
	questions, err := eval.DealRoomQuestions()
	if err != nil {
		return err
	}
	var progress func(string, int, int)
	if !*quiet {
		progress = func(stage string, done, total int) {
			fmt.Fprintf(stderr, "\r%s %d/%d   ", stage, done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	rep, err := eval.RunDealRoom(ctx, *corpus, labels, questions, *folds, *workers, progress)
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
