package detect

import (
	"encoding/base64"
	"fmt"
	"math"
	"sync"

	"github.com/pakton/pakton/internal/review/playbook"
)

// A passage read by what it means and where it sits. A provision labelled in
// a dozen contracts is worded a dozen ways ("shall not disparage", "injurious
// to the goodwill"), and what makes an exception a Competitive Restriction
// Exception is the covenant before it, not its own words ("Notwithstanding
// the foregoing, … shall not prevent"). A detector's word features weigh
// only the words its positives hold. So every passage is also read as three
// vectors of meaning — its own words, the passage before it, and its parent
// clause (the lead-in a list item completes, the covenant a proviso sits
// under) — each the sum of its words' vectors weighted by their rarity
// (the vectors learnt from the training contracts' text alone, no labels:
// learnWordVectors). A provision's detector keeps three prototypes, the
// normalised mean of its labelled passages' vectors in each view, and
// combines a passage's logit with the cosine of each of its views with the
// prototype, a standard score among the contract's passages (Prototypes):
// five numbers learnt per provision, however few its positives, where a
// word feature needs the word seen.
//
// Those numbers are learnt from passages of contracts the prototypes and
// the word features were not built from (fitStack), so they say what a new
// contract gets from each.
const protoViews = 4 // the passage, the passage before it, its parent clause; what it qualifies

// qualView is the stack's input that is no prototype: how much the passage
// before it or its parent clause looks, zero-shot, like a provision the
// detector's provision's definition names (qualifiedInputs).
const qualView = 3

// WordVectors are the training contracts' words as vectors of meaning: the
// positive pointwise mutual information of each word with the words around
// it (clusters.go, wordVectors), randomly projected to Dims numbers,
// centred on the mean word and normalised; stored as one signed byte a
// number with a scale a word.
type WordVectors struct {
	Dims   int       `json:"dims"`
	Words  []string  `json:"words"`
	Scales []float32 `json:"scales"`
	// Data is base64 of len(Words)·Dims signed bytes, word after word.
	Data string `json:"data"`

	once sync.Once
	idx  map[string]int
	vec  []float32 // decoded, len(Words)·Dims
	err  error
}

// learnWordVectors learns the vectors of the training contracts' words
// (nil when they have too few words).
func learnWordVectors(docs []TrainingDoc) *WordVectors {
	vocab := clusterVocabulary(docs)
	if len(vocab) < 2*clusterK {
		return nil
	}
	vec := wordVectors(docs, vocab)
	if vec == nil {
		return nil
	}
	D := clusterDims
	mean := make([]float64, D)
	for i := range vocab {
		for d := range D {
			mean[d] += vec[i*D+d]
		}
	}
	for d := range mean {
		mean[d] /= float64(len(vocab))
	}
	wv := &WordVectors{Dims: D, Words: vocab, Scales: make([]float32, len(vocab))}
	raw := make([]byte, len(vocab)*D)
	for i := range vocab {
		v := vec[i*D : (i+1)*D]
		for d := range v {
			v[d] -= mean[d]
		}
		normalize(v)
		hi := 0.0
		for _, x := range v {
			hi = math.Max(hi, math.Abs(x))
		}
		if hi == 0 {
			continue
		}
		scale := float32(hi / 127)
		wv.Scales[i] = scale
		for d, x := range v {
			raw[i*D+d] = byte(int8(math.Round(x / float64(scale))))
		}
	}
	wv.Data = base64.StdEncoding.EncodeToString(raw)
	return wv
}

