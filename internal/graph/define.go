package graph

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
)

// definitionVerbs follow a term in a definition sentence: `"X" means`,
// `"X" shall have the meaning set forth in`.
var definitionVerbs = []string{
	"means", "mean", "shall mean", "will mean", "has the meaning", "have the meaning",
	"shall have the meaning", "will have the meaning", "have the respective meaning",
	"shall have the respective meaning", "is defined", "are defined", "shall be defined",
	"refers to", "refer to", "shall refer to", "includes", "shall include", "shall be deemed to mean",
	"is as defined", "shall be as defined", "has the definition", "shall have the definition", "include",
}

// corporateForms mark an entity name before a party's short name. They are
// the legal forms of companies, not words of any one contract.
var corporateForms = []string{
	"inc", "inc.", "incorporated", "corporation", "corp", "corp.", "company", "co.", "llc", "l.l.c.",
	"ltd", "ltd.", "limited", "plc", "lp", "l.p.", "llp", "l.l.p.", "gmbh", "ag", "s.a.", "sa", "n.v.",
	"b.v.", "bv", "nv", "s.a.r.l.", "s.r.l.", "srl", "pty", "pte", "partnership", "trust", "individual",
	"university", "association", "bank", "a.g.", "s.p.a.", "k.k.", "a/s",
}

// quote is one quoted stretch of text: bytes [open, close) are the quoted
// text without its marks, [a, b) the text with its marks.
type quote struct{ a, open, close, b int }

// quotes finds the quoted stretches of s that could be terms: double quotes
// (straight or curly) and curly single quotes, opened after a non-word
// character and closed before one, at most 120 bytes long, on at most two
// lines.
func quotes(s string) []quote {
	var out []quote
	for i := 0; i < len(s); {
		var closers []string
		w := 1
		switch {
		case s[i] == '"':
			closers = []string{"\"", "”"}
		case strings.HasPrefix(s[i:], "“"):
			closers, w = []string{"”", "\"", "“"}, len("“")
		case strings.HasPrefix(s[i:], "‘"):
			closers, w = []string{"’"}, len("‘")
		case strings.HasPrefix(s[i:], "''"):
			closers, w = []string{"''"}, 2
		default:
			i++
			continue
		}
		if i > 0 && isWordByte(s[i-1]) && s[i-1] < 0x80 {
			i += w
			continue
		}
		open := i + w
		best, bw := -1, 0
		for _, c := range closers {
			if k := strings.Index(s[open:min(len(s), open+121)], c); k >= 0 && (best < 0 || k < best) {
				best, bw = k, len(c)
			}
		}
		if best <= 0 || strings.Count(s[open:open+best], "\n") > 1 {
			i = open
			continue
		}
		cl := open + best
		q := quote{a: i, open: open, close: cl, b: cl + bw}
		// Markdown emphasis inside the quotes: "**Agreement**".
		for q.open < q.close && (s[q.open] == '*' || s[q.open] == '_') {
			q.open++
		}
		for q.close > q.open && (s[q.close-1] == '*' || s[q.close-1] == '_') {
			q.close--
		}
		if q.open == q.close {
			i = cl + bw
			continue
		}
		out = append(out, q)
		i = cl + bw
	}
	return out
}

// termText validates a quoted stretch as a term and returns it with white
// space collapsed: it starts with a capital, a digit or a bracket, holds a
// letter, has at most 10 words and no sentence punctuation.
func termText(q string) (string, bool) {
	t := strings.Join(strings.Fields(q), " ")
	t = strings.TrimRight(t, ",.")
	if rest, ok := strings.CutPrefix(t, "the "); ok && unicode.IsUpper(firstRune(rest)) {
		t = rest // ("the BSP Components")
	}
	if t == "" || len(t) > 100 {
		return "", false
	}
	r := firstRune(t)
	if !(unicode.IsUpper(r) || unicode.IsDigit(r) || r == '[' || unicode.IsLower(r)) {
		return "", false
	}
	if strings.IndexFunc(t, unicode.IsLetter) < 0 || strings.ContainsAny(t, ";:!?") || strings.Count(t, " ") > 9 {
		return "", false
	}
	if strings.HasPrefix(t, "[***") {
		return "", false // a redacted term
	}
	return t, true
}

