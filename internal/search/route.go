package search

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/search/index"
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
	post [][]routePosting // by term id; sorted by document (built in memory; see plist)
	// An opened index's header postings: term t's are all[off[t]:off[t+1]].
	all    []routePosting
	off    []int64
	docLen []int32 // header terms per document
	total  int64   // header terms of all documents
	// titleSeq holds each document's file-name, title and parties terms in
	// order, for matching a title phrase ("the supply agreement").
	titleSeq [][]int32
}

// routePosting is one document whose header holds a term.
type routePosting struct {
	doc int32
	tf  uint16
	// name is 1 when the term is in the name, header or opening (what may
	// name the contract), 0 when only in the model-written summary.
	name uint8
	// title is 1 when the term is in the file name, title or parties.
	title uint8
}

// addRoute indexes the header of document di.
func (ix *Index) addRoute(di int32, seg *index.Doc) {
	r := &ix.router
	type count struct {
		tf          int
		name, title bool
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
	var seq []int32
	for _, t := range index.Analyze(nameWords(seg.Name) + "\n" + seg.Header) {
		see(t, true)
		tid := ix.termID(t)
		terms[tid].title = true
		seq = append(seq, tid)
	}
	r.titleSeq = append(r.titleSeq, seq)
	for _, t := range index.Analyze(seg.Opening) {
		see(t, true)
	}
	for _, t := range index.Analyze(seg.About) {
		see(t, false)
	}
	for _, tid := range order {
		c := terms[tid]
		p := routePosting{doc: di, tf: uint16(min(c.tf, math.MaxUint16))}
		if c.name {
			p.name = 1
		}
		if c.title {
			p.title = 1
		}
		r.post[tid] = append(r.post[tid], p)
	}
	r.docLen = append(r.docLen, int32(n))
	r.total += int64(n)
}

// plist returns the header postings of term t, a term id in range; an
// opened index's offsets are checked like Index.plist's.
func (r *router) plist(t int32) []routePosting {
	if r.off == nil {
		return r.post[t]
	}
	a, b := r.off[t], r.off[t+1]
	if a < 0 || b < a || b > int64(len(r.all)) {
		return nil
	}
	return r.all[a:b:b]
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
	df := len(r.plist(tid))
	n := float64(len(r.docLen))
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
// header and opening text. Other words count only inside a title phrase (see
// titleRun: "under the master services agreement"): a topic word
// ("escrow", "franchisee") never names a contract, whichever headers it
// appears in.
func (ix *Index) route(terms []string, breaks, named []bool) routeResult {
	r := &ix.router
	res := routeResult{doc: -1}
	if len(r.docLen) < 2 || len(terms) == 0 {
		return res
	}
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = -1
		if tid, ok := ix.lookup(t); ok && len(r.plist(tid)) > 0 {
			ids[i] = tid
		}
	}
	avg := float64(r.total) / float64(len(r.docLen))
	score := make([]float64, len(r.docLen))
	var touched []int32
	add := func(d int32, w float64) {
		if score[d] == 0 {
			touched = append(touched, d)
		}
		score[d] += w
	}
	// Words written like names, wherever they occur in the header.
	seen := map[int32]bool{}
	for i, tid := range ids {
		if tid < 0 || !named[i] || seen[tid] {
			continue
		}
		seen[tid] = true
		w := r.idf(tid)
		for _, p := range r.plist(tid) {
			if uint(p.doc) >= uint(len(r.docLen)) {
				continue // a damaged index file; see persist.go
			}
			tf := float64(p.tf)
			// Saturate fast: a header that says "Inc." ten times is no more
			// about Inc. than one that says it once.
			norm := 0.5 * (1 - 0.3 + 0.3*float64(r.docLen[p.doc])/avg)
			add(p.doc, w*tf*1.5/(tf+norm))
		}
	}
	// Title phrases; each of their words not already counted as a name
	// weighs as much as the phrase is rare among titles.
	for _, ph := range ix.titlePhrases(ids, breaks) {
		w := r.idfOf(len(ph.docs))
		for _, d := range ph.docs {
			for _, tid := range ph.terms {
				if !seen[tid] {
					add(d, w)
				}
			}
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
	// A contract is named by its title, its parties or its file name; words
	// found only in its opening text (defined terms: "Net Sales",
	// "Deliverables") describe what it is about.
	if !ix.namedByTitle(ids, named, best.doc) {
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
	if len(close) > routeMaxDocs {
		// More documents than one contract's family match as well: the
		// words name a kind of contract ("the Franchise Agreement"), not one.
		return res
	}
	sort.Slice(close, func(i, j int) bool { return ahead(close[i], close[j]) })
	for _, d := range close {
		res.docs = append(res.docs, int(d.doc))
	}
	res.doc = int(best.doc)
	return res
}

// titlePhrase is a run of question terms found as a phrase in the titles of
// docs.
type titlePhrase struct {
	terms []int32
	docs  []int32
}

// titlePhrases returns the question's title phrases: runs of two or more
// consecutive terms, within one part of the question, that occur as a phrase
// in the file name, title or parties of few documents (maxNameDocs) and end
// with a word titles use for kinds of documents ("agreement", "license": in
// at least one title in ten), as an English noun phrase ends with its head.
// Such a run reads "the supply agreement" in a collection with one supply
// agreement; words some titles merely contain ("intellectual property", "the
// agreement renews") name a topic, not a contract. Of overlapping runs the
// longest is kept.
func (ix *Index) titlePhrases(ids []int32, breaks []bool) []titlePhrase {
	r := &ix.router
	n := len(r.docLen)
	var out []titlePhrase
	for e := len(ids) - 1; e >= 1; e-- {
		if ids[e] < 0 || 10*r.titleDF(ids[e]) < n {
			continue
		}
		for st := 0; st < e; st++ {
			if !runOK(ids, breaks, st, e) {
				continue
			}
			docs := ix.phraseDocs(ids[st : e+1])
			if len(docs) == 0 || len(docs) > maxNameDocs(n) {
				continue
			}
			out = append(out, titlePhrase{terms: ids[st : e+1], docs: docs})
			e = st // the next phrase ends before this one
			break
		}
	}
	return out
}

// runOK reports whether ids[st..e] are all known terms within one part of
// the question.
func runOK(ids []int32, breaks []bool, st, e int) bool {
	for k := st; k <= e; k++ {
		if ids[k] < 0 || k > st && breaks[k] {
			return false
		}
	}
	return true
}

// phraseDocs returns the documents whose title sequence contains the phrase,
// looking only at documents whose titles hold its first term.
func (ix *Index) phraseDocs(phrase []int32) []int32 {
	r := &ix.router
	var out []int32
	for _, p := range r.plist(phrase[0]) {
		if p.title == 1 && uint(p.doc) < uint(len(r.titleSeq)) && containsPhrase(r.titleSeq[p.doc], phrase) {
			out = append(out, p.doc)
		}
	}
	return out
}

// containsPhrase reports whether phrase occurs in seq as consecutive terms.
func containsPhrase(seq, phrase []int32) bool {
	for i := 0; i+len(phrase) <= len(seq); i++ {
		if slices.Equal(seq[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// titleDF is the number of documents whose file name, title or parties hold
// term tid.
func (r *router) titleDF(tid int32) int {
	n := 0
	for _, p := range r.plist(tid) {
		n += int(p.title)
	}
	return n
}

// idfOf is the inverse document frequency of something df documents have.
func (r *router) idfOf(df int) float64 {
	n := float64(len(r.docLen))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// namedByTitle reports whether the question names document doc by its file
// name, title or parties, or, for a word written like a name, by the
// model-written summary (which names the parties however the text reads).
func (ix *Index) namedByTitle(ids []int32, named []bool, doc int32) bool {
	r := &ix.router
	for i, tid := range ids {
		if tid < 0 {
			continue
		}
		pl := r.plist(tid)
		j := sort.Search(len(pl), func(j int) bool { return pl[j].doc >= doc })
		if j < len(pl) && pl[j].doc == doc && (pl[j].title == 1 || named[i] && pl[j].name == 0) {
			return true
		}
	}
	return false
}

// maxNameDocs is how many titles a phrase may occur in and still name a
// contract (or a few agreements between the same parties): at most
// routeMaxDocs, and at most one in twenty documents of a small collection.
func maxNameDocs(docs int) int {
	return max(1, min(routeMaxDocs, docs/20))
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
func (ix *Index) referenceTerms(terms []string, breaks []bool, doc int) map[int]bool {
	r := &ix.router
	if doc < 0 || doc >= len(r.docLen) {
		return nil
	}
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = -1
		if tid, ok := ix.lookup(t); ok && r.names(tid, int32(doc)) {
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
	pl := r.plist(tid)
	i := sort.Search(len(pl), func(i int) bool { return pl[i].doc >= doc })
	return i < len(pl) && pl[i].doc == doc && pl[i].name == 1
}

// Topic returns what question asks about once the words that name the
// contract are taken out: the parts of the question made mostly of the
// name of docs[0] (the first document the search was narrowed to) are
// dropped whole and its name words are dropped from the other parts, as
// Search does with the terms it ranks by. "Consider the SERVICES AND
// HOSTING AGREEMENT between A and B; what is the governing law?" asks about
// governing law, not about the agreement's name. The question comes back
// unchanged when it names none of docs[0] or nothing else would be left.
func (ix *Index) Topic(question string, docs []string) string {
	if len(docs) == 0 {
		return question
	}
	d, ok := ix.byID[docs[0]]
	if !ok {
		return question
	}
	terms, breaks, _ := analyzeQuery(question)
	ref := namingParts(ix.referenceTerms(terms, breaks, int(d)), breaks)
	if len(ref) == 0 || len(ref) >= len(terms) {
		return question
	}
	parts := strings.FieldsFunc(question, func(r rune) bool {
		return r == ';' || r == ':' || r == '?' || r == '!' || r == '\n'
	})
	var out []string
	i := 0 // index of the next term
	for _, p := range parts {
		var words []string
		content := 0
		index.ForEachWord(p, func(w string, _ bool) {
			if index.IsStopWord(w) {
				words = append(words, w)
				return
			}
			if !ref[i] {
				words = append(words, w)
				content++
			}
			i++
		})
		if content > 0 {
			out = append(out, strings.Join(words, " "))
		}
	}
	return strings.Join(out, "; ")
}

// inTitle reports whether term tid is in the file name, title or parties
// of document doc.
func (r *router) inTitle(tid, doc int32) bool {
	pl := r.plist(tid)
	i := sort.Search(len(pl), func(i int) bool { return pl[i].doc >= doc })
	return i < len(pl) && pl[i].doc == doc && pl[i].title == 1
}
