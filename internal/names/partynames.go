package names

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// nameRun reads the name at the start of s: capitalized words (or words
// with a capital inside, "eDiets", or starting with a digit, "3M"), joined
// by function words ("Fruit of Life") or "&", with legal-form words after a
// comma ("Acme, Inc.") and short capitalized parentheses ("Fonterra (USA)
// Inc."). It stops at a lower-case word, a definition in parentheses, a
// paragraph break, a full stop that ends a sentence, or after 12 words, and
// returns the name and what follows it.
func nameRun(s string) (string, string) {
	i := 0
	end := 0 // end of the last word taken
	words := 0
	prevRaw := "" // the last word taken, as written
	for words < 12 {
		// Skip white space; a blank line ends the name.
		j := i
		nl := 0
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
			if s[j] == '\n' {
				nl++
			}
			j++
		}
		if j >= len(s) || nl >= 2 && words > 0 {
			break
		}
		if s[j] == '(' {
			k := strings.IndexByte(s[j:], ')')
			if words == 0 || k < 0 || quoted(s[j:j+k]) || !capitalizedWords(s[j+1:j+k], 3) {
				break
			}
			// Taken only inside the name ("Fonterra (USA) Inc."), not at
			// its end, where it defines a short name ("(BVTK)").
			i = j + k + 1
			continue
		}
		k := j
		for k < len(s) && !unicode.IsSpace(rune(s[k])) && s[k] != '(' {
			k++
		}
		raw := s[j:k]
		if words > 0 && (strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, "：")) {
			break // the label of what follows ("… Ltd. Address: …")
		}
		w := strings.TrimRight(raw, ",;:")
		wc := strings.TrimRight(w, ".")
		afterComma := strings.HasSuffix(prevRaw, ",")
		afterStop := strings.HasSuffix(prevRaw, ".") && !abbrevBefore(strings.TrimRight(strings.TrimSpace(s[:end]), "."))
		// A line break after a legal-form word ends the name: an address
		// often follows on the next line.
		if words > 0 && nl > 0 && formWord(prevRaw) && (strings.HasSuffix(strings.TrimRight(prevRaw, ","), ".") || upperWord(prevRaw)) {
			return finish(s, end)
		}
		switch {
		case strings.Trim(wc, "-_=*.") == "" && wc != "":
			i = k // a rule or underline drawn in the text
			continue
		case wc == "" || strings.ContainsAny(wc, "\"“”"):
			return finish(s, end)
		case strings.EqualFold(wc, "and"):
			if words > 0 && raw == wc && innerAnd(prevRaw, s[k:]) {
				i = k // taken only if the name goes on: end stays before it
				continue
			}
			return finish(s, end)
		case afterStop && words > 0:
			return finish(s, end)
		case afterComma && words > 0:
			if !formWord(w) && !(firmNames(s[j:]) && !legalForm(prevRaw)) {
				return finish(s, end)
			}
		case words > 0 && (isJoiner(wc) || w == "&"):
			// taken only if a name word follows: end stays before it
			i = k
			continue
		case !nameWord(wc):
			return finish(s, end)
		}
		words++
		prevRaw = raw
		i, end = k, j+len(w)
		if strings.HasSuffix(raw, ";") || strings.HasSuffix(raw, ":") {
			break
		}
	}
	return finish(s, end)
}

// innerAnd reports whether an "and" between the name word prev and the text
// after it (rest) is inside one name ("Alamogordo Federal Savings and Loan
// Association", "Procter and Gamble Company") rather than between two: the
// word before it is no legal form, names no kind of organisation and ends
// no phrase, and at least two name words follow it without a break. "Acme Inc. and Beta LLC", "Acme and Beta"
// and "Johnson and Johnson" stay two names.
func innerAnd(prev, rest string) bool {
	if strings.ContainsAny(prev, ",.;:") || legalForm(prev) || organisationWords[Key(prev)] {
		return false
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return false
	}
	first := f[0]
	return nameWord(first) && !strings.ContainsAny(first, ",.;:()\"“”") && !legalFormWords[Key(first)] &&
		nameWord(strings.TrimRight(f[1], ",;:")) && !strings.ContainsAny(f[1], "(\"“”")
}

// legalForm reports a word that is a legal form for certain: one written
// out ("Company", "Limited") or a short form written with a period or in
// capitals ("Inc.", "LLC"); a short capitalized word ("Lowe", "Arps") may
// be a surname.
func legalForm(w string) bool {
	t := strings.TrimRight(w, ",;:")
	return legalFormWords[Key(t)] || formWord(t) && (strings.HasSuffix(t, ".") || upperWord(t))
}

// organisationWords are the words that end the name of an organisation by
// naming its kind ("American Diabetes Association", "Acme Bank"): an "and"
// after one starts another name.
var organisationWords = map[string]bool{"association": true, "institute": true, "foundation": true, "university": true,
	"society": true, "fund": true, "trust": true, "bank": true, "partners": true, "partnership": true, "group": true,
	"holdings": true, "council": true, "agency": true, "authority": true, "board": true, "college": true,
	"hospital": true, "center": true, "centre": true, "school": true, "department": true, "ministry": true}