// decode fills idx and vec from the stored form, once.
func (wv *WordVectors) decode() error {
	wv.once.Do(func() {
		raw, err := base64.StdEncoding.DecodeString(wv.Data)
		if err != nil {
			wv.err = fmt.Errorf("word_vectors: %w", err)
			return
		}
		if wv.Dims <= 0 || len(raw) != len(wv.Words)*wv.Dims || len(wv.Scales) != len(wv.Words) {
			wv.err = fmt.Errorf("word_vectors: %d words of %d numbers, %d scales and %d bytes do not fit", len(wv.Words), wv.Dims, len(wv.Scales), len(raw))
			return
		}
		for i, sc := range wv.Scales {
			if !(sc >= 0 && sc <= 1) {
				wv.err = fmt.Errorf("word_vectors: scale of %q is %v, want a number from 0 to 1", wv.Words[i], sc)
				return
			}
		}
		wv.idx = make(map[string]int, len(wv.Words))
		wv.vec = make([]float32, len(raw))
		for i, w := range wv.Words {
			wv.idx[w] = i
			for d := range wv.Dims {
				wv.vec[i*wv.Dims+d] = float32(int8(raw[i*wv.Dims+d])) * wv.Scales[i]
			}
		}
	})
	return wv.err
}

// passageViews are a contract's passages as vectors: each passage's own
// (nil when none of its words has a vector), and where the passage before
// it and its parent clause's first passage are (-1: none).
type passageViews struct {
	emb    [][]float32
	before []int32
	parent []int32
}

// views reads prep's passages as vectors, each word weighted by idf; nil
// when wv cannot be read.
func (wv *WordVectors) views(prep *Prepared, idf func(string) float64) *passageViews {
	if wv == nil || wv.decode() != nil {
		return nil
	}
	t := prep.tables()
	D := wv.Dims
	row := make([]int32, len(t.vocab))
	weight := make([]float32, len(t.vocab))
	for i, w := range t.vocab {
		row[i] = -1
		if r, ok := wv.idx[w]; ok {
			row[i] = int32(r)
			weight[i] = float32(idf(w))
		}
	}
	n := len(prep.passages)
	pv := &passageViews{emb: make([][]float32, n), before: make([]int32, n), parent: make([]int32, n)}
	first := map[int]int32{} // clause node → its first passage
	for k := range n {
		if _, ok := first[prep.passages[k].Node]; !ok {
			first[prep.passages[k].Node] = int32(k)
		}
	}
	for k := range n {
		v := make([]float32, D)
		any := false
		for _, w := range t.words[k] {
			r := row[w]
			if r < 0 {
				continue
			}
			any = true
			src := wv.vec[int(r)*D : int(r+1)*D]
			for d, x := range src {
				v[d] += weight[w] * x
			}
		}
		if any && normalize32(v) {
			pv.emb[k] = v
		}
		pv.before[k] = int32(k - 1)
		pv.parent[k] = -1
		if tr := prep.tree; tr != nil {
			if par := tr.Nodes[prep.passages[k].Node].Parent; par > 0 {
				if f, ok := first[par]; ok {
					pv.parent[k] = f
				}
			}
		}
	}
	return pv
}

// view returns passage k's vector in view v (nil: none).
func (pv *passageViews) view(k, v int) []float32 {
	j := int32(k)
	switch v {
	case 1:
		j = pv.before[k]
	case 2:
		j = pv.parent[k]
	}
	if j < 0 {
		return nil
	}
	return pv.emb[j]
}

// inputs returns, per passage, its cosine with each prototype, as
// standard scores among the contract's passages (0 where the passage or
// the prototype has no vector): what a detector ranks is a contract's
// passages, and a cosine's size means little on its own (every passage of
// contract language is somewhat like every other).
func (pv *passageViews) inputs(protos *[protoViews][]float32) [][protoViews]float64 {
	n := len(pv.emb)
	out := make([][protoViews]float64, n)
	own := make([]float64, n)
	for v := range protoViews {
		b := protos[v]
		if b == nil {
			continue
		}
		for j, a := range pv.emb {
			own[j] = 0
			if a == nil {
				continue
			}
			var dot float64
			for d := range a {
				dot += float64(a[d]) * float64(b[d])
			}
			own[j] = dot
		}
		var sum, sq float64
		var m int
		for j, a := range pv.emb {
			if a != nil {
				sum += own[j]
				sq += own[j] * own[j]
				m++
			}
		}
		if m < 2 {
			continue
		}
		mean := sum / float64(m)
		sd := math.Sqrt(math.Max(sq/float64(m)-mean*mean, 0))
		if sd < 1e-6 {
			continue
		}
		for k := range n {
			j := int32(k)
			switch v {
			case 1:
				j = pv.before[k]
			case 2:
				j = pv.parent[k]
			}
			if j < 0 || pv.emb[j] == nil {
				continue
			}
			out[k][v] = (own[j] - mean) / sd
		}
	}
	return out
}

