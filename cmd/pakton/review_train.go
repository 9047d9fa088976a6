package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
)

func init() { reviewSubcommands["train"] = runReviewTrain }

// runReviewTrain implements "pakton review train": fit detectors for a
// playbook's provisions from a labels file.
func runReviewTrain(args []string) error {
	fs, g := newFlags("review train", "")
	setUsage(fs, "--out FILE (--labels FILE --corpus DIR | --review FILE) [flags]",
		"Trains a detector per labelled provision of the playbook (and the calibration of the\n"+
			"zero-shot scorer used for provisions nobody labelled) and writes them as JSON. Use the\n"+
			"file with \"pakton review --detectors FILE\". The same labels and pakton give the same file.\n"+
			"Labels are a labels file, a reviewer's decisions on a review (accepted / rejected /\n"+
			"corrected cells, read from the review's JSON), or both. Labels format and decisions:\n"+
			"docs/PLAYBOOKS.md (\"Trained detectors\", \"Learning from a reviewer\").")
	labelsPath := fs.String("labels", "", "labels file (e.g. ../shared/data/cuad/review_dev.json), or a LegalBench-RAG benchmark of templated questions (e.g. ../shared/data/legalbenchrag/benchmarks/maud_dev.json: each question's deal point is a label)")
	corpus := fs.String("corpus", "", "directory the labels' file paths are relative to")
	reviewPath := fs.String("review", "", "a review's JSON (review.json written by \"pakton review\", or the API's JSON export) whose decisions are labels")
	decisionsPath := fs.String("decisions", "", "decisions file (default: the review JSON's decisions, else decisions.json beside it)")
	out := fs.String("out", "", "detectors file to write")
	pbPath := addPlaybookFlag(fs)
	version := fs.String("version", "", "version written into the file (default: the date)")
	zeroOnly := fs.Bool("zero-shot-only", false, "fit only the zero-shot calibration, no per-provision detectors")
	hardNeg := fs.Int("hard-negatives", 0, "also train on this many hard negatives per contract and provision, every epoch (the passages without the provision that its zero-shot scorer rates highest); 0: none — five lowered CUAD's cross-validated F1 (docs/EVALUATION.md)")
	basePath := fs.String("base", "", "train on top of these detectors: keep their calibration and their detectors for the provisions the labels do not cover (a file, \"builtin\" or \"none\"; default: builtin with --review alone, none with --labels)")
	quiet := fs.Bool("q", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || (*labelsPath == "") != (*corpus == "") || *labelsPath == "" && *reviewPath == "" {
		fs.Usage()
		return fmt.Errorf("--out and labels are required: --labels with --corpus, --review, or both")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	pb, pbDet, err := loadPlaybook(*pbPath, nil)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	var docs []detect.TrainingDoc
	var sources []string
	labelled := map[string]bool{} // provisions some label covers
	if *labelsPath != "" {
		labels, err := eval.LoadReviewLabels(*labelsPath)
		if err != nil {
			return err
		}
		for _, n := range labels.Names() {
			labelled[strings.ToLower(n)] = true
		}
		ld, err := detect.LoadTraining(ctx, *corpus, labels, 0, func(done, total int) {
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
		docs = append(docs, ld...)
		sources = append(sources, fmt.Sprintf("%s: %d contracts", filepath.Base(*labelsPath), len(ld)))
	}
	if *reviewPath != "" {
		collectionGiven := false
		fs.Visit(func(f *flag.Flag) { collectionGiven = collectionGiven || f.Name == "collection" })
		dd, stats, err := decisionDocs(ctx, g, *reviewPath, *decisionsPath, collectionGiven)
		if err != nil {
			return err
		}
		for _, d := range dd {
			for _, lb := range d.Labels.Labels {
				labelled[strings.ToLower(lb.Provision)] = true
			}
		}
		docs = append(docs, dd...)
		sources = append(sources, fmt.Sprintf("%s: %d decisions on %d contracts", filepath.Base(*reviewPath), stats.Decisions, stats.Contracts))
		fmt.Fprintf(stdout, "decisions: %d — %d say the provision is there (with where), %d that it is not, %d say it is there without saying where (not used: correct the cell with the right text)\n",
			stats.Decisions, stats.Present, stats.Absent, stats.Unusable)
	}
	covered := 0
	for _, p := range pb.Provisions {
		if labelled[strings.ToLower(p.LabelName())] {
			covered++
		}
	}
	if covered == 0 {
		return fmt.Errorf("the labels cover none of the playbook's %d provisions (names are matched case-insensitively, or through a provision's \"detector\" field)", len(pb.Provisions))
	}
	if len(docs) == 0 {
		return fmt.Errorf("no labelled contracts to train on")
	}
	if *version == "" {
		*version = time.Now().UTC().Format("2006-01-02")
	}
	var base *detect.Detectors
	switch {
	case *basePath == "builtin" || *basePath == "" && *labelsPath == "":
		base = pbDet // the detectors shipped with the playbook (the default ones for a playbook file)
		*basePath = "builtin"
	case *basePath == "none" || *basePath == "":
		*basePath = ""
	default:
		if base, err = detect.LoadDetectors(*basePath); err != nil {
			return err
		}
	}
	cmd := []string{"pakton review train"}
	if *labelsPath != "" {
		cmd = append(cmd, "--labels", filepath.ToSlash(*labelsPath), "--corpus", filepath.ToSlash(*corpus))
	}
	if *reviewPath != "" {
		cmd = append(cmd, "--review", filepath.ToSlash(*reviewPath))
		if *decisionsPath != "" {
			cmd = append(cmd, "--decisions", filepath.ToSlash(*decisionsPath))
		}
	}
	if *basePath != "" {
		cmd = append(cmd, "--base", filepath.ToSlash(*basePath))
	}
	cmd = append(cmd, "--out", filepath.ToSlash(*out), "--version", *version)
	if *pbPath != "" {
		cmd = append(cmd, "--playbook", filepath.ToSlash(*pbPath))
	}
	if *zeroOnly {
		cmd = append(cmd, "--zero-shot-only")
	}
	opt := detect.TrainOptions{
		Version:       *version,
		Command:       strings.Join(cmd, " "),
		TrainedOn:     fmt.Sprintf("%s; %d of the playbook's provisions labelled", strings.Join(sources, "; "), covered),
		ZeroShotOnly:  *zeroOnly,
		Base:          base,
		HardNegatives: max(0, *hardNeg),
	}
	if !*quiet {
		opt.Progress = func(done, total int, name string) {
			fmt.Fprintf(os.Stderr, "\rtraining %d/%d %-40.40s", done, total, name)
		}
	}
	det, rep, err := detect.Train(ctx, docs, pb, opt)
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	if err := det.Save(*out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "provision\tcontracts\tpresent\tCV F1 detector\tCV F1 zero-shot\tshipped")
	for _, p := range rep.Provisions {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%s\n", p.Name, p.Contracts, p.Present, p.DetectorF1, p.ZeroShotF1, p.Shipped)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\nzero-shot calibration: a=%.3f b=%.3f threshold %.3f; detectors' threshold %.3f\n", rep.ZeroShot.A, rep.ZeroShot.B, rep.ZeroShot.Threshold, rep.Threshold)
	fmt.Fprintf(stdout, "wrote %s (%d detectors) in %.1fs\n", *out, len(det.Models), time.Since(start).Seconds())
	return nil
}

// decisionDocs reads a review's JSON and its decisions, and returns the
// decided contracts labelled by the decisions (review.DecisionTraining),
// read from the review's collection in the store.
func decisionDocs(ctx context.Context, g *globals, reviewPath, decisionsPath string, collectionGiven bool) ([]detect.TrainingDoc, review.DecisionStats, error) {
	raw, err := os.ReadFile(reviewPath)
	if err != nil {
		return nil, review.DecisionStats{}, fmt.Errorf("review %s: %w", reviewPath, err)
	}
	var rv struct {
		Collection string           `json:"collection"`
		Table      *review.Table    `json:"table"`
		Decisions  review.Decisions `json:"decisions"`
	}
	if err := json.Unmarshal(raw, &rv); err != nil {
		return nil, review.DecisionStats{}, fmt.Errorf("review %s: %w", reviewPath, err)
	}
	if rv.Table == nil {
		return nil, review.DecisionStats{}, fmt.Errorf("review %s: no table (want review.json from \"pakton review\" or the API's JSON export)", reviewPath)
	}
	ds := rv.Decisions
	if decisionsPath == "" && len(ds) == 0 {
		decisionsPath = filepath.Join(filepath.Dir(reviewPath), "decisions.json")
	}
	if decisionsPath != "" {
		if ds, err = review.LoadDecisions(decisionsPath); err != nil {
			return nil, review.DecisionStats{}, err
		}
	}
	if len(ds) == 0 {
		return nil, review.DecisionStats{}, fmt.Errorf("review %s has no decisions (accept, reject or correct cells first, in the web app or with the API; or give --decisions FILE)", reviewPath)
	}
	for i := range ds {
		if err := ds[i].Check(rv.Table); err != nil {
			return nil, review.DecisionStats{}, fmt.Errorf("decision %d: %w", i+1, err)
		}
	}
	if rv.Collection != "" && !collectionGiven {
		g.collection = rv.Collection
	}
	st, err := g.openCollectionReader(ctx)
	if err != nil {
		return nil, review.DecisionStats{}, err
	}
	defer st.Close()
	return review.DecisionTraining(ctx, rv.Table, ds, review.StoreLoader(st, g.collection))
}