// firmNames reports whether s, the words after a comma inside a name, go on
// naming the firm: surnames listed with commas and closed by "&" ("Keefe,
// Bruyette & Woods, Inc.", "Skadden, Arps, Slate, Meagher & Flom LLP"), so
// the comma does not end the name. Each surname is one or two name words.
func firmNames(s string) bool {
	f := strings.Fields(s)
	inGroup := 0
	for i := 0; i < len(f) && i < 12; i++ {
		w := f[i]
		if w == "&" {
			return inGroup > 0 && i+1 < len(f) && nameWord(f[i+1])
		}
		bare := strings.TrimRight(w, ",")
		if !nameWord(bare) || strings.ContainsAny(bare, ".;:()\"“”") || legalFormWords[Key(bare)] {
			return false
		}
		inGroup++
		if inGroup > 2 {
			return false
		}
		if strings.HasSuffix(w, ",") {
			inGroup = 0
		}
	}
	return false
}

// finish returns the name s[:end] and the rest.
func finish(s string, end int) (string, string) {
	return strings.TrimRight(s[:end], " ,;:&\t\r\n"), s[end:]
}

// nameWord reports a word that can be part of a name: it starts with a
// capital letter or a digit followed by letters ("3M", "2TheMart"), or has
// a capital inside ("eDiets", "iDreamSky").
func nameWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) {
		return true
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	hasLetter, hasDigit, upper, dot := false, false, false, false
	for i, c := range w {
		switch {
		case unicode.IsLetter(c):
			hasLetter = true
			if i > 0 && unicode.IsUpper(c) {
				upper = true
			}
		case unicode.IsDigit(c):
			hasDigit = true
		case c == '.' && i > 0 && i < len(w)-1:
			dot = true // a domain: "theglobe.com"
		}
	}
	return upper || hasLetter && hasDigit || hasLetter && dot
}

// isJoiner reports the function words names are joined by ("Fruit of Life
// Productions", "Banco de la Nación").
func isJoiner(w string) bool {
	switch w {
	case "of", "the", "de", "du", "des", "la", "le", "von", "van", "der", "den", "di", "da", "del", "y", "e", "for", "and":
		return w != "and" // "and" separates parties
	}
	return false
}

// formWord reports a word that looks like a legal-form abbreviation: a
// capitalized word of at most five letters, written with a period ("Inc.",
// "Corp.", "L.L.C.") or in capitals ("LLC", "AG", "PLC"), or of at most
// four letters ("Inc", "Ltd", "GmbH").
func formWord(w string) bool {
	w = strings.TrimRight(w, ",;:")
	letters, upper := 0, 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	r, _ := utf8.DecodeRuneInString(w)
	if letters < 2 || !unicode.IsUpper(r) || letters > 5 {
		return false
	}
	return strings.HasSuffix(w, ".") || upper == letters || letters <= 4
}

// hasFormWord reports whether a name (past its first word) holds a
// legal-form word.
func hasFormWord(name string) bool {
	f := strings.Fields(strings.NewReplacer(",", " ", "(", " ", ")", " ").Replace(name))
	for _, w := range f[min(1, len(f)):] {
		if formWord(w) && (strings.HasSuffix(w, ".") || upperWord(w) || len(w) <= 4) {
			return true
		}
	}
	return false
}

func upperWord(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// capitalizedWords reports whether s is at most n words, each capitalized.
func capitalizedWords(s string, n int) bool {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > n {
		return false
	}
	for _, w := range f {
		if !nameWord(w) {
			return false
		}
	}
	return true
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// cleanName joins a name's lines and spaces and drops the rules and
// underlines a text layout draws between its words ("Mail ------- Boxes").
func cleanName(s string) string {
	f := strings.Fields(s)
	out := f[:0]
	for _, w := range f {
		if w == "&" || strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// formPart reports a defined term that is only the legal-form word of the
// party's name ("LLC" for "… Warehouse Corporation LLC"): it names no party.
func formPart(d, name string) bool {
	d = strings.TrimSpace(d)
	if !formWord(d) || strings.ContainsAny(d, " \t") || !strings.HasSuffix(d, ".") && !upperWord(d) {
		return false
	}
	for _, w := range strings.Fields(Key(name)) {
		if w == Key(d) {
			return true
		}
	}
	return false
}

// plausible rejects what is not a party's name: the document itself ("THIS
// MASTER SUPPLY AGREEMENT"), a date, a single letter, a clause (a legend or
// a notice).
func plausible(name string) bool {
	if utf8.RuneCountInString(name) < 2 || strings.EqualFold(name, "the") {
		return false
	}
	// Some word of three letters or more: "A29889" is a reference number.
	long := false
	for _, w := range strings.Fields(name) {
		long = long || letterCount(strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return -1
			}
			return r
		}, w)) >= 3
	}
	if !long {
		return false
	}
	lower := " " + Key(name) + " "
	for _, t := range TypeWords {
		if strings.Contains(lower, " "+t+" ") {
			return false
		}
	}
	if strings.Contains(lower, " this ") {
		return false
	}
	if firstDate(name) != "" {
		return false
	}
	return !clause(name)
}

// clause reports whether words read as a clause rather than a name: a
// relative word after its first word ("for which", "whose") or a verb in the perfect or the
// passive ("has been", "is being"). A filing's legend ("[***] INDICATES
// MATERIAL THAT HAS BEEN OMITTED AND FOR WHICH CONFIDENTIAL TREATMENT HAS
// BEEN REQUESTED") or a notice split at its "and" is no party.
func clause(name string) bool {
	f := strings.Fields(Key(name))
	for i, w := range f {
		switch w {
		case "which", "whom", "whose":
			if i > 0 { // "Which Wich, Inc." is a name
				return true
			}
		case "been", "being":
			if i > 0 && auxiliary[f[i-1]] {
				return true
			}
		}
	}
	return false
}

// auxiliary are the verbs that make a perfect or a passive with "been" or
// "being".
var auxiliary = map[string]bool{"has": true, "have": true, "had": true, "is": true, "are": true, "was": true, "were": true}
