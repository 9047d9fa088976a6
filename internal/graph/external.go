package graph

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// This file decides whether a reference points out of the agreement: the
// words after it ("of the Bankruptcy Code", "of Exhibit B" — then a scope
// inside this one), before it ("Treasury Regulation Section"), or right
// after its label in the continental style ("Sec. 2 AMG").
// instrumentWords end the name of another legal instrument after "of the" /
// "under the": "Section 365(n) of the Bankruptcy Code", "Section 2.1 of the
// License Agreement". They are the generic nouns of legal instruments.
var instrumentWords = map[string]bool{
	"act": true, "code": true, "agreement": true, "agreements": true, "regulation": true,
	"regulations": true, "rule": true, "rules": true, "plan": true, "law": true, "laws": true,
	"statute": true, "statutes": true, "treaty": true, "convention": true, "contract": true,
	"license": true, "licence": true, "lease": true, "note": true, "indenture": true,
	"amendment": true, "constitution": true, "directive": true, "charter": true, "bylaws": true,
	"by-laws": true, "certificate": true, "guidelines": true, "declaration": true, "title": true,
	"ordinance": true, "order": true, "policy": true, "protocol": true, "instrument": true,
	"deed": true, "mou": true, "memorandum": true, "sow": true, "tariff": true, "conditions": true,
}

