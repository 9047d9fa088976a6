package ollamatest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// ChatSpec shapes a tiny decoder-only chat model.
type ChatSpec struct {
	// Arch is the GGUF architecture: "qwen3" (Ollama's own engine, the
	// default) or "llama" (Ollama's llama.cpp runner).
	Arch string
	// Embd, Layers, Heads, FF: width, depth, attention heads, feed-forward
	// width. Zero values take small defaults.
	Embd, Layers, Heads, FF int
	// TrainCtx is the context length the model says it was trained with
	// (Ollama caps num_ctx at it).
	TrainCtx int
	// Seed makes the weights reproducible.
	Seed uint64
	// Merges is the number of byte-pair merges learned from the example
	// contracts (default 1000; negative: none).
	Merges int
	// AllBytes gives the qwen3 model a token for every byte. By default it
	// has printable ASCII, tab and newline only (faster constrained
	// decoding; Ollama's tokenizer drops the other bytes of a prompt). The
	// llama architecture always has every byte: llama.cpp's tokenizer
	// needs one.
	AllBytes bool
	// Endless removes the preference for ending: the model talks until
	// num_predict or the context runs out, and JSON strings run long. For
	// tests that need a call still in flight (cancellation, a server that
	// dies, timeouts).
	Endless bool
}

func (s ChatSpec) withDefaults() ChatSpec {
	if s.Arch == "" {
		s.Arch = "qwen3"
	}
	if s.Embd == 0 {
		s.Embd = 32
	}
	if s.Layers == 0 {
		s.Layers = 1
	}
	if s.Heads == 0 {
		s.Heads = 2
	}
	if s.FF == 0 {
		s.FF = 64
	}
	if s.TrainCtx == 0 {
		s.TrainCtx = 65536
	}
	switch {
	case s.Merges == 0:
		s.Merges = 1000
	case s.Merges < 0:
		s.Merges = 0
	}
	return s
}

// Special tokens of the chat vocabulary, after the 256 byte tokens.
const (
	tokEndOfText = "<|endoftext|>"
	tokImStart   = "<|im_start|>"
	tokImEnd     = "<|im_end|>"
)

// byteRune maps a byte to the printable rune byte-level BPE vocabularies
// (GPT-2's, Qwen's) use for it; it is the mapping Ollama's and llama.cpp's
// byte-pair encoders apply before looking pieces up.
func byteRune(b byte) rune {
	r := rune(b)
	switch {
	case r == 0x00ad:
		return 0x0143
	case r <= 0x0020:
		return r + 0x0100
	case r >= 0x007f && r <= 0x00a0:
		return r + 0x00a2
	}
	return r
}

// chatVocab is a byte-level BPE vocabulary: one token per byte, the merges
// learned from the example contracts (trainMerges), and the chat template's
// control tokens. The full vocabulary has all 256 bytes, so every text is
// encodable; the ASCII one keeps only printable ASCII, tab and newline —
// Ollama's own tokenizer skips bytes it has no token for — because
// constrained decoding checks every token of the vocabulary at each step.
type chatVocab struct {
	tokens []string
	types  []int32
	merges []string
	byteID [256]int32 // token of each byte, -1 when it has none
	eos    int32      // <|im_end|>
	eot    int32      // <|endoftext|>
}

func newChatVocab(ascii bool, merges int) chatVocab {
	var v chatVocab
	keep := func(b byte) bool { return !ascii || b >= 0x20 && b < 0x7f || b == '\n' || b == '\t' }
	for b := 0; b < 256; b++ {
		v.byteID[b] = -1
		if !keep(byte(b)) {
			continue
		}
		v.byteID[b] = int32(len(v.tokens))
		v.tokens = append(v.tokens, string(byteRune(byte(b))))
		v.types = append(v.types, 1) // normal
	}
	v.merges = cachedMerges(ascii, merges, keep)
	if len(v.merges) == 0 {
		// llama.cpp refuses a BPE vocabulary without a merges list.
		v.merges = []string{string(byteRune(' ')) + " t"}
	}
	for _, m := range v.merges {
		v.tokens = append(v.tokens, strings.Replace(m, " ", "", 1))
		v.types = append(v.types, 1)
	}
	for _, s := range []string{tokEndOfText, tokImStart, tokImEnd} {
		v.tokens = append(v.tokens, s)
		v.types = append(v.types, 3) // control
	}
	n := int32(len(v.tokens))
	v.eot, v.eos = n-3, n-1
	return v
}

