package detect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Training. A detector is a logistic model of "this passage holds the
// provision" over a passage's hashed features (features.go) plus its
// zero-shot score. It starts from the zero-shot scorer's calibration (so a
// detector with little evidence behaves like the zero-shot scorer) and is
// fitted with AdaGrad on two losses at once:
//
//   - pointwise: every passage of every labelled contract is an example,
//     positive when it covers a labelled span (negatives sampled);
//   - listwise: in a contract that has the provision, a softmax over its
//     passages should put its mass on the labelled ones — what a review
//     needs is the right passage first, not only good passage scores.
//
// A detector may also compare every passage with the provision's labelled
// passages by word vectors (vectors.go: prototypes, combined with the
// fitted logit by a stack learnt on the inner cross-validation's held-out
// passages).
//
// A cell's confidence is the best passage's probability passed through a
// Platt scaling fitted on cross-validated predictions, and every detector
// shares one threshold, chosen on those predictions to maximise F1. A
// detector that does no better than the zero-shot scorer in
// cross-validation is not shipped: its provision is found zero-shot.

// TrainerVersion changes whenever Train gives other detectors for the same
// labels and playbook; caches of trained detectors are keyed with it.
// (train-2 trained on five hard negatives by default; they lowered the
// cross-validated F1, so the default is train-1's again and hard negatives
// are TrainOptions.HardNegatives; the neighbouring rights' clauses as
// negatives, measured the same way, are TrainOptions.Neighbours; train-4
// scores a long passage's negative weights scaled, lengthNorm, for the
// provisions whose inner cross-validation is better for it; train-5 adds
// the prototypes of vectors.go, stacked on the inner cross-validation's
// held-out passages, for the provisions it is better for; train-6 adds to
// the stack what the passage qualifies, qualView.)
const TrainerVersion = "train-6"

// TrainingDoc is one labelled contract, analyzed.
type TrainingDoc struct {
	Prep   *Prepared
	Labels *LabelledDoc
}

