// Package learnq learns from labelled questions what the passages that
// answer them say and how their clauses are headed, and adds those words to
// a new question like them (search.Query.Learned): the way the review
// detectors learn a provision from labelled contracts, but for any question
// a set of labelled questions asks — "What is the Type of Consideration" in
// a merger agreement is answered by the clause headed "Conversion of
// Shares" that says "converted into the right to receive … in cash".
//
// A Model is trained on examples (a question, the units of the document it
// was asked about, the spans that answer it). Questions asked in the same
// words (the same analyzed terms) form one group. For each group, a word
// is learnt when the units answering a share of its questions use it
// (their text, or their clause's heading as a heading word, index.HeadMark)
// many times more often than the units of their documents at large. A new
// question gets the words of the group whose terms it shares most
// (cosine), weighted by the share of answers using them; a question like
// no group gets the words learnt per word over every question using it.
package learnq

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
)

// The learner's constants. Chosen on the MAUD dev half, scored in folds by
// document (docs/EVALUATION.md, "What was chosen on which set").
const (
	minExamples = 3    // a group learns from at least this many labelled questions
	minCoverage = 0.3  // a word is used by the answers of at least this share of them
	minLift     = 4.0  // and this many times as often as by their documents' units at large
	perQuestion = 20   // words learnt for a group, at most
	maxWeight   = 1.0  // a word used by every answer weighs this much
	minSimilar  = 0.75 // a question borrows a group's words at this cosine or more
	// A question like none of the groups borrows, for each of its words,
	// the words learnt from every question that uses it (asked at least
	// minExamples times), weighted by wordWeight; perWord at most.
	wordWeight = 0.3
	perWord    = 6
)

// Example is one labelled question about one document.
type Example struct {
	// Question is the question's analyzed words, without those that name
	// the document (search.Plan.Terms).
	Question []string
	// Doc names the document (examples of one document share its units).
	Doc string
	// Units are the document's retrieval units; the plain views are read.
	Units []index.UnitInput
	// Gold are the spans that answer the question.
	Gold []document.Span
}

// Model is what was learnt: per group of questions asked in the same
// words, the words their answers use.
type Model struct {
	groups []group
	words  map[string][]search.Weighted // per question word, over every question using it
}

type group struct {
	terms []string // the question's distinct terms, sorted
	words []search.Weighted
}

// docStats are one document's units analyzed once: per unit its distinct
// terms (body words and heading words).
type docStats struct {
	spans [][]document.Span
	terms [][]string
	rate  map[string]float64 // share of the document's units using a term
}

func analyzeDoc(units []index.UnitInput) *docStats {
	ds := &docStats{rate: map[string]float64{}}
	n := 0
	for _, u := range units {
		if u.View != index.ViewPlain {
			continue
		}
		set := map[string]bool{}
		for _, t := range index.Analyze(u.Text) {
			set[t] = true
		}
		for _, t := range index.Analyze(u.Heading) {
			set[index.HeadMark+t] = true
		}
		ts := make([]string, 0, len(set))
		for t := range set {
			ts = append(ts, t)
			ds.rate[t]++
		}
		ds.spans = append(ds.spans, u.Spans)
		ds.terms = append(ds.terms, ts)
		n++
	}
	for t := range ds.rate {
		ds.rate[t] /= float64(max(n, 1))
	}
	return ds
}

// answers reports whether a unit's spans answer: at least half of the unit
// lies in the gold spans, or it holds at least half of one gold span.
func answers(spans, gold []document.Span) bool {
	for _, sp := range spans {
		in := 0
		for _, g := range gold {
			x := sp.Intersect(g).Len()
			if x > 0 && 2*x >= g.Len() {
				return true
			}
			in += x
		}
		if sp.Len() > 0 && 2*in >= sp.Len() {
			return true
		}
	}
	return false
}

// Key is the group a question belongs to: its distinct terms, sorted.
func Key(question []string) string { return strings.Join(distinct(question), " ") }

func distinct(ts []string) []string {
	out := slices.Clone(ts)
	sort.Strings(out)
	return slices.Compact(out)
}