// logitBias is the preference the untrained model has for each token: the
// weights are random, but one channel of the residual stream is held
// constant and read by the output layer, so every reply draws from the same
// fixed distribution. It favours the tokens that end things — a closing
// quote, a closing bracket, end of turn — so that constrained decoding
// closes JSON strings after a few characters and free text ends after a few
// words, instead of running to the context limit; and it keeps control
// bytes and bytes ≥ 0x80 (which alone are not UTF-8) out of replies.
func (v chatVocab) logitBias(endless bool) []float32 {
	bias := make([]float32, len(v.tokens))
	set := func(b byte, x float32) {
		if id := v.byteID[b]; id >= 0 {
			bias[id] = x
		}
	}
	// An ending token with bias ln(n)−1 is drawn about a quarter of the
	// time where it is allowed, whatever the vocabulary size n.
	end := float32(math.Log(float64(len(v.tokens)))) - 1
	for b := 0; b < 256; b++ {
		switch {
		case b == '"':
			set(byte(b), end)
		case b == '}' || b == ']':
			// Mildly: an array often gets an item (a quotation to verify)
			// before it closes.
			set(byte(b), 1)
		case b == ' ':
			set(byte(b), -1)
		case b == '\n' || b == '\t':
			// JSON grammars allow runs of layout between tokens, and each
			// layout token multiplies the grammar's parse states.
			set(byte(b), -6)
		case b < 0x20 || b >= 0x7f:
			set(byte(b), -12)
		}
	}
	for i, typ := range v.types {
		if typ == 3 {
			bias[i] = -12
		}
	}
	bias[v.eos] = end
	if endless {
		set('"', 0)
		set('}', 0)
		set(']', 0)
		bias[v.eos], bias[v.eot] = -12, -12
	}
	return bias
}

// chatTemplate is the Modelfile TEMPLATE of the tiny chat model: ChatML
// (Qwen's layout) with Qwen-style tool calls, so that Ollama reports the
// tools capability and parses <tool_call> replies.
const chatTemplate = `{{- if or .System .Tools }}<|im_start|>system
{{- if .System }}
{{ .System }}
{{- end }}
{{- if .Tools }}
You may call these tools:
<tools>
{{- range .Tools }}
{"type": "function", "function": {{ .Function }}}
{{- end }}
</tools>
For each call, reply with <tool_call>{"name": <name>, "arguments": <args-json-object>}</tool_call>
{{- end }}<|im_end|>
{{ end }}
{{- range $i, $_ := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 -}}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ if .Content }}{{ .Content }}
{{- else if .ToolCalls }}<tool_call>
{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
{{ end }}</tool_call>
{{- end }}{{ if not $last }}<|im_end|>
{{ end }}
{{- else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- if and (ne .Role "assistant") $last }}<|im_start|>assistant
{{ end }}
{{- end }}`

