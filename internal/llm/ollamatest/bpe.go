package ollamatest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pakton/pakton/examples"
)

// wordRe finds the pieces byte-pair merges may join: a run of letters with
// at most one leading non-letter (usually the space before a word). It is
// the letter branch of the Qwen pre-tokenizer Ollama applies before
// merging (model/models/qwen3), so no learned merge crosses a boundary the
// tokenizer keeps.
var wordRe = regexp.MustCompile(`[^\r\n\pL\pN]?\pL+`)

// trainMerges learns up to n byte-pair merges from text, GPT-2 style: each
// word is a sequence of byte runes (byteRune), and the most frequent
// adjacent pair is merged again and again. Words with bytes outside keep
// are skipped. Ties go to the pair that sorts first, so the result is
// deterministic.
func trainMerges(text string, n int, keep func(b byte) bool) []string {
	counts := map[string]int{}
	for _, w := range wordRe.FindAllString(text, -1) {
		counts[w]++
	}
	type word struct {
		syms  []string
		count int
	}
	var words []*word
	for w, c := range counts {
		ok := true
		syms := make([]string, 0, len(w))
		for i := 0; i < len(w); i++ {
			if !keep(w[i]) {
				ok = false
				break
			}
			syms = append(syms, string(byteRune(w[i])))
		}
		if ok && len(syms) > 1 {
			words = append(words, &word{syms, c})
		}
	}
	sort.Slice(words, func(i, j int) bool { return strings.Join(words[i].syms, "") < strings.Join(words[j].syms, "") })

	var merges []string
	for len(merges) < n {
		pairs := map[[2]string]int{}
		for _, w := range words {
			for i := 0; i+1 < len(w.syms); i++ {
				pairs[[2]string{w.syms[i], w.syms[i+1]}] += w.count
			}
		}
		var best [2]string
		bestN := 1 // a pair seen once is not worth a token
		for p, c := range pairs {
			if c > bestN || (c == bestN && bestN > 1 && p[0]+" "+p[1] < best[0]+" "+best[1]) {
				best, bestN = p, c
			}
		}
		if bestN <= 1 {
			break
		}
		merges = append(merges, best[0]+" "+best[1])
		joined := best[0] + best[1]
		for _, w := range words {
			out := w.syms[:0]
			for i := 0; i < len(w.syms); i++ {
				if i+1 < len(w.syms) && w.syms[i] == best[0] && w.syms[i+1] == best[1] {
					out = append(out, joined)
					i++
					continue
				}
				out = append(out, w.syms[i])
			}
			w.syms = out
		}
	}
	return merges
}

// mergeCorpus is the text the chat model's merges are learned from: the
// example contracts the tests ingest, so that their prompts take about a
// third of the tokens they would one byte per token — a prompt's cost on a
// CPU grows with the square of its length.
func mergeCorpus() string {
	var b strings.Builder
	ents, _ := examples.FS.ReadDir("contracts")
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txt") && !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, _ := examples.FS.ReadFile("contracts/" + e.Name())
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	mergesMu    sync.Mutex
	mergesCache = map[string][]string{}
)

// cachedMerges learns the merges once per process for each vocabulary:
// every test's models share them.
func cachedMerges(ascii bool, n int, keep func(byte) bool) []string {
	key := fmt.Sprint(ascii, n)
	mergesMu.Lock()
	defer mergesMu.Unlock()
	if m, ok := mergesCache[key]; ok {
		return m
	}
	m := trainMerges(mergeCorpus(), n, keep)
	mergesCache[key] = m
	return m
}
