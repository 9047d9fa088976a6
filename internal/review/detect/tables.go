package detect

import "sync"

// tables are a prepared contract's words and features as indexes into
// per-contract lists, so the scorer looks a word's weight or a feature's
// detector row up once per contract instead of once per occurrence, and
// scores a passage by walking arrays. They are built on first use (or read
// with a stored preparation) and change no score: every sum runs over the
// same values in the same order as over the strings.
type tables struct {
	vocab []string // the contract's distinct analyzed words
	// bags holds, per passage, its distinct words (of Words, then of
	// Context) in order of first appearance with their weights: 1 per
	// occurrence in the passage, headingShare per occurrence in its headings.
	bags [][]bagItem
	// words holds, per passage, its Words as indexes into vocab.
	words [][]int32
	feats []uint32  // the contract's distinct features
	fidx  [][]int32 // per passage, its features as indexes into feats
}

type bagItem struct {
	w  int32
	tf float64
}

// tableParts holds what a stored preparation gives the tables beside its
// strings: the vocabulary and every passage's words and heading words as
// indexes into it, and the feature table with every passage's indexes.
type tableParts struct {
	vocab   []string
	words   [][]int32
	context [][]int32
	feats   []uint32
	fidx    [][]int32
}

type lazyTables struct {
	once  sync.Once
	parts *tableParts // set by a stored preparation; nil: from the strings
	t     *tables
}

// tables returns p's tables, building them on first use.
func (p *Prepared) tables() *tables {
	p.tab.once.Do(func() {
		parts := p.tab.parts
		if parts == nil {
			parts = p.partsFromStrings()
		}
		p.tab.parts = nil
		p.tab.t = buildTables(parts)
	})
	return p.tab.t
}

// partsFromStrings indexes a prepared contract's words and features.
func (p *Prepared) partsFromStrings() *tableParts {
	passages := p.wordPassages()
	parts := &tableParts{words: make([][]int32, len(p.passages)), context: make([][]int32, len(p.passages)), fidx: make([][]int32, len(p.passages))}
	vocab := map[string]int32{}
	ids := func(ws []string) []int32 {
		out := make([]int32, len(ws))
		for i, w := range ws {
			k, ok := vocab[w]
			if !ok {
				k = int32(len(parts.vocab))
				vocab[w] = k
				parts.vocab = append(parts.vocab, w)
			}
			out[i] = k
		}
		return out
	}
	feat := map[uint32]int32{}
	for i := range p.passages {
		parts.words[i] = ids(passages[i].Words)
		parts.context[i] = ids(passages[i].Context)
		var pf []uint32
		if i < len(p.feats) {
			pf = p.feats[i]
		}
		fi := make([]int32, len(pf))
		for j, f := range pf {
			k, ok := feat[f]
			if !ok {
				k = int32(len(parts.feats))
				feat[f] = k
				parts.feats = append(parts.feats, f)
			}
			fi[j] = k
		}
		parts.fidx[i] = fi
	}
	return parts
}

func buildTables(parts *tableParts) *tables {
	t := &tables{vocab: parts.vocab, words: parts.words, feats: parts.feats, fidx: parts.fidx, bags: make([][]bagItem, len(parts.words))}
	// at[w] is where word w sits in the bag being built, plus one (0: not
	// in it yet); reset after each passage.
	at := make([]int32, len(parts.vocab))
	// A bag holds at most its passage's words and headings: one array for
	// all, allocated once.
	size := 0
	for k := range parts.words {
		size += len(parts.words[k]) + len(parts.context[k])
	}
	buf := make([]bagItem, 0, size)
	for k := range parts.words {
		start := len(buf)
		for _, w := range parts.words[k] {
			if at[w] == 0 {
				buf = append(buf, bagItem{w: w})
				at[w] = int32(len(buf) - start)
			}
			buf[start+int(at[w])-1].tf++
		}
		for _, w := range parts.context[k] {
			if at[w] == 0 {
				buf = append(buf, bagItem{w: w})
				at[w] = int32(len(buf) - start)
			}
			buf[start+int(at[w])-1].tf += headingShare
		}
		for _, it := range buf[start:] {
			at[it.w] = 0
		}
		t.bags[k] = buf[start:len(buf):len(buf)]
	}
	return t
}