// ChatModel builds the GGUF of a tiny chat model with random weights.
func ChatModel(spec ChatSpec) (*GGUF, error) {
	s := spec.withDefaults()
	if s.Arch != "qwen3" && s.Arch != "llama" {
		return nil, fmt.Errorf("chat model: architecture %q: want qwen3 or llama", s.Arch)
	}
	if s.Embd%s.Heads != 0 || s.Embd < 8 {
		return nil, fmt.Errorf("chat model: width %d must be at least 8 and divisible by %d heads", s.Embd, s.Heads)
	}
	v := newChatVocab(s.Arch == "qwen3" && !s.AllBytes, s.Merges)
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	nv, e, hd := len(v.tokens), s.Embd, s.Embd/s.Heads
	a := s.Arch

	g := &GGUF{}
	g.KV("general.architecture", a)
	g.KV("general.name", "pakton-tiny-"+a)
	g.KV("general.file_type", uint32(0)) // all F32
	g.KV(a+".context_length", uint32(s.TrainCtx))
	g.KV(a+".embedding_length", uint32(e))
	g.KV(a+".block_count", uint32(s.Layers))
	g.KV(a+".feed_forward_length", uint32(s.FF))
	g.KV(a+".attention.head_count", uint32(s.Heads))
	g.KV(a+".attention.head_count_kv", uint32(s.Heads))
	g.KV(a+".attention.key_length", uint32(hd))
	g.KV(a+".attention.value_length", uint32(hd))
	g.KV(a+".attention.layer_norm_rms_epsilon", float32(1e-6))
	g.KV(a+".rope.freq_base", float32(1e6))
	g.KV(a+".rope.dimension_count", uint32(hd))
	g.KV(a+".vocab_size", uint32(nv))
	g.KV("tokenizer.ggml.model", "gpt2")
	g.KV("tokenizer.ggml.pre", "qwen2")
	g.KV("tokenizer.ggml.tokens", v.tokens)
	g.KV("tokenizer.ggml.token_type", v.types)
	g.KV("tokenizer.ggml.merges", v.merges)
	g.KV("tokenizer.ggml.bos_token_id", uint32(v.eot))
	g.KV("tokenizer.ggml.eos_token_id", uint32(v.eos))
	g.KV("tokenizer.ggml.padding_token_id", uint32(v.eot))
	g.KV("tokenizer.ggml.add_bos_token", false)
	g.KV("tokenizer.ggml.eos_token_ids", []int32{v.eos, v.eot})

	// The residual stream's channel 0 is 1 for every token and every other
	// channel is small noise, so after the final RMS norm channel 0 is about
	// sqrt(e) whatever the input: the output layer's column 0 is a fixed
	// per-token bias (logitBias), the rest adds a little noise.
	const std = 0.02
	emb := randn(rng, nv*e, std)
	for t := 0; t < nv; t++ {
		emb[t*e] = 1
	}
	g.Tensor("token_embd.weight", []uint64{uint64(e), uint64(nv)}, emb)
	out := randn(rng, nv*e, std)
	bias := v.logitBias(s.Endless)
	for t := 0; t < nv; t++ {
		out[t*e] = bias[t] / float32(math.Sqrt(float64(e)))
	}
	g.Tensor("output.weight", []uint64{uint64(e), uint64(nv)}, out)
	g.Tensor("output_norm.weight", []uint64{uint64(e)}, ones(e))
	for l := 0; l < s.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		g.Tensor(p+"attn_norm.weight", []uint64{uint64(e)}, ones(e))
		g.Tensor(p+"attn_q.weight", []uint64{uint64(e), uint64(e)}, randn(rng, e*e, std))
		g.Tensor(p+"attn_k.weight", []uint64{uint64(e), uint64(e)}, randn(rng, e*e, std))
		g.Tensor(p+"attn_v.weight", []uint64{uint64(e), uint64(e)}, randn(rng, e*e, std))
		g.Tensor(p+"attn_output.weight", []uint64{uint64(e), uint64(e)}, randn(rng, e*e, std))
		if a == "qwen3" {
			g.Tensor(p+"attn_q_norm.weight", []uint64{uint64(hd)}, ones(hd))
			g.Tensor(p+"attn_k_norm.weight", []uint64{uint64(hd)}, ones(hd))
		}
		g.Tensor(p+"ffn_norm.weight", []uint64{uint64(e)}, ones(e))
		g.Tensor(p+"ffn_gate.weight", []uint64{uint64(e), uint64(s.FF)}, randn(rng, e*s.FF, std))
		g.Tensor(p+"ffn_up.weight", []uint64{uint64(e), uint64(s.FF)}, randn(rng, e*s.FF, std))
		g.Tensor(p+"ffn_down.weight", []uint64{uint64(s.FF), uint64(e)}, randn(rng, e*s.FF, std))
	}
	return g, g.err
}

// EmbedSpec shapes a tiny BERT embedding model.
type EmbedSpec struct {
	Embd, Layers, Heads, FF int
	// TrainCtx is the longest input in tokens (position embeddings).
	TrainCtx int
	Seed     uint64
}

func (s EmbedSpec) withDefaults() EmbedSpec {
	if s.Embd == 0 {
		s.Embd = 32
	}
	if s.Layers == 0 {
		s.Layers = 1
	}
	if s.Heads == 0 {
		s.Heads = 2
	}
	if s.FF == 0 {
		s.FF = 64
	}
	if s.TrainCtx == 0 {
		// Ollama runs an embedding model in batches of its whole context,
		// one input at a time: a short context keeps ingestion fast.
		s.TrainCtx = 512
	}
	return s
}

// embedVocab is a WordPiece vocabulary in GGUF's spelling: BERT's five
// special tokens, then every lower-case ASCII letter, digit and punctuation
// mark both as a word start ("▁a") and as a continuation ("a"). Words of
// other characters become [UNK].
func embedVocab() (tokens []string, types []int32) {
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		tokens = append(tokens, s)
		types = append(types, 3)
	}
	for c := byte('!'); c <= '~'; c++ {
		if 'A' <= c && c <= 'Z' {
			continue
		}
		tokens = append(tokens, "▁"+string(c), string(c))
		types = append(types, 1, 1)
	}
	return tokens, types
}

