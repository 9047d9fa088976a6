package detect

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/pakton/pakton/internal/review/playbook"
)

// The zero-shot scorer finds a provision nobody labelled from what the
// playbook says about it. Its profile is a weighted bag of the words of the
// provision's name, definition, questions, keywords and example clauses; a
// passage scores the cosine between that profile and the passage's words
// (its headings count at half weight), both weighted by how rare each word is
// in contract language, plus a bonus for every keyword phrase it contains
// (respecting the keyword's proximity rule).

// Weights of the parts of a provision in its profile.
const (
	profName     = 3.0
	profDef      = 1.0
	profQuestion = 1.0
	profKeyword  = 2.0
	profExamples = 2.0 // shared by all the examples
	headingShare = 0.5
	keywordBonus = 0.1 // per unit of keyword boost
	keywordCap   = 3.0 // boost counted at most
)

type zsRef struct {
	prov int
	w    float64
}

type phrase struct {
	words  []string
	near   [][]string
	within int
	boost  float64
}

type zeroShot struct {
	det     *Detectors
	terms   map[string][]zsRef // word → the provisions whose profile holds it
	norms   []float64          // |profile| per provision
	phrases [][]phrase         // keywords per provision
	n       int
	// With word clusters (Detectors.Clusters), the profile's words are
	// also counted by cluster: a passage that says what the profile says
	// in other words of the same clusters scores clusterShare of the
	// cosine of the two cluster bags on top.
	cterms map[int][]zsRef // cluster → the provisions whose profile holds it
	cnorms []float64
}

// clusterShare weighs the cosine of a passage's and a profile's words
// counted by cluster against the cosine of their words.
const clusterShare = 0.5

func newZeroShot(pb *playbook.Playbook, det *Detectors) *zeroShot {
	z := &zeroShot{det: det, terms: map[string][]zsRef{}, n: len(pb.Provisions)}
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		prof := map[string]float64{}
		addText := func(text string, w float64) {
			words := Analyze(text)
			for _, t := range words {
				prof[t] += w
			}
		}
		addText(p.Name, profName)
		addText(p.Definition, profDef)
		for _, q := range p.Questions {
			addText(q, profQuestion)
		}
		var ph []phrase
		for _, k := range p.Keywords {
			addText(k.Text, profKeyword*k.Boost)
			if kp := phraseOf(k, k.Boost); len(kp.words) > 0 {
				ph = append(ph, kp)
			}
		}
		if len(p.Examples) > 0 {
			share := profExamples / float64(len(p.Examples))
			for _, e := range p.Examples {
				addText(e, share)
			}
		}
		var norm float64
		cprof := map[int]float64{}
		for _, t := range sortedKeys(prof) {
			w := prof[t]
			// Dampen repetition: a word said ten times in a long definition
			// should not drown the rest.
			v := (1 + math.Log(w)) * z.idf(t)
			if w < 1 {
				v = w * z.idf(t)
			}
			if v <= 0 {
				continue
			}
			z.terms[t] = append(z.terms[t], zsRef{prov: i, w: v})
			norm += v * v
			if c, ok := z.cluster(t); ok {
				cprof[c] += v
			}
		}
		z.norms = append(z.norms, math.Sqrt(norm))
		if z.hasClusters() {
			if z.cterms == nil {
				z.cterms = map[int][]zsRef{}
			}
			cs := make([]int, 0, len(cprof))
			for c := range cprof {
				cs = append(cs, c)
			}
			sort.Ints(cs)
			var cn float64
			for _, c := range cs {
				z.cterms[c] = append(z.cterms[c], zsRef{prov: i, w: cprof[c]})
				cn += cprof[c] * cprof[c]
			}
			z.cnorms = append(z.cnorms, math.Sqrt(cn))
		}
		z.phrases = append(z.phrases, ph)
	}
	return z
}

func (z *zeroShot) hasClusters() bool { return z.det != nil && len(z.det.Clusters) > 0 }

// cluster returns the cluster of word w, if it has one.
func (z *zeroShot) cluster(w string) (int, bool) {
	if !z.hasClusters() {
		return 0, false
	}
	c, ok := z.det.Clusters[w]
	return c, ok
}

func (z *zeroShot) idf(w string) float64 {
	if z.det == nil || z.det.IDF == nil {
		return 1
	}
	return z.det.idf(w)
}

// logTFs holds math.Log of the term frequencies a bag holds most: counts of
// whole words and of heading words (headingShare), k/2 for k < len.
var logTFs = func() (t [256]float64) {
	for k := range t {
		t[k] = math.Log(float64(k) / 2)
	}
	return t
}()

// logTF is math.Log(tf), from logTFs when tf is one of theirs (the same
// value: a sum of ones and halves is exact in a float64).
func logTF(tf float64) float64 {
	if k := int(tf * 2); k >= 0 && k < len(logTFs) && float64(k) == tf*2 {
		return logTFs[k]
	}
	return math.Log(tf)
}

