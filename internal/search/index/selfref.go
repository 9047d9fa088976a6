package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Self-references: a contract refers to itself and to its parts as "this
// Agreement", "this Section", "this Clause"; a lease says "this Lease". While
// a document is analyzed, each clause's own text (the plain view, so each text
// is counted once) counts the words that follow "this" and end the noun
// phrase, as marked terms (SelfMark). The search decides from the
// collection's counts which words a question uses to frame the document
// rather than to ask about its content.

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
		out[Stem(w)]++
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
