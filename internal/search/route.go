package search

import (
	"math"
	"sort"
	"strings"
)

// router matches questions that name a contract ("Consider the Supply
// Agreement between A and B; …", "in the Acme NDA …") to that contract. Each
// document is represented by its header: its name and its deterministic
// summary (title, parties, type). Routing prevents document-level retrieval
// mismatch: a question about one contract answered from another.
type router struct {
	docs  []routeDoc
	df    map[string]int
	total int
}

type routeDoc struct {
	id    string
	terms map[string]int  // name, summary, opening text and model summary: what routing matches
	names map[string]bool // the same without the model summary: what may name the contract
	len   int
}

func newRouter() *router { return &router{df: map[string]int{}} }

func (r *router) add(id, name, header, opening, about string) {
	terms := map[string]int{}
	names := map[string]bool{}
	n := 0
	for _, t := range Analyze(nameWords(name) + "\n" + header + "\n" + opening) {
		terms[t]++
		names[t] = true
		n++
	}
	for _, t := range Analyze(about) {
		terms[t]++
		n++
	}
	for t := range terms {
		r.df[t]++
	}
	r.docs = append(r.docs, routeDoc{id: id, terms: terms, names: names, len: n})
	r.total += n
}

// nameWords turns a file name into words: extension dropped, separators and
// camel-case humps become spaces.
func nameWords(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 6 {
		name = name[:i]
	}
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ',' || r == '(' || r == ')':
			b.WriteByte(' ')
			prevLower = false
			continue
		case r >= 'A' && r <= 'Z' && prevLower:
			b.WriteByte(' ')
		}
		prevLower = r >= 'a' && r <= 'z'
		b.WriteRune(r)
	}
	return b.String()
}

// routeResult is the outcome of routing one question.
type routeResult struct {
	doc      int   // the best document, or -1 when no document is named
	docs     []int // every document the question may name, best first
	score    float64
	runnerUp float64
}

// idf is the inverse document frequency of a term among document headers.
func (r *router) idf(t string) float64 {
	df := r.df[t]
	n := float64(len(r.docs))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// route scores every document header against the question's terms and
// returns the best one when it stands out. A document is named when its best
// score is both large in absolute terms (several rare header words matched)
// and clearly ahead of the runner-up.
func (r *router) route(terms []string) routeResult {
	res := routeResult{doc: -1}
	if len(r.docs) < 2 || len(terms) == 0 {
		return res
	}
	uniq := map[string]bool{}
	for _, t := range terms {
		uniq[t] = true
	}
	avg := float64(r.total) / float64(len(r.docs))
	type ds struct {
		doc   int
		score float64
	}
	scores := make([]ds, 0, 16)
	for i, d := range r.docs {
		s := 0.0
		for t := range uniq {
			tf := float64(d.terms[t])
			if tf == 0 {
				continue
			}
			// Saturate fast: a header that says "Inc." ten times is no more
			// about Inc. than one that says it once.
			norm := 0.5 * (1 - 0.3 + 0.3*float64(d.len)/avg)
			s += r.idf(t) * tf * 1.5 / (tf + norm)
		}
		if s > 0 {
			scores = append(scores, ds{i, s})
		}
	}
	if len(scores) == 0 {
		return res
	}
	sort.Slice(scores, func(i, j int) bool {
		if scores[i].score != scores[j].score {
			return scores[i].score > scores[j].score
		}
		return scores[i].doc < scores[j].doc
	})
	best := scores[0]
	res.score = best.score
	if len(scores) > 1 {
		res.runnerUp = scores[1].score
	}
	// The score one word found in a single header would get, for scale.
	maxIDF := math.Log(1 + (float64(len(r.docs))-0.5)/1.5)
	if best.score < routeMinWords*maxIDF {
		return res
	}
	// Documents close to the best (the same parties' other agreements, a
	// typo in a name) stay candidates; the clause search decides among them.
	for _, s := range scores {
		if s.score < routeCloseRatio*best.score || len(res.docs) == routeMaxDocs {
			break
		}
		res.docs = append(res.docs, s.doc)
	}
	res.doc = best.doc
	return res
}

const (
	routeMinWords   = 1.5  // best header score, in units of one unique word
	routeCloseRatio = 0.75 // candidates score at least this share of the best
	routeMaxDocs    = 4    // at most this many candidate documents
)

// referenceTerms returns the positions of question terms that name the
// document with the given header terms: runs of two or more consecutive
// question terms that all occur in the header, at least one of them rare among
// headers, within one part of the question (a run never crosses a break:
// "Consider the Acme Supply Agreement; is liability capped?" names the
// contract before the semicolon only). Those words identify the contract; they say nothing about which of
// its clauses answers, so in-document search leaves them out.
func (r *router) referenceTerms(terms []string, breaks []bool, doc int) map[int]bool {
	if doc < 0 || doc >= len(r.docs) {
		return nil
	}
	h := r.docs[doc].names
	rare := math.Log(1+(float64(len(r.docs))-0.5)/1.5) * 0.5
	out := map[int]bool{}
	for i := 0; i < len(terms); {
		if !h[terms[i]] {
			i++
			continue
		}
		j := i
		hasRare := false
		for j < len(terms) && h[terms[j]] && (j == i || !breaks[j]) {
			if r.idf(terms[j]) >= rare {
				hasRare = true
			}
			j++
		}
		if j-i >= 2 && hasRare {
			for k := i; k < j; k++ {
				out[k] = true
			}
		}
		i = j
	}
	return out
}