// statutePrefix matches a statute or instrument named before the reference
// word: "15 U.S.C. § 78", "Treasury Regulation Section 1.1502-6", "Code
// Section 409A".
var statutePrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(u\.?s\.?c\.?|U\.?S\.?C\.?|C\.?F\.?R\.?|[A-Z][a-z]+ (?:Code|Act|Regulations?|Rules?)|Code|Stat\.?|Act|Regulations?)\s*$`)
})

// instrumentBefore returns the instrument named right before the
// reference word at byte i, or "".
func instrumentBefore(s string, i int) string {
	before := s[max(0, i-40):i]
	if m := statutePrefix().FindString(before); m != "" {
		return strings.TrimSpace(m)
	}
	return ""
}

// instrumentAfter returns the instrument named right after a reference
// without "of", in the continental style: "Sec. 2 German Pharmaceuticals
// Act", "Sec. 4 para. 19 AMG". An acronym counts only outside upper-case
// text (where every word looks like one).
func instrumentAfter(s string, end, kwStart int) string {
	words := strings.Fields(s[end:min(len(s), end+80)])
	var name []string
	for _, raw := range words {
		w := strings.TrimRight(raw, ",;:.)")
		if w == "" || !unicode.IsUpper(firstRune(w)) {
			break
		}
		name = append(name, w)
		if len(w) < len(raw) || len(name) == 5 {
			break
		}
	}
	if len(name) == 0 {
		return ""
	}
	if instrumentWords[strings.ToLower(name[len(name)-1])] {
		return strings.Join(name, " ")
	}
	kw := s[kwStart:min(len(s), kwStart+3)]
	if a := name[0]; len(name) == 1 && len(a) >= 2 && len(a) <= 6 && strings.ToUpper(a) == a && strings.ToUpper(kw) != kw && strings.IndexFunc(a, unicode.IsLetter) >= 0 {
		return a
	}
	return ""
}

// subdivision extends a reference over a finer unit written after it,
// "Sec. 4 para. 19", "§ 5 sentence 2", and returns the new end.
func subdivision(s string, end int) int {
	j := skipSpace(s, end)
	for _, w := range []string{"para.", "paragraph", "sentence", "subsection", "no."} {
		if strings.HasPrefix(strings.ToLower(s[j:min(len(s), j+len(w))]), w) {
			k := skipSpace(s, j+len(w))
			e := k
			for e < len(s) && s[e] >= '0' && s[e] <= '9' {
				e++
			}
			if e > k && (e >= len(s) || !isWordByte(s[e])) {
				return e
			}
		}
	}
	return end
}

// qualifier reads what follows a reference: "of this Agreement" / "hereof"
// (this document), "of Exhibit B" (a unit of this document, returned as
// scope), or "of the Bankruptcy Code" / "under the License Agreement"
// (another instrument, returned by name).
func (x *text) qualifier(s string, i int, ix *labelIndex) (scope int, external string) {
	j := skipSpace(s, i)
	var e int
	ok := false
	for _, w := range []string{"of", "under", "in"} {
		if e, ok = hasWordPrefix(s, j, w); ok {
			break
		}
	}
	if !ok {
		return 0, ""
	}
	j = skipSpace(s, e)
	if kw, e, ok := refWordAt(s, j); ok {
		if l, ok := parseLabel(s, e, kw.class); ok {
			if id, st := ix.resolve(kw, l.text, 0, 0); st == Resolved {
				return id, ""
			}
		}
		return 0, ""
	}
	if e, ok := hasWordPrefix(s, j, "the"); ok {
		j = skipSpace(s, e)
	} else if e, ok := hasWordPrefix(s, j, "that"); ok {
		j = skipSpace(s, e)
	}
	// A capitalised name ending in an instrument noun, or an acronym.
	words := strings.Fields(s[j:min(len(s), j+120)])
	var name []string
	for _, raw := range words {
		w := strings.TrimRight(raw, ",;:.)")
		if w == "" {
			break
		}
		r := firstRune(w)
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || w == "of" || w == "and" || w == "the" || w == "for") {
			break
		}
		name = append(name, w)
		if len(name) > 10 || len(w) < len(raw) && !abbreviation(raw, len(raw)-1) {
			break // the name ends at punctuation
		}
	}
	for len(name) > 0 && (name[len(name)-1] == "of" || name[len(name)-1] == "and" || name[len(name)-1] == "the" || name[len(name)-1] == "for") {
		name = name[:len(name)-1]
	}
	if len(name) == 0 {
		return 0, ""
	}
	full := strings.Join(name, " ")
	if strings.EqualFold(name[0], "this") || strings.EqualFold(full, "Agreement") {
		return 0, ""
	}
	for k := len(name) - 1; k >= 0; k-- {
		w := strings.ToLower(strings.TrimSuffix(strings.Trim(name[k], "\"”“'’"), "'s"))
		if instrumentWords[w] || w == "schedule" && k > 0 {
			return 0, full // "Section 6901 of the Code", "… of the General Terms and Conditions of Transporter's FERC Gas Tariff"
		}
	}
	for k := len(name); k > 0; k-- {
		if x.others[Key(strings.Join(name[:k], " "))] {
			return 0, strings.Join(name[:k], " ") // "Section 5(a)(iv) of the ISDA Form", a defined term naming another document
		}
	}
	if len(name) == 1 && len(name[0]) >= 2 && len(name[0]) <= 6 && strings.ToUpper(name[0]) == name[0] && firstRune(name[0]) >= 'A' {
		return 0, name[0] // an acronym: "UCC", "ERISA"
	}
	return 0, ""
}

// instrumentTerms records the defined terms that may name another document
// in "Section 2 of the <term>": all but the agreement itself — the term
// "Agreement", or one defined as `(this "…")`.
func (x *text) instrumentTerms(defs []Definition) {
	x.others = map[string]bool{}
	for _, d := range defs {
		k := Key(d.Term)
		a, _ := x.ix.ByteSpan(d.TermSpan)
		before := strings.ToLower(x.s[max(0, a-8):a])
		if k == "agreement" || k == "this agreement" || strings.Contains(before, "this") {
			continue
		}
		x.others[k] = true
	}
	for _, d := range defs { // a term also used for this agreement is never another document
		a, _ := x.ix.ByteSpan(d.TermSpan)
		if strings.Contains(strings.ToLower(x.s[max(0, a-8):a]), "this") {
			delete(x.others, Key(d.Term))
		}
	}
}
