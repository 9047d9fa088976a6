package ollamatest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// readGGUF parses a GGUF v3 file independently of the writer: metadata
// into Go values, tensors into F32 slices, checking alignment and bounds.
func readGGUF(b []byte) (map[string]any, map[string][]float32, map[string][]uint64, error) {
	r := bytes.NewReader(b)
	var rerr error
	rd := func(v any) {
		if rerr == nil {
			rerr = binary.Read(r, binary.LittleEndian, v)
		}
	}
	str := func() string {
		var n uint64
		rd(&n)
		if rerr != nil || n > uint64(r.Len()) {
			if rerr == nil {
				rerr = fmt.Errorf("string length %d past the end", n)
			}
			return ""
		}
		buf := make([]byte, n)
		_, err := io.ReadFull(r, buf)
		if rerr == nil {
			rerr = err
		}
		return string(buf)
	}
	var scalar func(typ uint32) any
	scalar = func(typ uint32) any {
		switch typ {
		case ggufUint32:
			var v uint32
			rd(&v)
			return v
		case ggufInt32:
			var v int32
			rd(&v)
			return v
		case ggufUint64:
			var v uint64
			rd(&v)
			return v
		case ggufFloat32:
			var v float32
			rd(&v)
			return v
		case ggufBool:
			var v uint8
			rd(&v)
			return v == 1
		case ggufString:
			return str()
		}
		rerr = fmt.Errorf("unexpected value type %d", typ)
		return nil
	}
	magic := make([]byte, 4)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "GGUF" {
		return nil, nil, nil, fmt.Errorf("bad magic %q", magic)
	}
	var version uint32
	var nt, nkv uint64
	rd(&version)
	rd(&nt)
	rd(&nkv)
	if version != 3 {
		return nil, nil, nil, fmt.Errorf("version %d", version)
	}
	kvs := map[string]any{}
	for i := uint64(0); i < nkv && rerr == nil; i++ {
		key := str()
		var typ uint32
		rd(&typ)
		if typ != ggufArray {
			kvs[key] = scalar(typ)
			continue
		}
		var et uint32
		var n uint64
		rd(&et)
		rd(&n)
		arr := make([]any, 0, n)
		for j := uint64(0); j < n && rerr == nil; j++ {
			arr = append(arr, scalar(et))
		}
		kvs[key] = arr
	}
	type info struct {
		name   string
		dims   []uint64
		offset uint64
	}
	var infos []info
	for i := uint64(0); i < nt && rerr == nil; i++ {
		in := info{name: str()}
		var nd, typ uint32
		rd(&nd)
		for j := uint32(0); j < nd; j++ {
			var d uint64
			rd(&d)
			in.dims = append(in.dims, d)
		}
		rd(&typ)
		rd(&in.offset)
		if typ != ggmlTypeF32 {
			rerr = fmt.Errorf("tensor %s: type %d", in.name, typ)
		}
		infos = append(infos, in)
	}
	if rerr != nil {
		return nil, nil, nil, rerr
	}
	start := alignUp(uint64(len(b)-r.Len()), ggufAlignment)
	tensors, dims := map[string][]float32{}, map[string][]uint64{}
	for _, in := range infos {
		n := uint64(1)
		for _, d := range in.dims {
			n *= d
		}
		if in.offset%ggufAlignment != 0 {
			return nil, nil, nil, fmt.Errorf("tensor %s: offset %d not aligned", in.name, in.offset)
		}
		lo, hi := start+in.offset, start+in.offset+4*n
		if hi > uint64(len(b)) {
			return nil, nil, nil, fmt.Errorf("tensor %s: data [%d,%d) past the end %d", in.name, lo, hi, len(b))
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[lo+4*uint64(i):]))
		}
		tensors[in.name], dims[in.name] = data, in.dims
	}
	return kvs, tensors, dims, nil
}