// LoadTraining reads and analyzes the labelled contracts of l from corpus
// (file paths are relative to it). A contract that cannot be read is an
// error: training on part of the labels would not be reproducible.
func LoadTraining(ctx context.Context, corpus string, l *Labels, workers int, progress func(done, total int)) ([]TrainingDoc, error) {
	RecordFeatureNames()
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]TrainingDoc, len(l.Documents))
	errs := make([]error, len(l.Documents))
	var done atomic.Int64
	var mu sync.Mutex
	parallel.All(len(l.Documents), workers, func(i int) {
		if ctx.Err() != nil {
			return
		}
		out[i], errs[i] = loadLabelled(ctx, corpus, &l.Documents[i])
		if errs[i] == nil && progress != nil {
			mu.Lock()
			progress(int(done.Add(1)), len(l.Documents))
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadLabelled reads and analyzes one labelled contract, checking that its
// labels fit its text.
func loadLabelled(ctx context.Context, corpus string, ld *LabelledDoc) (TrainingDoc, error) {
	path := filepath.Join(corpus, filepath.FromSlash(ld.FilePath))
	data, err := os.ReadFile(path)
	if err != nil {
		return TrainingDoc{}, fmt.Errorf("labelled contract: %w", err)
	}
	doc, err := parse.Bytes(ctx, filepath.Base(path), data, parse.Options{})
	if err != nil {
		return TrainingDoc{}, fmt.Errorf("labelled contract %s: %w", ld.FilePath, err)
	}
	n := doc.Runes()
	for _, lb := range ld.Labels {
		for _, sp := range lb.Spans {
			if sp[1] > n {
				return TrainingDoc{}, fmt.Errorf("labelled contract %s: %s: span [%d, %d] is past the end of the text (%d code points): labels and corpus do not match", ld.FilePath, lb.Provision, sp[0], sp[1], n)
			}
		}
	}
	prep, err := Prepare(Doc{ID: ld.FilePath, Name: ld.FilePath, Doc: doc})
	if err != nil {
		return TrainingDoc{}, err
	}
	return TrainingDoc{Prep: prep, Labels: ld}, nil
}

// TrainOptions tune Train.
type TrainOptions struct {
	Version string // written into the file
	Command string // the command that reproduces the file
	// TrainedOn describes the labels ("review_dev.json: 226 contracts").
	TrainedOn string
	// ZeroShotOnly fits only the zero-shot calibration and IDF (no
	// per-provision detectors).
	ZeroShotOnly bool
	// Exclude names provisions left out of everything, the zero-shot
	// calibration included (to measure a provision as if nobody had
	// labelled it).
	Exclude []string
	// Only, when set, names the provisions to fit detectors for; the
	// other labelled provisions still fit the zero-shot calibration.
	Only []string
	// Base, when set, is a detectors file to train on top of: its word
	// rarities, zero-shot calibration and prior are kept, detectors are
	// fitted only for the provisions docs label, and the base's detectors
	// for every other provision are kept (learning from a reviewer's few
	// decisions without refitting what they cannot improve).
	Base *Detectors
	// HardNegatives is how many hard negatives each contract gives each
	// provision's training, every epoch (train_fit.go: hardNegatives).
	// 0, the default: measured on CUAD dev (4-fold CV), five hard
	// negatives lowered micro F1 0.809 → 0.803 and macro F1 0.636 →
	// 0.629 (docs/EVALUATION.md).
	HardNegatives int
	// Neighbours trains on the neighbouring rights' clauses as
	// every-epoch negatives (neighbourNegatives). Off by default: measured
	// on CUAD dev (4-fold CV) they moved micro F1 0.814 → 0.812, AUPR
	// 0.835 → 0.830 and macro F1 not at all, though Termination for
	// Convenience rose 0.576 → 0.599 (docs/EVALUATION.md).
	Neighbours bool
	// Relations trains on a passage read with the passages around it:
	// word clusters learnt from the contracts' text in the zero-shot
	// scorer (clusters.go) and which provisions the passages around it
	// look like (relations.go). Off by default: measured on CUAD dev
	// (4-fold CV) it raised AUPR 0.835 → 0.840 and the weak provisions
	// a little, but lowered micro F1 0.814 → 0.809 and macro F1 did not
	// move (docs/EVALUATION.md).
	Relations bool
	Workers   int
	// Progress, when set, is told about each provision trained.
	Progress func(done, total int, provision string)
}

// TrainReport says, per provision, what cross-validation measured and what
// was shipped.
type TrainReport struct {
	Provisions []ProvisionTraining `json:"provisions"`
	// Threshold is the detectors' shared threshold.
	Threshold float64 `json:"threshold"`
	// ZeroShot is the calibration of the zero-shot scorer.
	ZeroShot Calibration `json:"zero_shot"`

	refit func(exclude string) Calibration
}

// ZeroShotWithout refits the zero-shot calibration (and its prior) leaving
// one provision's cells out: how that provision would be found had nobody
// labelled it.
func (r *TrainReport) ZeroShotWithout(name string) Calibration { return r.refit(name) }

// ProvisionTraining is one provision's training summary.
type ProvisionTraining struct {
	Name       string  `json:"name"`
	Contracts  int     `json:"contracts"` // labelled contracts
	Present    int     `json:"present"`   // of which have it
	DetectorF1 float64 `json:"detector_f1"`
	ZeroShotF1 float64 `json:"zero_shot_f1"`
	Shipped    string  `json:"shipped"` // "detector" or "zero-shot"
}

// Hyper-parameters (chosen once, on cross-validation over the dev labels;
// see docs/PLAYBOOKS.md).
const (
	trainEpochs     = 5
	trainRate       = 0.1
	trainL2         = 1e-5
	negativeSample  = 0.35
	innerFolds      = 4
	weightPrune     = 0.03
	minFeatureCount = 5
)

// provData is a labelled provision of the playbook and its cells.
type provData struct {
	idx   int    // in pb
	name  string // the provision's name
	label string // its label name (Provision.LabelName): what its model is called, as the scorer looks it up
	cells []cellData
}

// cellData is one labelled contract × provision, ready for training.
type cellData struct {
	doc     int    // index into the training docs
	present bool   // labelled present
	pos     []bool // per passage: covers a labelled span
	// near marks the passages that hold a neighbouring provision and not
	// this one (neighbourNegatives): training sees each of them every
	// epoch, not a sample.
	near  []bool
	spans [][2]int
	prov  int // the provision's index in the playbook
	// whole: the provision's answer is a whole clause (PickClause), so a
	// cell returns the clause that holds its best passage.
	whole bool
}

// Train fits detectors for the provisions of pb that docs label, and the
// zero-shot calibration, from docs.
func Train(ctx context.Context, docs []TrainingDoc, pb *playbook.Playbook, opt TrainOptions) (*Detectors, *TrainReport, error) {
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("review train: no labelled contracts")
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	det := &Detectors{Format: DetectorFormat, Version: opt.Version, TrainedOn: opt.TrainedOn, Command: opt.Command}
	if opt.Base != nil && len(opt.Base.Clusters) > 0 {
		// a base trained with relations is trained on with them
		opt.Relations = true
	}
	if opt.Base != nil {
		// the base's word rarities and calibration stay: only detectors
		// are fitted (below)
		det.IDF, det.DefaultIDF, det.ZeroShot, det.Clusters, det.Vectors = opt.Base.IDF, opt.Base.DefaultIDF, opt.Base.ZeroShot, opt.Base.Clusters, opt.Base.Vectors
	} else {
		det.IDF, det.DefaultIDF = corpusIDF(docs)
		if !opt.ZeroShotOnly {
			det.Vectors = learnWordVectors(docs)
		}
		if opt.Relations {
			det.Clusters = learnClusters(docs)
		}
	}
	provs := labelledProvisions(docs, pb, opt.Exclude)
	if opt.Neighbours {
		neighbourNegatives(docs, pb, provs)
	}
	if len(provs) == 0 {
		return nil, nil, fmt.Errorf("review train: the labels cover none of the playbook's provisions (playbook %s)", pb.Name)
	}

	// Zero-shot scores of every passage, for every labelled provision.
	zs := newZeroShot(pb, det)
	zsScores := make([][][]float64, len(docs)) // [doc][provision idx in pb][passage]
	parallel.All(len(docs), opt.Workers, func(d int) { zsScores[d] = zs.scores(docs[d].Prep) })
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}

	// Every passage's relations to the provisions around it (relations.go).
	var rel [][][]uint32
	if opt.Relations {
		relIDs := relationIDs(pb)
		rel = make([][][]uint32, len(docs))
		parallel.All(len(docs), opt.Workers, func(d int) { rel[d] = relationFeatures(docs[d].Prep, zsScores[d], relIDs) })
	}

	// Every passage read as vectors (vectors.go), when the detectors have
	// word vectors.
	var views []*passageViews
	if det.Vectors != nil {
		views = make([]*passageViews, len(docs))
		parallel.All(len(docs), opt.Workers, func(d int) { views[d] = det.Vectors.views(docs[d].Prep, det.idf) })
	}

	t := &training{docs: docs, opt: opt, det: det, zsScores: zsScores, views: views}
	if views != nil {
		t.qual = make([][][]float64, len(pb.Provisions))
		for _, pd := range provs {
			zq := qualifiedScorer(pb, pd.idx, det)
			if zq == nil {
				continue
			}
			q := make([][]float64, len(docs))
			parallel.All(len(docs), opt.Workers, func(d int) { q[d] = qualifiedInputs(views[d], zq.scores(docs[d].Prep)) })
			t.qual[pd.idx] = q
		}
	}
	var zsPairs [][]scored
	var rep *TrainReport
	if opt.Base != nil {
		t.fx, t.init, zsPairs, rep = fromBase(opt.Base, docs, provs, zsScores, rel)
	} else {
		t.fx, t.init, zsPairs, rep = fitCalibration(det, docs, provs, zsScores, rel, opt.HardNegatives)
	}
	if opt.ZeroShotOnly {
		for _, pd := range provs {
			rep.Provisions = append(rep.Provisions, ProvisionTraining{Name: pd.name, Contracts: len(pd.cells), Present: countPresent(pd.cells), Shipped: "zero-shot"})
		}
		return det, rep, nil
	}

	if len(opt.Only) > 0 {
		// detectors only for the named provisions; the others' labels
		// still fitted the calibration above
		var keepProvs []provData
		var keepPairs [][]scored
		for j, pd := range provs {
			for _, o := range opt.Only {
				if strings.EqualFold(o, pd.name) || strings.EqualFold(o, pb.Provisions[pd.idx].LabelName()) {
					keepProvs = append(keepProvs, pd)
					keepPairs = append(keepPairs, zsPairs[j])
					break
				}
			}
		}
		provs, zsPairs = keepProvs, keepPairs
	}

	// Per provision: cross-validated predictions (for Platt scaling,
	// threshold and model selection), then a final fit on every contract.
	results := make([]provisionFit, len(provs))
	var done atomic.Int64
	var pmu sync.Mutex
	parallel.All(len(provs), opt.Workers, func(j int) {
		if ctx.Err() != nil {
			return
		}
		results[j] = t.fitProvision(provs[j])
		results[j].zs = zsPairs[j]
		if opt.Progress != nil {
			pmu.Lock()
			opt.Progress(int(done.Add(1)), len(provs), provs[j].name)
			pmu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	t.choose(rep, provs, results)
	return det, rep, nil
}

// labelledProvisions returns the playbook's provisions the labels cover
// (but those with detector "none" and those excluded), with their cells.
func labelledProvisions(docs []TrainingDoc, pb *playbook.Playbook, exclude []string) []provData {
	excluded := func(name string) bool {
		for _, e := range exclude {
			if strings.EqualFold(e, name) {
				return true
			}
		}
		return false
	}
	var provs []provData
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		name := p.LabelName()
		if strings.EqualFold(p.Detector, "none") || excluded(p.Name) || excluded(name) {
			continue
		}
		pd := provData{idx: i, name: p.Name, label: name}
		for d := range docs {
			lb, ok := docs[d].Labels.Label(name)
			if !ok {
				continue
			}
			cd := cellData{doc: d, present: lb.Present, pos: make([]bool, len(docs[d].Prep.passages)), spans: lb.Spans, prov: i, whole: p.Answer == playbook.AnswerCarveOuts}
			if lb.Present {
				for k, ps := range docs[d].Prep.passages {
					cd.pos[k] = Hits(ps.Span, lb.Spans)
				}
			}
			pd.cells = append(pd.cells, cd)
		}
		if len(pd.cells) > 0 {
			provs = append(provs, pd)
		}
	}
	return provs
}

// training is one Train under way: its contracts, options, the detectors
// it fills in, and the shared features, starting fit and zero-shot scores.
type training struct {
	docs     []TrainingDoc
	opt      TrainOptions
	det      *Detectors
	fx       *featureIndex
	init     *detectorFit
	zsScores [][][]float64   // [doc][provision idx in pb][passage]
	views    []*passageViews // [doc]; nil: no prototypes
	// qual holds, per provision of pb and document, every passage's
	// qualView input (qualifiedInputs); nil for a provision whose
	// definition names no other
	qual [][][]float64
}

// inputs returns the prototype cosines of cells' passages with prototypes
// built from the labelled passages of train, and those prototypes; nil,
// nil without word vectors.
func (t *training) inputs(train, cells []cellData) ([][][protoViews]float64, *[protoViews][]float32) {
	if t.views == nil {
		return nil, nil
	}
	p := newProtoSums(train, t.views, t.det.Vectors.Dims).protos()
	in := cellInputs(cells, t.views, p)
	for i, c := range cells {
		if t.qual == nil || t.qual[c.prov] == nil || in[i] == nil {
			continue
		}
		if q := t.qual[c.prov][c.doc]; q != nil {
			for k := range in[i] {
				in[i][k][qualView] = q[k]
			}
		}
	}
	return in, p
}

// provisionFit is one provision's detector with its cross-validated scores
// (calibrated later) and the zero-shot scorer's on the same cells.
type provisionFit struct {
	model *Model
	cv    []scored
	zs    []scored
}

// keepNorm reports whether a detector keeps the length normalisation, given
// its cross-validated cells scored without it (plain) and with it (norm):
// when the best F1 either reaches is higher with it. A tie keeps the plain
// sum.
func keepNorm(plain, norm []scored) bool {
	return bestF1(norm) > bestF1(plain)
}

// scoreCell is cell c scored from its passages' probabilities: its best
// passage's logit, and whether the passages picked cover the provision.
func (t *training) scoreCell(c cellData, probs []float64) scored {
	best := argmax(probs)
	sc := scored{present: c.present}
	if best >= 0 {
		sc.x, sc.hit = logit(probs[best]), c.present && cellCovers(t.docs[c.doc].Prep, probs, c)
	}
	sc.p = sigmoid(sc.x)
	return sc
}

// fitProvision cross-validates a detector of pd over innerFolds, then fits
// it on every contract.
func (t *training) fitProvision(pd provData) provisionFit {
	opt, fx, init, zsScores := t.opt, t.fx, t.init, t.zsScores
	// The fit is the same with and without the length normalisation (it
	// changes how a detector scores, not what it learns), so each fold's
	// detector scores its held-out cells both ways, and the provision
	// keeps the normalisation where its cross-validated F1 is higher with
	// it: it helps a provision written as one sentence in a long clause,
	// and costs one that is a long clause (a definition with its
	// carve-outs) or is found by a few strong words in clauses long for
	// other reasons.
	//
	// The same inner folds decide whether the detector compares passages
	// with its prototypes (vectors.go): the held-out passages' word logits
	// and cosines with prototypes built from the fold's training cells
	// fit a stack, which the provision keeps where its cross-validated F1
	// is higher with it.
	stacking := t.views != nil && opt.Base == nil
	cvOf := [2][]scored{make([]scored, len(pd.cells)), make([]scored, len(pd.cells))}
	var heldLogits [2][][]float64
	var heldIn [][][protoViews]float64
	if stacking {
		heldLogits = [2][][]float64{make([][]float64, len(pd.cells)), make([][]float64, len(pd.cells))}
		heldIn = make([][][protoViews]float64, len(pd.cells))
	}
	for f := range innerFolds {
		var train []cellData
		for _, c := range pd.cells {
			if c.doc%innerFolds != f {
				train = append(train, c)
			}
		}
		w := fitDetector(train, fx, zsScores, init, pd.name, f, opt.HardNegatives, false)
		if opt.Base != nil {
			w.shrinkToward(init, evidenceWeight(countPresent(train)))
		}
		var in [][][protoViews]float64
		if stacking {
			in, _ = t.inputs(train, pd.cells)
		}
		for v, norm := range []bool{false, true} {
			w.norm = norm
			for ci, c := range pd.cells {
				if c.doc%innerFolds != f {
					continue
				}
				probs := w.passageProbs(fx, c.doc, zsScores[c.doc][pd.idx])
				cvOf[v][ci] = t.scoreCell(c, probs)
				if stacking {
					heldLogits[v][ci] = w.passageLogits(fx, c.doc, zsScores[c.doc][pd.idx])
					heldIn[ci] = in[ci]
				}
			}
		}
	}
	norm := opt.Base == nil && keepNorm(cvOf[0], cvOf[1])
	vi := 0
	if norm {
		vi = 1
	}
	cv := cvOf[vi]
	var st *stack
	if stacking {
		var ls [][]float64
		var ins [][][protoViews]float64
		var pos [][]bool
		for ci, c := range pd.cells {
			if heldLogits[vi][ci] != nil && heldIn[ci] != nil {
				ls, ins, pos = append(ls, heldLogits[vi][ci]), append(ins, heldIn[ci]), append(pos, c.pos)
			}
		}
		cand := fitStack(ls, ins, pos)
		scv := make([]scored, len(pd.cells))
		for ci, c := range pd.cells {
			l := heldLogits[vi][ci]
			probs := make([]float64, len(l))
			for k := range l {
				var x *[protoViews]float64
				if heldIn[ci] != nil {
					x = &heldIn[ci][k]
				}
				probs[k] = sigmoid(cand.logit(l[k], x))
			}
			scv[ci] = t.scoreCell(c, probs)
		}
		if keepNorm(cv, scv) {
			st, cv = cand, scv
		}
	}
	w := fitDetector(pd.cells, fx, zsScores, init, pd.name, -1, opt.HardNegatives, norm)
	if st != nil {
		_, protos := t.inputs(pd.cells, nil)
		w.stack, w.protos = st, protos
	}
	if opt.Base != nil {
		w.shrinkToward(init, evidenceWeight(countPresent(pd.cells)))
	}
	model := w.export(fx, pd.label, countPresent(pd.cells))
	if opt.Base != nil {
		// the prior's weights on features these contracts have too
		// rarely to index stay as the base has them: with no evidence
		// the detector is the zero-shot scorer it starts from
		for name, v := range t.det.ZeroShot.Prior {
			if _, ok := model.Weights[name]; !ok {
				model.Weights[name] = v
			}
		}
	}
	return provisionFit{model: model, cv: cv}
}

// choose calibrates each detector (Platt scaling), then selects, per
// provision, the detector or the zero-shot scorer on the same
// cross-validated cells, each at the threshold it would really be used
// with: the detectors' shared one (pooled over all of them), the zero-shot
// calibration's own. It fills in t.det's models and rep.
func (t *training) choose(rep *TrainReport, provs []provData, results []provisionFit) {
	det, opt := t.det, t.opt
	var pooled []scored
	for _, r := range results {
		pa, pb := fitPlatt(r.cv)
		if opt.Base != nil {
			// On top of a base, a detector keeps the calibration of the
			// zero-shot scorer it starts from: its confidence is read as
			// the zero-shot scorer's, against the same threshold (a few
			// decided contracts cannot fit a scaling or a threshold).
			pa, pb = det.ZeroShot.Platt[0], det.ZeroShot.Platt[1]
		}
		r.model.Platt = [2]float64{round4(pa), round4(pb)}
		for i := range r.cv {
			r.cv[i].p = sigmoid(pa*r.cv[i].x + pb)
		}
		pooled = append(pooled, r.cv...)
	}
	shared := bestThreshold(pooled)
	baseThreshold := -1.0
	if opt.Base != nil {
		baseThreshold = det.ZeroShot.Threshold
		shared = baseThreshold
	}
	var kept []scored
	keep := make([]bool, len(provs))
	for j, r := range results {
		zsc := make([]scored, len(r.zs))
		for i, s := range r.zs {
			s.p = det.ZeroShot.confidence(sigmoid(s.x))
			zsc[i] = s
		}
		dF1, zF1 := f1At(r.cv, shared), f1At(zsc, det.ZeroShot.Threshold)
		pt := ProvisionTraining{Name: provs[j].name, Contracts: len(provs[j].cells), Present: countPresent(provs[j].cells),
			DetectorF1: round4(dF1), ZeroShotF1: round4(zF1), Shipped: "zero-shot"}
		// On top of a base the reviewer's decisions are all there is to
		// learn from: a tie (few contracts rarely separate the two) keeps
		// the detector, which starts from the zero-shot scorer anyway.
		if dF1 > zF1 || opt.Base != nil && dF1 == zF1 && countPresent(provs[j].cells) > 0 {
			keep[j] = true
			pt.Shipped = "detector"
			kept = append(kept, r.cv...)
		}
		rep.Provisions = append(rep.Provisions, pt)
	}
	switch {
	case baseThreshold >= 0:
		rep.Threshold = baseThreshold
	case len(kept) > 0:
		rep.Threshold = round4(bestThreshold(kept))
	}
	retrained := map[string]bool{}
	for j, r := range results {
		retrained[strings.ToLower(provs[j].label)] = true
		if keep[j] {
			r.model.Threshold = rep.Threshold
			if baseThreshold >= 0 {
				r.model.Threshold = baseThreshold
			}
			det.Models = append(det.Models, r.model)
		} else {
			det.ZeroShotChosen = append(det.ZeroShotChosen, provs[j].name)
		}
	}
	if opt.Base != nil {
		// the base's detectors for the provisions these labels do not
		// cover stay as they were
		for _, m := range opt.Base.Models {
			if !retrained[strings.ToLower(m.Name)] {
				det.Models = append(det.Models, m)
			}
		}
		for _, n := range opt.Base.ZeroShotChosen {
			if !retrained[strings.ToLower(n)] {
				det.ZeroShotChosen = append(det.ZeroShotChosen, n)
			}
		}
	}
}
