package search

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// router matches questions that name a contract ("Consider the Supply
// Agreement between A and B; …", "in the Acme NDA …") to that contract. Each
// document is represented by its header: its name and its deterministic
// summary (title, parties, type). Routing prevents document-level retrieval
// mismatch: a question about one contract answered from another.
type router struct {
	docs    []routeDoc
	df      map[string]int // documents whose name, header or opening has the term
	titleDF map[string]int // documents whose file name, title or parties have it
	total   int
}

type routeDoc struct {
	id    string
	terms map[string]int  // name, summary, opening text and model summary: what routing matches
	names map[string]bool // the same without the model summary: what may name the contract
	title map[string]bool // file name, title and parties only
	seq   []string        // the same terms in order, for phrase matching
	len   int
}

func newRouter() *router { return &router{df: map[string]int{}, titleDF: map[string]int{}} }

func (r *router) add(id, name, header, opening, about string) {
	terms := map[string]int{}
	names := map[string]bool{}
	title := map[string]bool{}
	seq := Analyze(nameWords(name) + "\n" + header)
	for _, t := range seq {
		if !title[t] {
			title[t] = true
			r.titleDF[t]++
		}
	}
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
	r.docs = append(r.docs, routeDoc{id: id, terms: terms, names: names, title: title, seq: seq, len: n})
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
// score is large in absolute terms (rare header words matched), it is named by
// its title, parties or file name, and no more documents than one contract's
// family (routeMaxDocs) score close to it.
//
// Only words that can name a contract count. A word written like a name
// (named[i]: "Acme", "BRAVATEK") is matched against each document's name,
// header and opening text. Other words count only in a run of two or more
// that all occur in the document's file name, title or parties ("under the
// master services agreement"): a topic word alone ("escrow", "franchisee")
// never names a contract, whichever titles it appears in.
func (r *router) route(terms []string, breaks, named []bool) routeResult {
	res := routeResult{doc: -1}
	if len(r.docs) < 2 || len(terms) == 0 {
		return res
	}
	avg := float64(r.total) / float64(len(r.docs))
	type ds struct {
		doc   int
		score float64
	}
	scores := make([]ds, 0, 16)
	counted := make(map[string]bool, len(terms))
	phrases := map[string]int{} // title phrase → documents whose titles have it
	for i := range r.docs {
		d := &r.docs[i]
		clear(counted)
		s := 0.0
		norm := 0.5 * (1 - 0.3 + 0.3*float64(d.len)/avg)
		for j, t := range terms {
			if counted[t] {
				continue
			}
			var w float64
			switch {
			case named[j] && d.terms[t] > 0:
				// Saturate fast: a header that says "Inc." ten times is no
				// more about Inc. than one that says it once.
				tf := float64(d.terms[t])
				w = r.idf(t) * tf * 1.5 / (tf + norm)
			case d.title[t]:
				n := r.titleRun(terms, breaks, j, d, phrases)
				if n == 0 {
					continue
				}
				// Each word of a title phrase weighs as much as the phrase is
				// rare among titles.
				w = r.idfOf(n)
			default:
				continue
			}
			counted[t] = true
			s += w
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
	// A contract is named by its title, its parties or its file name; words
	// found only in its opening text (defined terms: "Net Sales",
	// "Deliverables") describe what it is about.
	if !r.namedByTitle(terms, &r.docs[best.doc]) {
		return res
	}
	// Documents close to the best (the same parties' other agreements, a
	// typo in a name) stay candidates; the clause search decides among them.
	for _, s := range scores {
		if s.score < routeCloseRatio*best.score {
			break
		}
		if len(res.docs) == routeMaxDocs {
			// More documents than one contract's family match as well: the
			// words name a kind of contract ("the Franchise Agreement"), not one.
			res.docs = nil
			return res
		}
		res.docs = append(res.docs, s.doc)
	}
	res.doc = best.doc
	return res
}

// idfOf is the inverse document frequency of something df documents have.
func (r *router) idfOf(df int) float64 {
	n := float64(len(r.docs))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// titleRun returns, when term j of the question is part of a title phrase,
// the number of titles that phrase occurs in, and 0 otherwise. A title phrase
// is a run of two or more consecutive terms, within one part of the
// question, that occurs as a phrase in the document's file name, title or
// parties, in few titles of the collection (maxNameDocs), and ends with a word
// titles use for kinds of documents ("agreement", "license": in at least one
// title in ten), as an English noun phrase ends with its head. Such a run
// reads "the supply agreement" in a collection with one supply agreement;
// words that some title merely contains ("intellectual property", "the
// agreement renews") name a topic, not the contract.
func (r *router) titleRun(terms []string, breaks []bool, j int, d *routeDoc, cache map[string]int) int {
	lo, hi := j, j
	for lo > 0 && !breaks[lo] && d.title[terms[lo-1]] {
		lo--
	}
	for hi+1 < len(terms) && !breaks[hi+1] && d.title[terms[hi+1]] {
		hi++
	}
	// The longest phrase of the run that holds term j and ends with a kind word.
	var run []string
	for e := hi; e >= j && run == nil; e-- {
		if e == lo || 10*r.titleDF[terms[e]] < len(r.docs) {
			continue
		}
		for st := lo; st <= j && st < e; st++ {
			if containsPhrase(d.seq, terms[st:e+1]) {
				run = terms[st : e+1]
				break
			}
		}
	}
	if run == nil {
		return 0
	}
	key := strings.Join(run, " ")
	n, ok := cache[key]
	if !ok {
		n = r.phraseDocs(run)
		cache[key] = n
	}
	if n > maxNameDocs(len(r.docs)) {
		return 0
	}
	return n
}

const (
	routeMinWords   = 1.5  // best score of the words that may name a contract, in units of one word unique to one header
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

// namedByTitle reports whether any of the question's terms is in the
// document's file name, title or parties.
func (r *router) namedByTitle(terms []string, d *routeDoc) bool {
	for _, t := range terms {
		if d.title[t] {
			return true
		}
	}
	return false
}

// phraseDocs is the number of documents whose file name, title or parties
// contain the phrase.
func (r *router) phraseDocs(phrase []string) int {
	n := 0
	for i := range r.docs {
		if containsPhrase(r.docs[i].seq, phrase) {
			n++
		}
	}
	return n
}

// maxNameDocs is how many titles a phrase may occur in and still name a
// contract (or a few agreements between the same parties): at most
// routeMaxDocs, and at most one in twenty documents of a small collection.
func maxNameDocs(docs int) int {
	return max(1, min(routeMaxDocs, docs/20))
}

// containsPhrase reports whether phrase occurs in seq as consecutive terms.
func containsPhrase(seq, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(seq); i++ {
		if slices.Equal(seq[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}
