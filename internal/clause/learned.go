package clause

// Keywords a document teaches: some contracts number their parts with a word
// pakton has no list for ("Item One, Investment Construction Projects",
// "Item Two, …", then "Term Fourteen Force Majeure"). A capitalised word that
// starts at least three lines, each time followed by a number (digits or a
// number word) that rises through the document, is read as an article
// keyword for that document.

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// notKeywords start numbered lines without naming a part of the contract.
var notKeywords = map[string]bool{
	"page": true, "year": true, "years": true, "month": true, "day": true, "days": true,
	"no": true, "number": true, "table": true, "figure": true, "step": true, "level": true,
	"tier": true, "week": true, "quarter": true, "q": true, "version": true, "room": true,
	"suite": true, "floor": true, "unit": true, "lot": true, "phase": true, "option": true,
	"note": true, "footnote": true,
}

// learnKeywords returns the document's own part keywords, lower-cased.
func learnKeywords(s string) map[string]bool {
	type seen struct {
		last, n int
		ok      bool
	}
	words := map[string]*seen{}
	for i := 0; i < len(s); {
		e := strings.IndexByte(s[i:], '\n')
		if e < 0 {
			e = len(s) - i
		}
		line := strings.TrimLeft(s[i:i+e], " \t\r\f")
		i += e + 1
		w, v, _, ok := keywordNumber(line, 0, nil)
		if !ok {
			continue
		}
		st := words[w]
		if st == nil {
			st = &seen{ok: true}
			words[w] = st
		}
		if v <= st.last {
			st.ok = false
		}
		st.last = v
		st.n++
	}
	var out map[string]bool
	for w, st := range words {
		if st.ok && st.n >= 3 {
			if out == nil {
				out = map[string]bool{}
			}
			out[w] = true
		}
	}
	return out
}

// keywordNumber reads "Word Number" at byte p of s: a capitalised word
// that is not a known keyword (or, with known set, one of known) and a
// number in digits or words, followed by a heading or punctuation. It
// returns the word lower-cased, the value and the end of the label
// (after a comma or period).
func keywordNumber(s string, p int, known map[string]bool) (string, int, int, bool) {
	j := p
	for j < len(s) && j-p < 14 && isLetterByte(s[j]) {
		j++
	}
	if j == p || j-p < 2 || !isUpperByte(s[p]) || j >= len(s) || s[j] != ' ' {
		return "", 0, 0, false
	}
	w := strings.ToLower(s[p:j])
	if known != nil && !known[w] {
		return "", 0, 0, false
	}
	if notKeywords[w] {
		return "", 0, 0, false
	}
	for _, k := range keywordFamilies {
		if k.word == w {
			return "", 0, 0, false
		}
	}
	k := j + 1
	e := k
	for e < len(s) && (isAlnumByte(s[e])) {
		e++
	}
	tok := s[k:e]
	v, err := strconv.Atoi(tok)
	if err != nil || len(tok) > 2 {
		var ok bool
		if v, ok = wordNumbers[strings.ToLower(tok)]; !ok || strings.ToLower(tok) == tok {
			return "", 0, 0, false
		}
	}
	if v <= 0 {
		return "", 0, 0, false
	}
	// What follows: punctuation, then a capitalised heading or the line end.
	end := e
	if end < len(s) && (s[end] == ',' || s[end] == '.' || s[end] == ':') {
		end++
	}
	r, _ := utf8.DecodeRuneInString(s[skipHSpace(s, end):])
	if !(r == '\n' || r == utf8.RuneError || unicode.IsUpper(r)) {
		return "", 0, 0, false
	}
	if end == e && !(end < len(s) && (s[end] == ' ' || s[end] == '\n')) {
		return "", 0, 0, false
	}
	return w, v, end, true
}

// scanLearned reads a learned keyword label at byte p as an article marker.
func scanLearned(s string, p int, known map[string]bool) (marker, bool) {
	if len(known) == 0 {
		return marker{}, false
	}
	w, v, end, ok := keywordNumber(s, p, known)
	if !ok {
		return marker{}, false
	}
	label := strings.TrimRight(s[p:end], ",.:")
	return marker{pos: p, labelEnd: end, label: label, fam: famArticle, level: -1,
		nums: []int{v}, reads: []interp{{"art:" + w, v}}}, true
}
