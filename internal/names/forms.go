package names

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// core returns a party name without what people leave out when they say
// it: parenthesized parts ("(USA)"), trailing legal-form words and the comma
// before them ("Bravatek Solutions, Inc." → "Bravatek Solutions"), and a
// leading "The".
func core(name string) string {
	f := strings.Fields(withoutParens(name))
	for len(f) > 1 {
		last := f[len(f)-1]
		if !formWord(last) || !(strings.HasSuffix(last, ".") || upperWord(last) && letterCount(last) <= 4 || humpForm(last) || strings.HasSuffix(f[len(f)-2], ",")) {
			break
		}
		f = f[:len(f)-1]
	}
	if len(f) > 1 && strings.EqualFold(f[0], "the") {
		f = f[1:]
	}
	return strings.TrimRight(strings.Join(f, " "), " ,;:")
}

// humpForm reports a legal-form word written with a capital after a
// small letter and ending in one ("GmbH", "SpA", "KGaA").
func humpForm(w string) bool {
	rs := []rune(strings.TrimRight(w, ",;:"))
	if len(rs) < 3 || len(rs) > 5 || !unicode.IsUpper(rs[len(rs)-1]) || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs[1 : len(rs)-1] {
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

// forms returns the shortened forms of a party's name people use: its core
// (without the legal form; "" when that is the name itself), the core's
// leading words ("Birch First Global", "Birch"), none ending in a joining
// word, and its initials when they are three letters or more ("BFGI").
func forms(name string) (coreName string, lead []string, acronym string) {
	c := core(name)
	if Key(c) != Key(name) {
		coreName = c
	}
	f := strings.Fields(c)
	for k := len(f) - 1; k >= 1; k-- {
		last := strings.Trim(f[k-1], ",.;:&")
		if isJoiner(strings.ToLower(last)) || last == "" {
			continue
		}
		if k == 1 && letterCount(last) < 3 {
			continue
		}
		lead = appendNew(lead, strings.TrimRight(strings.Join(f[:k], " "), " ,;:&"))
	}
	acronym = initials(c)
	if len(acronym) < 3 || len(acronym) > 6 {
		acronym = ""
	}
	return coreName, lead, acronym
}

// initials returns the capitals that begin a name's words and camel-case
// humps ("FuelCell Energy" → "FCE"), skipping joining words; "" when a
// word starts with neither a letter nor a digit.
func initials(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(name) {
		w = strings.Trim(w, ",.;:&()\"“”")
		if w == "" || isJoiner(strings.ToLower(w)) {
			continue
		}
		prevLower := false
		for i, r := range w {
			switch {
			case i == 0:
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					return ""
				}
				b.WriteRune(unicode.ToUpper(r))
			case unicode.IsUpper(r) && prevLower:
				b.WriteRune(r)
			}
			prevLower = unicode.IsLower(r)
		}
	}
	return b.String()
}

// Derived reports whether a short name is drawn from a party's full name,
// as "Bravatek" is from "Bravatek Solutions, Inc.", "PrimeCall" from "Prime
// Call, Inc.", "PNC" from "Premier Nutrition Company, LLC" and "FCE" from
// "FuelCell Energy, Inc.": its words are words of the name, or it is some of
// the name's words run together, or a prefix of one (of four letters or
// more), or the initials of the name's first words. A role such as
// "Company", "Licensee" or "Marketing Affiliate" is none of these.
func Derived(short, full string) bool {
	sk := strings.Fields(Key(short))
	fk := strings.Fields(Key(full))
	if len(sk) == 0 || len(fk) == 0 {
		return false
	}
	in := map[string]bool{}
	for _, w := range fk {
		in[w] = true
	}
	all := true
	for _, w := range sk {
		if !in[w] {
			all = false
			break
		}
	}
	if all {
		return true
	}
	joined := strings.Join(sk, "")
	for i := range fk {
		run := ""
		for j := i; j < len(fk) && len(run) < len(joined); j++ {
			run += fk[j]
			if run == joined && j > i {
				return true
			}
		}
		if len(joined) >= 4 && strings.HasPrefix(fk[i], joined) {
			return true
		}
	}
	if utf8.RuneCountInString(joined) >= 2 {
		for _, f := range []string{core(full), withoutParens(full)} {
			ini := strings.ToLower(initials(f))
			if len(ini) >= len(joined) && strings.HasPrefix(ini, joined) {
				return true
			}
		}
	}
	return false
}

func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// withoutParens drops the parenthesized parts of a name ("Fonterra (USA)
// Inc." → "Fonterra Inc.").
func withoutParens(name string) string {
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
