package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
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

// selfMark starts the vocabulary entry that counts a word's uses as a
// self-reference ("this Agreement"). Question words never start with it.
const selfMark = "\x02"

const (
	selfMinDocs  = 3    // documents that must use the word so
	selfMinShare = 0.05 // share of the collection's documents that must
	selfMinUses  = 0.10 // share of the word's occurrences that must be self-references
)

// isMarked reports whether a vocabulary entry is a marked term (a heading
// word or a self-reference count), never a question word.
func isMarked(t string) bool { return strings.HasPrefix(t, headMark) || strings.HasPrefix(t, selfMark) }

// selfReferences returns, by stem, how often text uses a capitalized word
// right after "this" as the head of its noun phrase: "this Agreement",
// "this Section 4.2", "THIS AGREEMENT", but not "this Strategic" in "this
// Strategic Alliance Agreement".
func selfReferences(text string) map[string]int {
	var out map[string]int
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' }
	prevThis := false
	cand, candEnd := "", 0 // a word after "this", waiting for the next word
	flush := func(next string, gap string) {
		if cand == "" {
			return
		}
		w := cand
		cand = ""
		// The phrase goes on when the next word, in the same phrase, is
		// capitalized too, unless the text is in capitals (then the phrase
		// cannot be told apart).
		if next != "" && strings.TrimSpace(gap) == "" && startsUpper(next) && startsUpper(w) && !allUpper(w) {
			return
		}
		w = strings.ToLower(w)
		if stopWords[w] || !unicode.IsLetter(firstRune(w)) {
			return
		}
		if out == nil {
			out = map[string]int{}
		}
		out[stem(w)]++
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !isWord(r) {
				break
			}
			j += n
		}
		w := strings.Trim(text[i:j], "-")
		if w != "" {
			flush(w, text[candEnd:i])
			if prevThis {
				cand, candEnd = w, j
			}
			prevThis = strings.EqualFold(w, "this")
		}
		i = j
	}
	flush("", "")
	return out
}

func firstRune(w string) rune {
	r, _ := utf8.DecodeRuneInString(w)
	return r
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func allUpper(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// selfReference reports whether term t is a self-reference word of the
// collection (see above), learned on first use and cached.
func (ix *Index) selfReference(t string) bool {
	if t == documentTerm {
		return true
	}
	if v, ok := ix.selfRef.Load(t); ok {
		return v.(bool)
	}
	ok := ix.learnSelfReference(t)
	ix.selfRef.Store(t, ok)
	return ok
}

func (ix *Index) learnSelfReference(t string) bool {
	m, ok := ix.lookup(selfMark + t)
	if !ok {
		return false
	}
	uses, docs, last := 0, 0, int32(-1)
	for _, p := range ix.plist(m) {
		if uint(p.unit) >= uint(len(ix.units)) {
			continue // a damaged index file; see persist.go
		}
		uses += int(p.tf)
		if d := ix.units[p.unit].Doc; d != last {
			last = d
			docs++
		}
	}
	if float64(docs) < max(selfMinDocs, selfMinShare*float64(len(ix.docs))) {
		return false
	}
	id, ok := ix.lookup(t)
	if !ok {
		return false
	}
	all := 0
	for _, p := range ix.plist(id) {
		if uint(p.unit) < uint(len(ix.units)) && ix.units[p.unit].View == ViewPlain {
			all += int(p.tf)
		}
	}
	return all > 0 && float64(uses) >= selfMinUses*float64(all)
}

// documentTerm is what pakton calls an item of a collection (DocInput, the
// documents a search is restricted to): a question's "the document" can only
// mean the one searched, whatever the collection's contracts call themselves.
var documentTerm = stem("document")

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

// framing returns the question's framing terms: its self-reference words,
// the words its demonstratives point at the document with, and the verb of
// each part whose subject is the document.
func (ix *Index) framing(question string, terms []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range terms {
		if ix.selfReference(t) {
			out[t] = true
		}
	}
	parts := strings.FieldsFunc(question, func(r rune) bool {
		return r == ';' || r == ':' || r == '?' || r == '!' || r == '\n'
	})
	for _, p := range parts {
		var words []string
		forEachWord(p, func(w string, _ bool) { words = append(words, w) })
		// "this contract", "this lease": a question's demonstrative points
		// at the document it is asked about, whatever the contracts call
		// themselves.
		for i := 1; i < len(words); i++ {
			if words[i-1] == "this" && !stopWords[words[i]] {
				out[stem(words[i])] = true
			}
		}
		if len(words) >= 4 && questionAux[words[0]] && questionDet[words[1]] && !stopWords[words[3]] &&
			!stopWords[words[2]] && out[stem(words[2])] {
			out[stem(words[3])] = true
		}
	}
	return out
}

// dropFraming removes the framing terms from a question's terms, unless
// nothing would be left.
func dropFraming(terms []string, framing map[string]bool) []string {
	kept := make([]string, 0, len(terms))
	for _, t := range terms {
		if !framing[t] {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return terms
	}
	return kept
}