// meansAfter reports whether a definition verb follows byte i, after
// alternatives (`or "Y"`), a parenthesis, a comma, a colon or a dash, and
// whether the verb is only "is", "are" or "shall be" (weak), which defines
// a term at the start of an entry.
func meansAfter(s string, i int, entry bool) (ok, weak bool) {
	for range 8 {
		i = skipSpace(s, i)
		if i >= len(s) {
			return false, false
		}
		switch {
		case s[i] == ',' || s[i] == ':' || s[i] == '-':
			i++
			continue
		case strings.HasPrefix(s[i:], "–") || strings.HasPrefix(s[i:], "—"):
			i += len("–")
			continue
		case s[i] == '(':
			if k := strings.IndexByte(s[i:min(len(s), i+160)], ')'); k > 0 {
				i += k + 1
				continue
			}
			return false, false
		}
		if j, ok := alternative(s, i); ok {
			i = j
			continue
		}
		if qs := quotes(s[i:min(len(s), i+130)]); len(qs) > 0 && qs[0].a == 0 {
			i += qs[0].b // `"Sale", "Sells", "Sold" means`
			continue
		}
		win := strings.ToLower(strings.Join(strings.Fields(s[i:min(len(s), i+80)]), " "))
		for _, v := range definitionVerbs {
			if _, ok := hasWordPrefix(win, 0, v); ok {
				return true, false
			}
		}
		// In a list of definitions an entry may define with "is":
		// `(e) "Effective Date" is the date …`.
		for _, v := range []string{"is", "are", "shall be"} {
			if _, ok := hasWordPrefix(win, 0, v); ok && entry {
				return true, true
			}
		}
		return false, false
	}
	return false, false
}

// alternative reads `or "Y"` / `and "Y"` at byte i and returns where it ends.
func alternative(s string, i int) (int, bool) {
	for _, alt := range []string{"or", "and"} {
		if e, ok := hasWordPrefix(s, i, alt); ok {
			j := skipSpace(s, e)
			if j < len(s) && (s[j] == '"' || strings.HasPrefix(s[j:], "“")) {
				if qs := quotes(s[j:min(len(s), j+130)]); len(qs) > 0 && qs[0].a == 0 {
					return j + qs[0].b, true
				}
			}
		}
	}
	return i, false
}

// parenAround returns the bytes of the parenthesis holding quote q when its
// other words are connectives ("the", "hereinafter referred to as", "each
// a", other quoted terms), as in `(the "Distributor")`.
func parenAround(s string, q quote) (int, int, bool) {
	lo := max(0, q.a-100)
	p := strings.LastIndexByte(s[lo:q.a], '(')
	if p < 0 {
		return 0, 0, false
	}
	p += lo
	if strings.ContainsAny(s[p+1:q.a], ")") {
		return 0, 0, false
	}
	e := strings.IndexByte(s[q.b:min(len(s), q.b+200)], ')')
	if e < 0 || strings.Contains(s[q.b:q.b+e], "(") {
		return 0, 0, false
	}
	e += q.b
	if !connective(s[p+1:q.a]) || !connective(s[q.b:e]) {
		return 0, 0, false
	}
	return p, e + 1, true
}

