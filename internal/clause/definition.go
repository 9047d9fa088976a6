package clause

// Definitions: a line that opens with a quoted term and "means" (or a
// verb like it), and numbered clauses whose quotes were lost.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// definitionVerbs follow a quoted term in a definition.
var definitionVerbs = []string{
	"means", "shall mean", "mean", "has the meaning", "shall have the meaning",
	"have the meaning", "have the respective meaning", "shall have the respective meaning",
	"refers to", "shall refer to", "includes", "shall include", "is defined",
}

// scanDefinition reads a line that starts with a quoted term followed by
// "means" or a similar verb. It returns the term in m.heading.
func scanDefinition(s string, p int) (marker, bool) {
	m := marker{pos: p, labelEnd: p, fam: famDefinition, level: -1, reads: []interp{{"def", 0}}}
	term, ok := definitionTerm(s[p:min(len(s), p+300)])
	if !ok {
		return m, false
	}
	m.heading = term
	return m, true
}

// definitionTerm reports whether text starts with a definition and returns
// the defined term: `"X" means`, `"X" shall mean`, `"X" or "Y" means`,
// `"X" (as defined) means`, `X: means`.
func definitionTerm(text string) (string, bool) {
	open, close := "", ""
	switch {
	case strings.HasPrefix(text, "\""):
		open, close = "\"", "\""
	case strings.HasPrefix(text, "“"):
		open, close = "“", "”"
	case strings.HasPrefix(text, "'"):
		open, close = "'", "'"
	default:
		// `Term: means ...`
		i := strings.Index(text, ":")
		if i <= 0 || i > 60 || strings.ContainsAny(text[:i], "\n.;") {
			return "", false
		}
		rest := strings.TrimLeft(text[i+1:], " \t")
		if !hasVerb(rest) {
			return "", false
		}
		r, _ := utf8.DecodeRuneInString(text)
		if !unicode.IsUpper(r) {
			return "", false
		}
		return strings.TrimSpace(text[:i]), true
	}
	rest := text[len(open):]
	e := strings.Index(rest, close)
	if e <= 0 || e > 120 || strings.Contains(rest[:e], "\n") {
		return "", false
	}
	term := strings.TrimSpace(rest[:e])
	rest = rest[e+len(close):]
	// Alternatives and parentheticals before the verb.
	for range 4 {
		rest = strings.TrimLeft(rest, " \t,")
		switch {
		case strings.HasPrefix(rest, "("):
			if k := strings.Index(rest, ")"); k > 0 && k < 120 {
				rest = rest[k+1:]
				continue
			}
		case strings.HasPrefix(rest, "or ") || strings.HasPrefix(rest, "and "):
			w := strings.Index(rest, " ")
			r2 := strings.TrimLeft(rest[w:], " ")
			if strings.HasPrefix(r2, open) {
				if k := strings.Index(r2[len(open):], close); k >= 0 && k < 120 {
					rest = r2[len(open)+k+len(close):]
					continue
				}
			}
		case strings.HasPrefix(rest, ":"):
			rest = rest[1:]
			continue
		}
		break
	}
	if term == "" || !hasVerb(strings.TrimLeft(rest, " \t")) {
		return "", false
	}
	return strings.TrimRight(term, ",."), true
}

// bareDefinitionTerm reads a definition whose term has lost its quotes, as
// text extraction often does: "Affiliate means ...", "Effective Date shall
// have the meaning ...". The term must be Title Case and short; only numbered
// clauses are read this way.
func bareDefinitionTerm(text string) (string, bool) {
	words := 0
	i := 0
	for i < len(text) && words <= 8 {
		if hasVerb(text[i:]) && words > 0 {
			return strings.TrimSpace(text[:i]), true
		}
		j := i
		for j < len(text) && !isSpaceByte(text[j]) && text[j] != '\n' {
			j++
		}
		w := text[i:j]
		if w == "" {
			return "", false
		}
		r, _ := utf8.DecodeRuneInString(w)
		if !(unicode.IsUpper(r) || unicode.IsDigit(r) || w == "[***]" || (words > 0 && minorWords[strings.ToLower(w)])) {
			return "", false
		}
		if strings.ContainsAny(w, ".,;:\"“”") && w != "[***]" {
			return "", false
		}
		words++
		i = j
		for i < len(text) && isSpaceByte(text[i]) {
			i++
		}
	}
	return "", false
}

func hasVerb(rest string) bool {
	for _, v := range definitionVerbs {
		if strings.HasPrefix(rest, v) {
			after := rest[len(v):]
			if after == "" || !isLetterByte(after[0]) {
				return true
			}
		}
	}
	return false
}

func isLetterByte(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
