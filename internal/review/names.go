package review

import (
	"context"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The names review re-exports from the packages it is split into, as review
// has always spelled them, so callers need not change: the playbook format
// (internal/review/playbook) first, then detection and training
// (internal/review/detect).

type (
	Playbook     = playbook.Playbook
	Provision    = playbook.Provision
	Keyword      = playbook.Keyword
	Risk         = playbook.Risk
	AnswerFormat = playbook.AnswerFormat
	Polarity     = playbook.Polarity
)

const (
	AnswerYesNo        = playbook.AnswerYesNo
	AnswerDate         = playbook.AnswerDate
	AnswerEndDate      = playbook.AnswerEndDate
	AnswerDuration     = playbook.AnswerDuration
	AnswerJurisdiction = playbook.AnswerJurisdiction
	AnswerParty        = playbook.AnswerParty
	AnswerAmount       = playbook.AnswerAmount
	AnswerText         = playbook.AnswerText

	PolarityRight       = playbook.PolarityRight
	PolarityRestriction = playbook.PolarityRestriction
	PolarityRelief      = playbook.PolarityRelief
	PolarityException   = playbook.PolarityException

	MaxPlaybookBytes = playbook.MaxPlaybookBytes
	MaxProvisions    = playbook.MaxProvisions
	MaxKeywords      = playbook.MaxKeywords
	MaxNear          = playbook.MaxNear
	MaxWithin        = playbook.MaxWithin
	MaxBoost         = playbook.MaxBoost
	MaxExamples      = playbook.MaxExamples
	MaxQuestions     = playbook.MaxQuestions
	MaxRisks         = playbook.MaxRisks
)

var (
	// ErrPlaybook is playbook.ErrPlaybook.
	ErrPlaybook   = playbook.ErrPlaybook
	answerFormats = playbook.AnswerFormats
)

// LoadPlaybook reads a playbook file (playbook.LoadPlaybook).
func LoadPlaybook(path string) (*Playbook, error) { return playbook.LoadPlaybook(path) }

// ParsePlaybook reads a playbook from YAML (playbook.ParsePlaybook).
func ParsePlaybook(name string, data []byte) (*Playbook, error) {
	return playbook.ParsePlaybook(name, data)
}

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

// Hits reports whether a passage belongs to a labelled span, by training's
// rule (detect.Hits).
func Hits(ex document.Span, spans [][2]int) bool { return detect.Hits(ex, spans) }

// Covers reports whether a cell's extracts find a labelled provision, by
// the review benchmark's rule (detect.Covers).
func Covers(extracts []document.Span, spans [][2]int) bool { return detect.Covers(extracts, spans) }

// LoadTraining reads and analyzes labelled contracts (detect.LoadTraining).
func LoadTraining(ctx context.Context, corpus string, l *Labels, workers int, progress func(done, total int)) ([]TrainingDoc, error) {
	return detect.LoadTraining(ctx, corpus, l, workers, progress)
}

// Train learns detectors from labelled contracts (detect.Train).
func Train(ctx context.Context, docs []TrainingDoc, pb *Playbook, opt TrainOptions) (*Detectors, *TrainReport, error) {
	return detect.Train(ctx, docs, pb, opt)
}