// connective reports whether s holds only lower-case words, punctuation and
// quoted terms, at most ten words: the glue of an inline definition.
func connective(s string) bool {
	for _, q := range quotes(s) {
		s = s[:q.a] + strings.Repeat(" ", q.b-q.a) + s[q.b:]
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' })
	if len(words) > 10 {
		return false
	}
	for _, w := range words {
		if !unicode.IsLower(firstRune(w)) {
			return false
		}
	}
	return true
}

// calledBefore reports whether the words before byte i name what follows:
// `hereinafter referred to as "X"`, `hereinafter called "X"`.
func calledBefore(s string, i int) bool {
	before := strings.ToLower(strings.Join(strings.Fields(s[max(0, i-40):i]), " "))
	for _, w := range []string{"referred to as", "hereinafter", "hereafter", "called", "known as", "designated as"} {
		if strings.HasSuffix(before, w) || strings.HasSuffix(before, w+",") || strings.HasSuffix(before, w+" the") || strings.HasSuffix(before, w+" a") {
			return true
		}
	}
	// "referred to herein individually as a "Party" and collectively as
	// the "Parties"": "referred to" opens, "as (the|a|an)" ends, and what
	// lies between is lower-case glue and quoted terms.
	wide := strings.ToLower(strings.Join(strings.Fields(s[max(0, i-90):i]), " "))
	k := strings.LastIndex(wide, "referred to")
	if k < 0 {
		return false
	}
	tail := wide[k:]
	for _, end := range []string{" as", " as the", " as a", " as an"} {
		if strings.HasSuffix(tail, end) && !strings.ContainsAny(tail, ".;()") {
			return true
		}
	}
	return false
}

// determiners are the only glue that may introduce a lower-case term:
// `(the "disclosing party")`.
func determinerGlue(glue string) bool {
	for _, w := range strings.Fields(strings.Trim(strings.ToLower(glue), " (,")) {
		switch w {
		case "the", "a", "an", "each", "collectively", "hereinafter", "herein", "as", "referred", "to", "individually":
		default:
			return false
		}
	}
	return true
}

// bareName reads an unquoted name after "hereinafter referred to as" at
// byte i: capitalised words up to punctuation or a dash, as in
// "— hereinafter referred to as Cremer —".
func bareName(s string, i int) (int, int, bool) {
	j := skipSpace(s, i)
	e := j
	words := 0
	for e < len(s) && words < 5 {
		k := e
		for k < len(s) && (isWordByte(s[k]) && s[k] < 0x80 || s[k] == '-' || s[k] == '&') {
			k++
		}
		if k == e || !unicode.IsUpper(rune(s[e])) {
			break
		}
		words++
		e = k
		if e < len(s) && s[e] == ' ' && e+1 < len(s) && unicode.IsUpper(rune(s[e+1])) {
			e++
			continue
		}
		break
	}
	if words == 0 {
		return 0, 0, false
	}
	return j, trimRight(s, e), true
}

// collective reports whether an inline definition names several parties at
// once ("each a", "collectively the"), which is not one party's name.
func collective(glue string) bool {
	g := " " + strings.ToLower(glue) + " "
	for _, w := range []string{" each ", " collectively", " together", " individually", " jointly", " both "} {
		if strings.Contains(g, w) {
			return true
		}
	}
	return false
}

// entityBefore reports whether the text before a parenthesis names a legal
// entity: one of its last words is a corporate form.
func entityBefore(s string, p int) bool {
	lo := max(0, p-320) // a registered office address may stand between the name and its short name
	if k := strings.LastIndexByte(s[lo:p], ')'); k >= 0 {
		lo += k + 1
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(s[lo:p]), func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' }) {
		for _, f := range corporateForms {
			if w == f {
				return true
			}
		}
	}
	return false
}

// inPreamble reports whether node id lies in the preamble, before the first
// numbered part.
func inPreamble(t *clause.Tree, id int) bool {
	for ; id > 0; id = t.Nodes[id].Parent {
		if t.Nodes[id].Kind == clause.KindPreamble {
			return true
		}
	}
	return false
}

// meansSpan reads quote q as the term of a definition sentence (`"X"
// means …`) and returns the definition's bytes, clamped to its node.
// Before it, defs holds the definitions found earlier in the text: a term
// they define is not defined again by a weak verb — `16.6 "Distributor" is
// an independent contractor` is a clause about the party the preamble
// named, under a quoted heading.
func (x *text) meansSpan(q quote, term string, node int, at map[int]bool, defs []Definition) (int, int, bool) {
	s := x.s
	r := firstRune(term)
	if !(unicode.IsUpper(r) || unicode.IsDigit(r) || r == '[') {
		return 0, 0, false
	}
	ok, weak := meansAfter(s, q.b, x.entryStart(q.a))
	if !ok {
		return 0, 0, false
	}
	if weak {
		for _, d := range defs {
			if Key(d.Term) == Key(term) {
				return 0, 0, false
			}
		}
	}
	n0, n1 := x.nodeBytes(node)
	b := x.ends.sentenceEnd(s, q.b, n1)
	if n := x.t.Nodes[node]; strings.TrimSpace(s[n0:q.a]) == "" || len(s[n0:q.a]) < 40 && n.Kind == clause.KindDefinition {
		b = n1 // the whole entry, sub-items included
		at[node] = true
	}
	return clampBytes(q, max(q.a, n0), b)
}

// inlineSpan reads quote q as a term defined in passing — in parentheses
// (`(the "Distributor")`) or after "hereinafter referred to as" — and
// returns the sentence holding it, clamped to its node, and the kind.
func (x *text) inlineSpan(q quote, term string, node int) (int, int, DefinitionKind, bool) {
	s := x.s
	p, e, paren := parenAround(s, q)
	if !paren && !calledBefore(s, q.a) {
		return 0, 0, "", false
	}
	r := firstRune(term)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) && (!paren || !determinerGlue(s[p:q.a])) {
		return 0, 0, "", false // a lower-case quotation is a term only after "the", "a", …
	}
	if !paren {
		p, e = q.a, q.b
	}
	kind := DefInline
	if entityBefore(s, p) && !collective(s[p:q.a]) {
		kind = DefParty // kept only in the opening part: see partiesFirst
	}
	a, b := x.sentenceAround(p, e, node)
	a, b, ok := clampBytes(q, a, b)
	return a, b, kind, ok
}