// EmbedModel builds the GGUF of a tiny BERT embedding model with random
// weights and mean pooling. Its token embeddings dominate the encoder's
// small random layers, so a text's vector is close to the mean of its
// word pieces' random vectors: equal texts get equal vectors and texts
// sharing pieces lean together, which is all a wire test can ask.
func EmbedModel(spec EmbedSpec) (*GGUF, error) {
	s := spec.withDefaults()
	if s.Embd%s.Heads != 0 {
		return nil, fmt.Errorf("embed model: width %d not divisible by %d heads", s.Embd, s.Heads)
	}
	tokens, types := embedVocab()
	rng := rand.New(rand.NewPCG(s.Seed, 0x2545f4914f6cdd1d))
	nv, e, ff := len(tokens), s.Embd, s.FF
	const std = 0.02

	g := &GGUF{}
	g.KV("general.architecture", "bert")
	g.KV("general.name", "pakton-tiny-bert")
	g.KV("general.file_type", uint32(0))
	g.KV("bert.context_length", uint32(s.TrainCtx))
	g.KV("bert.embedding_length", uint32(e))
	g.KV("bert.block_count", uint32(s.Layers))
	g.KV("bert.feed_forward_length", uint32(ff))
	g.KV("bert.attention.head_count", uint32(s.Heads))
	g.KV("bert.attention.layer_norm_epsilon", float32(1e-12))
	g.KV("bert.attention.causal", false)
	g.KV("bert.pooling_type", uint32(1)) // mean
	g.KV("tokenizer.ggml.model", "bert")
	g.KV("tokenizer.ggml.tokens", tokens)
	g.KV("tokenizer.ggml.token_type", types)
	g.KV("tokenizer.ggml.padding_token_id", uint32(0))
	g.KV("tokenizer.ggml.unknown_token_id", uint32(1))
	g.KV("tokenizer.ggml.cls_token_id", uint32(2))
	g.KV("tokenizer.ggml.seperator_token_id", uint32(3))
	g.KV("tokenizer.ggml.mask_token_id", uint32(4))

	g.Tensor("token_embd.weight", []uint64{uint64(e), uint64(nv)}, randn(rng, nv*e, 1))
	g.Tensor("token_types.weight", []uint64{uint64(e), 2}, randn(rng, 2*e, std))
	g.Tensor("position_embd.weight", []uint64{uint64(e), uint64(s.TrainCtx)}, randn(rng, s.TrainCtx*e, std))
	g.Tensor("token_embd_norm.weight", []uint64{uint64(e)}, ones(e))
	g.Tensor("token_embd_norm.bias", []uint64{uint64(e)}, make([]float32, e))
	for l := 0; l < s.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_output"} {
			g.Tensor(p+n+".weight", []uint64{uint64(e), uint64(e)}, randn(rng, e*e, std))
			g.Tensor(p+n+".bias", []uint64{uint64(e)}, make([]float32, e))
		}
		g.Tensor(p+"attn_output_norm.weight", []uint64{uint64(e)}, ones(e))
		g.Tensor(p+"attn_output_norm.bias", []uint64{uint64(e)}, make([]float32, e))
		g.Tensor(p+"ffn_up.weight", []uint64{uint64(e), uint64(ff)}, randn(rng, e*ff, std))
		g.Tensor(p+"ffn_up.bias", []uint64{uint64(ff)}, make([]float32, ff))
		g.Tensor(p+"ffn_down.weight", []uint64{uint64(ff), uint64(e)}, randn(rng, e*ff, std))
		g.Tensor(p+"ffn_down.bias", []uint64{uint64(e)}, make([]float32, e))
		g.Tensor(p+"layer_output_norm.weight", []uint64{uint64(e)}, ones(e))
		g.Tensor(p+"layer_output_norm.bias", []uint64{uint64(e)}, make([]float32, e))
	}
	return g, g.err
}

func randn(rng *rand.Rand, n int, std float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64() * std)
	}
	return out
}

func ones(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// modelfile returns a Modelfile importing gguf with the given PARAMETERs.
func modelfile(gguf, template string, params map[string]string, stops []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n", gguf)
	if template != "" {
		fmt.Fprintf(&b, "TEMPLATE \"\"\"%s\"\"\"\n", template)
	}
	for _, k := range sortedKeys(params) {
		fmt.Fprintf(&b, "PARAMETER %s %s\n", k, params[k])
	}
	for _, s := range stops {
		fmt.Fprintf(&b, "PARAMETER stop %q\n", s)
	}
	return b.String()
}
