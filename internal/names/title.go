package names

import (
	"strings"
	"unicode"

	"github.com/pakton/pakton/internal/document"
)

// TypeWords are the words titles use for kinds of documents. A title is
// the first line naming one; a document's type is the title's words up to
// the last of them ("master services agreement").
var TypeWords = []string{"agreement", "contract", "license", "licence", "amendment", "addendum", "memorandum", "deed", "lease", "terms", "statement of work", "letter"}

// Title returns the first line of head that reads like a title: a line of
// at most 120 characters naming a kind of document (TypeWords) and not
// ending in a comma; else the first line that is not page furniture. A
// contents heading on the line is not part of it (withoutContents). It is
// at most 120 characters. Give it PreambleHead's head, so a table of
// contents that opens the document is not read for the title.
func Title(head string) string {
	first := ""
	for i, ln := range strings.Split(head, "\n") {
		if i > 60 {
			break
		}
		t := strings.Join(strings.Fields(withoutContents(ln)), " ")
		if t == "" || isNoise(t) {
			continue
		}
		if first == "" {
			first = t
		}
		if len(t) <= 120 && containsAny(strings.ToLower(t), TypeWords) && !strings.HasSuffix(t, ",") {
			return document.FirstRunes(t, 120)
		}
	}
	return document.FirstRunes(first, 120)
}

// TypeOf returns the kind of document a title names, in lower case: its
// words from after the last punctuation before the type word up to the
// type word ("Exclusive Distributor Agreement" → "exclusive distributor
// agreement"); "" when the title names no kind.
func TypeOf(title string) string {
	lower := strings.ToLower(title)
	for _, w := range TypeWords {
		if i := strings.LastIndex(lower, w); i >= 0 {
			start := strings.LastIndexAny(lower[:i], ".;:,()") + 1
			return strings.Join(strings.Fields(lower[start:i+len(w)]), " ")
		}
	}
	return ""
}

// nameTitle returns the title as people say it and the kind of document it
// names: the title line (Title) without a leading exhibit number, cut after
// its first type word and the capitalized words that continue it
// ("Cooperation Agreement on Mobile Game Business"), not the preamble that
// may share its line ("CO-BRANDING AGREEMENT This Agreement …"). The type is
// the type word with at most three words before it in the title, in lower
// case ("exclusive distributor agreement").
func nameTitle(head string) (title, typ string) {
	for i, ln := range strings.Split(head, "\n") {
		if i > 60 {
			break
		}
		if t, ty := titleRun(strings.Fields(withoutContents(ln))); ty != "" {
			return t, ty
		}
	}
	return titleRun(strings.Fields(Title(head)))
}

// titleRun reads a title at the start of a line's words: a leading exhibit
// label dropped, capitalized words up to a type word (or a run of them,
// "LICENSE AGREEMENT") and the capitalized words continuing it. A line that
// does not start so yields its words and no type.
func titleRun(f []string) (title, typ string) {
	// "Exhibit 10.7", "EXHIBIT 4.44": a filing label, not the title.
	if len(f) >= 2 && strings.EqualFold(f[0], "exhibit") {
		f = f[2:]
	}
	for len(f) > 0 && (!nameWord(strings.Trim(f[0], "()[]\"“”")) || strings.EqualFold(f[0], "this")) {
		f = f[1:]
	}
	at := -1
	for i, w := range f {
		if i >= 12 {
			break
		}
		lw := strings.ToLower(strings.Trim(w, ",;:()"))
		if at >= 0 && (lw == "this" || lw == "the" && i > at+1) {
			break
		}
		if isTypeWord(w) {
			at = i // the last of a run: "LICENSE AND RESELLER AGREEMENT"
			continue
		}
		if !nameWord(strings.Trim(w, ",;:()\"“”")) && !isJoinerTitle(lw) && lw != "-" {
			break
		}
	}
	if at < 0 {
		return strings.Join(f, " "), ""
	}
	end := at + 1
	for end < len(f) {
		w := strings.Trim(f[end], ",;:")
		lw := strings.ToLower(w)
		if lw == "this" || lw == "the" && end+1 < len(f) && isTypeWord(f[end+1]) || strings.ContainsAny(f[end], "\"“”(") {
			break
		}
		if !nameWord(w) && !isJoinerTitle(lw) {
			break
		}
		end++
		if strings.HasSuffix(f[end-1], ":") || strings.HasSuffix(f[end-1], ";") {
			break
		}
	}
	for end > at+1 && isJoinerTitle(strings.ToLower(strings.Trim(f[end-1], ",;:"))) {
		end--
	}
	title = strings.TrimRight(strings.Join(f[:end], " "), ",;:")
	st := at
	for st > 0 && at-st < 3 {
		w := strings.ToLower(strings.Trim(f[st-1], ",;:()"))
		if w == "" || hasDigitRune(w) || isJoinerTitle(w) || w == "between" || !unicode.IsLetter([]rune(w)[0]) {
			break
		}
		// A word that ends a phrase ("TIME, INC. FRANCHISE AGREEMENT")
		// belongs to what comes before the kind, as in TypeOf.
		if strings.ContainsAny(f[st-1][len(f[st-1])-1:], ",;:.") {
			break
		}
		st--
	}
	var tw []string
	for _, w := range f[st : at+1] {
		tw = append(tw, strings.ToLower(strings.Trim(w, ",;:()")))
	}
	return title, strings.Join(tw, " ")
}