// inlineReach bounds the sentence around an inline definition on each side.
const inlineReach = 600

// sentenceAround returns the sentence holding bytes [a, b), at most
// inlineReach bytes on either side and inside node. The bounds are applied
// before the sentence is looked for, not after: one line of inline
// definitions with no full stop would otherwise be scanned to its end for
// every definition on it (quadratic: 1 MB took 14 s, 20 MB did not finish).
func (x *text) sentenceAround(a, b, node int) (int, int) {
	n0, n1 := x.nodeBytes(node)
	return sentenceStart(x.s, a, max(n0, a-inlineReach)), sentenceEnd(x.s, b, min(n1, b+inlineReach))
}

// clampBytes returns [a, b) when it holds quote q, else the quoted text.
func clampBytes(q quote, a, b int) (int, int, bool) {
	if a > q.open || b < q.close {
		return q.open, q.close, true
	}
	return a, b, true
}

// bareNames finds names given without quotes after "hereinafter referred
// to as" / "hereinafter called": `— hereinafter referred to as Cremer —`.
func (x *text) bareNames(at map[int]bool) []Definition {
	s := x.s
	lower := strings.ToLower(s)
	var out []Definition
	for _, cue := range []string{"referred to as ", "hereinafter called "} {
		for from := 0; ; {
			k := strings.Index(lower[from:], cue)
			if k < 0 {
				break
			}
			i := from + k + len(cue)
			from = i
			if x.stopped() {
				return nil
			}
			if i < len(s) && (s[i] == '"' || strings.HasPrefix(s[i:], "“") || strings.HasPrefix(lower[i:], "the ") && i+4 < len(s) && (s[i+4] == '"' || strings.HasPrefix(s[i+4:], "“"))) {
				continue // quoted: read above
			}
			a, b, ok := bareName(s, i)
			if !ok {
				continue
			}
			term := s[a:b]
			if _, ok := termText(term); !ok || strings.HasPrefix(term, "Section") {
				continue
			}
			node := x.nodeCovering(a, b)
			sa, sb := x.sentenceAround(a, b, node)
			kind := DefInline
			if inPreamble(x.t, node) {
				kind = DefParty
			}
			out = append(out, Definition{Term: term, Span: x.span(min(sa, a), max(sb, b)), TermSpan: x.span(a, b), Node: node, Kind: kind})
		}
	}
	return out
}

