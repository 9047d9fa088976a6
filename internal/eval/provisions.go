package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/search"
)

// ProvisionSource gives a LegalBench-RAG run the review detectors that put
// a provision's passage first when a question asks about a playbook
// provision (search.Models.Provisions, as pakton search does).
//
// The benchmark contracts are the contracts the shipped detectors were
// trained on, so a run with the shipped detectors measures them on their own
// training data. CrossValidatedProvisions trains detectors in folds and
// scores every labelled contract with the detectors of the fold that left it
// out: the honest number.
type ProvisionSource struct {
	Mode      string // for the report: "builtin", "2-fold cross-validated"
	Playbook  *review.Playbook
	Detectors []*review.Detectors // one per fold
	// Fold returns which detectors a corpus document (its path relative to
	// the corpus) is scored with; documents no fold was trained on may use
	// any (0).
	Fold func(path string) int
}

// BuiltinProvisions is the shipped playbook and detectors.
func BuiltinProvisions() *ProvisionSource {
	pb, det := review.Builtin()
	return &ProvisionSource{Mode: "builtin (trained on CUAD contracts: optimistic on them)", Playbook: pb, Detectors: []*review.Detectors{det}}
}

// CrossValidatedProvisions trains the built-in playbook's detectors on the
// labelled contracts in folds (contract i in fold i mod folds, as pakton eval
// review does); each labelled contract is then searched with the detectors
// trained without it.
//
// With zeroShot, no provision gets a trained detector: every one is found as
// a provision nobody labelled is (definition, keywords, examples), with the
// zero-shot calibration fitted on the fold's training contracts — how search
// does on provisions without labels (the calibration is shared by all
// provisions, so it has seen the others' labels).
func CrossValidatedProvisions(ctx context.Context, corpusDir string, labels *review.Labels, folds, workers int, zeroShot bool, progress func(stage string, done, total int)) (*ProvisionSource, error) {
	if folds < 2 {
		return nil, fmt.Errorf("eval: cross-validated provisions need 2 folds or more, not %d", folds)
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	pb, _ := review.Builtin()
	docs, err := review.LoadTraining(ctx, corpusDir, labels, workers, func(done, total int) {
		progress("reading labelled contracts", done, total)
	})
	if err != nil {
		return nil, err
	}
	foldOf := map[string]int{}
	for i := range labels.Documents {
		foldOf[filepath.ToSlash(labels.Documents[i].FilePath)] = i % folds
	}
	mode := fmt.Sprintf("%d-fold cross-validated on %d labelled contracts", folds, len(docs))
	if zeroShot {
		mode = "zero-shot (no trained detector), " + mode
	}
	src := &ProvisionSource{Mode: mode, Playbook: pb,
		Fold: func(path string) int { return foldOf[path] }}
	for f := range folds {
		var train []review.TrainingDoc
		for i, d := range docs {
			if i%folds != f {
				train = append(train, d)
			}
		}
		det, _, err := review.Train(ctx, train, pb, review.TrainOptions{Workers: workers, ZeroShotOnly: zeroShot, Progress: func(done, total int, _ string) {
			progress(fmt.Sprintf("fold %d/%d: training", f+1, folds), done, total)
		}})
		if err != nil {
			return nil, err
		}
		src.Detectors = append(src.Detectors, det)
	}
	return src, nil
}

// foldFinder dispatches each document to the finder of its fold.
type foldFinder struct {
	finders []*review.Finder
	fold    func(id string) int
}

// finder returns the search.ProvisionFinder of one index: texts are the
// documents' texts by index id, rel maps an id to its corpus path.
func (s *ProvisionSource) finder(texts map[string]string, rel func(string) string) (*foldFinder, error) {
	var mu sync.Mutex
	docs := map[string]*document.Document{}
	load := func(_ context.Context, id string) (review.Doc, error) {
		mu.Lock()
		defer mu.Unlock()
		d, ok := docs[id]
		if !ok {
			text, ok := texts[id]
			if !ok {
				return review.Doc{}, fmt.Errorf("eval: no document %q", id)
			}
			d = &document.Document{ID: id, Name: filepath.Base(rel(id)), Format: "text", Text: text}
			docs[id] = d
		}
		return review.Doc{ID: id, Name: d.Name, Doc: d}, nil
	}
	ff := &foldFinder{fold: func(id string) int {
		if s.Fold == nil {
			return 0
		}
		if f := s.Fold(rel(id)); f >= 0 && f < len(s.Detectors) {
			return f
		}
		return 0
	}}
	for _, det := range s.Detectors {
		f, err := review.NewFinder(s.Playbook, det, load)
		if err != nil {
			return nil, err
		}
		ff.finders = append(ff.finders, f)
	}
	return ff, nil
}

// FindProvisions asks each fold's finder about its documents and keeps
// each finder's order (its best passages, then their further passages), as
// the one finder of pakton search returns them.
func (ff *foldFinder) FindProvisions(ctx context.Context, question string, docs []string) ([]search.Hit, []search.Absence, error) {
	byFold := map[int][]string{}
	var folds []int
	for _, id := range docs {
		f := ff.fold(id)
		if _, ok := byFold[f]; !ok {
			folds = append(folds, f)
		}
		byFold[f] = append(byFold[f], id)
	}
	var out []search.Hit
	var absent []search.Absence
	for _, f := range folds {
		hits, abs, err := ff.finders[f].FindProvisions(ctx, question, byFold[f])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, hits...)
		absent = append(absent, abs...)
	}
	return out, absent, nil
}
