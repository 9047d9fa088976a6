package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Review evaluation: a playbook run over labelled contracts, every labelled
// contract × provision scored.
//
// A cell is right when the reviewer says "found" and its extracts together
// cover at least half of the characters of one labelled span
// (detect.Covers), or says "Not found" where the provision is absent. A found cell whose extracts miss every labelled span
// counts twice: a false positive (it showed the wrong text) and a false
// negative (the provision was not found). Ranking every cell by confidence
// gives the precision–recall curve: AUPR is its average precision, P@80R
// the best precision at 80% recall or more, and max recall the share of
// present cells whose extracts cover the provision at any threshold.

// ReviewOptions configure RunReview.
type ReviewOptions struct {
	Labels    *detect.Labels
	CorpusDir string
	Playbook  *playbook.Playbook
	// Detectors are used as they are when Folds is 0 (the shipped ones
	// when nil).
	Detectors *detect.Detectors
	// Folds > 1 cross-validates: the contracts are split into Folds parts by
	// their order in the labels file, detectors are trained on the others
	// and each part is reviewed by detectors that never saw it.
	Folds int
	// ZeroShot measures every labelled provision as if nobody had labelled
	// it: found from its definition, keywords and examples only, with the
	// zero-shot calibration fitted on the other provisions (and, with
	// Folds, on the other contracts).
	ZeroShot bool
	Workers  int
	Progress func(stage string, done, total int)
	// Values, when set, is told every scored answer (value or polarity).
	Values func(ValueOutcome)
	// CacheDir, when set, keeps the detectors each fold trains, keyed by
	// the labels, the playbook, the fold and detect.TrainerVersion, and
	// reuses them: re-measuring after a change that does not touch training
	// (an answer reader) skips the training.
	CacheDir string
	// Neighbours trains each fold's detectors with the neighbouring
	// rights' clauses as negatives (detect.TrainOptions.Neighbours), to
	// measure what they bring.
	Neighbours bool
	// Relations trains each fold's detectors on passages read with the
	// passages around them (detect.TrainOptions.Relations), to measure
	// what that brings.
	Relations bool
	// Ranks also ranks, in every present cell, the contract's passages by
	// the scorer's probability and counts where the first passage that
	// covers a labelled span comes (ReviewScore.Ranked): whether a
	// provision is missed because the right passage scores below another
	// or because no passage scores high enough.
	Ranks bool
	// Release scores the value readers on the held-out quarter too and
	// reports its aggregate alone (ReviewReport.Release). Without it the
	// quarter's values are neither counted, printed nor passed to Values,
	// so working on the readers never shows them.
	Release bool
}

// ReviewReport is the outcome of RunReview. Its JSON is the issue's
// format: {"micro": {"precision", "recall", "f1", …}, "macro_f1", "aupr",
// "p_at_80_recall", "chars_per_found", "seconds", "provisions": {name:
// {…}}}, fractions 0–1.
type ReviewReport struct {
	Mode      string `json:"mode"`
	Playbook  string `json:"playbook"`
	Documents int    `json:"documents"`
	Cells     int    `json:"cells"`
	Present   int    `json:"present"`
	// Micro scores every cell alike; the curve metrics are repeated at the
	// top level.
	Micro         ReviewScore `json:"micro"`
	MacroF1       float64     `json:"macro_f1"`
	AUPR          float64     `json:"aupr"`
	PAt80R        float64     `json:"p_at_80_recall"`
	MaxRecall     float64     `json:"max_recall"`
	CharsPerFound float64     `json:"chars_per_found"`
	// Seconds is the time spent reviewing (training excluded), and
	// CellsPerSecond the cells reviewed per second of it.
	Seconds        float64                    `json:"seconds"`
	CellsPerSecond float64                    `json:"cells_per_second"`
	TrainSeconds   float64                    `json:"train_seconds,omitempty"`
	Provisions     map[string]ProvisionReview `json:"provisions"`
	// Order lists the provisions in playbook order.
	Order []string `json:"provision_order"`
	// ValueSplit says which contracts the value readers were developed
	// against: the labels file's contracts at positions 0, 1 and 2 modulo
	// 4. Positions 3 modulo 4 are held out: their values are scored only
	// with ReviewOptions.Release, in Release.
	ValueSplit string `json:"value_split"`
	// Release is the value readers' aggregate on the held-out quarter,
	// when ReviewOptions.Release asked for it.
	Release *HeldOutValues `json:"release,omitempty"`
	// Excluding is the polarity check (RunExcludingCheck), when run.
	Excluding *ExcludingReport `json:"excluding,omitempty"`
}

