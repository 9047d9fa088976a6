package eval

import (
	"context"
	"runtime"
	"sort"
	"sync"

	"github.com/pakton/pakton/internal/learnq"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
)

// LearnSource says which labelled questions a run learns from
// (Options.Learn): their words are added to questions like them
// (learnq), with every labelled document searched with what was learnt
// without it.
type LearnSource struct {
	// From are benchmark files whose questions are learnt from; their
	// documents must be in the corpus searched (others are skipped).
	From []string
	// Folds is the number of folds by document (default 4): a labelled
	// document is searched with the model trained on the other folds'
	// documents, a document no question is labelled on with the model of
	// every labelled document.
	Folds int
	// Model, when set, is the one model every question is searched with
	// (learnq.Builtin: --learn builtin); From and Folds are then unused.
	Model *learnq.Model
	// Write, when set, receives the model learnt from every labelled
	// question of From at once, over all the run's corpora (what
	// learnq.Builtin ships: --learn-write).
	Write func(*learnq.Model) error
}

// DevBenchmarks are LegalBench-RAG's four development files, in the order
// pakton eval legalbench reads them by default; ContractNLI's questions
// name no contract and are searched in their own document (DevScopes).
var (
	DevBenchmarks = []string{"privacy_qa_dev.json", "contractnli_dev.json", "maud_dev.json", "cuad_dev.json"}
	DevScopes     = map[string]string{"contractnli_dev": "document"}
)

// LearnModel learns from every labelled question of opt.Benches at once
// (each analyzed as opt's run searches it: opt.Scope, opt.Scopes,
// opt.Method) the model a run with --learn cv learns in folds, and
// searches nothing. Over DevBenchmarks it is the shipped model,
// learnq.Builtin (pakton eval legalbench --learn-write).
func LearnModel(ctx context.Context, opt Options) (*learnq.Model, error) {
	var out *learnq.Model
	opt.Provisions, opt.Hits, opt.Unnamed, opt.learnOnly = nil, nil, nil, true
	opt.Learn = &LearnSource{From: opt.Benches, Write: func(m *learnq.Model) error { out = m; return nil }}
	if _, err := Run(ctx, opt); err != nil {
		return nil, err
	}
	return out, nil
}

// learnedFolds are the models of one corpus group, one per fold and one of
// every labelled document.
type learnedFolds struct {
	fold   map[string]int // labelled document (corpus path) → fold
	models []*learnq.Model
	all    *learnq.Model
}

// forDoc is the model a document is searched with.
func (lf *learnedFolds) forDoc(path string) *learnq.Model {
	if lf == nil {
		return nil
	}
	if f, ok := lf.fold[path]; ok {
		return lf.models[f]
	}
	return lf.all
}

// learnFolds trains the fold models on the labelled questions of ls whose
// documents are among files (corpus paths), with ix to analyze questions
// as the search does (without the words that name the document).
func learnFolds(ctx context.Context, opt Options, ix *search.Index, files []string, idOf func(string) string) (*learnedFolds, []learnq.Example, error) {
	ls := opt.Learn
	if ls.Model != nil {
		return &learnedFolds{all: ls.Model}, nil, nil
	}
	folds := ls.Folds
	if folds <= 0 {
		folds = 4
	}
	inCorpus := map[string]bool{}
	for _, f := range files {
		inCorpus[f] = true
	}
	type labelled struct {
		test  Test
		doc   string
		scope string
	}
	var tests []labelled
	docSet := map[string]bool{}
	for _, p := range ls.From {
		b, err := LoadBenchmark(p)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range b.Tests {
			d := t.Snippets[0].FilePath
			if !inCorpus[d] {
				continue
			}
			tests = append(tests, labelled{t, d, opt.scopeOf(b.Name)})
			docSet[d] = true
		}
	}
	lf := &learnedFolds{fold: map[string]int{}}
	if len(tests) == 0 {
		return lf, nil, nil
	}
	docs := make([]string, 0, len(docSet))
	for d := range docSet {
		docs = append(docs, d)
	}
	sort.Strings(docs)
	for i, d := range docs {
		lf.fold[d] = i % folds
	}
	// The units of every labelled document, as the method cuts them.
	units := make([][]index.UnitInput, len(docs))
	errs := make([]error, len(docs))
	var mu sync.Mutex
	done := 0
	parallel.Each(ctx, len(docs), runtime.GOMAXPROCS(0), func(i int) {
		in, _, err := loadDoc(opt, docs[i])
		units[i], errs[i] = in.Units, err
		mu.Lock()
		done++
		if opt.Progress != nil && (done%25 == 0 || done == len(docs)) {
			opt.Progress("learning: reading labelled documents", done, len(docs))
		}
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	unitsOf := map[string][]index.UnitInput{}
	for i, d := range docs {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		unitsOf[d] = units[i]
	}
	examples := make([]learnq.Example, 0, len(tests))
	for _, t := range tests {
		q := search.Query{Text: t.test.Query, Stages: opt.Stages}
		if t.scope == "document" {
			q.Docs, q.NoRoute = []string{idOf(t.doc)}, true
		}
		p, err := ix.Plan(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		e := learnq.Example{Question: p.Words, Doc: t.doc, Units: unitsOf[t.doc]}
		for _, s := range t.test.Snippets {
			if s.FilePath == t.doc {
				e.Gold = append(e.Gold, s.Span)
			}
		}
		examples = append(examples, e)
	}
	train := func(skip int) *learnq.Model {
		var ex []learnq.Example
		for _, e := range examples {
			if skip < 0 || lf.fold[e.Doc] != skip {
				ex = append(ex, e)
			}
		}
		return learnq.Train(ex)
	}
	for f := range folds {
		lf.models = append(lf.models, train(f))
	}
	lf.all = train(-1)
	return lf, examples, nil
}
