package search

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/search/index"
)

// Routing matches questions that name a contract ("Consider the Supply
// Agreement between A and B; …", "in the Acme NDA …") to that contract. Each
// document is represented by its header: its name and its deterministic
// summary (title, parties, type), its opening text and a model-written
// summary when there is one. Routing prevents document-level retrieval
// mismatch: a question about one contract answered from another.
//
// The headers are kept as an inverted index (index.RoutePosting: term →
// documents), so routing a question costs the header postings of its words,
// not a look-up in every document: with many similar contracts (a deal room
// of one template) the words of a question occur in few headers each.

// routeResult is the outcome of routing one question.
type routeResult struct {
	doc      int32   // the best document, or -1 when no document is named
	docs     []int32 // every document the question may name, best first
	score    float64
	runnerUp float64
	// byName: a word of the question written like a name is in the best
	// document's header; false when only title phrases found it.
	byName bool
}

// routeIDF is the inverse document frequency of a term among document
// headers.
func routeIDF(v *index.Snapshot, tid int32) float64 {
	df, _ := v.RouteDF(tid)
	return idfOf(v, df)
}

// idfOf is the inverse document frequency of something df documents have.
func idfOf(v *index.Snapshot, df int) float64 {
	n := float64(v.LiveDocs())
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// eachRoutePosting calls fn with every live document whose header holds
// term tid, in document order, its posting and its segment.
func eachRoutePosting(v *index.Snapshot, tid int32, fn func(d int32, p index.RoutePosting, seg *index.Segment)) {
	for i, seg := range v.Segments() {
		base := v.DocBase(i)
		limit := v.DocBase(i+1) - base
		dead := v.HasDeleted(i)
		for _, p := range v.RoutePostings(tid, i) {
			if uint(p.Doc) >= uint(limit) || dead && v.Deleted(i, p.Doc) {
				continue // a damaged index file, or a deleted document
			}
			fn(base+p.Doc, p, seg)
		}
	}
}

// route scores every document header against the question's terms and
// returns the best one when it stands out. A document is named when its best
// score is large in absolute terms (rare header words matched), it is named by
// its title, parties or file name, and no more documents than one contract's
// family (routeMaxDocs; in a large collection one in familyShare) score
// close to it.
//
// Only words that can name a contract count. A word written like a name
// (named[i]: "Acme", "BRAVATEK") is matched against each document's name,
// header and opening text. Other words count only inside a title phrase (see
// titleRun: "under the master services agreement"): a topic word
// ("escrow", "franchisee") never names a contract, whichever headers it
// appears in.
func (ix *Index) route(v *index.Snapshot, terms []string, breaks, named []bool) routeResult {
	res := routeResult{doc: -1}
	ndocs := v.LiveDocs()
	if ndocs < 2 || len(terms) == 0 {
		return res
	}
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = -1
		if tid, ok := v.Lookup(t); ok {
			if df, _ := v.RouteDF(tid); df > 0 {
				ids[i] = tid
			}
		}
	}
	avg := float64(v.HeaderTotal()) / float64(ndocs)
	score := make([]float64, v.NumDocs())
	var touched []int32
	add := func(d int32, w float64) {
		if score[d] == 0 {
			touched = append(touched, d)
		}
		score[d] += w
	}
	// Words written like names, wherever they occur in the header.
	seen := map[int32]bool{}
	nameHit := map[int32]bool{} // documents a name-written word was found in
	for i, tid := range ids {
		if tid < 0 || !named[i] || seen[tid] {
			continue
		}
		seen[tid] = true
		w := routeIDF(v, tid)
		eachRoutePosting(v, tid, func(d int32, p index.RoutePosting, seg *index.Segment) {
			tf := float64(p.TF)
			// Saturate fast: a header that says "Inc." ten times is no more
			// about Inc. than one that says it once.
			norm := 0.5 * (1 - 0.3 + 0.3*float64(seg.HeaderLen(p.Doc))/avg)
			add(d, w*tf*1.5/(tf+norm))
			nameHit[d] = true
		})
	}
	// Title phrases; each of their words not already counted as a name
	// weighs as much as the phrase is rare among titles.
	for _, ph := range titlePhrases(v, ids, breaks) {
		w := idfOf(v, len(ph.docs))
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
	maxIDF := math.Log(1 + (float64(ndocs)-0.5)/1.5)
	if best.score < routeMinWords*maxIDF {
		return res
	}
	// A contract is named by its title, its parties or its file name; words
	// found only in its opening text (defined terms: "Net Sales",
	// "Deliverables") describe what it is about.
	if !namedByTitle(v, ids, named, best.doc) {
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
	if len(close) > max(routeMaxDocs, ndocs/familyShare) {
		// More documents than one contract's family match as well: the
		// words name a kind of contract ("the Franchise Agreement"), not one.
		// (In a large collection, a few in familyShare still narrow the
		// search: routenames.go.)
		return res
	}
	sort.Slice(close, func(i, j int) bool { return ahead(close[i], close[j]) })
	for _, d := range close {
		res.docs = append(res.docs, d.doc)
	}
	res.doc = best.doc
	res.byName = nameHit[best.doc]
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
func titlePhrases(v *index.Snapshot, ids []int32, breaks []bool) []titlePhrase {
	n := v.LiveDocs()
	var out []titlePhrase
	for e := len(ids) - 1; e >= 1; e-- {
		if ids[e] < 0 {
			continue
		}
		if _, titles := v.RouteDF(ids[e]); 10*titles < n {
			continue
		}
		for st := 0; st < e; st++ {
			if !runOK(ids, breaks, st, e) {
				continue
			}
			docs := phraseDocs(v, ids[st:e+1], maxNameDocs(n))
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
// in document order, stopping once it has found more than limit. Every term
// of a document's title sequence has a title posting in it, so only the
// documents on the shortest header-posting list among the phrase's terms are
// looked at: in a large collection the first word of a title phrase
// ("master", "services") is in thousands of titles where its last ones are
// in a few.
func phraseDocs(v *index.Snapshot, phrase []int32, limit int) []int32 {
	var out []int32
	local := make([]int32, len(phrase))
	for i, seg := range v.Segments() {
		var pl []index.RoutePosting
		ok := true
		for k, t := range phrase {
			if local[k] = v.Local(t, i); local[k] < 0 {
				ok = false
				break
			}
			if q := seg.RoutePostings(local[k]); k == 0 || len(q) < len(pl) {
				pl = q
			}
		}
		if !ok || len(pl) == 0 {
			continue
		}
		dead := v.HasDeleted(i)
		for _, p := range pl {
			if p.Title == 1 && uint(p.Doc) < uint(seg.NumDocs()) && !(dead && v.Deleted(i, p.Doc)) && containsPhrase(seg.TitleSeq(p.Doc), local) {
				out = append(out, v.DocBase(i)+p.Doc)
				if len(out) > limit {
					return out
				}
			}
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

// namedByTitle reports whether the question names document doc by its file
// name, title or parties, or, for a word written like a name, by the
// model-written summary (which names the parties however the text reads).
func namedByTitle(v *index.Snapshot, ids []int32, named []bool, doc int32) bool {
	for i, tid := range ids {
		if tid < 0 {
			continue
		}
		if p, ok := v.RoutePosting(tid, doc); ok && (p.Title == 1 || named[i] && p.Name == 0) {
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
// its clauses answers, so in-document search leaves them out. A run counts
// only if one of its words is in the file name, title or parties, or if
// its part of the question says a rare one of those: a run the opening text
// merely shares with the question's topic ("do you sell my genetic data?"
// against a policy that opens on genetic data) names nothing.
func referenceTerms(v *index.Snapshot, terms []string, breaks []bool, doc int32) map[int]bool {
	if !v.DocLive(doc) {
		return nil
	}
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = -1
		if tid, ok := v.Lookup(t); ok {
			if p, ok := v.RoutePosting(tid, doc); ok && p.Name == 1 {
				ids[i] = tid
			}
		}
	}
	rare := math.Log(1+(float64(v.LiveDocs())-0.5)/1.5) * 0.5
	// A part of the question names the contract only if it says a rare
	// word of its file name, title or parties; words the opening text
	// merely shares with the question elsewhere (a privacy policy opens
	// on "your personal information") name nothing.
	naming := make([]bool, len(terms))
	for st := 0; st < len(terms); {
		e := st + 1
		for e < len(terms) && !breaks[e] {
			e++
		}
		named := false
		for k := st; k < e && !named; k++ {
			if ids[k] >= 0 && routeIDF(v, ids[k]) >= rare {
				p, _ := v.RoutePosting(ids[k], doc)
				named = p.Title == 1
			}
		}
		for k := st; k < e; k++ {
			naming[k] = named
		}
		st = e
	}
	out := map[int]bool{}
	for i := 0; i < len(terms); {
		if ids[i] < 0 {
			i++
			continue
		}
		j := i
		hasRare, titled := false, false
		for j < len(terms) && ids[j] >= 0 && (j == i || !breaks[j]) {
			if routeIDF(v, ids[j]) >= rare {
				hasRare = true
			}
			if p, _ := v.RoutePosting(ids[j], doc); p.Title == 1 {
				titled = true
			}
			j++
		}
		if j-i >= 2 && hasRare && (titled || naming[i]) {
			for k := i; k < j; k++ {
				out[k] = true
			}
		}
		i = j
	}
	return out
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
	return ix.topic(ix.view(), question, docs, true)
}

// topic is Topic on snapshot v; with framing, the words the collection's
// documents refer to themselves with count as naming the contract, as they
// do when the search leaves a part of the question out (Index.Plan).
func (ix *Index) topic(v *index.Snapshot, question string, docs []string, framing bool) string {
	if len(docs) == 0 {
		return question
	}
	d, ok := v.LookupDoc(docs[0])
	if !ok {
		return question
	}
	terms, breaks, _ := analyzeQuery(question)
	var self func(i int) bool
	if framing {
		fr := ix.framing(v, question, terms)
		self = func(i int) bool { return fr[terms[i]] != "" }
	}
	ref := namingParts(referenceTerms(v, terms, breaks, d), terms, breaks, self)
	if len(ref) == 0 || len(ref) >= len(terms) {
		return question
	}
	parts := questionParts(question)
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
