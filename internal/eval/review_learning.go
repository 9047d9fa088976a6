package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The learning curve: how a provision nobody labelled improves from a
// reviewer's decisions. The provisions measured are held out of the
// detectors: in each fold, detectors are trained on the other contracts
// with those provisions left out of everything (their calibration too), so
// they are found zero-shot. Then, for each size N, N contracts of the
// training part are reviewed and a simulated reviewer decides each
// provision's cell from the labels — accepts a cell that shows the
// provision or says "Not found" where it is absent, rejects one found where
// it is absent, and corrects one found in the wrong place or missed with
// the text of the provision's first labelled span — exactly as a lawyer
// would in the review grid. Those decisions are turned into labels
// (review.DecisionTraining, the code "pakton review train --review" uses)
// and a detector is trained on top of the fold's detectors
// (TrainOptions.Base). The provision's F1 is measured on the fold's other
// contracts, which no detector saw; each size is drawn several times.

// LearningOptions configure RunLearningCurve.
type LearningOptions struct {
	Labels     *detect.Labels
	CorpusDir  string
	Playbook   *playbook.Playbook
	Provisions []string // the provisions held out and learned
	Sizes      []int    // numbers of decided contracts (default 5, 10, 20, 40)
	Draws      int      // draws of the decided contracts per size (default 3)
	Folds      int      // test folds (default 2)
	Workers    int
	Progress   func(stage string, done, total int)
	// CacheDir keeps each fold's detectors (trained without the
	// provisions) for the next run, as ReviewOptions.CacheDir.
	CacheDir string
}

// LearningReport is the learning curve of each provision.
type LearningReport struct {
	Documents  int                 `json:"documents"`
	Folds      int                 `json:"folds"`
	Draws      int                 `json:"draws"`
	Provisions []ProvisionLearning `json:"provisions"`
	// Mean is the mean over the provisions, per size (size 0: zero-shot).
	Mean []LearningPoint `json:"mean"`
}

// ProvisionLearning is one provision's curve.
type ProvisionLearning struct {
	Name   string          `json:"name"`
	Points []LearningPoint `json:"points"` // size 0 first: zero-shot
}

// LearningPoint is the F1 on unseen contracts after Size decided contracts
// (mean, lowest and highest over the folds and draws), with the decisions
// the simulated reviewer took.
type LearningPoint struct {
	Size      int     `json:"size"`
	F1        float64 `json:"f1"`
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Decisions int     `json:"decisions,omitempty"` // per run, mean
	Corrected int     `json:"corrected,omitempty"` // per run, mean
}