// scores returns every provision's zero-shot score of every passage.
func (z *zeroShot) scores(prep *Prepared) [][]float64 {
	out := make([][]float64, z.n)
	for i := range out {
		out[i] = make([]float64, len(prep.passages))
	}
	t := prep.tables()
	// Each distinct word's weight and profiles, looked up once.
	sc := getScratch()
	defer putScratch(sc)
	sc.idf, sc.refs = sized(sc.idf, len(t.vocab)), sized(sc.refs, len(t.vocab))
	idf, refs := sc.idf, sc.refs
	for i, w := range t.vocab {
		idf[i], refs[i] = z.idf(w), z.terms[w]
	}
	kw := z.keywordTables(t)
	// in[w] is k+1 while passage k's bag (its words and headings) holds
	// word w: a keyword whose first word is in no passage's bag is not
	// looked for in it.
	var in []int32
	if kw != nil {
		in = make([]int32, len(t.vocab))
	}
	dot := make([]float64, z.n)
	// each word's cluster (-1: none), and a passage's weight per cluster
	var cluster []int
	var cbag map[int]float64
	var cdot []float64
	if z.cterms != nil {
		cluster = make([]int, len(t.vocab))
		for i, w := range t.vocab {
			cluster[i] = -1
			if c, ok := z.cluster(w); ok {
				cluster[i] = c
			}
		}
		cbag = map[int]float64{}
		cdot = make([]float64, z.n)
	}
	for k := range prep.passages {
		// The passage's words with their weights, in order of first
		// appearance, so sums run in the same order on every run.
		clear(dot)
		var norm float64
		for _, it := range t.bags[k] {
			tf := it.tf
			v := (1 + logTF(tf)) * idf[it.w]
			if tf < 1 {
				v = tf * idf[it.w]
			}
			norm += v * v
			if in != nil {
				in[it.w] = int32(k + 1)
			}
			for _, ref := range refs[it.w] {
				dot[ref.prov] += v * ref.w
			}
			if cluster != nil && cluster[it.w] >= 0 {
				cbag[cluster[it.w]] += v
			}
		}
		norm = math.Sqrt(norm)
		var cnorm float64
		if cluster != nil {
			clear(cdot)
			cs := make([]int, 0, len(cbag))
			for c := range cbag {
				cs = append(cs, c)
			}
			sort.Ints(cs) // sums in a fixed order
			for _, c := range cs {
				v := cbag[c]
				cnorm += v * v
				for _, ref := range z.cterms[c] {
					cdot[ref.prov] += v * ref.w
				}
			}
			cnorm = math.Sqrt(cnorm)
			clear(cbag)
		}
		for i := range dot {
			s := 0.0
			if norm > 0 && z.norms[i] > 0 {
				s = dot[i] / (norm * z.norms[i])
			}
			if cnorm > 0 && z.cnorms[i] > 0 {
				s += clusterShare * cdot[i] / (cnorm * z.cnorms[i])
			}
			if len(z.phrases[i]) > 0 {
				s += keywordBonus * math.Min(kw[i].hits(t.words[k], in, int32(k+1)), keywordCap)
			}
			out[i][k] = s
		}
	}
	return out
}

// KeywordWeight sums the boosts of p's keywords, of boost min or more, that
// text holds, each counted once: a keyword with a proximity rule counts
// only where a near phrase is close enough, as when a passage is scored.
func KeywordWeight(p *playbook.Provision, text string, min float64) float64 {
	return keywordHits(Analyze(text), phrasesOf(p, min))
}

// SaysKeyword reports whether one sentence of text holds every word of one
// of p's keywords of boost min or more, in any order and however far apart,
// and, for a keyword with a proximity rule, every word of one of its near
// phrases: "has been developed by or for the Recipient at any time
// independently of the information" says "independently developed".
func SaysKeyword(p *playbook.Provision, text string, min float64) bool {
	phrases := phrasesOf(p, min)
	if len(phrases) == 0 {
		return false
	}
	for _, sent := range sentenceCut(text) {
		has := map[string]bool{}
		for _, w := range Analyze(sent) {
			has[w] = true
		}
		all := func(ws []string) bool {
			for _, w := range ws {
				if !has[w] {
					return false
				}
			}
			return len(ws) > 0
		}
		for _, ph := range phrases {
			if !all(ph.words) {
				continue
			}
			if len(ph.near) == 0 {
				return true
			}
			for _, n := range ph.near {
				if all(n) {
					return true
				}
			}
		}
	}
	return false
}

// sentenceCut cuts text at the ends of its sentences and clauses: a full
// stop, semicolon, colon, question or exclamation mark followed by a space.
func sentenceCut(text string) []string {
	var out []string
	from := 0
	for i := 0; i+1 < len(text); i++ {
		switch text[i] {
		case '.', ';', ':', '?', '!':
			if c := text[i+1]; c == ' ' || c == '\n' || c == '\t' {
				out = append(out, text[from:i+1])
				from = i + 1
			}
		}
	}
	return append(out, text[from:])
}

var keywordPhrases sync.Map // provision name and keywords, min → []phrase