func TestGGUFRoundTrip(t *testing.T) {
	g := &GGUF{}
	g.KV("general.architecture", "test")
	g.KV("u32", uint32(7))
	g.KV("i32", int32(-3))
	g.KV("u64", uint64(1<<40))
	g.KV("f32", float32(0.5))
	g.KV("flag", true)
	g.KV("words", []string{"a", "", "ü"})
	g.KV("ints", []int32{1, -2})
	g.KV("floats", []float32{1.5})
	g.Tensor("odd", []uint64{3}, []float32{1, 2, 3}) // 12 bytes: the next one must be padded
	g.Tensor("m", []uint64{2, 2}, []float32{4, 5, 6, 7})
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	kvs, tensors, dims, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"general.architecture": "test", "u32": "7", "i32": "-3", "u64": "1099511627776", "f32": "0.5",
		"flag": "true", "words": "[a  ü]", "ints": "[1 -2]", "floats": "[1.5]",
	}
	for k, w := range want {
		if got := fmt.Sprint(kvs[k]); got != w {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
	if fmt.Sprint(tensors["odd"], tensors["m"], dims["m"]) != "[1 2 3] [4 5 6 7] [2 2]" {
		t.Errorf("tensors = %v %v %v", tensors["odd"], tensors["m"], dims["m"])
	}
}

func TestGGUFRejectsBadInput(t *testing.T) {
	for name, f := range map[string]func(*GGUF){
		"value type": func(g *GGUF) { g.KV("x", 1.5) },
		"dims":       func(g *GGUF) { g.Tensor("t", []uint64{2, 2}, []float32{1}) },
		"no dims":    func(g *GGUF) { g.Tensor("t", nil, nil) },
		"five dims":  func(g *GGUF) { g.Tensor("t", []uint64{1, 1, 1, 1, 1}, []float32{1}) },
		"first kept": func(g *GGUF) { g.KV("x", 1.5); g.KV("y", []int{1}) },
	} {
		g := &GGUF{}
		f(g)
		if err := g.Write(io.Discard); err == nil {
			t.Errorf("%s: no error", name)
		} else if name == "first kept" && !strings.Contains(err.Error(), `key x`) {
			t.Errorf("%s: %v, want the first error", name, err)
		}
	}
}

// TestChatModelShape checks what Ollama's loaders read from the chat
// model: every tensor a layer needs with ggml's dimension order, the
// tokenizer, and the fixed preference for ending tokens.
func TestChatModelShape(t *testing.T) {
	for _, arch := range []string{"qwen3", "llama"} {
		g, err := ChatModel(ChatSpec{Arch: arch, Embd: 16, Layers: 2, Heads: 2, FF: 24, Seed: 1, Merges: 50})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := g.Write(&buf); err != nil {
			t.Fatal(err)
		}
		kvs, tensors, dims, err := readGGUF(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		tokens := kvs["tokenizer.ggml.tokens"].([]any)
		nv := uint64(len(tokens))
		if kvs["general.architecture"] != arch || kvs[arch+".block_count"] != uint32(2) {
			t.Errorf("%s: metadata %v", arch, kvs)
		}
		if tokens[kvs["tokenizer.ggml.eos_token_id"].(uint32)] != tokImEnd {
			t.Errorf("%s: eos is %v", arch, tokens[kvs["tokenizer.ggml.eos_token_id"].(uint32)])
		}
		// Every byte is a token under the byte-level mapping (qwen3: the
		// printable ASCII ones, tab and newline).
		id := map[string]int{}
		for i, tok := range tokens {
			id[tok.(string)] = i
		}
		for b := 0; b < 256; b++ {
			_, ok := id[string(byteRune(byte(b)))]
			want := arch == "llama" || (b >= 0x20 && b < 0x7f) || b == '\n' || b == '\t'
			if ok != want {
				t.Fatalf("%s: byte %#x has a token: %v, want %v", arch, b, ok, want)
			}
		}
		want := map[string][]uint64{
			"token_embd.weight": {16, nv}, "output.weight": {16, nv}, "output_norm.weight": {16},
			"blk.1.attn_q.weight": {16, 16}, "blk.1.ffn_gate.weight": {16, 24}, "blk.1.ffn_down.weight": {24, 16},
		}
		if arch == "qwen3" {
			want["blk.0.attn_q_norm.weight"] = []uint64{8}
		}
		for name, d := range want {
			if fmt.Sprint(dims[name]) != fmt.Sprint(d) {
				t.Errorf("%s: %s dims %v, want %v", arch, name, dims[name], d)
			}
		}
		// The output layer's bias channel ranks the closing quote and the
		// end of turn above letters, and control bytes far below.
		out := tensors["output.weight"]
		col := func(tok int) float32 { return out[tok*16] }
		by := func(b byte) int { return id[string(byteRune(b))] }
		eos := int(kvs["tokenizer.ggml.eos_token_id"].(uint32))
		if !(col(by('"')) > col(by('a')) && col(eos) > col(by('a')) && col(by('\n')) < col(by('a'))-1) {
			t.Errorf("%s: bias column quote %v eos %v a %v newline %v", arch, col(by('"')), col(eos), col(by('a')), col(by('\n')))
		}
		if arch == "llama" && col(by(0x01)) > col(by('a'))-2 {
			t.Errorf("%s: control byte bias %v", arch, col(by(0x01)))
		}
	}
	if _, err := ChatModel(ChatSpec{Arch: "gpt9"}); err == nil {
		t.Error("unknown architecture accepted")
	}
}

func TestEmbedModelShape(t *testing.T) {
	g, err := EmbedModel(EmbedSpec{Embd: 8, Heads: 2, FF: 16, TrainCtx: 32, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	kvs, _, dims, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tokens := kvs["tokenizer.ggml.tokens"].([]any)
	if kvs["bert.pooling_type"] != uint32(1) || tokens[2] != "[CLS]" || tokens[3] != "[SEP]" {
		t.Errorf("metadata: pooling %v, tokens %v", kvs["bert.pooling_type"], tokens[:5])
	}
	if fmt.Sprint(dims["position_embd.weight"]) != "[8 32]" || fmt.Sprint(dims["blk.0.ffn_up.weight"]) != "[8 16]" {
		t.Errorf("dims %v %v", dims["position_embd.weight"], dims["blk.0.ffn_up.weight"])
	}
}

func TestModelfile(t *testing.T) {
	got := modelfile("/m/chat.gguf", "{{ .Prompt }}", map[string]string{"num_ctx": "512", "temperature": "0"}, []string{tokImEnd})
	want := "FROM /m/chat.gguf\nTEMPLATE \"\"\"{{ .Prompt }}\"\"\"\nPARAMETER num_ctx 512\nPARAMETER temperature 0\nPARAMETER stop \"<|im_end|>\"\n"
	if got != want {
		t.Errorf("modelfile:\n%s\nwant:\n%s", got, want)
	}
}

// TestTrainMerges: merges are learned most frequent first, never cross a
// pre-tokenizer boundary, skip words with unkept bytes, and each adds the
// token it forms.
func TestTrainMerges(t *testing.T) {
	text := strings.Repeat("the theme then thé 12 ", 5) + "x-ray"
	m := trainMerges(text, 4, func(b byte) bool { return b < 0x80 })
	// "h e" and "t h" both occur 15 times (" thé" is skipped): the tie
	// goes to the pair that sorts first; then "t he" follows.
	if len(m) != 4 || m[0] != "h e" || m[1] != "t he" {
		t.Fatalf("merges %q", m)
	}
	for _, x := range m {
		if strings.ContainsAny(x, "12é") {
			t.Errorf("merge %q crosses a boundary or holds a skipped byte", x)
		}
	}
	v := newChatVocab(true, 3)
	if len(v.merges) != 3 || v.tokens[v.eot-1] != strings.Replace(v.merges[2], " ", "", 1) {
		t.Errorf("vocabulary does not end with the merged tokens: %q", v.tokens[len(v.tokens)-6:])
	}
}
