package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/search"
)

// FindExamples is the cross-document exemplar tool: it searches the OTHER
// contracts of the collection for comparable provisions, which a model may
// use as examples of how such a clause is usually drafted — never as
// evidence of what the contract under review says.
type FindExamples struct {
	Corpus *Corpus
	// Exclude are the documents under review; they are never searched.
	Exclude []string
	// K is the default number of passages (3 when zero).
	K int
}

// Spec describes the tool to a model.
func (t *FindExamples) Spec() llm.ToolSpec {
	return FindExamplesTool.Spec()
}

// Call runs one exemplar search.
func (t *FindExamples) Call(ctx context.Context, raw json.RawMessage) (Result, error) {
	a, err := parseSearchArgs(ctx, "find_examples", raw)
	if err != nil {
		return Result{}, err
	}
	infos, err := t.Corpus.Store.List(ctx, t.Corpus.Collection)
	if err != nil {
		return Result{}, fmt.Errorf("find_examples: %w", err)
	}
	skip := map[string]bool{}
	for _, id := range t.Exclude {
		skip[id] = true
	}
	var others []string
	for _, in := range infos {
		if !skip[in.ID] {
			others = append(others, in.ID)
		}
	}
	if len(others) == 0 {
		return Result{Text: "The collection holds no other contracts to take examples from."}, nil
	}
	k := t.K
	if k <= 0 {
		k = 3
	}
	// NoFill: an exemplar must match the query, not merely sit nearby.
	_, ev, err := t.Corpus.Search(ctx, search.Query{Text: a.Query, Docs: others, K: clampK(a.K, k), Stages: search.Stages{NoRoute: true, NoFill: true}})
	if err != nil {
		return Result{}, fmt.Errorf("find_examples: %w", err)
	}
	if len(ev) == 0 {
		return Result{Text: "No comparable provision found in the other contracts."}, nil
	}
	return Result{Text: FormatEvidence(ev, nil), Evidence: ev}, nil
}
