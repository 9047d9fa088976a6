package ollamatest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// GGUF metadata value types (the GGUF v3 specification).
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
	ggufUint64  = 10
)

// ggmlTypeF32 is the tensor type of every tensor written here: small models
// gain nothing from quantization and F32 runs on every CPU backend.
const ggmlTypeF32 = 0

// ggufAlignment is the default alignment of tensor data (general.alignment).
const ggufAlignment = 32

// GGUF builds a GGUF v3 file: ordered metadata and F32 tensors. It writes
// only what a model loader reads — the header, the key/value pairs, the
// tensor table and the aligned tensor data — in the layout of the GGUF
// specification, so that any GGUF reader (Ollama's, llama.cpp's) can load
// it.
type GGUF struct {
	kvs     []ggufKV
	tensors []ggufTensor
	err     error
}

type ggufKV struct {
	key string
	val any
}

type ggufTensor struct {
	name string
	dims []uint64 // innermost first (ggml's ne[0], ne[1], …)
	data []float32
}

// KV adds a metadata pair. Supported values: string, uint32, int32,
// uint64, float32, bool, []string, []int32, []float32.
func (g *GGUF) KV(key string, val any) {
	switch val.(type) {
	case string, uint32, int32, uint64, float32, bool, []string, []int32, []float32:
	default:
		g.fail(fmt.Errorf("gguf: key %s: unsupported value type %T", key, val))
		return
	}
	g.kvs = append(g.kvs, ggufKV{key, val})
}

// Tensor adds an F32 tensor; dims are innermost first, as ggml counts them
// (a weight mapping n inputs to m outputs is {n, m}).
func (g *GGUF) Tensor(name string, dims []uint64, data []float32) {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	if n != uint64(len(data)) || len(dims) == 0 || len(dims) > 4 {
		g.fail(fmt.Errorf("gguf: tensor %s: dims %v hold %d values, got %d", name, dims, n, len(data)))
		return
	}
	g.tensors = append(g.tensors, ggufTensor{name, dims, data})
}

func (g *GGUF) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// WriteFile writes the model to path.
func (g *GGUF) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := g.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// Write writes the model to w.
func (g *GGUF) Write(w io.Writer) error {
	if g.err != nil {
		return g.err
	}
	cw := &countWriter{w: bufio.NewWriterSize(w, 1<<20)}
	le := func(v any) { cw.fail(binary.Write(cw, binary.LittleEndian, v)) }
	str := func(s string) {
		le(uint64(len(s)))
		_, err := io.WriteString(cw, s)
		cw.fail(err)
	}

	_, err := io.WriteString(cw, "GGUF")
	cw.fail(err)
	le(uint32(3))
	le(uint64(len(g.tensors)))
	le(uint64(len(g.kvs)))
	for _, kv := range g.kvs {
		str(kv.key)
		switch v := kv.val.(type) {
		case string:
			le(uint32(ggufString))
			str(v)
		case uint32:
			le(uint32(ggufUint32))
			le(v)
		case int32:
			le(uint32(ggufInt32))
			le(v)
		case uint64:
			le(uint32(ggufUint64))
			le(v)
		case float32:
			le(uint32(ggufFloat32))
			le(v)
		case bool:
			le(uint32(ggufBool))
			b := uint8(0)
			if v {
				b = 1
			}
			le(b)
		case []string:
			le(uint32(ggufArray))
			le(uint32(ggufString))
			le(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []int32:
			le(uint32(ggufArray))
			le(uint32(ggufInt32))
			le(uint64(len(v)))
			le(v)
		case []float32:
			le(uint32(ggufArray))
			le(uint32(ggufFloat32))
			le(uint64(len(v)))
			le(v)
		}
	}

	offset := uint64(0)
	for _, t := range g.tensors {
		str(t.name)
		le(uint32(len(t.dims)))
		for _, d := range t.dims {
			le(d)
		}
		le(uint32(ggmlTypeF32))
		le(offset)
		offset = alignUp(offset+4*uint64(len(t.data)), ggufAlignment)
	}
	cw.pad(ggufAlignment)
	for _, t := range g.tensors {
		buf := make([]byte, 4*len(t.data))
		for i, f := range t.data {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(f))
		}
		_, err := cw.Write(buf)
		cw.fail(err)
		cw.pad(ggufAlignment)
	}
	if cw.err != nil {
		return cw.err
	}
	return cw.w.(*bufio.Writer).Flush()
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }

// countWriter counts bytes written and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   uint64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += uint64(n)
	c.fail(err)
	return n, err
}

func (c *countWriter) fail(err error) {
	if err != nil && c.err == nil {
		c.err = err
	}
}

func (c *countWriter) pad(a uint64) {
	if n := alignUp(c.n, a) - c.n; n > 0 {
		_, err := c.Write(make([]byte, n))
		c.fail(err)
	}
}
