package review

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/parse"
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
// A cell's confidence is the best passage's probability passed through a
// Platt scaling fitted on cross-validated predictions, and every detector
// shares one threshold, chosen on those predictions to maximise F1. A
// detector that does no better than the zero-shot scorer in
// cross-validation is not shipped: its provision is found zero-shot.

// TrainerVersion changes whenever Train gives other detectors for the same
// labels and playbook; caches of trained detectors are keyed with it.
const TrainerVersion = "train-2"

// TrainingDoc is one labelled contract, analyzed.
type TrainingDoc struct {
	Prep   *Prepared
	Labels *LabelledDoc
}

// LoadTraining reads and analyzes the labelled contracts of l from corpus
// (file paths are relative to it). A contract that cannot be read is an
// error: training on part of the labels would not be reproducible.
func LoadTraining(ctx context.Context, corpus string, l *Labels, workers int, progress func(done, total int)) ([]TrainingDoc, error) {
	recordFeatureNames()
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
	Base    *Detectors
	Workers int
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
	idx   int // in pb
	name  string
	cells []cellData
}

// cellData is one labelled contract × provision, ready for training.
type cellData struct {
	doc     int    // index into the training docs
	present bool   // labelled present
	pos     []bool // per passage: covers a labelled span
	spans   [][2]int
	prov    int // the provision's index in the playbook
}