// HeldOutValues is the value readers' score on the held-out quarter: the
// aggregate only, never per provision or per contract.
type HeldOutValues struct {
	Values   int     `json:"values"`
	Right    int     `json:"right"`
	Accuracy float64 `json:"accuracy"`
}

// ValueOutcome is one scored answer of a development contract: a cell
// whose label is present with an answer a value rule compares (found or
// not), or a yes/no polarity.
type ValueOutcome struct {
	File      string `json:"file"`
	Provision string `json:"provision"`
	Label     string `json:"label"`
	Answer    string `json:"answer"`
	Kind      string `json:"kind"`
	Condition string `json:"condition,omitempty"`
	Right     bool   `json:"right"`
	// NotFound marks a present cell the reviewer did not find: its
	// value is scored in the "value (present)" column only; Evidence
	// holds its best candidates.
	NotFound bool `json:"not_found,omitempty"`
	// Evidence is the cell's extracts and the labelled spans' text, each
	// cut to evidenceChars.
	Evidence []string `json:"evidence,omitempty"`
	Labelled []string `json:"labelled,omitempty"`
}

// evidenceChars is how much of each extract and labelled span a values
// file holds.
const evidenceChars = 1500

// ReviewScore are the metrics of a set of cells.
type ReviewScore struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	TN        int     `json:"tn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	AUPR      float64 `json:"aupr"`
	PAt80R    float64 `json:"p_at_80_recall"`
	MaxRecall float64 `json:"max_recall"`
	// CharsPerFound is the mean number of characters returned per found
	// cell (what a reviewer reads).
	CharsPerFound float64 `json:"chars_per_found"`
	// Values are the found cells of development contracts (see
	// ReviewReport.ValueSplit) whose label is present with an answer a
	// value rule compares (review_values.go: dates, durations,
	// jurisdictions, parties, titles); ValuesRight how many of them the
	// cell's answer reads as the label does.
	Values      int     `json:"values,omitempty"`
	ValuesRight int     `json:"values_right,omitempty"`
	ValueAcc    float64 `json:"value_accuracy,omitempty"`
	// ValuesShown are the present cells of development contracts whose
	// label has an answer a value rule compares, found or not;
	// ValuesShownRight those whose cell shows the labelled value (a cell
	// not found shows none): the share of labelled values a reviewer
	// reads in the grid.
	ValuesShown      int     `json:"values_shown,omitempty"`
	ValuesShownRight int     `json:"values_shown_right,omitempty"`
	ValueShownAcc    float64 `json:"value_shown_accuracy,omitempty"`
	// Polarity counts the yes/no cells whose extracts show the provision
	// where the label says it is there; PolarityRight those whose answer
	// does not say No (the reader did not take the clause for one that
	// excludes the provision).
	Polarity      int     `json:"polarity,omitempty"`
	PolarityRight int     `json:"polarity_right,omitempty"`
	PolarityAcc   float64 `json:"polarity_accuracy,omitempty"`
	// Ranked counts the present cells ranked (ReviewOptions.Ranks);
	// RankedFirst those whose best-scored passage covers a labelled span,
	// RankedTop3 those where one of the best three does.
	Ranked      int `json:"ranked,omitempty"`
	RankedFirst int `json:"ranked_first,omitempty"`
	RankedTop3  int `json:"ranked_top3,omitempty"`
}

// ProvisionReview is one provision's score.
type ProvisionReview struct {
	Method  string `json:"method"`
	Cells   int    `json:"cells"`
	Present int    `json:"present"`
	ReviewScore
}

// cellOutcome is one scored cell.
type cellOutcome struct {
	prov       string
	method     string
	present    bool
	found      bool
	hit        bool // an extract covers a labelled span
	confidence float64
	chars      int
	value      int // 1: value read right, -1: read wrong or not read, 0: not scored
	// valueShown scores the value of every present cell as the lawyer sees
	// it: as value for a found cell; a cell not found shows no value, so
	// it is wrong where the label's answer is one a rule compares
	valueShown int
	polarity   int  // 1: a present yes/no provision answered Yes/Conditional, -1: answered No, 0: not scored
	heldOut    bool // the contract is in the quarter the value readers were not developed against
	// rank is where the first passage covering a labelled span comes in
	// the scorer's order, from 1 (ReviewOptions.Ranks); -1: none covers
	// one; 0: not ranked
	rank int
}

// RunReview reviews the labelled contracts and scores every labelled cell.
func RunReview(ctx context.Context, opt ReviewOptions) (*ReviewReport, error) {
	if opt.Labels == nil || opt.Playbook == nil {
		return nil, fmt.Errorf("eval review: labels and playbook are required")
	}
	if opt.Progress == nil {
		opt.Progress = func(string, int, int) {}
	}
	// Only the provisions the labels cover are scored.
	var names []string
	for _, p := range opt.Playbook.Provisions {
		if opt.Labels.Covers(p.LabelName()) {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("eval review: the labels cover none of playbook %s's provisions", opt.Playbook.Name)
	}
	pb, err := opt.Playbook.Select(names)
	if err != nil {
		return nil, err
	}
	docs, err := detect.LoadTraining(ctx, opt.CorpusDir, opt.Labels, opt.Workers, func(done, total int) {
		opt.Progress("reading contracts", done, total)
	})
	if err != nil {
		return nil, err
	}
	folds := max(opt.Folds, 1)
	rep := &ReviewReport{Playbook: opt.Playbook.Name, Documents: len(docs), Mode: reviewMode(opt.ZeroShot, folds),
		ValueSplit: "values scored on the contracts at positions 0, 1, 2 modulo 4 of the labels file, which the value readers were developed against; positions 3 modulo 4 are held out (--release)"}
	var outcomes []cellOutcome
	var reviewTime, trainTime time.Duration
	for f := range folds {
		var train, test []detect.TrainingDoc
		var testAt []int // the test contracts' positions in the labels file
		for i, d := range docs {
			if folds > 1 && i%folds != f {
				train = append(train, d)
			} else {
				test = append(test, d)
				testAt = append(testAt, i)
			}
		}
		if folds == 1 {
			train = docs
		}
		start := time.Now()
		jobs, err := foldReviewers(ctx, opt, pb, train, f, folds)
		if err != nil {
			return nil, err
		}

		trainTime += time.Since(start)
		start = time.Now()
		for ti, td := range test {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for _, j := range jobs {
				got, err := reviewContract(ctx, opt, pb, j, td, testAt[ti]%4 == 3)
				if err != nil {
					return nil, err
				}
				outcomes = append(outcomes, got...)
			}
			opt.Progress(fmt.Sprintf("fold %d/%d: reviewing", f+1, folds), ti+1, len(test))
		}
		reviewTime += time.Since(start)
	}
	summarizeReview(rep, outcomes, names, opt.Release)
	rep.Seconds = reviewTime.Seconds()
	if rep.Seconds > 0 {
		rep.CellsPerSecond = float64(rep.Cells) / rep.Seconds
	}
	if folds > 1 || opt.ZeroShot {
		rep.TrainSeconds = trainTime.Seconds()
	}
	return rep, nil
}

// reviewMode says how the detectors of a review evaluation were made.
func reviewMode(zeroShot bool, folds int) string {
	switch {
	case zeroShot && folds > 1:
		return fmt.Sprintf("zero-shot, every provision held out, %d-fold cross-validated", folds)
	case zeroShot:
		return "zero-shot, every provision held out (calibration fitted on the other provisions of the same contracts)"
	case folds > 1:
		return fmt.Sprintf("%d-fold cross-validated detectors", folds)
	default:
		return "as shipped (detectors possibly trained on these contracts)"
	}
}

// reviewJob is a reviewer of one fold and the provision it is scored on
// ("" = all).
type reviewJob struct {
	rev  *review.Reviewer
	only string
}

// foldReviewers makes the reviewers of fold f, trained on train: one for
// every provision, or, zero-shot, one per provision held out.
func foldReviewers(ctx context.Context, opt ReviewOptions, pb *playbook.Playbook, train []detect.TrainingDoc, f, folds int) ([]reviewJob, error) {
	switch {
	case opt.ZeroShot:
		det, tr, err := detect.Train(ctx, train, pb, detect.TrainOptions{ZeroShotOnly: true, Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		var jobs []reviewJob
		for _, p := range pb.Provisions {
			d := *det
			d.Models = nil
			d.ZeroShot = tr.ZeroShotWithout(p.Name)
			one, _ := pb.Select([]string{p.Name})
			one.Provisions[0].Detector = "none"
			rev, err := review.NewReviewer(one, &d)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, reviewJob{rev: rev, only: p.Name})
		}
		return jobs, nil
	case folds > 1:
		det, err := cachedTrain(opt.CacheDir, opt.Labels, pb, f, folds, func() (*detect.Detectors, error) {
			det, _, err := detect.Train(ctx, train, pb, detect.TrainOptions{Workers: opt.Workers, Neighbours: opt.Neighbours, Relations: opt.Relations, Progress: func(done, total int, _ string) {
				opt.Progress(fmt.Sprintf("fold %d/%d: training", f+1, folds), done, total)
			}})
			return det, err
		}, trainerKey(opt.Neighbours, opt.Relations)...)
		if err != nil {
			return nil, err
		}
		rev, err := review.NewReviewer(pb, det)
		if err != nil {
			return nil, err
		}
		return []reviewJob{{rev: rev}}, nil
	default:
		det := opt.Detectors
		if det == nil {
			_, det = review.Builtin()
		}
		rev, err := review.NewReviewer(pb, det)
		if err != nil {
			return nil, err
		}
		return []reviewJob{{rev: rev}}, nil
	}
}

// reviewContract reviews one test contract with j and scores its cells
// against the labels; heldOut marks the contract's values as the release
// quarter's, which opt.Values never sees.
func reviewContract(ctx context.Context, opt ReviewOptions, pb *playbook.Playbook, j reviewJob, td detect.TrainingDoc, heldOut bool) ([]cellOutcome, error) {
	row, err := j.rev.ReviewPrepared(ctx, td.Prep)
	if err != nil {
		return nil, err
	}
	var scores [][]float64
	if opt.Ranks {
		scores = j.rev.Scores(td.Prep)
	}
	var out []cellOutcome
	for ci, c := range row.Cells {
		if j.only != "" && c.Provision != j.only {
			continue
		}
		p := pb.Provision(c.Provision)
		lb, ok := td.Labels.Label(p.LabelName())
		if !ok {
			continue
		}
		o := score(c, lb, p.Answer)
		o.heldOut = heldOut
		if scores != nil && lb.Present {
			o.rank = labelledRank(td.Prep, scores[ci], lb.Spans)
		}
		out = append(out, o)
		if opt.Values != nil && !o.heldOut && (o.value != 0 || o.polarity != 0 || o.valueShown != 0) {
			opt.Values(valueOutcome(c, lb, td, o))
		}
	}
	return out, nil
}

// valueOutcome is the scored answer of cell c against label lb, with the
// text it was read from and the labelled text, each cut short.
func valueOutcome(c review.Cell, lb *detect.Label, td detect.TrainingDoc, o cellOutcome) ValueOutcome {
	v := ValueOutcome{File: td.Labels.FilePath, Provision: c.Provision, Label: lb.Answer, Right: o.value+o.polarity > 0, NotFound: !o.found}
	if c.Answer != nil {
		v.Answer, v.Kind, v.Condition = c.Answer.Text, string(c.Answer.Kind), c.Answer.Condition
	}
	cut := func(t string) string {
		if r := []rune(t); len(r) > evidenceChars {
			return string(r[:evidenceChars]) + "…"
		}
		return t
	}
	for _, e := range c.Extracts {
		v.Evidence = append(v.Evidence, cut(e.Text))
	}
	for _, sp := range lb.Spans {
		v.Labelled = append(v.Labelled, cut(td.Prep.Doc().Doc.Slice(document.Span{Start: sp[0], End: sp[1]})))
	}
	return v
}

// summarizeReview scores the outcomes into rep: over all cells, and per
// provision in names' order.
func summarizeReview(rep *ReviewReport, outcomes []cellOutcome, names []string, release bool) {
	rep.Cells = len(outcomes)
	for _, o := range outcomes {
		if o.present {
			rep.Present++
		}
	}
	if release {
		rep.Release = releaseValues(outcomes)
	}
	rep.Micro = scoreCells(outcomes)
	rep.AUPR, rep.PAt80R, rep.MaxRecall, rep.CharsPerFound = rep.Micro.AUPR, rep.Micro.PAt80R, rep.Micro.MaxRecall, rep.Micro.CharsPerFound
	byProv := map[string][]cellOutcome{}
	for _, o := range outcomes {
		byProv[o.prov] = append(byProv[o.prov], o)
	}
	rep.Provisions = map[string]ProvisionReview{}
	var macro float64
	for _, name := range names {
		cells := byProv[name]
		pr := ProvisionReview{Cells: len(cells), ReviewScore: scoreCells(cells)}
		methods := map[string]bool{}
		for _, c := range cells {
			if c.present {
				pr.Present++
			}
			methods[c.method] = true
		}
		pr.Method = strings.Join(sortedSet(methods), "+")
		macro += pr.F1
		rep.Provisions[name] = pr
		rep.Order = append(rep.Order, name)
	}
	rep.MacroF1 = macro / float64(len(names))
}

func score(c review.Cell, lb *detect.Label, format playbook.AnswerFormat) cellOutcome {
	o := cellOutcome{prov: c.Provision, method: c.Method, present: lb.Present, found: c.Found, confidence: c.Confidence}
	var spans []document.Span
	for _, e := range c.Extracts {
		o.chars += e.Span.Len()
		spans = append(spans, e.Span)
	}
	o.hit = lb.Present && detect.Covers(spans, lb.Spans)
	if o.found && lb.Present {
		o.value = valueRight(format, c, lb.Answer)
		o.valueShown = o.value
	} else if lb.Present {
		o.valueShown = valueRight(format, review.Cell{Provision: c.Provision}, lb.Answer)
	}
	o.polarity = polarityRight(format, c, lb.Present, o.hit)
	return o
}

// labelledRank is where, in scores' order, the first of prep's passages
// that covers a labelled span comes, from 1; -1 when none does.
func labelledRank(prep *detect.Prepared, scores []float64, spans [][2]int) int {
	ps := prep.Passages()
	for r, k := range detect.Rank(scores) {
		if detect.Hits(ps[k].Span, spans) {
			return r + 1
		}
	}
	return -1
}

// releaseValues is the value readers' aggregate over the held-out
// quarter's scored values.
func releaseValues(outcomes []cellOutcome) *HeldOutValues {
	var h HeldOutValues
	for _, o := range outcomes {
		if o.heldOut && o.value != 0 {
			h.Values++
			if o.value > 0 {
				h.Right++
			}
		}
	}
	h.Accuracy = ratio(h.Right, h.Values)
	return &h
}

// scoreCells computes the metrics of a set of cells.
func scoreCells(cells []cellOutcome) ReviewScore {
	var s ReviewScore
	var present, chars int
	for _, c := range cells {
		if c.present {
			present++
		}
		switch {
		case c.found && c.hit:
			s.TP++
			chars += c.chars
		case c.found:
			s.FP++
			chars += c.chars
			if c.present {
				s.FN++
			}
		case c.present:
			s.FN++
		default:
			s.TN++
		}
	}
	for _, c := range cells {
		if c.value != 0 && !c.heldOut {
			s.Values++
			if c.value > 0 {
				s.ValuesRight++
			}
		}
		if c.valueShown != 0 && !c.heldOut {
			s.ValuesShown++
			if c.valueShown > 0 {
				s.ValuesShownRight++
			}
		}
		if c.rank != 0 {
			s.Ranked++
			if c.rank == 1 {
				s.RankedFirst++
			}
			if c.rank > 0 && c.rank <= 3 {
				s.RankedTop3++
			}
		}
		if c.polarity != 0 {
			s.Polarity++
			if c.polarity > 0 {
				s.PolarityRight++
			}
		}
	}
	s.ValueAcc = ratio(s.ValuesRight, s.Values)
	s.ValueShownAcc = ratio(s.ValuesShownRight, s.ValuesShown)
	s.PolarityAcc = ratio(s.PolarityRight, s.Polarity)
	if s.TP+s.FP > 0 {
		s.Precision = float64(s.TP) / float64(s.TP+s.FP)
		s.CharsPerFound = float64(chars) / float64(s.TP+s.FP)
	}
	if present > 0 {
		s.Recall = float64(s.TP) / float64(present)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	// The precision–recall curve over confidence (ties broken pessimistically:
	// misses first).
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ca, cb := cells[order[a]], cells[order[b]]
		if ca.confidence != cb.confidence {
			return ca.confidence > cb.confidence
		}
		return !ca.hit && cb.hit
	})
	if present == 0 {
		return s
	}
	tp := 0
	var ap float64
	for rank, i := range order {
		c := cells[i]
		if c.present && c.hit {
			tp++
			prec := float64(tp) / float64(rank+1)
			ap += prec
			if float64(tp)/float64(present) >= 0.8 {
				s.PAt80R = math.Max(s.PAt80R, prec)
			}
		}
	}
	s.AUPR = ap / float64(present)
	s.MaxRecall = float64(tp) / float64(present)
	return s
}

func sortedSet(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WriteReviewTable prints a review report.
func WriteReviewTable(w io.Writer, r *ReviewReport) {
	fmt.Fprintf(w, "review of %d contracts, %d labelled cells (%d present), playbook %s\nmode: %s\n\n", r.Documents, r.Cells, r.Present, r.Playbook, r.Mode)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "provision\tmethod\tpresent\tP\tR\tF1\tAUPR\tP@80R\tmax R\tchars/found\tvalue\tvalue (present)\tpolarity\t")
	frac := func(right, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%d/%d %.0f%%", right, n, 100*float64(right)/float64(n))
	}
	row := func(name, method string, present int, s ReviewScore) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%s\t%s\t%s\t\n", name, method, present, s.Precision, s.Recall, s.F1, s.AUPR, s.PAt80R, s.MaxRecall, s.CharsPerFound,
			frac(s.ValuesRight, s.Values), frac(s.ValuesShownRight, s.ValuesShown), frac(s.PolarityRight, s.Polarity))
	}
	for _, name := range r.Order {
		p := r.Provisions[name]
		row(name, p.Method, p.Present, p.ReviewScore)
	}
	row("micro (all cells)", "", r.Present, r.Micro)
	tw.Flush()
	if r.Micro.Ranked > 0 {
		fmt.Fprintf(w, "\nwhere the first passage that covers a labelled span ranks among the contract's passages, in the present cells\n")
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "provision\tpresent\tfirst\ttop 3\t")
		rank := func(name string, s ReviewScore) {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", name, s.Ranked, frac(s.RankedFirst, s.Ranked), frac(s.RankedTop3, s.Ranked))
		}
		for _, name := range r.Order {
			rank(name, r.Provisions[name].ReviewScore)
		}
		rank("all present cells", r.Micro)
		tw.Flush()
	}
	fmt.Fprintf(w, "\n%s.\n", r.ValueSplit)
	if h := r.Release; h != nil {
		fmt.Fprintf(w, "held-out quarter, release report: %s of its values read right\n", frac(h.Right, h.Values))
	}
	fmt.Fprintf(w, "macro F1 %.3f; reviewed %d cells in %.1fs (%.0f cells/s)", r.MacroF1, r.Cells, r.Seconds, r.CellsPerSecond)
	if r.TrainSeconds > 0 {
		fmt.Fprintf(w, "; training %.1fs", r.TrainSeconds)
	}
	fmt.Fprintln(w)
}

// cachedTrain returns the detectors of one fold from dir when they were
// trained before for the same labels, playbook, fold and trainer, else
// trains them (and keeps them in dir).
func cachedTrain(dir string, labels *detect.Labels, pb *playbook.Playbook, fold, folds int, train func() (*detect.Detectors, error), extra ...string) (*detect.Detectors, error) {
	if dir == "" {
		return train()
	}
	h := sha256.New()
	lj, _ := json.Marshal(labels)
	pj, _ := json.Marshal(pb)
	h.Write(lj)
	h.Write([]byte{0})
	h.Write(pj)
	fmt.Fprintf(h, "\x00%d/%d\x00%s\x00%s", fold, folds, detect.TrainerVersion, strings.Join(extra, "\x00"))
	path := filepath.Join(dir, fmt.Sprintf("fold-%d-of-%d-%s.json", fold+1, folds, hex.EncodeToString(h.Sum(nil)[:10])))
	if det, err := detect.LoadDetectors(path); err == nil {
		return det, nil
	}
	det, err := train()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("eval review: detectors cache: %w", err)
	}
	if err := det.Save(path); err != nil {
		return nil, fmt.Errorf("eval review: detectors cache: %w", err)
	}
	return det, nil
}

// trainerKey is what, beside detect.TrainerVersion, keys a fold's cached
// detectors: the trainer's options that change them.
func trainerKey(neighbours, relations bool) []string {
	var out []string
	if neighbours {
		out = append(out, "neighbours")
	}
	if relations {
		out = append(out, "relations")
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