// RunLearningCurve measures the learning curve (see above).
func RunLearningCurve(ctx context.Context, opt LearningOptions) (*LearningReport, error) {
	if opt.Labels == nil || opt.Playbook == nil || len(opt.Provisions) == 0 {
		return nil, fmt.Errorf("eval learning: labels, playbook and provisions are required")
	}
	if len(opt.Sizes) == 0 {
		opt.Sizes = []int{5, 10, 20, 40}
	}
	if opt.Draws <= 0 {
		opt.Draws = 3
	}
	opt.Folds = max(opt.Folds, 2)
	progress := opt.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	var names []string
	for _, n := range opt.Provisions {
		p := opt.Playbook.Provision(n)
		if p == nil {
			return nil, fmt.Errorf("eval learning: the playbook has no provision %q", n)
		}
		if !opt.Labels.Covers(p.LabelName()) {
			return nil, fmt.Errorf("eval learning: the labels do not cover %q", n)
		}
		names = append(names, p.Name)
	}
	docs, err := detect.LoadTraining(ctx, opt.CorpusDir, opt.Labels, opt.Workers, func(done, total int) {
		progress("reading contracts", done, total)
	})
	if err != nil {
		return nil, err
	}
	rep := &LearningReport{Documents: len(docs), Folds: opt.Folds, Draws: opt.Draws}
	// runs[provision][size index] are the outcomes of every fold × draw
	type run struct {
		cells                []cellOutcome
		decisions, corrected int
	}
	runs := make([][][]run, len(names))
	for i := range runs {
		runs[i] = make([][]run, len(opt.Sizes)+1)
	}
	for f := range opt.Folds {
		var train, test []detect.TrainingDoc
		for i, d := range docs {
			if i%opt.Folds == f {
				test = append(test, d)
			} else {
				train = append(train, d)
			}
		}
		progress(fmt.Sprintf("fold %d/%d: training without %s", f+1, opt.Folds, strings.Join(names, ", ")), 0, 1)
		base, err := cachedTrain(opt.CacheDir, opt.Labels, opt.Playbook, f, opt.Folds, func() (*detect.Detectors, error) {
			det, _, err := detect.Train(ctx, train, opt.Playbook, detect.TrainOptions{Exclude: names, Workers: opt.Workers})
			return det, err
		}, append([]string{"exclude"}, names...)...)
		if err != nil {
			return nil, err
		}
		for pi, name := range names {
			one, err := opt.Playbook.Select([]string{name})
			if err != nil {
				return nil, err
			}
			zeroRev, err := review.NewReviewer(one, base)
			if err != nil {
				return nil, err
			}
			cells, err := scoreOne(ctx, zeroRev, test, one)
			if err != nil {
				return nil, err
			}
			runs[pi][0] = append(runs[pi][0], run{cells: cells})
			for si, size := range opt.Sizes {
				for d := range opt.Draws {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					progress(fmt.Sprintf("fold %d/%d: %s, %d decided contracts", f+1, opt.Folds, name, size), d, opt.Draws)
					picked := draw(train, size, fmt.Sprintf("%s/%d/%d/%d", name, f, size, d))
					t, ds, corrected, err := simulateReviewer(ctx, zeroRev, picked, one)
					if err != nil {
						return nil, err
					}
					byID := map[string]detect.Doc{}
					for _, td := range picked {
						byID[td.Labels.FilePath] = td.Prep.Doc()
					}
					dd, _, err := review.DecisionTraining(ctx, t, ds, func(_ context.Context, id string) (detect.Doc, error) {
						d, ok := byID[id]
						if !ok {
							return detect.Doc{}, fmt.Errorf("no contract %s", id)
						}
						return d, nil
					})
					if err != nil {
						return nil, err
					}
					r := run{decisions: len(ds), corrected: corrected}
					rev := zeroRev
					if len(dd) > 0 {
						learned, _, err := detect.Train(ctx, dd, one, detect.TrainOptions{Base: base, Workers: opt.Workers})
						if err != nil {
							return nil, err
						}
						if rev, err = review.NewReviewer(one, learned); err != nil {
							return nil, err
						}
					}
					if r.cells, err = scoreOne(ctx, rev, test, one); err != nil {
						return nil, err
					}
					runs[pi][si+1] = append(runs[pi][si+1], r)
				}
			}
		}
	}
	sizes := append([]int{0}, opt.Sizes...)
	mean := make([]LearningPoint, len(sizes))
	for pi, name := range names {
		pl := ProvisionLearning{Name: name}
		for si, size := range sizes {
			pt := LearningPoint{Size: size, Min: math.Inf(1), Max: math.Inf(-1)}
			var all []cellOutcome
			for _, r := range runs[pi][si] {
				s := scoreCells(r.cells)
				pt.Min, pt.Max = math.Min(pt.Min, s.F1), math.Max(pt.Max, s.F1)
				pt.Decisions += r.decisions
				pt.Corrected += r.corrected
				all = append(all, r.cells...)
			}
			if n := len(runs[pi][si]); n > 0 {
				pt.Decisions /= n
				pt.Corrected /= n
			}
			// the F1 of all runs' cells pooled: every run scores the same
			// number of test cells, so this is the mean run's F1 as one
			s := scoreCells(all)
			pt.F1, pt.Precision, pt.Recall = s.F1, s.Precision, s.Recall
			pl.Points = append(pl.Points, pt)
			mean[si].Size = size
			mean[si].F1 += s.F1 / float64(len(names))
			mean[si].Precision += s.Precision / float64(len(names))
			mean[si].Recall += s.Recall / float64(len(names))
		}
		rep.Provisions = append(rep.Provisions, pl)
	}
	rep.Mean = mean
	return rep, nil
}

