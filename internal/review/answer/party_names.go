package answer

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Party names (parties.go reads them): what a name alone looks like, parties
// read by their company form and from the signature block, and one party
// read twice told apart from two (dedupeParties, sameParty).

// onlyName reports whether s reads as a name alone: no description and
// no lower-case word but the connectors names hold ("Bank of America",
// "Johnson and Johnson").
func onlyName(s string) bool {
	if reDescription().MatchString(s) {
		return false
	}
	for _, m := range reLowerWord().FindAllString(s, -1) {
		switch strings.TrimSpace(m) {
		case "and", "of", "the", "for", "de", "du", "la", "von", "van", "der":
		default:
			return false
		}
	}
	return true
}

// reClauseWord is a word by which a clause goes on where a name would
// have ended: a modal or finite verb, or a preposition that opens terms
// ("Reseller will obtain pricing quote from Company", "Sponsor with the
// following benefits, subject to the terms …"). Place words ("in", "on")
// are not among them: a party may be "the Trust Advisors listed on
// Schedule A".
var reClauseWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\s(?:will|shall|may|must|can|is|are|has|have|with|subject|under|pursuant)\s`)
})

// clauseNotName reports whether s, read as a party's name, is a clause: a
// name holds none of reClauseWord's words in lower case.
func clauseNotName(s string) bool {
	return reClauseWord().MatchString(" " + strings.Join(strings.Fields(s), " ") + " ")
}

// plainMarks replaces the emphasis marks of Markdown (* and _) with
// spaces, keeping every byte where it is, so that "**Acme Ltd**, a
// *société*" reads as words.
func plainMarks(s string) string {
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '*' || r == '_' {
			return ' '
		}
		return r
	}, s)
}

// initial reports whether s ends with a single capital letter ("John
// Q."), whose period does not end a sentence.
func initial(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	if !unicode.IsUpper(r) {
		return false
	}
	p, _ := utf8.DecodeLastRuneInString(s[:len(s)-n])
	return len(s) == n || !unicode.IsLetter(p)
}

// enumerator reports whether s starts with a list number ("1.", "(2)").
func enumerator(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')')
}

// endsWithForm reports whether s ends with a company form and its period
// ("Acme Inc."), so the period is not a sentence end.
func endsWithForm(s string) bool {
	for _, t := range []string{s, titleCase(s)} {
		locs := reCompanyForm().FindAllStringIndex(t, -1)
		if len(locs) > 0 && locs[len(locs)-1][1] == len(t) {
			return true
		}
	}
	return false
}

// hasCompanyForm reports whether s holds a company form, in any case
// ("Acme Inc.", "ACME INC.").
func hasCompanyForm(s string) bool {
	return reCompanyForm().MatchString(s) || reCompanyForm().MatchString(titleCase(s))
}

// formParties reads parties introduced without a defined name, by their
// company form: "between Acme Inc. and Beta LLC".
func formParties(s string, lo, hi int) []partyRead {
	var out []partyRead
	from := lo
	for _, m := range reCompanyFormAnyCase().FindAllStringIndex(s[lo:hi], -1) {
		end := lo + m[1]
		if len(out) >= 2 && strings.Contains(s[from:end], "\n\n") {
			break // past the parties' paragraph
		}
		if at, e, ok := nameBefore(s, from, end); ok {
			out = append(out, partyRead{name: s[at:e], nameAt: at, nameEnd: e, roleAt: -1})
		}
		from = end
	}
	return dedupeParties(out)
}

// signatureParties reads the parties that sign: an entity name within two
// lines above a "By:" line, or a "ROLE: NAME" line, in the signature
// block after "IN WITNESS WHEREOF". s is the contract's text.
func signatureParties(s string) []partyRead {
	lo := lastWitness(s)
	if lo < 0 {
		return nil
	}
	hi := min(len(s), lo+4000)
	block := s[lo:hi]
	var out []partyRead
	lines := strings.SplitAfter(block, "\n")
	offs := make([]int, len(lines))
	at := lo
	for i, l := range lines {
		offs[i] = at
		at += len(l)
	}
	for i, l := range lines {
		if m := reRoleLine().FindStringSubmatchIndex(strings.TrimRight(l, "\r\n")); m != nil {
			name := l[m[4]:m[5]]
			if _, dated := FirstDate(name); hasCompanyForm(name) && len(partyWords(name)) > 0 && !dated && !reSignedBy().MatchString(l) {
				out = append(out, partyRead{name: name, nameAt: offs[i] + m[4], nameEnd: offs[i] + m[5],
					role: titleCase(l[m[2]:m[3]]), roleAt: offs[i] + m[2], roleEnd: offs[i] + m[3]})
				continue
			}
		}
		if !reSignedBy().MatchString(l) {
			continue
		}
		for j := i - 1; j >= max(0, i-3); j-- {
			cand := strings.TrimSpace(lines[j])
			cand = strings.TrimRight(cand, ":,")
			if _, dated := FirstDate(cand); cand == "" || dated || !hasCompanyForm(cand) || len(partyWords(cand)) == 0 || len(cand) > 100 || strings.Contains(strings.ToLower(cand), "witness") {
				continue
			}
			k := strings.Index(lines[j], cand)
			out = append(out, partyRead{name: cand, nameAt: offs[j] + k, nameEnd: offs[j] + k + len(cand), roleAt: -1})
			break
		}
	}
	return dedupeParties(out)
}

func titleCase(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// dedupeParties drops repeated parties (same name words).
func dedupeParties(in []partyRead) []partyRead {
	var out []partyRead
	for _, p := range in {
		dup := false
		for i, q := range out {
			// two different defined names are two parties, even when
			// one name holds the other's words ("Photronics, Inc.
			// ("Photronics")", "Photronics DNP Photomask Corporation
			// ("PDMC")")
			if p.roleAt >= 0 && q.roleAt >= 0 && !strings.EqualFold(strings.TrimSpace(p.role), strings.TrimSpace(q.role)) {
				continue
			}
			if sameParty(p.name, q.name) {
				dup = true
				if out[i].roleAt < 0 && p.roleAt >= 0 {
					out[i].role, out[i].roleAt, out[i].roleEnd = p.role, p.roleAt, p.roleEnd
				}
				break
			}
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// partyWords are the words of a party's name that identify it: lower-cased,
// without punctuation and company forms.
func partyWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if w != "the" && !hasCompanyForm(w) {
			out = append(out, w)
		}
	}
	return out
}

// sameParty reports whether two names name the same party: the words of
// one hold the other's.
func sameParty(a, b string) bool {
	wa, wb := partyWords(a), partyWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
	}
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	set := map[string]bool{}
	for _, w := range wb {
		set[w] = true
	}
	for _, w := range wa {
		if !set[w] {
			return false
		}
	}
	return true
}

// lastWitness returns where the last match of reWitness in s starts, or -1:
// what reWitness().FindAllStringIndex(s, -1) ends with, without running the
// expression over the whole of a long agreement. No match of reWitness
// starts inside another (each starts at "IN", "SIGNED" or "EXECUTED", none
// of which its other words are), so the last match is the last one that
// starts at or after any position c preceded by white space, and the
// expression is run over ever longer tails of s (after a line break, so
// \b sees what it sees in s) until one holds a match. A text without
// "witness", "signed" or "executed" in any case has none; one holding the
// long s "ſ", which (?i) folds to "s", is searched whole.
func lastWitness(s string) int {
	if strings.ContainsRune(s, 'ſ') {
		return lastLoc(reWitness().FindAllStringIndex(s, -1), 0)
	}
	if !containsASCIIFold(s, "witness") && !containsASCIIFold(s, "signed") && !containsASCIIFold(s, "executed") {
		return -1
	}
	for tail := 4096; ; tail *= 2 {
		c := len(s) - tail
		if c <= 0 {
			return lastLoc(reWitness().FindAllStringIndex(s, -1), 0)
		}
		k := strings.IndexByte(s[c:], '\n')
		if k < 0 {
			continue
		}
		c += k + 1
		if at := lastLoc(reWitness().FindAllStringIndex(s[c:], -1), c); at >= 0 {
			return at
		}
	}
}

// lastLoc returns the start of the last of locs plus off, or -1.
func lastLoc(locs [][]int, off int) int {
	if len(locs) == 0 {
		return -1
	}
	return locs[len(locs)-1][0] + off
}

// containsASCIIFold reports whether s holds word (lower-case ASCII letters)
// in any ASCII case.
func containsASCIIFold(s, word string) bool {
	n := len(word)
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 != word[0] {
			continue
		}
		j := 1
		for j < n && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}