// Train learns a model from examples. Examples whose document has no
// answering unit teach nothing.
func Train(examples []Example) *Model {
	stats := map[string]*docStats{}
	byKey := map[string][]int{}
	var keys []string
	for i, e := range examples {
		if _, ok := stats[e.Doc]; !ok {
			stats[e.Doc] = analyzeDoc(e.Units)
		}
		k := Key(e.Question)
		if k == "" {
			continue
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	m := &Model{words: map[string][]search.Weighted{}}
	// Word groups: every question using a word.
	byWord := map[string][]int{}
	var wordKeys []string
	for i, e := range examples {
		for _, t := range distinct(e.Question) {
			if _, ok := byWord[t]; !ok {
				wordKeys = append(wordKeys, t)
			}
			byWord[t] = append(byWord[t], i)
		}
	}
	for _, t := range wordKeys {
		if ws := learn(examples, stats, byWord[t], perWord, wordWeight); len(ws) > 0 {
			m.words[t] = ws
		}
	}
	for _, k := range keys {
		ws := learn(examples, stats, byKey[k], perQuestion, maxWeight)
		if len(ws) > 0 {
			m.groups = append(m.groups, group{terms: strings.Fields(k), words: ws})
		}
	}
	return m
}

// learn returns the words the answers of examples idx use many times more
// often than their documents' units at large: at most limit, a word used by
// every answer weighing weight.
func learn(examples []Example, stats map[string]*docStats, idx []int, limit int, weight float64) []search.Weighted {
	cov := map[string]float64{} // documents whose answer uses the term
	var docs []*docStats
	for _, i := range idx {
		e := examples[i]
		ds := stats[e.Doc]
		used := map[string]bool{}
		for u, sp := range ds.spans {
			if answers(sp, e.Gold) {
				for _, t := range ds.terms[u] {
					used[t] = true
				}
			}
		}
		if len(used) == 0 {
			continue
		}
		docs = append(docs, ds)
		for t := range used {
			cov[t]++
		}
	}
	n := len(docs)
	if n < minExamples {
		return nil
	}
	type cand struct {
		t     string
		c, sc float64
	}
	var cs []cand
	for t, c := range cov {
		c /= float64(n)
		if c < minCoverage {
			continue
		}
		bg := 0.0
		for _, ds := range docs {
			bg += ds.rate[t]
		}
		bg = max(bg/float64(n), 1e-4)
		lift := c / bg
		if lift < minLift {
			continue
		}
		cs = append(cs, cand{t, c, c * math.Log(lift)})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].sc != cs[j].sc {
			return cs[i].sc > cs[j].sc
		}
		return cs[i].t < cs[j].t
	})
	var out []search.Weighted
	for _, c := range cs[:min(len(cs), limit)] {
		out = append(out, search.Weighted{Term: c.t, Weight: weight * c.c})
	}
	return out
}

// Groups is the number of question groups the model learnt words for.
func (m *Model) Groups() int {
	if m == nil {
		return 0
	}
	return len(m.groups)
}

// Expand returns the words learnt for the groups of questions most like
// question (its analyzed terms, without those naming the document): those
// at the best cosine, if it is at least minSimilar, each word weighted by
// its learnt weight times the cosine.
func (m *Model) Expand(question []string) []search.Weighted {
	if m == nil {
		return nil
	}
	q := distinct(question)
	if len(q) == 0 {
		return nil
	}
	best, bestSim := -1, 0.0
	for i, g := range m.groups {
		shared := 0
		for _, t := range g.terms {
			if _, ok := slices.BinarySearch(q, t); ok {
				shared++
			}
		}
		sim := float64(shared) / math.Sqrt(float64(len(q)*len(g.terms)))
		if sim > bestSim+1e-9 {
			best, bestSim = i, sim
		}
	}
	if best < 0 || bestSim < minSimilar {
		return m.expandWords(q)
	}
	out := make([]search.Weighted, len(m.groups[best].words))
	for i, w := range m.groups[best].words {
		out[i] = search.Weighted{Term: w.Term, Weight: w.Weight * bestSim}
	}
	return out
}

// expandWords returns, for a question like no group, the words learnt for
// each of its words, a word learnt for several keeping its largest weight.
func (m *Model) expandWords(q []string) []search.Weighted {
	at := map[string]int{}
	var out []search.Weighted
	for _, t := range q {
		for _, w := range m.words[t] {
			if i, ok := at[w.Term]; ok {
				out[i].Weight = max(out[i].Weight, w.Weight)
				continue
			}
			at[w.Term] = len(out)
			out = append(out, w)
		}
	}
	return out
}
