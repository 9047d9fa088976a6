package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Deal-room questions: a question about every contract of a
// collection ("Which of our contracts can be terminated for convenience?")
// is answered per contract by the review engine (review.Finder.DealRoom).
// RunDealRoom measures the list it gives against the labels: per question,
// the precision, recall and F1 of the contracts listed, over the labelled
// contracts. The detectors are cross-validated — each contract is reviewed
// with the detectors of the fold trained without it — and each question is
// matched to a provision with that provision's own example questions left
// out of its profile (review.MatcherWithout), so neither the contracts nor
// the playbook's wording are the detectors' own.

// DealRoomQuestion is a deal-room question and the labels that answer it.
type DealRoomQuestion struct {
	Question string `json:"question"`
	// Provision is the labels' provision (review_dev.json's spelling).
	Provision string `json:"provision"`
	// AnswerContains, for a question with a value condition, is what a
	// present label's answer must hold for the contract to be one the
	// question asks for ("New York").
	AnswerContains string `json:"answer_contains,omitempty"`
}

// DealRoomQuestions returns the built-in deal-room questions
// (questions/dealroom.json).
func DealRoomQuestions() ([]DealRoomQuestion, error) {
	return questionsIn[[]DealRoomQuestion]("dealroom.json")
}

// DealRoomResult is one question's score.
type DealRoomResult struct {
	Question string `json:"question"`
	// Provision is the labels'; Asked the provision the engine matched the
	// question to ("" when it matched none: nothing listed).
	Provision string `json:"provision"`
	Asked     string `json:"asked"`
	Condition string `json:"condition,omitempty"`
	// Contracts are the labelled contracts scored; Positive how many the
	// labels say the question asks for; Listed how many the engine listed.
	Contracts, Positive, Listed int
	TP, FP, FN                  int
	Precision, Recall, F1       float64
	Undecided                   int `json:"undecided"`
}

// DealRoomReport is a RunDealRoom result.
type DealRoomReport struct {
	Mode      string           `json:"mode"`
	Contracts int              `json:"contracts"`
	Questions []DealRoomResult `json:"questions"`
	// MacroF1 is the mean of the questions' F1; Micro the scores of all
	// questions' contracts pooled.
	MacroF1                              float64 `json:"macro_f1"`
	MicroPrecision, MicroRecall, MicroF1 float64
}

// RunDealRoom answers every question per contract over the labelled
// contracts of corpusDir, with detectors cross-validated in folds, and
// scores the lists against the labels.
func RunDealRoom(ctx context.Context, corpusDir string, labels *detect.Labels, questions []DealRoomQuestion, folds, workers int, progress func(stage string, done, total int)) (*DealRoomReport, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	src, err := CrossValidatedProvisions(ctx, corpusDir, labels, folds, workers, false, progress)
	if err != nil {
		return nil, err
	}
	texts := map[string]*document.Document{}
	load := func(_ context.Context, id string) (detect.Doc, error) {
		d, ok := texts[id]
		if !ok {
			return detect.Doc{}, fmt.Errorf("eval: no labelled contract %q", id)
		}
		return detect.Doc{ID: id, Name: filepath.Base(id), Doc: d}, nil
	}
	byFold := make([][]review.DealRoomDoc, folds)
	for i, d := range labels.Documents {
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(d.FilePath)))
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		texts[d.FilePath] = &document.Document{ID: d.FilePath, Name: filepath.Base(d.FilePath), Format: "text", Text: string(data)}
		f, err := src.Fold(d.FilePath, string(data))
		if err != nil {
			return nil, err
		}
		if f != i%folds {
			return nil, fmt.Errorf("eval: %s: fold %d, want %d", d.FilePath, f, i%folds)
		}
		byFold[f] = append(byFold[f], review.DealRoomDoc{ID: d.FilePath, Name: filepath.Base(d.FilePath)})
	}
	rep := &DealRoomReport{Mode: src.Mode, Contracts: len(labels.Documents)}
	// One finder per fold, keeping its contracts prepared across questions.
	finders := make([]*review.Finder, folds)
	for f := range folds {
		if finders[f], err = review.NewFinder(src.Playbook, src.Detectors[f], load); err != nil {
			return nil, err
		}
		finders[f].KeepPrepared(len(byFold[f]))
	}
	var tp, fp, fn int
	for qi, q := range questions {
		res := DealRoomResult{Question: q.Question, Provision: q.Provision}
		listed := map[string]bool{}
		for f := range folds {
			fi := finders[f]
			held, err := review.MatcherWithout(src.Playbook, src.Detectors[f], playbookName(src.Playbook, q.Provision))
			if err != nil {
				return nil, err
			}
			fi.SetMatcher(held.AskedProvisions)
			dr, err := fi.DealRoom(ctx, q.Question, byFold[f], review.DealRoomOptions{Workers: workers})
			if err != nil {
				return nil, err
			}
			if dr == nil {
				continue
			}
			res.Asked = dr.Provision
			if dr.Condition != nil {
				res.Condition = dr.Condition.Text
			}
			res.Undecided += dr.Undecided
			for _, row := range dr.Rows {
				listed[row.DocID] = true
			}
			progress(fmt.Sprintf("question %d/%d", qi+1, len(questions)), f+1, folds)
		}
		for _, d := range labels.Documents {
			l, ok := labelOf(d, q.Provision)
			if !ok {
				continue // unknown: not scored
			}
			res.Contracts++
			pos := l.Present && (q.AnswerContains == "" || strings.Contains(strings.ToLower(l.Answer), strings.ToLower(q.AnswerContains)))
			if pos {
				res.Positive++
			}
			if listed[d.FilePath] {
				res.Listed++
			}
			switch {
			case pos && listed[d.FilePath]:
				res.TP++
			case listed[d.FilePath]:
				res.FP++
			case pos:
				res.FN++
			}
		}
		res.Precision, res.Recall, res.F1 = prf(res.TP, res.FP, res.FN)
		tp, fp, fn = tp+res.TP, fp+res.FP, fn+res.FN
		rep.MacroF1 += res.F1 / float64(len(questions))
		rep.Questions = append(rep.Questions, res)
	}
	rep.MicroPrecision, rep.MicroRecall, rep.MicroF1 = prf(tp, fp, fn)
	return rep, nil
}

// labelOf returns a contract's label of provision (case-insensitive).
func labelOf(d detect.LabelledDoc, provision string) (detect.Label, bool) {
	for _, l := range d.Labels {
		if strings.EqualFold(l.Provision, provision) {
			return l, true
		}
	}
	return detect.Label{}, false
}

// playbookName returns the playbook's spelling of a labelled provision.
func playbookName(pb *playbook.Playbook, provision string) string {
	for _, p := range pb.Provisions {
		if strings.EqualFold(p.Name, provision) {
			return p.Name
		}
	}
	return provision
}

// prf is precision, recall and F1 from counts (0 where undefined).
func prf(tp, fp, fn int) (p, r, f float64) {
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}
