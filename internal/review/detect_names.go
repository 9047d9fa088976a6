package review

import (
	"context"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

// Detection and training live in internal/review/detect; these are their
// names as review has always spelled them, so callers need not change.

type (
	Doc               = detect.Doc
	Extract           = detect.Extract
	Detectors         = detect.Detectors
	Model             = detect.Model
	Calibration       = detect.Calibration
	Labels            = detect.Labels
	LabelledProvision = detect.LabelledProvision
	LabelledDoc       = detect.LabelledDoc
	Label             = detect.Label
	TrainingDoc       = detect.TrainingDoc
	TrainOptions      = detect.TrainOptions
	TrainReport       = detect.TrainReport
	ProvisionTraining = detect.ProvisionTraining
	QuestionMatch     = detect.QuestionMatch
)

const (
	DetectorFormat = detect.DetectorFormat
	TrainerVersion = detect.TrainerVersion
)

// LoadDetectors reads a detectors file written by Train (detect.LoadDetectors).
func LoadDetectors(path string) (*Detectors, error) { return detect.LoadDetectors(path) }

// LoadLabels reads and checks a labels file (detect.LoadLabels).
func LoadLabels(path string) (*Labels, error) { return detect.LoadLabels(path) }

// Hits reports whether an extract overlaps a labelled span (detect.Hits).
func Hits(ex document.Span, spans [][2]int) bool { return detect.Hits(ex, spans) }

// Covers reports whether extracts cover a labelled span (detect.Covers).
func Covers(extracts []document.Span, spans [][2]int) bool { return detect.Covers(extracts, spans) }

// LoadTraining reads and analyzes labelled contracts (detect.LoadTraining).
func LoadTraining(ctx context.Context, corpus string, l *Labels, workers int, progress func(done, total int)) ([]TrainingDoc, error) {
	return detect.LoadTraining(ctx, corpus, l, workers, progress)
}

// Train learns detectors from labelled contracts (detect.Train).
func Train(ctx context.Context, docs []TrainingDoc, pb *Playbook, opt TrainOptions) (*Detectors, *TrainReport, error) {
	return detect.Train(ctx, docs, pb, opt)
}

// MatchQuestion returns the playbook provisions a question asks about, best
// first (detect.Scorer.MatchQuestion).
func (r *Reviewer) MatchQuestion(question string) []QuestionMatch {
	return r.sc.MatchQuestion(question)
}

// AskedProvisions returns the provisions a question clearly asks about
// (detect.Scorer.AskedProvisions).
func (r *Reviewer) AskedProvisions(question string) []string { return r.sc.AskedProvisions(question) }