func normalize32(v []float32) bool {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return false
	}
	s := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= s
	}
	return true
}

// Prototypes are what a detector compares every passage's views with: per
// view, the normalised mean vector of its training positives; a passage's
// logit is then Scale·(the detector's logit) + Σ Weights·(standard score
// of the cosine in view v) + Shift (fitStack).
type Prototypes struct {
	Weights [protoViews]float64   `json:"weights"`
	Scale   float64               `json:"scale"`
	Shift   float64               `json:"shift"`
	Vectors [protoViews][]float32 `json:"vectors"`
}

// protoSums adds up the views of the positive passages of cells.
type protoSums struct {
	dims int
	all  [protoViews][]float64
}

func newProtoSums(cells []cellData, views []*passageViews, dims int) *protoSums {
	s := &protoSums{dims: dims}
	for v := range protoViews {
		s.all[v] = make([]float64, dims)
	}
	for _, c := range cells {
		pv := views[c.doc]
		if pv == nil {
			continue
		}
		for k, p := range c.pos {
			if !p {
				continue
			}
			for v := range qualView {
				x := pv.view(k, v)
				for d := range x {
					s.all[v][d] += float64(x[d])
				}
			}
		}
	}
	return s
}

// protos returns the prototypes: per view, the normalised sum (nil when
// no positive has a vector in that view).
func (s *protoSums) protos() *[protoViews][]float32 {
	out := &[protoViews][]float32{}
	for v := range protoViews {
		p := make([]float32, s.dims)
		for d := range p {
			p[d] = float32(s.all[v][d])
		}
		if normalize32(p) {
			out[v] = p
		}
	}
	return out
}

// cellInputs returns, per passage of each cell, its cosines with the
// prototypes of sums (inputs).
func cellInputs(cells []cellData, views []*passageViews, p *[protoViews][]float32) [][][protoViews]float64 {
	out := make([][][protoViews]float64, len(cells))
	for i, c := range cells {
		if pv := views[c.doc]; pv != nil {
			out[i] = pv.inputs(p)
		}
	}
	return out
}

// stack is how a detector's word logit and its prototype cosines are
// combined: Scale·logit + Σ Weights·cosine + Shift. It is fitted on the
// inner cross-validation's held-out passages (fitStack): how far to trust
// the words against the prototypes is learnt from contracts neither was
// fitted on. (Fitted jointly with the word features instead, the three
// weights stay small: a provision's training passages are told apart by
// their words alone, and the words fit them whatever they do on new
// contracts. Measured: docs/EVALUATION.md.)
type stack struct {
	scale, shift float64
	u            [protoViews]float64
}

func (s *stack) logit(l float64, x *[protoViews]float64) float64 {
	z := s.scale*l + s.shift
	if x == nil {
		return z
	}
	for v := range x {
		z += s.u[v] * x[v]
	}
	return z
}

// stackN is how many numbers a stack fits: the scale, the weights and the
// shift.
const stackN = protoViews + 2

// stackRidge is the L2 penalty of fitStack on the scale and the weights.
const stackRidge = 1.0