// definitions finds the document's definitions, in text order.
func (x *text) definitions() []Definition {
	s := x.s
	var out []Definition
	at := map[int]bool{} // node ids whose own definition was found in the text
	for _, q := range quotes(s) {
		if x.stopped() {
			return nil
		}
		if len(out) == MaxDefinitions {
			break
		}
		term, ok := termText(s[q.open:q.close])
		if !ok {
			continue
		}
		node := x.nodeCovering(q.open, q.close)
		d := Definition{Term: term, TermSpan: x.span(q.open, q.close), Node: node}
		var a, b int
		if a, b, ok = x.meansSpan(q, term, node, at, out); ok {
			d.Kind = DefMeans
		} else if a, b, d.Kind, ok = x.inlineSpan(q, term, node); !ok {
			continue
		}
		d.Span = x.span(a, b)
		out = append(out, d)
	}
	out = append(out, x.bareNames(at)...)
	// Entries the clause parser read as definitions whose term lost its
	// quotes ("Affiliate means …"), where the words after the term define
	// it (bareDefines).
	for id, n := range x.t.Nodes {
		if n.Kind != clause.KindDefinition || n.Term == "" || at[id] {
			continue
		}
		term, ok := termText(n.Term)
		if !ok || sentenceOpener(term) {
			continue
		}
		n0, n1 := x.nodeBytes(id)
		k := strings.Index(s[n0:min(n1, n0+len(n.Term)+40)], n.Term)
		if k < 0 || !quotedAt(s, n0+k) && !bareDefines(s[n0+k+len(n.Term):min(n1, n0+k+len(n.Term)+80)]) {
			continue
		}
		ts := x.span(n0+k, n0+k+len(n.Term))
		dup := false
		for _, d := range out {
			if d.Node == id && d.TermSpan.Overlaps(ts) {
				dup = true
			}
		}
		if dup {
			continue
		}
		out = append(out, Definition{Term: term, Span: n.Span, TermSpan: ts, Node: id, Kind: DefMeans})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TermSpan.Start < out[j].TermSpan.Start })
	x.partiesFirst(out)
	return out
}

// partiesFirst keeps the party kind only for names given in the opening
// part of the contract — its preamble, or before the first definition
// sentence (parties listed as "(1) Acme Ltd … (the "Supplier")") — where an
// entity named with its short name is a party; later it is an inline
// definition of some other entity.
func (x *text) partiesFirst(defs []Definition) {
	first := -1
	for _, d := range defs {
		if d.Kind == DefMeans {
			first = d.TermSpan.Start
			break
		}
	}
	for i, d := range defs {
		if d.Kind == DefParty && !inPreamble(x.t, d.Node) && (first < 0 || d.TermSpan.Start > first) {
			defs[i].Kind = DefInline
		}
	}
}

// sentenceOpener reports whether an unquoted "term" starts with a
// determiner, a conjunction or a pronoun, so is the start of a sentence
// ("This Agreement includes …", "Whenever Distributor refers to …", "It
// includes …"), not a defined term.
func sentenceOpener(term string) bool {
	w, _, _ := strings.Cut(term, " ")
	switch strings.ToLower(w) {
	case "this", "the", "each", "any", "all", "no", "such", "that", "these", "those", "either", "neither",
		"whenever", "when", "where", "wherever", "if", "unless", "while", "although", "because",
		"it", "they", "he", "she", "we", "you":
		return true
	}
	return false
}

// quotedAt reports whether a quote mark opens right before byte i: the
// clause parser read a quoted term (`"control" (including …) means`).
func quotedAt(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == '"' || r == '“' || r == '\'' || r == '‘'
}

// bareVerbs define an unquoted term: the verbs that say what a term is, in
// the present tense.
var bareVerbs = []string{
	"means", "mean", "shall mean", "will mean", "has the meaning", "have the meaning", "shall have the meaning",
	"have the respective meaning", "shall have the respective meaning", "refers to", "includes",
	"is defined as", "shall be defined as",
}

// bareDefines reports whether the words after an unquoted term define it.
// A modal "shall include" or "shall refer to" after a name is an
// obligation of whoever it names ("Distributor shall include, in its
// agreements with its customers, …"), and "includes in" says where
// something is put ("Parent includes in such notice …"): neither defines.
func bareDefines(after string) bool {
	win := strings.ToLower(strings.Join(strings.Fields(strings.TrimLeft(after, " \t\r\n:\"”’'")), " "))
	for _, v := range bareVerbs {
		e, ok := hasWordPrefix(win, 0, v)
		if !ok {
			continue
		}
		if v == "includes" {
			rest := strings.TrimLeft(win[e:], " ")
			w, _, _ := strings.Cut(rest, " ")
			switch w {
			case "in", "within", "into", "on", "with", "as":
				return false
			}
			if strings.HasPrefix(rest, ",") {
				return false
			}
		}
		return true
	}
	return false
}
