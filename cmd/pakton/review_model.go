package main

import (
	"fmt"
	"io"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/review"
)

// The model pass of "pakton review": when a model server is configured,
// every cell is answered by the reviewer role's model over the offline
// finder's candidates (review.ModelPass, docs/REVIEW.md "With a model
// server"), cached in the review's state directory.
func init() {
	reviewRefiner = func(roles llm.Roles, rev *review.Reviewer, cacheDir string) (review.Refiner, error) {
		chat, err := roles.Chat(llm.RoleReviewer)
		if err != nil {
			return nil, fmt.Errorf("review model pass: %w", err)
		}
		return review.NewModelPass(chat, rev, cacheDir)
	}
}

// watchModelPass shows each cell the model pass answers, so a contract
// that takes minutes of model calls still shows movement.
func watchModelPass(r review.Refiner, show func(current string)) {
	mp, ok := r.(*review.ModelPass)
	if !ok {
		return
	}
	mp.Progress = func(c review.CellProgress) {
		how := "model"
		if c.Cached {
			how = "cached"
		}
		show(fmt.Sprintf("%s: %s (%s, %d/%d)", c.Doc, c.Provision, how, c.Done, c.Total))
	}
}

// writeModelSpend prints what the model pass spent.
func writeModelSpend(w io.Writer, r review.Refiner) {
	mp, ok := r.(*review.ModelPass)
	if !ok {
		return
	}
	s := mp.Spent()
	fmt.Fprintf(w, "\nModel pass (%s): %d calls, %d prompt and %d completion tokens as the server counted them; %d calls answered from the cache.\n",
		mp.Version(), s.Calls, s.PromptTokens, s.CompletionTokens, s.Cached)
}
