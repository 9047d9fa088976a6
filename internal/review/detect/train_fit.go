package detect

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/pakton/pakton/internal/document"
)

// featureIndex maps the training passages' hashed features to dense
// columns.
type featureIndex struct {
	col   map[uint32]int32
	ids   []uint32    // column → feature id
	feats [][][]int32 // [doc][passage] → columns
	// scale is, per passage, what a length-normalised detector
	// multiplies its negative feature weights by (lengthScale).
	scale [][]float64
}

func newFeatureIndex(docs []TrainingDoc, rel [][][]uint32) *featureIndex {
	// A passage's features: those it was prepared with, and its relations
	// (relations.go) when given.
	featsOf := func(d, k int) []uint32 {
		f := docs[d].Prep.feats[k]
		if rel != nil {
			f = append(f[:len(f):len(f)], rel[d][k]...)
		}
		return f
	}
	// Features seen in fewer than minFeatureCount passages are left out: a
	// weight learned from one or two passages is noise.
	count := map[uint32]int32{}
	for d, td := range docs {
		for k := range td.Prep.feats {
			for _, id := range featsOf(d, k) {
				count[id]++
			}
		}
	}
	fx := &featureIndex{col: map[uint32]int32{}, feats: make([][][]int32, len(docs)), scale: make([][]float64, len(docs))}
	for d, td := range docs {
		fx.feats[d] = make([][]int32, len(td.Prep.feats))
		fx.scale[d] = make([]float64, len(td.Prep.feats))
		for k := range td.Prep.feats {
			ids := featsOf(d, k)
			fx.scale[d][k] = lengthScale(lengthNorm, len(ids))
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
	// norm: the negative feature weights are scaled by the passage's
	// lengthScale (a detector; the zero-shot prior is not).
	norm bool
	// protos and stack, when set, are the prototypes a fitted detector
	// compares passages with and how it combines its logit with the
	// cosines (vectors.go, fitStack).
	protos *[protoViews][]float32
	stack  *stack
}

// The length normalisation of a detector. A passage's logit adds one weight
// per feature, so a long passage that holds a provision's sentence among
// others (a termination for convenience in a clause that goes on about
// breach) sums the small negative weights of every other word and scores
// below a short passage that holds nothing. A detector scores a passage of
// n > lengthNorm features with its negative weights scaled by
// √(lengthNorm/n): what speaks against the provision counts as in a passage
// of lengthNorm features, what speaks for it counts whole. A provision's
// detector scores so where its inner cross-validation is better for it
// (fitProvision). The fit itself sums every weight whole; the inner
// cross-validation, and so the calibration and threshold, score as the
// Scorer does. (Measured in 4-fold
// CV and not kept: scaling every weight, which shrinks the provision's own
// evidence with the rest, and fitting with the scaled logit; see
// docs/EVALUATION.md.) 128 was chosen before measuring: about the features
// of a two-sentence clause.
const lengthNorm = 128

// lengthScale is the scale of a passage of n features under norm (0: none).
func lengthScale(norm, n int) float64 {
	if norm <= 0 || n <= norm {
		return 1
	}
	return math.Sqrt(float64(norm) / float64(n))
}

// scaleOf is the scale m gives passage k of document doc.
func (m *detectorFit) scaleOf(fx *featureIndex, doc, k int) float64 {
	if !m.norm || fx.scale == nil {
		return 1
	}
	return fx.scale[doc][k]
}

func (m *detectorFit) logit(cols []int32, zs, sc float64) float64 {
	var pos, neg float64
	for _, c := range cols {
		if w := m.w[c]; w < 0 {
			neg += w
		} else {
			pos += w
		}
	}
	return m.bias + m.zsw*zs + pos + sc*neg
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
		out[k] = sigmoid(m.logit(cols, zs[k], m.scaleOf(fx, doc, k)))
	}
	return out
}

// passageLogits is passageProbs' logits.
func (m *detectorFit) passageLogits(fx *featureIndex, doc int, zs []float64) []float64 {
	out := make([]float64, len(zs))
	for k, cols := range fx.feats[doc] {
		out[k] = m.logit(cols, zs[k], m.scaleOf(fx, doc, k))
	}
	return out
}

// hardNegatives are, in a contract, the hardNegativeCount passages that do
// not hold the provision but that its zero-shot scorer rates highest: the
// clauses that use the provision's words without being it (one that
// excludes or limits it, a definition, a cross-reference). Training sees
// every one of them, every epoch, rather than a sample.
func hardNegatives(c cellData, zs []float64, n int) map[int]bool {
	if n <= 0 {
		return nil
	}
	order := make([]int, 0, len(zs))
	for k := range zs {
		if !c.pos[k] {
			order = append(order, k)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return zs[order[a]] > zs[order[b]] })
	out := map[int]bool{}
	for _, k := range order[:min(n, len(order))] {
		out[k] = true
	}
	return out
}

// fitDetector trains a detector on cells (each with its provision's
// zero-shot scores), starting from init's weights. The random negative
// sample is seeded by the name and the fold, so a fit is reproducible.
func fitDetector(cells []cellData, fx *featureIndex, zsScores [][][]float64, init *detectorFit, name string, fold int, hardCount int, norm bool) *detectorFit {
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
			hard := hardNegatives(c, zs, hardCount)
			// Pointwise: the positives, every hard negative, a sample of
			// the other negatives.
			for k, cols := range feats {
				y := 0.0
				if c.pos[k] {
					y = 1
				} else if rng.Float64() >= negativeSample && !hard[k] && (c.near == nil || !c.near[k]) {
					continue
				}
				m.step(cols, zs[k], sigmoid(m.logit(cols, zs[k], 1))-y)
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
				z := m.logit(cols, zs[k], 1)
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
	// The fit sums every weight whole; the detector scores (passageProbs,
	// and so its calibration, and the Scorer) with the normalisation.
	m.norm = norm && lengthNorm > 0
	return m
}

// evidencePrior is how many contracts with the provision count as much as
// the zero-shot scorer a detector trained on top of a base starts from
// (evidenceWeight). Chosen once, before measuring, as about a tenth of
// what the built-in detectors were trained on (CUAD's labelled
// provisions have 20–200 contracts each); see docs/EVALUATION.md,
// "Learning from a reviewer".
const evidencePrior = 20

// evidenceWeight is how far a detector trained on top of a base moves
// from the zero-shot scorer it starts from, given the contracts that have
// the provision among those it learned from: n/(n+evidencePrior). A few
// decided contracts fit their own passages (5 epochs move a feature seen
// in one contract a long way); weighting the fit by its evidence keeps a
// handful of decisions from replacing the zero-shot scorer, and lets the
// decisions take over as they accumulate.
func evidenceWeight(present int) float64 {
	if present <= 0 {
		return 0
	}
	return float64(present) / float64(present+evidencePrior)
}

// shrinkToward moves m back toward init, keeping lambda of the way it
// moved: the logit is linear in the weights, so the result scores every
// passage as (1-lambda)·init + lambda·m.
func (m *detectorFit) shrinkToward(init *detectorFit, lambda float64) {
	m.bias = init.bias + lambda*(m.bias-init.bias)
	m.zsw = init.zsw + lambda*(m.zsw-init.zsw)
	for c := range m.w {
		var w0 float64
		if c < len(init.w) {
			w0 = init.w[c]
		}
		m.w[c] = w0 + lambda*(m.w[c]-w0)
	}
}

// export turns a fitted detector into its file form: weights by feature
// name, small ones dropped, rounded.
func (m *detectorFit) export(fx *featureIndex, name string, present int) *Model {
	out := &Model{Name: name, Labelled: present, Bias: round4(m.bias), ZeroShotWeight: round4(m.zsw), Weights: map[string]float64{}}
	if m.norm {
		out.LengthNorm = lengthNorm
	}
	if m.protos != nil && m.stack != nil {
		p := &Prototypes{Vectors: *m.protos, Scale: round4(m.stack.scale), Shift: round4(m.stack.shift)}
		for v, u := range m.stack.u {
			p.Weights[v] = round4(u)
		}
		out.Prototypes = p
	}
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

// RecordFeatureNames turns on the recording of feature names (training
// needs them to write readable detector files).
func RecordFeatureNames() {
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

// cellCovers reports whether the passages cell c would return, given every
// passage's probability, cover a labelled span (Covers): picked as the
// review picks them (Pick, or PickClause for a whole-clause answer).
func cellCovers(prep *Prepared, probs []float64, c cellData) bool {
	if len(probs) == 0 {
		return false
	}
	pick := Pick
	if c.whole {
		pick = PickClause
	}
	var ex []document.Span
	for _, k := range pick(prep, probs) {
		ex = append(ex, prep.passages[k].Span)
	}
	return Covers(ex, c.spans)
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
