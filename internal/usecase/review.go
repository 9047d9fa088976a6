package usecase

import (
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/modelpass"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/store"
)

// Reviewing is one review of a collection: a playbook run over its
// documents, refined by a model when one is given. Every face builds its run
// here — the CLI's `pakton review`, the API server's review job (and its
// rebuild when a review is resumed or its rows are read) and the MCP
// review_collection tool — and then sets only what its transport needs (how
// progress is shown, where rows are kept, how the run yields).
type Reviewing struct {
	Store      *store.Store
	Collection string
	// Playbook and Detectors are the review's provisions and the detectors
	// that find them (review.Choose, or a playbook file and trained
	// detectors).
	Playbook  *playbook.Playbook
	Detectors *detect.Detectors
	// Docs are the documents to review; empty means every document.
	Docs []string
	// Chat, when not nil, adds the model pass (internal/review/modelpass):
	// the model quotes each provision's passages from the offline
	// candidates. Its answers are cached in ModelCache ("" for none).
	Chat       llm.Chat
	ModelCache string
}

// Run returns the run of the review. Its Refiner is the model pass (a
// *modelpass.Pass) when Chat is set, nil otherwise.
func (r Reviewing) Run() (*review.Run, error) {
	rev, err := review.NewReviewer(r.Playbook, r.Detectors)
	if err != nil {
		return nil, err
	}
	run := &review.Run{Store: r.Store, Collection: r.Collection, Reviewer: rev, Docs: r.Docs}
	if r.Chat != nil {
		pass, err := modelpass.New(r.Chat, rev, r.ModelCache)
		if err != nil {
			return nil, err
		}
		run.Refiner = pass
	}
	return run, nil
}
