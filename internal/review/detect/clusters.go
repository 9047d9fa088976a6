package detect

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Word clusters learnt from the training contracts. A provision labelled in
// a dozen contracts is worded a dozen ways ("disparaging", "injurious to the
// goodwill", "detrimental to the image"), and its playbook profile in a few
// more; the zero-shot scorer's cosine of words gives nothing for a word the
// profile does not hold. Words used in the same company in contract
// language — the words around them — are grouped into clusters, and the
// zero-shot scorer also compares a passage with a profile by their words
// counted by cluster (zeroShot.cterms), so a passage that says what the
// profile says in other words still scores.
//
// The clusters are learnt from the training contracts' text alone (no
// labels), when the detectors are trained with TrainOptions.Relations, and
// are written into the detectors file (Detectors.Clusters), so a contract
// is scored with the clusters its detectors were trained with. Learning
// them:
//
//  1. the vocabulary is the words in at least clusterMinDF passages (at
//     most clusterVocab, the most frequent), numbers left out;
//  2. each word's contexts are the clusterContexts most frequent words,
//     counted within clusterWindow words either side, weighted by positive
//     pointwise mutual information (contexts' counts smoothed to the power
//     0.75);
//  3. those rows are projected onto clusterDims random directions (a
//     seeded, reproducible projection that keeps their cosines) and
//     normalised;
//  4. spherical k-means (clusterK clusters, at most clusterIters rounds)
//     from words spread evenly over the frequency ranking.
//
// (Cluster features "c:N" for the detectors themselves were measured too,
// and lowered every headline measure: docs/EVALUATION.md.)
const (
	clusterMinDF    = 8
	clusterVocab    = 8000
	clusterContexts = 1000
	clusterWindow   = 5
	clusterDims     = 96
	clusterK        = 256
	clusterIters    = 12
)

// learnClusters groups the training contracts' words into clusters: word →
// cluster number (nil when the contracts have too few words to group).
func learnClusters(docs []TrainingDoc) map[string]int {
	vocab := clusterVocabulary(docs)
	if len(vocab) < 2*clusterK {
		return nil
	}
	vec := wordVectors(docs, vocab)
	if vec == nil {
		return nil
	}
	assign := sphericalKMeans(vec, len(vocab))
	out := make(map[string]int, len(vocab))
	for i, w := range vocab {
		out[w] = assign[i]
	}
	return out
}

// clusterVocabulary returns the words in at least clusterMinDF passages,
// most frequent first (ties by the word), at most clusterVocab.
func clusterVocabulary(docs []TrainingDoc) []string {
	df := map[string]int{}
	seen := map[string]bool{}
	for _, d := range docs {
		for k := range d.Prep.passages {
			clear(seen)
			for _, w := range d.Prep.wordPassages()[k].Words {
				if !seen[w] && w != "<num>" {
					seen[w] = true
					df[w]++
				}
			}
		}
	}
	var vocab []string
	for w, c := range df {
		if c >= clusterMinDF {
			vocab = append(vocab, w)
		}
	}
	sort.Slice(vocab, func(a, b int) bool {
		if df[vocab[a]] != df[vocab[b]] {
			return df[vocab[a]] > df[vocab[b]]
		}
		return vocab[a] < vocab[b]
	})
	return vocab[:min(len(vocab), clusterVocab)]
}

// wordVectors returns the vocabulary's words as rows of clusterDims
// numbers (row i is vocab[i]): their PPMI with the most frequent words
// around them, randomly projected and normalised; nil when no word has a
// context.
func wordVectors(docs []TrainingDoc, vocab []string) []float64 {
	V, C := len(vocab), min(clusterContexts, len(vocab))
	id := make(map[string]int, V)
	for i, w := range vocab {
		id[w] = i
	}
	co := make([]float32, V*C)
	rowSum := make([]float64, V)
	colSum := make([]float64, C)
	var total float64
	idx := make([]int, 0, 512)
	for _, d := range docs {
		for k := range d.Prep.passages {
			idx = idx[:0]
			for _, w := range d.Prep.wordPassages()[k].Words {
				i, ok := id[w]
				if !ok {
					i = -1
				}
				idx = append(idx, i)
			}
			for a, i := range idx {
				if i < 0 {
					continue
				}
				for b := max(0, a-clusterWindow); b <= min(len(idx)-1, a+clusterWindow); b++ {
					j := idx[b]
					if b == a || j < 0 || j >= C {
						continue
					}
					co[i*C+j]++
					rowSum[i]++
					colSum[j]++
					total++
				}
			}
		}
	}
	if total == 0 {
		return nil
	}
	var colNorm float64
	colP := make([]float64, C)
	for j, c := range colSum {
		colP[j] = math.Pow(c, 0.75)
		colNorm += colP[j]
	}
	for j := range colP {
		colP[j] /= colNorm
	}
	rng := rand.New(rand.NewPCG(0x5eed, 0xc1a5))
	proj := make([]float64, C*clusterDims)
	for i := range proj {
		proj[i] = rng.NormFloat64()
	}
	vec := make([]float64, V*clusterDims)
	for i := range V {
		if rowSum[i] == 0 {
			continue
		}
		v := vec[i*clusterDims : (i+1)*clusterDims]
		for j := range C {
			c := float64(co[i*C+j])
			if c == 0 {
				continue
			}
			pmi := math.Log(c / rowSum[i] / colP[j])
			if pmi <= 0 {
				continue
			}
			pr := proj[j*clusterDims : (j+1)*clusterDims]
			for d := range v {
				v[d] += pmi * pr[d]
			}
		}
		normalize(v)
	}
	return vec
}

// sphericalKMeans assigns each of the V rows of vec (clusterDims numbers
// each, normalised) to one of clusterK clusters, started from rows spread
// evenly over the order given (the frequency ranking).
func sphericalKMeans(vec []float64, V int) []int {
	K := clusterK
	cent := make([]float64, K*clusterDims)
	for c := range K {
		copy(cent[c*clusterDims:(c+1)*clusterDims], vec[(c*V/K)*clusterDims:(c*V/K+1)*clusterDims])
	}
	assign := make([]int, V)
	for it := range clusterIters {
		moved := 0
		for i := range V {
			v := vec[i*clusterDims : (i+1)*clusterDims]
			best, bestDot := 0, math.Inf(-1)
			for c := range K {
				ct := cent[c*clusterDims : (c+1)*clusterDims]
				var dot float64
				for d := range v {
					dot += v[d] * ct[d]
				}
				if dot > bestDot {
					best, bestDot = c, dot
				}
			}
			if it == 0 || assign[i] != best {
				moved++
			}
			assign[i] = best
		}
		if moved == 0 {
			break
		}
		clear(cent)
		for i := range V {
			ct := cent[assign[i]*clusterDims : (assign[i]+1)*clusterDims]
			for d, x := range vec[i*clusterDims : (i+1)*clusterDims] {
				ct[d] += x
			}
		}
		for c := range K {
			normalize(cent[c*clusterDims : (c+1)*clusterDims])
		}
	}
	return assign
}

func normalize(v []float64) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] /= n
	}
}
