package eval

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
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
	Playbook  *playbook.Playbook
	Detectors []*detect.Detectors // one per fold
	// Fold returns which detectors a corpus document (its path relative to
	// the corpus, and its text) is searched with; documents no fold was
	// trained on may use any (0). A document it cannot place honestly is an
	// error (see CrossValidatedProvisions).
	Fold func(path, text string) (int, error)
	// HoldOutQuestions matches a benchmark question to provisions with its
	// own provision's example questions left out of that provision's profile
	// (review.MatcherWithout), when the question's category names a playbook
	// provision: question sets written next to the playbook echo its
	// questions' wording, and would otherwise be matched by it.
	HoldOutQuestions bool
	// PrepareAhead prepares every document for the detectors when the
	// finder is made (its clause tree, and the preparation encoded as
	// pakton ingest stores it), so a question reads the stored preparation
	// as it does from a store: what the latency benchmarks measure.
	PrepareAhead bool
}

// BuiltinProvisions is the shipped playbook and detectors.
func BuiltinProvisions() *ProvisionSource {
	pb, det := review.Builtin()
	return &ProvisionSource{Mode: "builtin (trained on CUAD contracts: optimistic on them)", Playbook: pb, Detectors: []*detect.Detectors{det}}
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
func CrossValidatedProvisions(ctx context.Context, corpusDir string, labels *detect.Labels, folds, workers int, zeroShot bool, progress func(stage string, done, total int)) (*ProvisionSource, error) {
	if folds < 2 {
		return nil, fmt.Errorf("eval: cross-validated provisions need 2 folds or more, not %d", folds)
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	pb, _ := review.Builtin()
	docs, err := detect.LoadTraining(ctx, corpusDir, labels, workers, func(done, total int) {
		progress("reading labelled contracts", done, total)
	})
	if err != nil {
		return nil, err
	}
	fold, err := labelledFolds(corpusDir, labels, folds)
	if err != nil {
		return nil, err
	}
	mode := fmt.Sprintf("%d-fold cross-validated on %d labelled contracts", folds, len(docs))
	if zeroShot {
		mode = "zero-shot (no trained detector), " + mode
	}
	src := &ProvisionSource{Mode: mode, Playbook: pb, Fold: fold}
	for f := range folds {
		var train []detect.TrainingDoc
		for i, d := range docs {
			if i%folds != f {
				train = append(train, d)
			}
		}
		det, _, err := detect.Train(ctx, train, pb, detect.TrainOptions{Workers: workers, ZeroShotOnly: zeroShot, Progress: func(done, total int, _ string) {
			progress(fmt.Sprintf("fold %d/%d: training", f+1, folds), done, total)
		}})
		if err != nil {
			return nil, err
		}
		src.Detectors = append(src.Detectors, det)
	}
	return src, nil
}

// labelledFolds places labelled contract i in fold i mod folds and returns
// the function that says which fold's detectors a corpus document is
// searched with: a labelled path its own fold's; a document with the text
// of a labelled contract under another name (CUAD's corpus holds one such
// copy) the fold of that contract, since every other fold was trained on
// its text; any other document fold 0, which never saw it. A labelled path
// whose text is not the text the detectors were trained on is an error:
// searching it with some fold would not be held out, and silently
// defaulting to fold 0 is how a run quietly scores detectors on their
// training contracts.
func labelledFolds(corpusDir string, labels *detect.Labels, folds int) (func(path, text string) (int, error), error) {
	byPath := map[string]int{}
	sumOf := map[string][32]byte{}
	bySum := map[[32]byte]int{}
	for i := range labels.Documents {
		p := filepath.ToSlash(filepath.Clean(labels.Documents[i].FilePath))
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("eval: labelled contract %s: %w", p, err)
		}
		sum := sha256.Sum256(data)
		byPath[p], sumOf[p] = i%folds, sum
		if f, dup := bySum[sum]; dup && f != i%folds {
			return nil, fmt.Errorf("eval: labelled contract %s has the same text as another labelled contract in another fold: no fold would hold it out", p)
		}
		bySum[sum] = i % folds
	}
	return func(path, text string) (int, error) {
		p := filepath.ToSlash(filepath.Clean(path))
		sum := sha256.Sum256([]byte(text))
		if f, ok := byPath[p]; ok {
			if sumOf[p] != sum {
				return 0, fmt.Errorf("eval: %s is labelled, but the text searched is not the text its fold was trained without: its fold cannot be told", p)
			}
			return f, nil
		}
		if f, ok := bySum[sum]; ok {
			return f, nil
		}
		return 0, nil
	}, nil
}

// foldFinder dispatches each document to the finder of its fold.
type foldFinder struct {
	finders []*review.Finder
	foldOf  map[string]int // by index id
	// held, when the questions are matched with their own provision's
	// playbook questions held out (ProvisionSource.HoldOutQuestions), says
	// per fold which provisions a question of a category asks about
	// (heldOutMatcher).
	held []func(category, question string) []string
}

// forCategory returns the finder of a benchmark question of category: the
// category names the provision the question was written about.
func (ff *foldFinder) forCategory(category string) search.ProvisionFinder {
	return categoryFinder{ff, category}
}

type categoryFinder struct {
	ff       *foldFinder
	category string
}

func (c categoryFinder) FindProvisions(ctx context.Context, req search.ProvisionRequest) ([]search.Hit, []search.Absence, error) {
	return c.ff.find(ctx, req, c.category)
}

// finder returns the search.ProvisionFinder of one index: texts are the
// documents' texts by index id, rel maps an id to its corpus path.
func (s *ProvisionSource) finder(texts map[string]string, rel func(string) string) (*foldFinder, error) {
	var mu sync.Mutex
	docs := map[string]*document.Document{}
	newDoc := func(id, text string) *document.Document {
		return &document.Document{ID: id, Name: filepath.Base(rel(id)), Format: "text", Text: text}
	}
	type ahead struct {
		tree   *clause.Tree
		stored []byte
	}
	var prepared map[string]ahead
	if s.PrepareAhead {
		ids := slices.Sorted(maps.Keys(texts))
		out := make([]ahead, len(ids))
		parallel.Each(context.Background(), len(ids), runtime.NumCPU(), func(i int) {
			d := newDoc(ids[i], texts[ids[i]])
			tree := clause.Parse(d)
			if p, err := detect.Prepare(detect.Doc{ID: d.ID, Name: d.Name, Doc: d, Tree: tree}); err == nil {
				out[i] = ahead{tree: tree, stored: p.Encode(answer.Sections(p)...)}
			}
		})
		prepared = map[string]ahead{}
		for i, id := range ids {
			prepared[id] = out[i]
		}
	}
	load := func(_ context.Context, id string) (detect.Doc, error) {
		mu.Lock()
		defer mu.Unlock()
		d, ok := docs[id]
		if !ok {
			text, ok := texts[id]
			if !ok {
				return detect.Doc{}, fmt.Errorf("eval: no document %q", id)
			}
			d = newDoc(id, text)
			docs[id] = d
		}
		if a, ok := prepared[id]; ok && a.tree != nil {
			return detect.Doc{ID: id, Name: d.Name, Doc: d, Tree: a.tree, Stored: func() []byte { return a.stored }}, nil
		}
		return detect.Doc{ID: id, Name: d.Name, Doc: d}, nil
	}
	ff := &foldFinder{foldOf: map[string]int{}}
	for _, id := range slices.Sorted(maps.Keys(texts)) {
		f := 0
		if s.Fold != nil {
			var err error
			if f, err = s.Fold(rel(id), texts[id]); err != nil {
				return nil, err
			}
		}
		if f < 0 || f >= len(s.Detectors) {
			return nil, fmt.Errorf("eval: %s: fold %d of %d", rel(id), f, len(s.Detectors))
		}
		ff.foldOf[id] = f
	}
	for _, det := range s.Detectors {
		f, err := review.NewFinder(s.Playbook, det, load)
		if err != nil {
			return nil, err
		}
		if s.HoldOutQuestions {
			ff.held = append(ff.held, heldOutMatcher(s.Playbook, det, f))
		}
		ff.finders = append(ff.finders, f)
	}
	return ff, nil
}

// FindProvisions asks each fold's finder about its documents and keeps
// each finder's order (its best passages, then their further passages), as
// the one finder of pakton search returns them.
func (ff *foldFinder) FindProvisions(ctx context.Context, req search.ProvisionRequest) ([]search.Hit, []search.Absence, error) {
	return ff.find(ctx, req, "")
}

// find is FindProvisions for a question of a category ("" for none).
func (ff *foldFinder) find(ctx context.Context, req search.ProvisionRequest, category string) ([]search.Hit, []search.Absence, error) {
	byFold := map[int][]string{}
	var folds []int
	for _, id := range req.Docs {
		f := ff.foldOf[id]
		if _, ok := byFold[f]; !ok {
			folds = append(folds, f)
		}
		byFold[f] = append(byFold[f], id)
	}
	var out []search.Hit
	var absent []search.Absence
	for _, f := range folds {
		sub := req
		sub.Docs = byFold[f]
		var hits []search.Hit
		var abs []search.Absence
		var err error
		if ff.held != nil {
			hits, abs, err = ff.finders[f].FindNamed(ctx, ff.held[f](category, req.Question), sub)
		} else {
			hits, abs, err = ff.finders[f].FindProvisions(ctx, sub)
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, hits...)
		absent = append(absent, abs...)
	}
	return out, absent, nil
}

// heldOutMatcher matches a question whose category names a provision of pb
// with that provision's example questions left out of its profile, and any
// other question as f does.
func heldOutMatcher(pb *playbook.Playbook, det *detect.Detectors, f *review.Finder) func(category, question string) []string {
	var mu sync.Mutex
	matchers := map[string]*review.Reviewer{}
	return func(cat, question string) []string {
		var name string
		for _, p := range pb.Provisions {
			if cat != "" && strings.EqualFold(p.Name, cat) {
				name = p.Name
			}
		}
		if name == "" {
			return f.Asked(question)
		}
		mu.Lock()
		m, ok := matchers[name]
		if !ok {
			var err error
			if m, err = review.MatcherWithout(pb, det, name); err != nil {
				mu.Unlock()
				return nil // pb is valid (NewFinder accepted it); unreachable
			}
			matchers[name] = m
		}
		mu.Unlock()
		return m.AskedProvisions(question)
	}
}
