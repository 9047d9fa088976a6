package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/pakton/pakton/internal/document"
)

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
		return nil, fmt.Errorf("%w: bad vectors header", ErrBadDoc)
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