// Train fits detectors for the provisions of pb that docs label, and the
// zero-shot calibration, from docs.
func Train(ctx context.Context, docs []TrainingDoc, pb *Playbook, opt TrainOptions) (*Detectors, *TrainReport, error) {
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("review train: no labelled contracts")
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	excluded := func(name string) bool {
		for _, e := range opt.Exclude {
			if strings.EqualFold(e, name) {
				return true
			}
		}
		return false
	}
	det := &Detectors{Format: DetectorFormat, Version: opt.Version, TrainedOn: opt.TrainedOn, Command: opt.Command}
	if opt.Base != nil {
		// the base's word rarities and calibration stay: only detectors
		// are fitted (below)
		det.IDF, det.DefaultIDF, det.ZeroShot = opt.Base.IDF, opt.Base.DefaultIDF, opt.Base.ZeroShot
	} else {
		det.IDF, det.DefaultIDF = corpusIDF(docs)
	}

	// The labelled provisions of the playbook, and their cells.
	var provs []provData
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		name := p.LabelName()
		if strings.EqualFold(p.Detector, "none") || excluded(p.Name) || excluded(name) {
			continue
		}
		pd := provData{idx: i, name: p.Name}
		for d := range docs {
			lb, ok := docs[d].Labels.Label(name)
			if !ok {
				continue
			}
			cd := cellData{doc: d, present: lb.Present, pos: make([]bool, len(docs[d].Prep.p.passages)), spans: lb.Spans, prov: i}
			if lb.Present {
				for k, ps := range docs[d].Prep.p.passages {
					cd.pos[k] = Hits(ps.span, lb.Spans)
				}
			}
			pd.cells = append(pd.cells, cd)
		}
		if len(pd.cells) > 0 {
			provs = append(provs, pd)
		}
	}
	if len(provs) == 0 {
		return nil, nil, fmt.Errorf("review train: the labels cover none of the playbook's provisions (playbook %s)", pb.Name)
	}

	// Zero-shot scores of every passage, for every labelled provision.
	zs := newZeroShot(pb, det)
	zsScores := make([][][]float64, len(docs)) // [doc][provision idx in pb][passage]
	parallel.All(len(docs), opt.Workers, func(d int) { zsScores[d] = zs.scores(docs[d].Prep.p) })
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}

	var (
		fx      *featureIndex
		g       *detectorFit
		zsPairs [][]scored
		rep     *TrainReport
	)
	if opt.Base != nil {
		fx, g, zsPairs, rep = fromBase(opt.Base, docs, provs, zsScores)
	} else {
		fx, g, zsPairs, rep = fitCalibration(det, docs, provs, zsScores)
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
	type result struct {
		model *Model
		cv    []scored // calibrated later
		zs    []scored
	}
	results := make([]result, len(provs))
	var done atomic.Int64
	var pmu sync.Mutex
	parallel.All(len(provs), opt.Workers, func(j int) {
		if ctx.Err() != nil {
			return
		}
		pd := provs[j]
		init := g
		cv := make([]scored, len(pd.cells))
		for f := range innerFolds {
			var train []cellData
			for _, c := range pd.cells {
				if c.doc%innerFolds != f {
					train = append(train, c)
				}
			}
			w := fitDetector(train, fx, zsScores, init, pd.name, f)
			for ci, c := range pd.cells {
				if c.doc%innerFolds != f {
					continue
				}
				probs := w.passageProbs(fx, c.doc, zsScores[c.doc][pd.idx])
				best := argmax(probs)
				sc := scored{present: c.present}
				if best >= 0 {
					sc.x, sc.hit = logit(probs[best]), c.present && cellCovers(docs[c.doc].Prep.p, probs, c.spans)
				}
				cv[ci] = sc
			}
		}
		w := fitDetector(pd.cells, fx, zsScores, init, pd.name, -1)
		results[j] = result{model: w.export(fx, pd.name, countPresent(pd.cells)), cv: cv, zs: zsPairs[j]}
		if opt.Progress != nil {
			pmu.Lock()
			opt.Progress(int(done.Add(1)), len(provs), pd.name)
			pmu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}

	// Platt scaling per detector, then model selection against the
	// zero-shot scorer on the same cross-validated cells, each at the
	// threshold it would really be used with: the detectors' shared one
	// (pooled over all of them), the zero-shot calibration's own.
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
		retrained[strings.ToLower(provs[j].name)] = true
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
	return det, rep, nil
}

// scored is one cell of a cross-validated prediction: the raw score x of its
// best passage, the calibrated probability p, whether that passage covers
// a labelled span (hit) and whether the provision is there at all.
type scored struct {
	x, p         float64
	hit, present bool
}

func countPresent(cells []cellData) int {
	n := 0
	for _, c := range cells {
		if c.present {
			n++
		}
	}
	return n
}

// f1At returns the F1 of finding the cells with p ≥ t: a found cell is
// right when its passage covers the provision; every present cell not
// found right is missed.
func f1At(cells []scored, t float64) float64 {
	var tp, fp, present int
	for _, c := range cells {
		if c.present {
			present++
		}
		if c.p >= t {
			if c.hit {
				tp++
			} else {
				fp++
			}
		}
	}
	if tp == 0 {
		return 0
	}
	prec := float64(tp) / float64(tp+fp)
	rec := float64(tp) / float64(present)
	return 2 * prec * rec / (prec + rec)
}

// bestThreshold returns the threshold that maximises F1 over cells (the
// midpoint between the two probabilities it falls between).
func bestThreshold(cells []scored) float64 {
	ps := make([]float64, 0, len(cells))
	for _, c := range cells {
		ps = append(ps, c.p)
	}
	sort.Float64s(ps)
	best, bestT := -1.0, 0.5
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		if f := f1At(cells, p); f > best {
			best = f
			bestT = p
			if i > 0 {
				bestT = (p + ps[i-1]) / 2
			}
		}
	}
	return bestT
}

func bestF1(cells []scored) float64 {
	if len(cells) == 0 {
		return 0
	}
	return f1At(cells, bestThreshold(cells))
}

// fitPlatt fits σ(a·x + b) to the cells' hits by Newton's method on the
// log-loss, with Platt's smoothed targets ((N₊+1)/(N₊+2) and 1/(N₋+2)) so
// separable data does not send the parameters to infinity, and a damped
// step.
func fitPlatt(cells []scored) (float64, float64) {
	var npos, nneg float64
	for _, c := range cells {
		if c.hit {
			npos++
		} else {
			nneg++
		}
	}
	hiT, loT := (npos+1)/(npos+2), 1/(nneg+2)
	a, b := 1.0, 0.0
	for range 100 {
		var ga, gb, haa, hab, hbb float64
		for _, c := range cells {
			y := loT
			if c.hit {
				y = hiT
			}
			p := sigmoid(a*c.x + b)
			d := p - y
			ga += d * c.x
			gb += d
			w := max(p*(1-p), 1e-9)
			haa += w * c.x * c.x
			hab += w * c.x
			hbb += w
		}
		haa += 1e-6
		hbb += 1e-6
		det := haa*hbb - hab*hab
		if det <= 1e-12 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		if n := math.Abs(da) + math.Abs(db); n > 5 {
			da, db = da*5/n, db*5/n
		}
		a -= da
		b -= db
		if math.Abs(da)+math.Abs(db) < 1e-9 {
			break
		}
	}
	return a, b
}

// corpusIDF returns the inverse document frequency of every word over the
// training passages (a passage is a "document" here); words in one passage
// only are left to the default.
func corpusIDF(docs []TrainingDoc) (map[string]float64, float64) {
	df := map[string]int{}
	n := 0
	seen := map[string]bool{}
	for _, d := range docs {
		for k := range d.Prep.p.passages {
			ps := &d.Prep.p.passages[k]
			clear(seen)
			for _, w := range ps.words {
				seen[w] = true
			}
			for _, w := range ps.context {
				seen[w] = true
			}
			for w := range seen {
				df[w]++
			}
			n++
		}
	}
	idf := make(map[string]float64, len(df))
	for w, c := range df {
		if c >= 2 {
			idf[w] = round4(math.Log(float64(n+1) / (float64(c) + 0.5)))
		}
	}
	return idf, round4(math.Log(float64(n+1) / 1.5))
}

func argmax(s []float64) int {
	best := -1
	for i, v := range s {
		if best < 0 || v > s[best] {
			best = i
		}
	}
	return best
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// featureIndex maps the training passages' hashed features to dense
// columns.
type featureIndex struct {
	col   map[uint32]int32
	ids   []uint32    // column → feature id
	feats [][][]int32 // [doc][passage] → columns
}

func newFeatureIndex(docs []TrainingDoc) *featureIndex {
	// Features seen in fewer than minFeatureCount passages are left out: a
	// weight learned from one or two passages is noise.
	count := map[uint32]int32{}
	for _, td := range docs {
		for _, ids := range td.Prep.p.feats {
			for _, id := range ids {
				count[id]++
			}
		}
	}
	fx := &featureIndex{col: map[uint32]int32{}, feats: make([][][]int32, len(docs))}
	for d, td := range docs {
		fx.feats[d] = make([][]int32, len(td.Prep.p.feats))
		for k, ids := range td.Prep.p.feats {
			cols := make([]int32, 0, len(ids))
			for _, id := range ids {
				if count[id] < minFeatureCount {
					continue
				}
				c, ok := fx.col[id]
				if !ok {
					c = int32(len(fx.ids))
					fx.col[id] = c
					fx.ids = append(fx.ids, id)
				}
				cols = append(cols, c)
			}
			fx.feats[d][k] = cols
		}
	}
	return fx
}

// detectorFit is a detector being trained: dense weights over the feature
// index's columns, a bias and the zero-shot score's weight.
type detectorFit struct {
	w           []float64
	bias, zsw   float64
	gw          []float64 // AdaGrad accumulators
	gbias, gzsw float64
}

func (m *detectorFit) logit(cols []int32, zs float64) float64 {
	z := m.bias + m.zsw*zs
	for _, c := range cols {
		z += m.w[c]
	}
	return z
}

func (m *detectorFit) step(cols []int32, zs, g float64) {
	const eps = 1e-8
	m.gbias += g * g
	m.bias -= trainRate * g / math.Sqrt(m.gbias+eps)
	gz := g * zs
	m.gzsw += gz * gz
	m.zsw -= trainRate * gz / math.Sqrt(m.gzsw+eps)
	for _, c := range cols {
		gc := g + trainL2*m.w[c]
		m.gw[c] += gc * gc
		m.w[c] -= trainRate * gc / math.Sqrt(m.gw[c]+eps)
	}
}

func (m *detectorFit) passageProbs(fx *featureIndex, doc int, zs []float64) []float64 {
	out := make([]float64, len(zs))
	for k, cols := range fx.feats[doc] {
		out[k] = sigmoid(m.logit(cols, zs[k]))
	}
	return out
}

// hardNegatives are, in a contract, the hardNegativeCount passages that do
// not hold the provision but that its zero-shot scorer rates highest: the
// clauses that use the provision's words without being it (one that
// excludes or limits it, a definition, a cross-reference). Training sees
// every one of them, every epoch, rather than a sample.
func hardNegatives(c cellData, zs []float64) map[int]bool {
	order := make([]int, 0, len(zs))
	for k := range zs {
		if !c.pos[k] {
			order = append(order, k)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return zs[order[a]] > zs[order[b]] })
	out := map[int]bool{}
	for _, k := range order[:min(hardNegativeCount, len(order))] {
		out[k] = true
	}
	return out
}

// hardNegativeCount is how many hard negatives a contract gives each
// provision's training.
const hardNegativeCount = 5

// fitDetector trains a detector on cells (each with its provision's
// zero-shot scores), starting from init's weights. The random negative
// sample is seeded by the name and the fold, so a fit is reproducible.
func fitDetector(cells []cellData, fx *featureIndex, zsScores [][][]float64, init *detectorFit, name string, fold int) *detectorFit {
	// AdaGrad's accumulators start at 1, so a feature's first steps are
	// plain gradient steps (starting at 0 would move every feature a full
	// learning rate on first sight, however weak its evidence).
	m := &detectorFit{w: make([]float64, len(fx.ids)), gw: make([]float64, len(fx.ids)), zsw: init.zsw, bias: init.bias, gbias: 1, gzsw: 1}
	copy(m.w, init.w)
	for i := range m.gw {
		m.gw[i] = 1
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", name, fold)
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	var logits []float64
	for range trainEpochs {
		for _, c := range cells {
			feats := fx.feats[c.doc]
			zs := zsScores[c.doc][c.prov]
			hard := hardNegatives(c, zs)
			// Pointwise: the positives, every hard negative, a sample of
			// the other negatives.
			for k, cols := range feats {
				y := 0.0
				if c.pos[k] {
					y = 1
				} else if rng.Float64() >= negativeSample && !hard[k] {
					continue
				}
				m.step(cols, zs[k], sigmoid(m.logit(cols, zs[k]))-y)
			}
			// Listwise, in contracts that have the provision where some
			// passage covers it.
			npos := 0
			for _, p := range c.pos {
				if p {
					npos++
				}
			}
			if npos == 0 {
				continue
			}
			logits = logits[:0]
			hi := math.Inf(-1)
			for k, cols := range feats {
				z := m.logit(cols, zs[k])
				logits = append(logits, z)
				hi = math.Max(hi, z)
			}
			var sum float64
			for k := range logits {
				logits[k] = math.Exp(logits[k] - hi)
				sum += logits[k]
			}
			for k, cols := range feats {
				g := logits[k] / sum
				if c.pos[k] {
					g -= 1 / float64(npos)
				}
				if math.Abs(g) < 1e-4 {
					continue
				}
				m.step(cols, zs[k], g)
			}
		}
	}
	return m
}

// export turns a fitted detector into its file form: weights by feature
// name, small ones dropped, rounded.
func (m *detectorFit) export(fx *featureIndex, name string, present int) *Model {
	out := &Model{Name: name, Labelled: present, Bias: round4(m.bias), ZeroShotWeight: round4(m.zsw), Weights: map[string]float64{}}
	for c, w := range m.w {
		if math.Abs(w) < weightPrune {
			continue
		}
		fname, ok := featureName(fx.ids[c])
		if !ok {
			continue
		}
		out.Weights[fname] = round4(w)
	}
	return out
}

// recordFeatureNames turns on the recording of feature names (training
// needs them to write readable detector files).
func recordFeatureNames() {
	featureNamesMu.Lock()
	if featureNames == nil {
		featureNames = map[uint32]string{}
	}
	featureNamesMu.Unlock()
}

func featureName(id uint32) (string, bool) {
	featureNamesMu.Lock()
	defer featureNamesMu.Unlock()
	n, ok := featureNames[id]
	return n, ok
}

// cellCovers reports whether the passages a cell would return, given every
// passage's probability, cover a labelled span (Covers).
func cellCovers(prep *prepared, probs []float64, spans [][2]int) bool {
	if len(probs) == 0 {
		return false
	}
	var ex []document.Span
	for _, k := range pick(prep, probs) {
		ex = append(ex, prep.passages[k].span)
	}
	return Covers(ex, spans)
}

// generic returns the same feature space restricted to the generic
// features (genericFeature): the zero-shot prior's inputs.
func (fx *featureIndex) generic() *featureIndex {
	keep := make([]bool, len(fx.ids))
	for c, id := range fx.ids {
		if name, ok := featureName(id); ok && genericFeature(name) {
			keep[c] = true
		}
	}
	gx := &featureIndex{col: fx.col, ids: fx.ids, feats: make([][][]int32, len(fx.feats))}
	for d, doc := range fx.feats {
		gx.feats[d] = make([][]int32, len(doc))
		for k, cols := range doc {
			var g []int32
			for _, c := range cols {
				if keep[c] {
					g = append(g, c)
				}
			}
			gx.feats[d][k] = g
		}
	}
	return gx
}

// exportWeights returns the non-zero weights of the features in fx's
// passages, by name, rounded.
func (m *detectorFit) exportWeights(fx *featureIndex) map[string]float64 {
	used := map[int32]bool{}
	for _, doc := range fx.feats {
		for _, cols := range doc {
			for _, c := range cols {
				used[c] = true
			}
		}
	}
	out := map[string]float64{}
	for c := range used {
		if w := round4(m.w[c]); w != 0 {
			if name, ok := featureName(fx.ids[c]); ok {
				out[name] = w
			}
		}
	}
	return out
}

// fitCalibration fits the zero-shot scorer's calibration and prior on the
// labelled provisions (det.ZeroShot), and returns the feature index, the
// prior (the detectors' starting point) and every provision's cells as the
// calibrated zero-shot scorer finds them.
func fitCalibration(det *Detectors, docs []TrainingDoc, provs []provData, zsScores [][][]float64) (fx *featureIndex, g *detectorFit, zsPairs [][]scored, rep *TrainReport) {
	// The zero-shot calibration, fitted on the labelled provisions' best
	// passages.
	var pairs []scored
	zsPairs = make([][]scored, len(provs))
	for j, pd := range provs {
		for _, c := range pd.cells {
			s := zsScores[c.doc][pd.idx]
			best := argmax(s)
			sc := scored{x: 0, hit: false, present: c.present}
			if best >= 0 {
				sc.x, sc.hit = s[best], c.present && c.pos[best]
			}
			zsPairs[j] = append(zsPairs[j], sc)
		}
		pairs = append(pairs, zsPairs[j]...)
	}
	a, b := fitPlatt(pairs)
	if a <= 0 {
		// The labelled provisions' zero-shot scores do not rise with the
		// truth (too few labels, or definitions that mislead): a calibration
		// that ranked passages backwards would be worse than none.
		a, b = defaultCalibration.A, defaultCalibration.B
	}
	// Refit on what a cell really returns: the passages picked with these
	// probabilities must cover a labelled span.
	pairs = pairs[:0]
	for j, pd := range provs {
		for i, c := range pd.cells {
			if !c.present {
				continue
			}
			s := zsScores[c.doc][pd.idx]
			probs := make([]float64, len(s))
			for k, v := range s {
				probs[k] = sigmoid(a*v + b)
			}
			zsPairs[j][i].hit = cellCovers(docs[c.doc].Prep.p, probs, c.spans)
		}
		pairs = append(pairs, zsPairs[j]...)
	}
	if a2, b2 := fitPlatt(pairs); a2 > 0 {
		a, b = a2, b2
	}
	// The zero-shot scorer's prior: a model shared by every labelled
	// provision over the zero-shot score and the passages' generic features
	// (kind of clause, place, length, shape), starting from (a, b).
	fx = newFeatureIndex(docs)
	gx := fx.generic()
	cellsOf := func(exclude string) []cellData {
		var out []cellData
		for _, pd := range provs {
			if !strings.EqualFold(pd.name, exclude) {
				out = append(out, pd.cells...)
			}
		}
		return out
	}
	fitZeroShot := func(exclude string) (Calibration, *detectorFit, map[string][]scored) {
		g := fitDetector(cellsOf(exclude), gx, zsScores, &detectorFit{zsw: a, bias: b}, "zero-shot", -1)
		if g.zsw <= 0 {
			// The prior learned to rank passages against the provision's
			// own description (too few or too alike labelled provisions):
			// keep the plain calibration.
			g = &detectorFit{w: make([]float64, len(gx.ids)), zsw: a, bias: b}
		}
		byProv := calibratedPairs(g, gx, docs, provs, zsScores)
		var all []scored
		for _, pd := range provs {
			if !strings.EqualFold(pd.name, exclude) {
				all = append(all, byProv[pd.name]...)
			}
		}
		pa, pb := fitPlatt(all)
		for i := range all {
			all[i].p = sigmoid(pa*all[i].x + pb)
		}
		cal := Calibration{A: round4(g.zsw), B: round4(g.bias), Prior: g.exportWeights(gx), Platt: [2]float64{round4(pa), round4(pb)},
			Threshold: round4(bestThreshold(all))}
		return cal, g, byProv
	}
	cal, g, byProv := fitZeroShot("")
	det.ZeroShot = cal
	for j, pd := range provs {
		zsPairs[j] = byProv[pd.name]
	}
	rep = &TrainReport{ZeroShot: det.ZeroShot, refit: func(exclude string) Calibration {
		c, _, _ := fitZeroShot(exclude)
		return c
	}}
	return fx, g, zsPairs, rep
}

// calibratedPairs returns, for every provision, its cells as the zero-shot
// scorer with prior g finds them: the best passage's raw score and whether
// the passages picked cover the provision.
func calibratedPairs(g *detectorFit, gx *featureIndex, docs []TrainingDoc, provs []provData, zsScores [][][]float64) map[string][]scored {
	byProv := map[string][]scored{}
	for _, pd := range provs {
		for _, c := range pd.cells {
			probs := g.passageProbs(gx, c.doc, zsScores[c.doc][c.prov])
			best := argmax(probs)
			sc := scored{present: c.present}
			if best >= 0 {
				sc.x, sc.hit = logit(probs[best]), c.present && cellCovers(docs[c.doc].Prep.p, probs, c.spans)
			}
			byProv[pd.name] = append(byProv[pd.name], sc)
		}
	}
	return byProv
}

// fromBase is fitCalibration for training on top of base detectors: the
// base's calibration and prior are kept (no refit: a few decided contracts
// could not fit them better), turned into the feature index of docs.
func fromBase(base *Detectors, docs []TrainingDoc, provs []provData, zsScores [][][]float64) (*featureIndex, *detectorFit, [][]scored, *TrainReport) {
	fx := newFeatureIndex(docs)
	cal := base.calibration()
	g := &detectorFit{w: make([]float64, len(fx.ids)), zsw: cal.A, bias: cal.B}
	for c, id := range fx.ids {
		if name, ok := featureName(id); ok {
			g.w[c] = cal.Prior[name]
		}
	}
	byProv := calibratedPairs(g, fx.generic(), docs, provs, zsScores)
	zsPairs := make([][]scored, len(provs))
	for j, pd := range provs {
		zsPairs[j] = byProv[pd.name]
	}
	rep := &TrainReport{ZeroShot: cal, refit: func(string) Calibration { return cal }}
	return fx, g, zsPairs, rep
}