// isTypeWord reports a word titles use for a kind of document.
func isTypeWord(w string) bool {
	w = strings.ToLower(strings.Trim(w, ",;:.()\"“”"))
	for _, t := range TypeWords {
		if w == t {
			return true
		}
	}
	return false
}

func isJoinerTitle(w string) bool {
	return isJoiner(w) || w == "on" || w == "and" || w == "to" || w == "&"
}

func hasDigitRune(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// typeSuffixes returns the ways a type is said: the whole type and its
// shorter endings of at least two words ("master supply agreement", "supply
// agreement"), leading "the"/"this" dropped. An ending that starts inside a
// party's name is not one ("jaguars sponsorship agreement" of "Jacksonville
// Jaguars sponsorship agreement" when Jacksonville Jaguars is a party):
// nobody calls a contract by the back half of a name. The last ending, the
// kind word and the word before it, is kept: it is the kind even when the
// name holds it too ("franchise agreement" of Acme Franchise Corp.).
func typeSuffixes(t string, parties []Party) []string {
	words := strings.Fields(t)
	for len(words) > 0 && (words[0] == "the" || words[0] == "this") {
		words = words[1:]
	}
	var out []string
	for i := 0; i+2 <= len(words); i++ {
		if i > 0 && i+2 < len(words) && continuesName(words[i-1], words[i], parties) {
			continue
		}
		out = append(out, strings.Join(words[i:], " "))
	}
	return out
}

// outsideNames returns the type of a title without its leading words that
// continue a party's name begun before it in the title ("PRETZEL TIME, INC.
// FRANCHISE AGREEMENT" read without its punctuation, "EL POLLO LOCO
// FRANCHISE DEVELOPMENT AGREEMENT": "franchise …", not "time inc
// franchise …" or "loco franchise …"). At least two words are kept, so a
// kind word that is also a word of the name ("Acme Franchise, Inc. /
// ACME FRANCHISE AGREEMENT") still has its kind.
func outsideNames(title, typ string, parties []Party) string {
	tw, fw := strings.Fields(typ), strings.Fields(title)
	if len(tw) < 3 || len(parties) == 0 {
		return typ
	}
	for j := 0; j+len(tw) <= len(fw); j++ {
		match := true
		for k := range tw {
			if Key(fw[j+k]) != Key(tw[k]) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if j == 0 {
			return typ // the title opens with it: no name before
		}
		k := 0
		for len(tw)-k > 2 && continuesName(fw[j+k-1], tw[k], parties) {
			k++
		}
		return strings.Join(tw[k:], " ")
	}
	return typ
}

// continuesName reports whether word b follows word a in one of the
// parties' names (compared as Key words: "Inc." is "inc").
func continuesName(a, b string, parties []Party) bool {
	ka, kb := strings.Fields(Key(a)), strings.Fields(Key(b))
	if len(ka) == 0 || len(kb) == 0 {
		return false
	}
	x, y := ka[len(ka)-1], kb[0]
	for _, p := range parties {
		w := strings.Fields(Key(p.Name))
		for i := 0; i+1 < len(w); i++ {
			if w[i] == x && w[i+1] == y {
				return true
			}
		}
	}
	return false
}

// isNoise reports lines that are not a title: page furniture, exhibit
// numbers, dates.
func isNoise(t string) bool {
	lower := strings.ToLower(t)
	if strings.HasPrefix(lower, "exhibit ") && len(t) < 20 || strings.HasPrefix(lower, "page ") || strings.HasPrefix(lower, "source:") {
		return true
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters < 3
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// months are the English month names, for reading dates.
var months = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}

// monthOK rejects a date whose month word is not a month ("Mayor 2019"
// cannot match the pattern, but "may 2019" in "may 2019 …" prose can: a
// date must start with a digit or a capitalized month).
func monthOK(d string) bool {
	if d == "" {
		return false
	}
	r := rune(d[0])
	if unicode.IsDigit(r) {
		return true
	}
	if !unicode.IsUpper(r) {
		return false
	}
	lower := strings.ToLower(d)
	for _, m := range months {
		if strings.HasPrefix(lower, m[:3]) {
			return true
		}
	}
	return false
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
