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
func EmbedDoc(ctx context.Context, emb Embedder, d index.DocInput) (*index.Vectors, error) {
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
	v := &index.Vectors{Model: emb.Name(), Units: make([]int32, len(idx)), Vecs: vecs}
	for i, u := range idx {
		v.Units[i] = int32(u)
		normalize(v.Vecs[i])
	}
	return v, nil
}

// Dense reports whether any document has vectors, and their model.
func (ix *Index) Dense() (bool, string) {
	if ix.sharding != nil {
		return false, "" // a sharded collection is searched by its words
	}
	dim, model := ix.view().Dense()
	return dim > 0, model
}

// denseRank ranks the units in scope by cosine similarity to qv, best
// first, keeping the n best. Segments whose vectors come from another model
// or have another dimension than the collection's first are left out.
func denseRank(v *index.Snapshot, qv []float32, sc scope, n int) []scored {
	dim, model := v.Dense()
	var out []scored
	consider := func(i int, seg *index.Segment, u int32, vec []float32) {
		units := seg.Units()
		if vec == nil || uint(u) >= uint(len(units)) {
			return // a damaged index file
		}
		un := units[u]
		if uint(un.View) < uint(index.NumViews) && sc.views[un.View] && !v.Deleted(i, un.Doc) {
			out = append(out, scored{v.UnitBase(i) + u, float64(dot(qv, vec))})
		}
	}
	for i, seg := range v.Segments() {
		if d, m := seg.Dense(); d != dim || m != model {
			continue
		}
		if sc.ranges == nil {
			for j, u := range seg.VectorUnits() {
				consider(i, seg, u, seg.Vector(int32(j)))
			}
			continue
		}
		lo, hi := v.UnitBase(i), v.UnitBase(i+1)
		for _, r := range sc.ranges {
			if r[0] < lo || r[0] >= hi {
				continue
			}
			for g := r[0]; g < r[1]; g++ {
				consider(i, seg, g-lo, seg.VectorOf(g-lo))
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
