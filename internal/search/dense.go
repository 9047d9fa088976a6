package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pakton/pakton/internal/search/index"
)

// Embedder turns texts into vectors (internal/embed's client satisfies it).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Name() string
}

// Reranker scores passages against a question (internal/rerank's client
// satisfies it). Higher is more relevant.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// EmbedDoc embeds the dense units of a document with emb.
func EmbedDoc(ctx context.Context, emb Embedder, d DocInput) (*Vectors, error) {
	idx := index.DenseUnits(d)
	texts := make([]string, len(idx))
	for i, u := range idx {
		texts[i] = d.Units[u].Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embedding %s: %w", d.Name, err)
	}
	if len(vecs) != len(idx) {
		return nil, fmt.Errorf("embedding %s: %d vectors for %d passages", d.Name, len(vecs), len(idx))
	}
	v := &Vectors{Model: emb.Name(), Units: make([]int32, len(idx)), Vecs: vecs}
	for i, u := range idx {
		v.Units[i] = int32(u)
		normalize(v.Vecs[i])
	}
	return v, nil
}

// AddVectors attaches a document's vectors to the index. The document must
// already be indexed; vectors from a model other than the index's first are
// refused, since their similarities are not comparable.
func (ix *Index) AddVectors(id string, v *Vectors) error {
	if ix.mapped != nil {
		return ErrMapped
	}
	d, ok := ix.byID[id]
	if !ok {
		return fmt.Errorf("search: vectors for unknown document %q", id)
	}
	if ix.denseModel == "" {
		ix.denseModel = v.Model
	} else if v.Model != ix.denseModel {
		return fmt.Errorf("search: vectors of %q come from model %q, the index uses %q: re-ingest with one embedding model", id, v.Model, ix.denseModel)
	}
	e := ix.docs[d]
	for i, u := range v.Units {
		if u < 0 || e.first+u >= e.limit {
			return fmt.Errorf("search: vectors of %q point past its units", id)
		}
		if ix.dim == 0 {
			ix.dim = len(v.Vecs[i])
		}
		if len(v.Vecs[i]) != ix.dim {
			return fmt.Errorf("search: vectors of %q have dimension %d, the index %d", id, len(v.Vecs[i]), ix.dim)
		}
	}
	if ix.vecOf == nil {
		ix.vecOf = make([]int32, len(ix.units))
		for i := range ix.vecOf {
			ix.vecOf[i] = -1
		}
	}
	for i, u := range v.Units {
		uid := e.first + u
		if j := ix.vecOf[uid]; j >= 0 { // the same unit twice: the last vector wins
			copy(ix.vector(j), v.Vecs[i])
			continue
		}
		ix.vecOf[uid] = int32(len(ix.vecUnit))
		ix.vecUnit = append(ix.vecUnit, uid)
		ix.vecs = append(ix.vecs, v.Vecs[i]...)
	}
	return nil
}

// vector returns the j-th stored vector.
func (ix *Index) vector(j int32) []float32 {
	return ix.vecs[int(j)*ix.dim : int(j+1)*ix.dim]
}

// Dense reports whether any document has vectors, and their model.
func (ix *Index) Dense() (bool, string) { return len(ix.vecUnit) > 0, ix.denseModel }

// denseRank ranks the units in scope by cosine similarity to qv, best
// first, keeping the n best.
func (ix *Index) denseRank(qv []float32, sc scope, n int) []scored {
	var out []scored
	consider := func(j int32) {
		if uint(j) >= uint(len(ix.vecUnit)) || int(j+1)*ix.dim > len(ix.vecs) {
			return // a damaged index file; see persist.go
		}
		u := ix.vecUnit[j]
		if uint(u) < uint(len(ix.units)) && uint(ix.units[u].View) < uint(numViews) && sc.views[ix.units[u].View] {
			out = append(out, scored{u, float64(dot(qv, ix.vector(j)))})
		}
	}
	if sc.ranges == nil {
		for j := range ix.vecUnit {
			consider(int32(j))
		}
	} else {
		for _, r := range sc.ranges {
			for u := r[0]; u < r[1]; u++ {
				if j := ix.vecOf[u]; j >= 0 {
					consider(j)
				}
			}
		}
	}
	slices.SortFunc(out, byRank)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// rrfK is the reciprocal rank fusion constant (the usual 60).
const rrfK = 60

// fuse merges ranked lists by reciprocal rank fusion: each unit scores the
// sum of 1/(rrfK + rank) over the lists it appears in.
func fuse(lists ...[]scored) []scored {
	acc := map[int32]float64{}
	for _, l := range lists {
		for r, s := range l {
			acc[s.unit] += 1 / float64(rrfK+r+1)
		}
	}
	out := make([]scored, 0, len(acc))
	for u, s := range acc {
		out = append(out, scored{u, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].unit < out[j].unit
	})
	return out
}

// normalize scales v in place to unit L2 length, so that dot of two
// normalized vectors is their cosine similarity. A zero vector is left as is.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// dot returns the dot product of a and b. It panics if their lengths differ,
// since that is a programming error (vectors from different models).
func dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("search: dot: lengths differ (%d and %d)", len(a), len(b)))
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
