package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pakton/pakton/internal/review"
)

func init() { reviewSubcommands["train"] = runReviewTrain }

// runReviewTrain implements "pakton review train": fit detectors for a
// playbook's provisions from a labels file.
func runReviewTrain(args []string) error {
	fs := flag.NewFlagSet("review train", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pakton review train --labels FILE --corpus DIR --out FILE [flags]\n\n"+
			"Trains a detector per labelled provision of the playbook (and the calibration of the\n"+
			"zero-shot scorer used for provisions nobody labelled) and writes them as JSON. Use the\n"+
			"file with \"pakton review --detectors FILE\". The same labels and pakton give the same file.\n"+
			"Labels format: docs/PLAYBOOKS.md (\"Trained detectors\").\n\nFlags:\n")
		fs.PrintDefaults()
	}
	labelsPath := fs.String("labels", "", "labels file (e.g. ../shared/data/cuad/review_dev.json)")
	corpus := fs.String("corpus", "", "directory the labels' file paths are relative to")
	out := fs.String("out", "", "detectors file to write")
	pbPath := fs.String("playbook", "", "playbook (YAML); default: the built-in playbook")
	version := fs.String("version", "", "version written into the file (default: the date)")
	zeroOnly := fs.Bool("zero-shot-only", false, "fit only the zero-shot calibration, no per-provision detectors")
	quiet := fs.Bool("q", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *labelsPath == "" || *corpus == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("--labels, --corpus and --out are required")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	pb, _, err := loadPlaybook(*pbPath, nil)
	if err != nil {
		return err
	}
	labels, err := review.LoadLabels(*labelsPath)
	if err != nil {
		return err
	}
	covered := 0
	for _, p := range pb.Provisions {
		if labels.Covers(p.LabelName()) {
			covered++
		}
	}
	if covered == 0 {
		return fmt.Errorf("the labels in %s cover none of the playbook's %d provisions (names are matched case-insensitively, or through a provision's \"detector\" field)", *labelsPath, len(pb.Provisions))
	}
	if *version == "" {
		*version = time.Now().UTC().Format("2006-01-02")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	docs, err := review.LoadTraining(ctx, *corpus, labels, 0, func(done, total int) {
		if !*quiet {
			fmt.Fprintf(os.Stderr, "\rreading labelled contracts %d/%d", done, total)
		}
	})
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	cmd := []string{"pakton review train", "--labels", filepath.ToSlash(*labelsPath), "--corpus", filepath.ToSlash(*corpus), "--out", filepath.ToSlash(*out), "--version", *version}
	if *pbPath != "" {
		cmd = append(cmd, "--playbook", filepath.ToSlash(*pbPath))
	}
	if *zeroOnly {
		cmd = append(cmd, "--zero-shot-only")
	}
	opt := review.TrainOptions{
		Version:      *version,
		Command:      strings.Join(cmd, " "),
		TrainedOn:    fmt.Sprintf("%s: %d contracts, %d of the playbook's provisions labelled", filepath.Base(*labelsPath), len(docs), covered),
		ZeroShotOnly: *zeroOnly,
	}
	if !*quiet {
		opt.Progress = func(done, total int, name string) {
			fmt.Fprintf(os.Stderr, "\rtraining %d/%d %-40.40s", done, total, name)
		}
	}
	det, rep, err := review.Train(ctx, docs, pb, opt)
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	if err := det.Save(*out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "provision\tcontracts\tpresent\tCV F1 detector\tCV F1 zero-shot\tshipped")
	for _, p := range rep.Provisions {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%s\n", p.Name, p.Contracts, p.Present, p.DetectorF1, p.ZeroShotF1, p.Shipped)
	}
	tw.Flush()
	fmt.Printf("\nzero-shot calibration: a=%.3f b=%.3f threshold %.3f; detectors' threshold %.3f\n", rep.ZeroShot.A, rep.ZeroShot.B, rep.ZeroShot.Threshold, rep.Threshold)
	fmt.Printf("wrote %s (%d detectors) in %.1fs\n", *out, len(det.Models), time.Since(start).Seconds())
	return nil
}
