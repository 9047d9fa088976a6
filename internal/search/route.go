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
//
// The headers are kept as an inverted index over the Index's vocabulary, so
// routing a question costs the header postings of its words, not a look-up
// in every document: with many similar contracts (a deal room of one
// template) the words of a question occur in few headers each.
type router struct {
	post   [][]routePosting // by term id; sorted by document
	docLen []int32          // header terms per document
	total  int64            // header terms of all documents
}

// routePosting is one document whose header holds a term.
type routePosting struct {
	doc int32
	tf  uint16
	// name is 1 when the term is in the name, header or opening (what may
	// name the contract), 0 when only in the model-written summary.
	name uint8
	_    uint8
}

// addRoute indexes the header of document di.
func (ix *Index) addRoute(di int32, seg *Segment) {
	r := &ix.router
	type count struct {
		tf   int
		name bool
	}
	terms := map[int32]*count{}
	var order []int32
	n := 0
	see := func(t string, name bool) {
		tid := ix.termID(t)
		c := terms[tid]
		if c == nil {
			c = &count{}
			terms[tid] = c
			order = append(order, tid)
		}
		c.tf++
		c.name = c.name || name
		n++
	}
	for _, t := range Analyze(nameWords(seg.Name) + "\n" + seg.Header + "\n" + seg.Opening) {
		see(t, true)
	}
	for _, t := range Analyze(seg.About) {
		see(t, false)
	}
	for _, tid := range order {
		c := terms[tid]
		p := routePosting{doc: di, tf: uint16(min(c.tf, math.MaxUint16))}
		if c.name {
			p.name = 1
		}
		r.post[tid] = append(r.post[tid], p)
	}
	r.docLen = append(r.docLen, int32(n))
	r.total += int64(n)
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
func (r *router) idf(tid int32) float64 {
	df := len(r.post[tid])
	n := float64(len(r.docLen))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// routeTerms returns the distinct ids of the question's terms that occur in
// some header, in question order.
func (ix *Index) routeTerms(terms []string) []int32 {
	var out []int32
	seen := map[int32]bool{}
	for _, t := range terms {
		tid, ok := ix.vocab[t]
		if !ok || seen[tid] || len(ix.router.post[tid]) == 0 {
			continue
		}
		seen[tid] = true
		out = append(out, tid)
	}
	return out
}

// route scores every document header against the question's terms and
// returns the best one when it stands out. A document is named when its best
// score is both large in absolute terms (several rare header words matched)
// and clearly ahead of the runner-up.
func (ix *Index) route(terms []string) routeResult {
	r := &ix.router
	res := routeResult{doc: -1}
	if len(r.docLen) < 2 || len(terms) == 0 {
		return res
	}
	avg := float64(r.total) / float64(len(r.docLen))
	score := make([]float64, len(r.docLen))
	var touched []int32
	for _, tid := range ix.routeTerms(terms) {
		w := r.idf(tid)
		for _, p := range r.post[tid] {
			if uint(p.doc) >= uint(len(r.docLen)) {
				continue // a damaged index file; see persist.go
			}
			tf := float64(p.tf)
			// Saturate fast: a header that says "Inc." ten times is no more
			// about Inc. than one that says it once.
			norm := 0.5 * (1 - 0.3 + 0.3*float64(r.docLen[p.doc])/avg)
			if score[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			score[p.doc] += w * tf * 1.5 / (tf + norm)
		}
	}
	if len(touched) == 0 {
		return res
	}
	type ds struct {
		doc   int32
		score float64
	}
	ahead := func(a, b ds) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.doc < b.doc
	}
	best, second := ds{-1, 0}, ds{-1, 0}
	for _, d := range touched {
		s := ds{d, score[d]}
		switch {
		case best.doc < 0 || ahead(s, best):
			best, second = s, best
		case second.doc < 0 || ahead(s, second):
			second = s
		}
	}
	res.score = best.score
	if second.doc >= 0 {
		res.runnerUp = second.score
	}
	// The score one word found in a single header would get, for scale.
	maxIDF := math.Log(1 + (float64(len(r.docLen))-0.5)/1.5)
	if best.score < routeMinWords*maxIDF {
		return res
	}
	// Documents close to the best (the same parties' other agreements, a
	// typo in a name) stay candidates; the clause search decides among them.
	var close []ds
	for _, d := range touched {
		if score[d] >= routeCloseRatio*best.score {
			close = append(close, ds{d, score[d]})
		}
	}
	sort.Slice(close, func(i, j int) bool { return ahead(close[i], close[j]) })
	for _, d := range close[:min(len(close), routeMaxDocs)] {
		res.docs = append(res.docs, int(d.doc))
	}
	res.doc = int(best.doc)
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
func (ix *Index) referenceTerms(terms []string, breaks []bool, doc int) map[int]bool {
	r := &ix.router
	if doc < 0 || doc >= len(r.docLen) {
		return nil
	}
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = -1
		if tid, ok := ix.vocab[t]; ok && r.names(tid, int32(doc)) {
			ids[i] = tid
		}
	}
	rare := math.Log(1+(float64(len(r.docLen))-0.5)/1.5) * 0.5
	out := map[int]bool{}
	for i := 0; i < len(terms); {
		if ids[i] < 0 {
			i++
			continue
		}
		j := i
		hasRare := false
		for j < len(terms) && ids[j] >= 0 && (j == i || !breaks[j]) {
			if r.idf(ids[j]) >= rare {
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

// names reports whether term tid is in the name, header or opening of
// document doc.
func (r *router) names(tid, doc int32) bool {
	pl := r.post[tid]
	i := sort.Search(len(pl), func(i int) bool { return pl[i].doc >= doc })
	return i < len(pl) && pl[i].doc == doc && pl[i].name == 1
}