// phrasesOf returns p's keywords of boost min or more as phrases.
func phrasesOf(p *playbook.Provision, min float64) []phrase {
	key := fmt.Sprint(p.Name, p.Keywords, min)
	if ph, ok := keywordPhrases.Load(key); ok {
		return ph.([]phrase)
	}
	var out []phrase
	for _, k := range p.Keywords {
		b := k.Boost
		if b <= 0 {
			b = 1
		}
		if b < min {
			continue
		}
		if kp := phraseOf(k, b); len(kp.words) > 0 {
			out = append(out, kp)
		}
	}
	keywordPhrases.Store(key, out)
	return out
}

// phraseOf is keyword k as a phrase of weight boost.
func phraseOf(k playbook.Keyword, boost float64) phrase {
	kp := phrase{words: Analyze(k.Text), within: k.Within, boost: boost}
	for _, n := range k.Near {
		if w := Analyze(n); len(w) > 0 {
			kp.near = append(kp.near, w)
		}
	}
	return kp
}

// idPhrase is a keyword phrase as indexes into one contract's vocabulary
// (-1: a word the contract does not hold).
type idPhrase struct {
	words  []int32
	near   [][]int32
	within int
	boost  float64
}

// idPhrases are one provision's keywords that the contract holds every
// word of, in the playbook's order.
type idPhrases []idPhrase

// keywordTables returns, per provision, its keywords as indexes into t's
// vocabulary, leaving out those with a word the contract does not hold
// (they are found in none of its passages); nil when no provision has
// keywords.
func (z *zeroShot) keywordTables(t *tables) []idPhrases {
	need := map[string]int32{}
	for _, phs := range z.phrases {
		for _, ph := range phs {
			for _, w := range ph.words {
				need[w] = -1
			}
			for _, nw := range ph.near {
				for _, w := range nw {
					need[w] = -1
				}
			}
		}
	}
	if len(need) == 0 {
		return nil
	}
	for i, w := range t.vocab {
		if _, ok := need[w]; ok {
			need[w] = int32(i)
		}
	}
	ids := func(ws []string) []int32 {
		out := make([]int32, len(ws))
		for j, w := range ws {
			out[j] = need[w]
		}
		return out
	}
	out := make([]idPhrases, len(z.phrases))
	for i, phs := range z.phrases {
	phrases:
		for _, ph := range phs {
			ip := idPhrase{words: ids(ph.words), within: ph.within, boost: ph.boost}
			for _, w := range ip.words {
				if w < 0 {
					continue phrases
				}
			}
			for _, nw := range ph.near {
				ip.near = append(ip.near, ids(nw))
			}
			out[i] = append(out[i], ip)
		}
	}
	return out
}

// hits is keywordHits over a passage's words as vocabulary indexes: the
// same sum, in the same order (a keyword left out of phs, or whose first
// word in[w] does not mark as in the passage's bag, is not in words). in
// marks the words of the passage's bag with mark.
func (phs idPhrases) hits(words []int32, in []int32, mark int32) float64 {
	var total float64
	for _, ph := range phs {
		if in[ph.words[0]] != mark {
			continue
		}
		for at := findPhrase(words, ph.words, 0); at >= 0; at = findPhrase(words, ph.words, at+1) {
			if len(ph.near) == 0 || nearAny(words, at, len(ph.words), ph.near, ph.within) {
				total += ph.boost
				break
			}
		}
	}
	return total
}

// keywordHits sums the boosts of the keywords found in words. A keyword
// with a proximity rule counts when any of its occurrences has a near phrase
// close enough.
func keywordHits(words []string, phrases []phrase) float64 {
	var total float64
	for _, ph := range phrases {
		for at := findPhrase(words, ph.words, 0); at >= 0; at = findPhrase(words, ph.words, at+1) {
			if len(ph.near) == 0 || nearAny(words, at, len(ph.words), ph.near, ph.within) {
				total += ph.boost
				break
			}
		}
	}
	return total
}

// findPhrase returns the first index ≥ from where seq occurs in words, or
// -1: over words, or over their vocabulary indexes.
func findPhrase[T comparable](words, seq []T, from int) int {
	if len(seq) == 0 {
		return -1
	}
outer:
	for i := from; i+len(seq) <= len(words); i++ {
		for j, s := range seq {
			if words[i+j] != s {
				continue outer
			}
		}
		return i
	}
	return -1
}

// nearAny reports whether one of the near phrases occurs within `within`
// words of the match at [at, at+n).
func nearAny[T comparable](words []T, at, n int, near [][]T, within int) bool {
	// Saturating: a window wider than the passage is the passage, whatever
	// the playbook says (at+n+within would overflow for a huge within).
	within = max(within, 0)
	lo := at - min(within, at)
	end := min(at+n, len(words))
	hi := end + min(within, len(words)-end)
	window := words[lo:hi]
	for _, nw := range near {
		if findPhrase(window, nw, 0) >= 0 {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// KeywordPassages returns how many of pr's passages hold one of p's
// keywords of boost min or more (KeywordWeight over each passage).
func (pr *Prepared) KeywordPassages(p *playbook.Provision, min float64) int {
	phrases := phrasesOf(p, min)
	if len(phrases) == 0 {
		return 0
	}
	n := 0
	for _, ps := range pr.passages {
		if keywordHits(ps.Words, phrases) > 0 {
			n++
		}
	}
	return n
}
