package review

import "github.com/pakton/pakton/internal/review/playbook"

// The playbook format lives in internal/review/playbook; these are its
// names as review has always spelled them, so callers need not change.

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
