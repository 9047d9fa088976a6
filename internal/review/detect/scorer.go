package detect

import (
	"slices"
	"sort"
	"sync"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Scorer gives every passage of a prepared contract its probability of
// holding each of a playbook's provisions. Provisions with a trained
// detector (matched by Provision.Detector, else by name, case-insensitively)
// use it; the others are scored zero-shot from their definition, keywords
// and examples, calibrated by the detectors' zero-shot calibration. It is
// safe for concurrent use once built.
type Scorer struct {
	pb    *playbook.Playbook
	provs []compiled // one per provision, in playbook order
	// The trained models' weights, compiled for speed: every feature any
	// model uses gets a row of one weight per provision.
	featRow map[uint32]int32
	// rowBits has bit f&rowMask set for every feature f of featRow: most
	// of a contract's features are in no model, and one bit tells so
	// more cheaply than the map.
	rowBits []uint64
	rowMask uint32
	weights []float32 // len(featRow) × len(provs)
	zs      *zeroShot
	// match holds the profiles questions are matched with, built on the
	// first question (MatchQuestion).
	match     *matcher
	matchOnce sync.Once
	// prior is the zero-shot prior's weight of each generic feature, per
	// distinct calibration (compiled once).
	prior map[uint32]float64
	// relIDs are the provisions' relation features (relations.go), and
	// relations whether any model weighs one.
	relIDs    [][len(relationTags)]uint32
	relations bool
	// lengthNorm says whether any model scales a long passage's negative
	// weights (Model.LengthNorm): only then are they summed apart, so the
	// other models' scores stay bit for bit the sums they were.
	lengthNorm bool
	// vectors, when set, are the word vectors some model's prototypes
	// are compared in (Model.Prototypes); idf weighs their words.
	vectors *WordVectors
	idf     func(string) float64
	// qual holds, per provision whose prototypes weigh the qualView
	// input, the zero-shot scorer of the provisions its definition names
	qual []*zeroShot
}

// compiled is one provision's finder.
type compiled struct {
	model *Model // nil: found zero-shot
	cal   Calibration
}

// NewScorer compiles det's detectors for pb's provisions. det may be nil:
// every provision is then scored zero-shot with an uncalibrated default.
func NewScorer(pb *playbook.Playbook, det *Detectors) *Scorer {
	size := 0
	for i := range pb.Provisions {
		if m := det.lookup(&pb.Provisions[i]); m != nil {
			size += len(m.Weights)
		}
	}
	s := &Scorer{pb: pb, featRow: make(map[uint32]int32, size)}
	P := len(pb.Provisions)
	// wrote[row] is the provision that last added a weight to row, plus
	// one: a second name of a model with the same hash is a collision.
	var wrote []int32
	for i := range pb.Provisions {
		c := compiled{model: det.lookup(&pb.Provisions[i]), cal: det.calibration()}
		s.provs = append(s.provs, c)
		if c.model == nil {
			continue
		}
		if pr := c.model.Prototypes; pr != nil && pr.Weights[qualView] != 0 {
			if s.qual == nil {
				s.qual = make([]*zeroShot, P)
			}
			s.qual[i] = qualifiedScorer(pb, i, det)
		}
		s.lengthNorm = s.lengthNorm || c.model.LengthNorm > 0
		// A row's number is only where its weights are kept, so the
		// names go in map order; the weights of names sharing a hash
		// are added again below in the names' order, the sum the same
		// whatever order the map gives.
		var collided map[uint32]bool
		for name, w := range c.model.Weights {
			id := featureID(name)
			row, ok := s.featRow[id]
			if !ok {
				row = int32(len(s.featRow))
				s.featRow[id] = row
				s.weights = append(s.weights, make([]float32, P)...)
				wrote = append(wrote, 0)
			}
			if wrote[row] == int32(i)+1 {
				if collided == nil {
					collided = map[uint32]bool{}
				}
				collided[id] = true
			}
			wrote[row] = int32(i) + 1
			s.weights[int(row)*P+i] += float32(w)
		}
		if collided != nil {
			var names []string
			for name := range c.model.Weights {
				if collided[featureID(name)] {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for id := range collided {
				s.weights[int(s.featRow[id])*P+i] = 0
			}
			for _, name := range names {
				id := featureID(name)
				s.weights[int(s.featRow[id])*P+i] += float32(c.model.Weights[name])
			}
		}
	}
	s.indexRows()
	s.relIDs = relationIDs(pb)
	for _, ids := range s.relIDs {
		for _, id := range ids {
			if _, ok := s.featRow[id]; ok {
				s.relations = true
			}
		}
	}
	s.zs = newZeroShot(pb, det)
	if det != nil && det.Vectors != nil && det.Vectors.decode() == nil {
		for _, c := range s.provs {
			if c.model != nil && c.model.Prototypes != nil {
				s.vectors, s.idf = det.Vectors, det.idf
			}
		}
	}
	if cal := det.calibration(); len(cal.Prior) > 0 {
		s.prior = map[uint32]float64{}
		for _, name := range sortedKeys(cal.Prior) {
			s.prior[featureID(name)] += cal.Prior[name]
		}
	}
	return s
}

// indexRows sets rowBits for featRow: a filter about 1/16 full.
func (s *Scorer) indexRows() {
	n := uint32(64)
	for n < 16*uint32(len(s.featRow)) && n < 1<<24 {
		n <<= 1
	}
	s.rowMask = n - 1
	s.rowBits = make([]uint64, n/64)
	for f := range s.featRow {
		b := f & s.rowMask
		s.rowBits[b/64] |= 1 << (b % 64)
	}
}

// row returns feature f's row of weights, or -1 when no model weighs it.
func (s *Scorer) row(f uint32) int32 {
	if b := f & s.rowMask; s.rowBits[b/64]&(1<<(b%64)) == 0 {
		return -1
	}
	row, ok := s.featRow[f]
	if !ok {
		return -1
	}
	return row
}

// Scores returns, for every provision, every passage's probability of
// holding it.
func (s *Scorer) Scores(prep *Prepared) [][]float64 {
	P := len(s.provs)
	zs := s.zs.scores(prep) // [provision][passage]
	out := make([][]float64, P)
	for i := range out {
		out[i] = make([]float64, len(prep.passages))
	}
	// Each distinct feature's prior and row, looked up once; the priors
	// only when a zero-shot provision adds them (a reviewer of trained
	// provisions never reads them).
	t := prep.tables()
	anyZeroShot := slices.ContainsFunc(s.provs, func(c compiled) bool { return c.model == nil })
	sc := getScratch()
	defer putScratch(sc)
	var priors []float64
	if anyZeroShot {
		sc.priors = sized(sc.priors, len(t.feats))
		priors = sc.priors
	}
	sc.rows = sized(sc.rows, len(t.feats))
	rows := sc.rows
	for j, f := range t.feats {
		if anyZeroShot {
			priors[j] = s.prior[f]
		}
		rows[j] = s.row(f)
	}
	var rel [][]uint32
	if s.relations {
		rel = relationFeatures(prep, zs, s.relIDs)
	}
	protoIn := make([][][protoViews]float64, P) // per provision with prototypes
	if s.vectors != nil {
		if views := s.vectors.views(prep, s.idf); views != nil {
			for i, c := range s.provs {
				if c.model != nil && c.model.Prototypes != nil {
					protoIn[i] = views.inputs(&c.model.Prototypes.Vectors)
					if s.qual != nil && s.qual[i] != nil {
						for k, q := range qualifiedInputs(views, s.qual[i].scores(prep)) {
							protoIn[i][k][qualView] = q
						}
					}
				}
			}
		}
	}
	acc := make([]float64, P)
	neg := make([]float64, P)
	for k, feats := range t.fidx {
		clear(acc)
		clear(neg)
		prior := 0.0
		for _, j := range feats {
			if priors != nil {
				prior += priors[j]
			}
			row := rows[j]
			if row < 0 {
				continue
			}
			w := s.weights[int(row)*P : int(row)*P+P]
			for i, v := range w {
				if v < 0 && s.lengthNorm {
					neg[i] += float64(v)
				} else {
					acc[i] += float64(v)
				}
			}
		}
		if rel != nil {
			for _, id := range rel[k] {
				row, ok := s.featRow[id]
				if !ok {
					continue
				}
				w := s.weights[int(row)*P : int(row)*P+P]
				for i, v := range w {
					if v < 0 && s.lengthNorm {
						neg[i] += float64(v)
					} else {
						acc[i] += float64(v)
					}
				}
			}
		}
		nf := len(feats)
		if rel != nil {
			nf += len(rel[k])
		}
		for i, c := range s.provs {
			if c.model != nil {
				l := c.model.Bias + acc[i] + lengthScale(c.model.LengthNorm, nf)*neg[i] + c.model.ZeroShotWeight*zs[i][k]
				if in := protoIn[i]; in != nil {
					pr := c.model.Prototypes
					l = pr.Scale*l + pr.Shift
					for v, x := range in[k] {
						l += pr.Weights[v] * x
					}
				}
				out[i][k] = sigmoid(l)
			} else {
				out[i][k] = sigmoid(c.cal.A*zs[i][k] + c.cal.B + prior)
			}
		}
	}
	return out
}

// Confidence turns provision i's best passage probability into the cell's.
func (s *Scorer) Confidence(i int, best float64) float64 { return s.provs[i].confidence(best) }

// Threshold is the confidence at which provision i's cell is found.
func (s *Scorer) Threshold(i int) float64 { return s.provs[i].threshold() }

// Method says how provision i is found: "detector" or "zero-shot".
func (s *Scorer) Method(i int) string { return s.provs[i].method() }

// confidence turns the best passage's probability into the cell's.
func (c compiled) confidence(best float64) float64 {
	if c.model == nil {
		return c.cal.confidence(best)
	}
	a, b := c.model.Platt[0], c.model.Platt[1]
	if a == 0 && b == 0 {
		return best
	}
	return sigmoid(a*logit(best) + b)
}

func (c compiled) threshold() float64 {
	if c.model != nil {
		return c.model.Threshold
	}
	return c.cal.Threshold
}

func (c compiled) method() string {
	if c.model != nil {
		return "detector"
	}
	return "zero-shot"
}

// Pick chooses the passages returned for a cell: the best one, then the
// next best while they score at least pickRatio of the best (a provision
// often runs over several clauses: a term and its renewal, a licence grant
// and its restrictions), at most pickMax passages within a character
// budget, returned best first.
func Pick(prep *Prepared, scores []float64) []int {
	order := Rank(scores)
	best := order[0]
	picks := []int{best}
	budget := pickBudget - prep.passages[best].Span.Len()
	for _, k := range order[1:] {
		if len(picks) >= pickMax || budget <= 0 || scores[k] < pickRatio*scores[best] {
			break
		}
		if prep.passages[k].Span.Len() > budget {
			continue
		}
		budget -= prep.passages[k].Span.Len()
		picks = append(picks, k)
	}
	return picks
}

// The passages returned for one cell: at most pickMax, within pickBudget
// code points, each scoring at least pickRatio of the best.
const (
	pickMax    = 5
	pickBudget = 2400
	pickRatio  = 0.15
)

// Rank returns passage indices by descending score (ties in document order).
func Rank(scores []float64) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	return order
}

// PickClause chooses the passages of a cell whose answer is a whole clause
// (a definition and the exceptions it lists): every passage of the clause
// that holds the best one — the definition it is part of, else its own
// clause with its sub-clauses — in document order, the best first, at
// most wholeMax passages within wholeBudget code points nearest the best.
func PickClause(prep *Prepared, scores []float64) []int {
	best := Rank(scores)[0]
	t := prep.tree
	node := prep.passages[best].Node
	for id := node; id > 0; id = t.Nodes[id].Parent {
		if t.Nodes[id].Kind == clause.KindDefinition {
			node = id
			break
		}
	}
	whole := t.Nodes[node].Span
	var in []int
	for k, ps := range prep.passages {
		if k != best && ps.Span.Start >= whole.Start && ps.Span.End <= whole.End {
			in = append(in, k)
		}
	}
	// nearest the best first, within the budget; then back in document
	// order after the best
	sort.SliceStable(in, func(a, b int) bool { return abs(in[a]-best) < abs(in[b]-best) })
	budget := wholeBudget - prep.passages[best].Span.Len()
	var kept []int
	for _, k := range in {
		if len(kept)+1 >= wholeMax || prep.passages[k].Span.Len() > budget {
			break
		}
		budget -= prep.passages[k].Span.Len()
		kept = append(kept, k)
	}
	sort.Ints(kept)
	return append([]int{best}, kept...)
}

// The passages of a whole clause returned for one cell (PickClause): at
// most wholeMax within wholeBudget code points (a long Material Adverse
// Effect definition with its carve-outs runs to 5,000).
const (
	wholeMax    = 16
	wholeBudget = 8000
)

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// scratch holds the per-contract look-up arrays Scores and the zero-shot
// scorer fill before scoring (one entry per distinct word or feature of
// the contract), kept between calls: a question about a contract's
// provision scores the whole contract, and these arrays would be most of
// what it allocates. Every entry is written before it is read.
type scratch struct {
	rows   []int32
	priors []float64
	idf    []float64
	refs   [][]zsRef
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(sc *scratch) {
	clear(sc.refs) // the profiles of a scorer that may be dropped
	scratchPool.Put(sc)
}

// sized returns s with length n, reallocated only when too short; its
// entries are not cleared.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