// scoreOne reviews docs with rev (a one-provision playbook) and scores the
// provision's labelled cells.
func scoreOne(ctx context.Context, rev *review.Reviewer, docs []detect.TrainingDoc, pb *playbook.Playbook) ([]cellOutcome, error) {
	p := &pb.Provisions[0]
	var out []cellOutcome
	for _, td := range docs {
		row, err := rev.ReviewPrepared(ctx, td.Prep)
		if err != nil {
			return nil, err
		}
		lb, ok := td.Labels.Label(p.LabelName())
		if !ok {
			continue
		}
		out = append(out, score(row.Cells[0], lb, p.Answer))
	}
	return out, nil
}

// draw picks n contracts of docs, reproducibly for a key.
func draw(docs []detect.TrainingDoc, n int, key string) []detect.TrainingDoc {
	h := fnv.New64a()
	io.WriteString(h, key)
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x5851f42d4c957f2d))
	idx := rng.Perm(len(docs))
	if n < len(idx) {
		idx = idx[:n]
	}
	sort.Ints(idx)
	out := make([]detect.TrainingDoc, len(idx))
	for i, k := range idx {
		out[i] = docs[k]
	}
	return out
}

// simulateReviewer reviews docs with rev and decides each cell from the
// labels as a lawyer in the review grid would: accept a cell that shows the
// provision or says "Not found" where it is absent; reject one found where
// it is absent; correct one found in the wrong place, or missed, with the
// text of the provision's first labelled span.
func simulateReviewer(ctx context.Context, rev *review.Reviewer, docs []detect.TrainingDoc, pb *playbook.Playbook) (*review.Table, review.Decisions, int, error) {
	p := &pb.Provisions[0]
	t := &review.Table{Playbook: pb.Name, Provisions: []string{p.Name}}
	var ds review.Decisions
	corrected := 0
	for _, td := range docs {
		row, err := rev.ReviewPrepared(ctx, td.Prep)
		if err != nil {
			return nil, nil, 0, err
		}
		row.DocID = td.Labels.FilePath
		for i := range row.Cells {
			row.Cells[i].DocID = row.DocID
		}
		t.Rows = append(t.Rows, row)
		lb, ok := td.Labels.Label(p.LabelName())
		if !ok {
			continue
		}
		c := row.Cells[0]
		var spans []document.Span
		for _, e := range c.Extracts {
			spans = append(spans, e.Span)
		}
		d := review.Decision{DocID: row.DocID, Provision: c.Provision}
		switch {
		case c.Found && lb.Present && detect.Covers(spans, lb.Spans):
			d.Verdict = review.Accepted
		case !c.Found && !lb.Present:
			d.Verdict = review.Accepted
		case c.Found && !lb.Present:
			d.Verdict = review.Rejected
		default: // found in the wrong place, or missed
			sp := lb.Spans[0]
			d.Verdict, d.Text = review.Corrected, td.Prep.Doc().Doc.Slice(document.Span{Start: sp[0], End: sp[1]})
			corrected++
		}
		ds = append(ds, d)
	}
	return t, ds, corrected, nil
}

// WriteLearningTable prints a learning curve.
func WriteLearningTable(w io.Writer, r *LearningReport) {
	fmt.Fprintf(w, "learning curve: %d contracts, %d folds × %d draws; F1 on the contracts of the other fold(s)\n\n", r.Documents, r.Folds, r.Draws)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	header := "provision\t"
	for _, pt := range r.Mean {
		if pt.Size == 0 {
			header += "zero-shot\t"
		} else {
			header += fmt.Sprintf("%d decided\t", pt.Size)
		}
	}
	fmt.Fprintln(tw, header)
	for _, p := range r.Provisions {
		line := p.Name + "\t"
		for _, pt := range p.Points {
			line += fmt.Sprintf("%.3f (%.2f–%.2f)\t", pt.F1, pt.Min, pt.Max)
		}
		fmt.Fprintln(tw, line)
	}
	line := "mean\t"
	for _, pt := range r.Mean {
		line += fmt.Sprintf("%.3f\t", pt.F1)
	}
	fmt.Fprintln(tw, line)
	tw.Flush()
}
