package search

import (
	"strings"

	"github.com/pakton/pakton/internal/search/index"
)

// Framing: the words a question uses to talk about the document rather than
// about its content ("Does the document mention …", "Is there a clause that
// …", "… under this contract?"). Every clause of every contract is "in the
// agreement", so such words are dropped from a question (when it has other
// words). Which words they are is not written down: it is learned from the
// collection and read off the question's grammar.
//
//   - Self-reference words. A contract refers to itself and to its parts as
//     "this Agreement", "this Section", "this Clause", "this Paragraph"; a
//     lease says "this Lease", a deed "this Deed". While indexing, each
//     clause's own text (the plain view, so each text is counted once) counts
//     the words that follow "this" and end the noun phrase (not "Non" in
//     "this Non-Disclosure Agreement"), as marked terms. A word is a
//     self-reference word when the collection uses it so in a fair share of
//     documents and a fair share of its occurrences are so used: "agreement"
//     (in 96% of CUAD contracts, 59% of its occurrences), "clause"; not
//     "license" ("this License Agreement") or "information".
//   - The question's own reference to the document. A question's
//     demonstrative points at the document it is asked about ("under this
//     contract", "Can this lease be renewed?"), whatever the collection's
//     contracts call themselves; and "document" is what a collection holds
//     (DocInput), so "the document" means the one searched.
//   - The document's verb. In a question whose subject is the document ("Does
//     the document mention …", "Does this contract include …"), the verb
//     right after the subject says what the document does with the thing
//     asked about, which the rest of the question names.
//
// Only closed classes of English grammar are written down here (auxiliary
// verbs, determiners, "this"), not the wording of any question set. A
// collection indexed before the self-reference counts were kept has none:
// its questions keep the collection's self-reference words until it is
// re-ingested.

const (
	selfMinDocs  = 3    // documents that must use the word so
	selfMinShare = 0.05 // share of the collection's documents that must
	selfMinUses  = 0.10 // share of the word's occurrences that must be self-references
)

// selfReference reports whether term t is a self-reference word of the
// collection (see above), learned on first use and cached.
func (ix *Index) selfReference(v *index.Snapshot, t string) bool {
	if t == documentTerm {
		return true
	}
	c := ix.c.Load()
	if ok, found := c.selfRef.Load(t); found {
		return ok.(bool)
	}
	ok := learnSelfReference(v, t)
	c.selfRef.Store(t, ok)
	return ok
}

func learnSelfReference(v *index.Snapshot, t string) bool {
	uses, docs, all, ok := v.SelfCounts(t)
	if !ok || float64(docs) < max(selfMinDocs, selfMinShare*float64(v.LiveDocs())) {
		return false
	}
	return all > 0 && float64(uses) >= selfMinUses*float64(all)
}

// documentTerm is what pakton calls an item of a collection (DocInput, the
// documents a search is restricted to): a question's "the document" can only
// mean the one searched, whatever the collection's contracts call themselves.
var documentTerm = index.Stem("document")

// questionAux are the auxiliary verbs a yes/no question opens with, and
// questionDet the determiners of its subject: closed classes of English.
var (
	questionAux = wordSet("do does did is are was were will would can could may might must shall should has have had")
	questionDet = wordSet("the this that these those each any a an its")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Why a word is a framing word (framing).
const (
	framingSelf    = "the collection's contracts refer to themselves with it (\"this Agreement\")"
	framingPointer = "the question points at the document with it (\"this contract\")"
	framingVerb    = "the verb of a part whose subject is the document (\"does the contract include\")"
)

// framing returns the question's framing terms, each with why it is one:
// its self-reference words, the words its demonstratives point at the
// document with, and the verb of each part whose subject is the document.
func (ix *Index) framing(v *index.Snapshot, question string, terms []string) map[string]string {
	out := map[string]string{}
	for _, t := range terms {
		if ix.selfReference(v, t) {
			out[t] = framingSelf
		}
	}
	parts := questionParts(question)
	for _, p := range parts {
		var words []string
		index.ForEachWord(p, func(w string, _ bool) { words = append(words, w) })
		// "this contract", "this lease": a question's demonstrative points
		// at the document it is asked about, whatever the contracts call
		// themselves.
		for i := 1; i < len(words); i++ {
			if words[i-1] == "this" && !index.IsStopWord(words[i]) {
				if t := index.Stem(words[i]); out[t] == "" {
					out[t] = framingPointer
				}
			}
		}
		if len(words) >= 4 && questionAux[words[0]] && questionDet[words[1]] && !index.IsStopWord(words[3]) &&
			!index.IsStopWord(words[2]) && out[index.Stem(words[2])] != "" {
			if t := index.Stem(words[3]); out[t] == "" {
				out[t] = framingVerb
			}
		}
	}
	return out
}

// dropFraming removes the framing terms from a question's terms, unless
// nothing would be left.
func dropFraming[V any](terms []string, framing map[string]V) []string {
	kept := make([]string, 0, len(terms))
	for _, t := range terms {
		if _, ok := framing[t]; !ok {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return terms
	}
	return kept
}