// fitStack fits a stack by logistic regression (Newton's method) on held-out
// passages: their word logits, prototype cosines and whether they hold the
// provision.
func fitStack(logits [][]float64, in [][][protoViews]float64, pos [][]bool) *stack {
	const n = stackN
	beta := [n]float64{1}
	row := func(l float64, x *[protoViews]float64) [n]float64 {
		var r [n]float64
		r[0] = l
		for v := range protoViews {
			r[1+v] = x[v]
		}
		r[n-1] = 1
		return r
	}
	for range 25 {
		var g [n]float64
		var h [n][n]float64
		for j := range n - 1 {
			target := 0.0 // the weights start from nothing,
			if j == 0 {
				target = 1 // the word logit from itself
			}
			g[j] += stackRidge * (beta[j] - target)
			h[j][j] += stackRidge
		}
		for c := range logits {
			for k, l := range logits[c] {
				r := row(l, &in[c][k])
				var z float64
				for j := range n {
					z += beta[j] * r[j]
				}
				p := sigmoid(z)
				y := 0.0
				if pos[c][k] {
					y = 1
				}
				wgt := p * (1 - p)
				for a := range n {
					g[a] += (p - y) * r[a]
					for b := range n {
						h[a][b] += wgt * r[a] * r[b]
					}
				}
			}
		}
		step, ok := solve(h, g)
		if !ok {
			break
		}
		var moved float64
		for j := range n {
			beta[j] -= step[j]
			moved = math.Max(moved, math.Abs(step[j]))
		}
		if moved < 1e-6 {
			break
		}
	}
	s := &stack{scale: beta[0], shift: beta[n-1]}
	for v := range protoViews {
		s.u[v] = beta[1+v]
	}
	return s
}

// solve returns x with h·x = g (Gaussian elimination with partial
// pivoting), false when h is singular.
func solve(h [stackN][stackN]float64, g [stackN]float64) ([stackN]float64, bool) {
	for c := range stackN {
		p := c
		for r := c + 1; r < stackN; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		if math.Abs(h[p][c]) < 1e-12 {
			return g, false
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		for r := c + 1; r < stackN; r++ {
			f := h[r][c] / h[c][c]
			for k := c; k < stackN; k++ {
				h[r][k] -= f * h[c][k]
			}
			g[r] -= f * g[c]
		}
	}
	var x [stackN]float64
	for r := stackN - 1; r >= 0; r-- {
		v := g[r]
		for k := r + 1; k < stackN; k++ {
			v -= h[r][k] * x[k]
		}
		x[r] = v / h[r][r]
	}
	return x, true
}

// qualifiedInputs returns, per passage of prep, the qualView input: the
// highest standard score, among the contract's passages, of the passage
// before it or of its parent clause's first passage for any provision of
// named (zero-shot scores, [provision][passage]); nil when named is empty.
// An exception is written after or under the restriction it qualifies
// ("Notwithstanding the foregoing, … shall not prevent" after a covenant
// not to compete), and its own words say little of what it excepts from.
func qualifiedInputs(pv *passageViews, named [][]float64) []float64 {
	if pv == nil || len(named) == 0 {
		return nil
	}
	n := len(pv.emb)
	out := make([]float64, n)
	std := make([][]float64, len(named))
	for i, s := range named {
		std[i] = standardScores(s)
	}
	for k := range n {
		best := math.Inf(-1)
		for _, j := range []int32{pv.before[k], pv.parent[k]} {
			if j < 0 {
				continue
			}
			for _, z := range std {
				if z != nil {
					best = math.Max(best, z[j])
				}
			}
		}
		if !math.IsInf(best, -1) {
			out[k] = best
		}
	}
	return out
}

// standardScores returns s as standard scores (nil when they do not
// spread).
func standardScores(s []float64) []float64 {
	if len(s) < 2 {
		return nil
	}
	var sum, sq float64
	for _, x := range s {
		sum += x
		sq += x * x
	}
	m := float64(len(s))
	mean := sum / m
	sd := math.Sqrt(math.Max(sq/m-mean*mean, 0))
	if sd < 1e-9 {
		return nil
	}
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = (x - mean) / sd
	}
	return out
}

// qualifiedScorer is the zero-shot scorer of the provisions pb's provision
// i's definition names (playbook.Playbook.Qualified); nil when it names
// none.
func qualifiedScorer(pb *playbook.Playbook, i int, det *Detectors) *zeroShot {
	named := pb.Qualified(&pb.Provisions[i])
	if len(named) == 0 {
		return nil
	}
	sub := &playbook.Playbook{Provisions: make([]playbook.Provision, len(named))}
	for j, n := range named {
		sub.Provisions[j] = *n
	}
	return newZeroShot(sub, det)
}
