package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/embed"
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

// DenseUnits returns the indices of the units of d worth embedding: one per
// source span, preferring the ancestor-aware view (the clause with its
// context), so a model server embeds each passage once.
func DenseUnits(d DocInput) []int {
	best := map[document.Span]int{}
	var order []document.Span
	for i, u := range d.Units {
		if u.View == ViewDescendant || len(u.Spans) != 1 {
			continue
		}
		sp := u.Spans[0]
		j, ok := best[sp]
		if !ok {
			order = append(order, sp)
			best[sp] = i
			continue
		}
		if d.Units[j].View != ViewAncestors && u.View == ViewAncestors {
			best[sp] = i
		}
	}
	out := make([]int, 0, len(order))
	for _, sp := range order {
		out = append(out, best[sp])
	}
	sort.Ints(out)
	return out
}

// Vectors are the embeddings of some units of one document.
type Vectors struct {
	Model string
	Units []int32     // unit index within the document's units
	Vecs  [][]float32 // L2-normalized, one per unit
}

// EmbedDoc embeds the dense units of a document with emb.
func EmbedDoc(ctx context.Context, emb Embedder, d DocInput) (*Vectors, error) {
	idx := DenseUnits(d)
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
		embed.Normalize(v.Vecs[i])
	}
	return v, nil
}

const vectorsMagic = "PKVEC1\n"

// Encode serializes vectors: model name, count, dimension, then unit indices
// and little-endian float32 components.
func (v *Vectors) Encode() []byte {
	dim := 0
	if len(v.Vecs) > 0 {
		dim = len(v.Vecs[0])
	}
	var b bytes.Buffer
	b.WriteString(vectorsMagic)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(x uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], x)]) }
	uv(uint64(len(v.Model)))
	b.WriteString(v.Model)
	uv(uint64(len(v.Vecs)))
	uv(uint64(dim))
	for i, vec := range v.Vecs {
		uv(uint64(v.Units[i]))
		for _, x := range vec {
			binary.Write(&b, binary.LittleEndian, x)
		}
	}
	return b.Bytes()
}

// DecodeVectors parses encoded vectors, refusing malformed data.
func DecodeVectors(data []byte) (*Vectors, error) {
	if !bytes.HasPrefix(data, []byte(vectorsMagic)) {
		return nil, fmt.Errorf("%w: bad vectors header", ErrBadSegment)
	}
	r := &reader{b: data[len(vectorsMagic):]}
	v := &Vectors{Model: r.str()}
	n := r.count(1)
	dim := int(r.uv())
	if r.err == nil && dim > 1<<16 {
		r.fail("dimension")
	}
	for i := 0; i < n && r.err == nil; i++ {
		u := r.uv()
		if len(r.b) < 4*dim {
			r.fail("vector")
			break
		}
		vec := make([]float32, dim)
		for j := range vec {
			vec[j] = math.Float32frombits(binary.LittleEndian.Uint32(r.b[4*j:]))
		}
		r.b = r.b[4*dim:]
		v.Units = append(v.Units, int32(u))
		v.Vecs = append(v.Vecs, vec)
	}
	if r.err != nil {
		return nil, r.err
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
			out = append(out, scored{u, float64(embed.Dot(qv, ix.vector(j)))})
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
