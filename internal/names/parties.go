package names

import (
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxParties bounds the parties read from one document.
const maxParties = 8

var (
	partyLabelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Party\s+[A-Z]$`) })
	andRe        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\s+and\s+|;`) })
	byRe         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)\bBy\s*:`) })
	byRe2        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\sby\s+`) })
	withRe       = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:agreements?|agree|contract)\s+with\s+`)
	})
)

// readParties finds a document's parties: in the preamble ("between A and
// B"), in "Party A: …" lines, and — when neither names any — in the
// signature block. Each is kept once; a party the signature block names too
// says so in its Source.
func readParties(text, head string) []Party {
	tail := tailOf(text, 3000)
	tailKey := Key(tail)
	var out []Party
	seen := map[string]bool{}
	roles := map[string]bool{}
	add := func(c candidate, source string) {
		name := formTail(cleanName(c.name), tailKey)
		key := Key(name)
		if seen[key] {
			// The same party again (the preamble and a cover line, or a
			// name cut to its end): keep the short names and roles it is
			// defined by here too.
			for i := range out {
				if Key(out[i].Name) == key {
					addDefs(&out[i], c.defs)
				}
			}
			return
		}
		if key == "" || len(out) >= maxParties || !plausible(name) {
			return
		}
		signed := strings.Contains(" "+tailKey+" ", " "+Key(core(name))+" ")
		if !c.defined && !hasFormWord(name) && (!signed || len(strings.Fields(key)) < 2) && source == "preamble" {
			return // an address, a place or a word, not a party
		}
		if roles[key] {
			return // a role another party is defined by ("Parties")
		}
		seen[key] = true
		p := Party{Name: name, Source: source}
		if signed && source != "signature" {
			p.Source += "+signature"
		}
		addDefs(&p, c.defs)
		p.Core, p.Lead, p.Acronym = forms(name)
		out = append(out, p)
	}
	cands := preambleParties(head)
	for _, c := range cands {
		for _, d := range c.defs {
			if !Derived(d, c.name) {
				roles[Key(d)] = true
			}
		}
	}
	for _, c := range cands {
		add(c, "preamble")
	}
	for _, c := range labelLines(head, cands) {
		add(c, "party line")
	}
	if len(out) == 0 {
		for _, name := range signatureParties(tail) {
			add(candidate{name: name}, "signature")
		}
	} else if listedElsewhere(head) {
		// the members of a party the preamble names by reference: the
		// entities that sign, by their legal form
		for _, name := range signatureParties(tail) {
			if hasFormWord(cleanName(name)) {
				add(candidate{name: name}, "signature")
			}
		}
	}
	return out
}

// reListedElsewhere is a preamble's party named by reference to where its
// members are listed: "the persons and entities listed on Schedule A
// (collectively, the "ValueAct Group")".
var reListedElsewhere = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:listed|set\s+forth|named|identified)\s+(?:on|in)\s+(?:the\s+)?(?:schedule|exhibit|annex|appendix|signature)[^()]{0,80}\(\s*(?:collectively,?\s*)?(?:the\s+)?["“]`)
})

// listedElsewhere reports whether the preamble of head, before its
// recitals, introduces a party by reference to a schedule or the signature
// pages: its members are named there, and the signature block adds them.
func listedElsewhere(head string) bool {
	if i := recitals(head); i >= 0 {
		head = head[:i]
	}
	return reListedElsewhere().MatchString(head)
}

// addDefs adds the terms a party is defined by to its short names (those
// drawn from its name) or its roles.
func addDefs(p *Party, defs []string) {
	key := Key(p.Name)
	for _, d := range defs {
		switch {
		case Key(d) == "" || Key(d) == key || formPart(d, p.Name):
		case Derived(d, p.Name):
			p.Short = appendNew(p.Short, d)
		default:
			p.Roles = appendNew(p.Roles, d)
		}
	}
}

// formTail cuts what a name read from the preamble runs on into past its
// end, when the signature block (tailKey, Key of the document's end) does
// not write the longer name: an address or a date after a name in capitals
// ("PFIZER INC. August", "LEO PHARMA A/S of Industriparken", "AGAPE ATP
// INTERNATIONAL HOLDING LIMITED Unit": the capitals end the name), or
// words after a legal form written with a period that are no legal form
// themselves ("DGT Corp. Suite", "Eurofarma Laboratórios S.A. Avenida …";
// "GmbH & Co. KG" stays whole).
func formTail(name, tailKey string) string {
	f := strings.Fields(name)
	if len(f) < 3 {
		return name
	}
	if k := Key(name); k == "" || strings.Contains(" "+tailKey+" ", " "+k+" ") {
		return name
	}
	cut := func(n int) []string {
		f := f[:n]
		f[n-1] = strings.TrimRight(f[n-1], ",;")
		return f
	}
	form := func(w string) bool {
		w = strings.TrimRight(w, ",")
		return formWord(w) && (strings.HasSuffix(w, ".") || upperWord(w) || len(w) <= 4)
	}
	// The capitals end the name: at least two words in capitals, then a
	// word with a lower-case letter, and no legal form after it.
	caps := 0
	for caps < len(f) && !hasLower(f[caps]) {
		caps++
	}
	if caps >= 2 && caps < len(f) && letterCount(strings.Join(f[:caps], "")) >= 4 && !slices.ContainsFunc(f[caps:], form) {
		f = cut(caps)
	}
	// The last legal form written with a period, with the legal forms
	// right after it ("Co., Ltd."), then words that are none.
	abbrev := func(w string) bool { // "Ltd.", "L.L.C.", "LLC", "GmbH", "Ltd"
		w = strings.TrimRight(w, ",")
		return formWord(w) && (strings.HasSuffix(w, ".") || !strings.ContainsAny(strings.ToLower(w), "aeiou"))
	}
	for i := len(f) - 1; i >= 1; i-- {
		if w := strings.TrimRight(f[i], ","); !strings.HasSuffix(w, ".") || !formWord(w) {
			continue
		}
		j := i + 1
		for j < len(f) && abbrev(f[j]) {
			j++
		}
		if j < len(f) {
			f = cut(j)
		}
		break
	}
	return strings.Join(f, " ")
}

// hasLower reports whether w holds a lower-case letter.
func hasLower(w string) bool { return strings.IndexFunc(w, unicode.IsLower) >= 0 }

// labelLines reads the parties that lines of the head introduce by a label
// ending in a colon: "Party A: …", or a role the preamble defines
// ("… and the company set forth below ("Company")" then "Company: Bravatek
// Solutions, Inc."). The label must be one of those: a line "Address: …"
// names no party.
func labelLines(head string, cands []candidate) []candidate {
	labels := map[string]bool{}
	for _, c := range cands {
		for _, d := range c.defs {
			labels[strings.ToLower(d)] = true
		}
	}
	var out []candidate
	for _, line := range strings.Split(head, "\n") {
		for line != "" {
			i := strings.IndexAny(line, ":：")
			if i < 0 {
				break
			}
			label := strings.TrimSpace(line[:i])
			if j := strings.IndexByte(label, '('); j > 0 {
				label = strings.TrimSpace(label[:j])
			}
			// The label is the last words before the colon ("… Company: X").
			f := strings.Fields(label)
			if len(f) > 3 {
				label = strings.Join(f[len(f)-3:], " ")
			}
			_, size := utf8.DecodeRuneInString(line[i:])
			rest := strings.TrimLeft(line[i+size:], " \t")
			f = strings.Fields(label)
			ok := false
			for k := 0; k < len(f) && !ok; k++ {
				l := strings.Join(f[k:], " ")
				ok = labels[strings.ToLower(l)] || partyLabelRe().MatchString(l)
			}
			if ok {
				if name, _ := nameRun(rest); name != "" {
					out = append(out, candidate{name: name, defined: true})
				}
			}
			line = rest
		}
		if len(out) >= maxParties {
			break
		}
	}
	return out
}

// candidate is a party as the preamble gives it, with the terms defined for
// it (quoted in parentheses after it).
type candidate struct {
	name    string
	defs    []string
	defined bool // a definition in parentheses follows the name
}

// preambleParties reads the parties from the preamble: the text after
// "between", "among" or "entered into by" up to the end of its sentence (or
// the recitals) — every such phrase of the head that a name follows, since
// a cover line ("MASTER SERVICES AGREEMENT Between A and B Page 1") may come
// before the preamble proper — or, when there is none, the first paragraph
// holding two quoted definitions. The text is cut after each definition in
// parentheses ("Acme, Inc., a Delaware corporation ("Acme"), and …"), or at
// each "and" and ";" when it defines nothing; each piece names a party (see
// pieceName). A title block ("BETWEEN / ACME INC. / - and - / BETA LLC") is
// read paragraph by paragraph.
func preambleParties(head string) []candidate {
	var out []candidate
	seen := map[string]int{}
	keep := func(cs []candidate) {
		for _, c := range cs {
			k := Key(c.name)
			if i, ok := seen[k]; ok {
				// Named again (a cover block, then the preamble proper):
				// the terms it is defined by here count too.
				out[i].defs = append(out[i].defs, c.defs...)
				out[i].defined = out[i].defined || c.defined
				continue
			}
			seen[k] = len(out)
			out = append(out, c)
		}
	}
	found := false
	// A letter agreement defines its parties before any "between" ("X
	// (the "Company") … hereby confirm their agreement with Y (the
	// "Agent")"); a "between" after that paragraph that names only the
	// terms it defined is the body's ("between the Company and the Agent").
	defining := definingParagraph(head)
	for _, m := range introductions(head, 8) {
		if !introducesParties(head, m[0]) {
			continue
		}
		if name, _ := nameRun(skipJoiners(head[m[1]:])); name == "" {
			if name, _ := looseRun(skipJoiners(head[m[1]:])); name == "" {
				continue
			}
		}
		if !found && defining >= 0 && defining < m[0] && namesDefinedOnly(head[m[1]:], sentenceParties(head[defining:])) {
			keep(sentenceParties(head[defining:]))
			found = true
			continue
		}
		found = true
		sentence := sentenceParties(head[m[1]:])
		if strings.Contains(head[m[0]:m[1]], "\n") {
			// A title block, unless the preamble's sentence reads more
			// parties ("between:" then one paragraph per party).
			if cs := titleBlock(head[m[1]:]); len(cs) > 0 && len(cs) >= len(sentence) {
				keep(cs)
				continue
			}
		}
		keep(sentence)
	}
	if !found && defining >= 0 {
		keep(sentenceParties(head[defining:]))
	}
	return out
}

// namesDefinedOnly reports whether the parties the introduction s reads
// are all terms the candidates cands define, cands holding two parties or
// more.
func namesDefinedOnly(s string, cands []candidate) bool {
	if len(cands) < 2 {
		return false
	}
	defined := map[string]bool{}
	for _, c := range cands {
		for _, d := range c.defs {
			defined[Key(d)] = true
		}
	}
	named := sentenceParties(s)
	for _, c := range named {
		if !defined[Key(c.name)] {
			return false
		}
	}
	return len(named) > 0
}

// introducesParties reports whether the introducing words at byte at of
// head may open the parties of this contract: not inside a recital
// ("WHEREAS, … entered into between Trip shareholders and Azul", over
// several lines too) nor a definition ("\"Affiliate Agreement\" means any
// agreement entered into between the Parties"), which name other
// agreements' parties.
func introducesParties(head string, at int) bool {
	ps := strings.LastIndex(head[:at], "\n") + 1
	seg := asciiLower(head[ps:at])
	// A recital runs on over its lines ("WHEREAS, pursuant to an asset
	// transfer agreement between NTL and Entrust … and an asset\ntransfer
	// agreement between Northern Telecom Inc. and ETI …"): its sentence is
	// read back to its start.
	if strings.Contains(seg, "whereas") || strings.Contains(asciiLower(head[sentenceStart(head, at):at]), "whereas") {
		return false
	}
	for _, w := range []string{"\" means", "” means", "\" shall mean", "” shall mean", "\" has the meaning", "” has the meaning"} {
		if strings.Contains(seg, w) {
			return false
		}
	}
	return true
}

// sentenceParties reads the parties of a preamble sentence s.
func sentenceParties(s string) []candidate {
	s = s[:preambleEnd(s)]
	var out []candidate
	for i, p := range splitParties(s) {
		name, rest := pieceName(p)
		if strings.HasPrefix(rest, ":") {
			// "Company: Bravatek Solutions, Inc.": a label, then the name
			name, rest = nameRun(rest[1:])
		}
		if name == "" {
			continue
		}
		if i > 0 && Describes(p[:max(0, strings.LastIndex(p[:len(p)-len(rest)], strings.TrimSpace(name)))]) {
			continue
		}
		c := candidate{name: name}
		c.defs, c.defined = definitions(rest, name)
		out = append(out, c)
	}
	return out
}

// Describes reports whether the words of a preamble's piece before the
// name it holds (prefix) make that name part of a description of the party
// before it rather than a party: a relative clause or a passive participle
// whose agent the name is ("… (the "Bank"), the deposit accounts of which
// are insured by the Federal Deposit Insurance Corporation ("FDIC")", "with
// its deposit accounts insured by the Savings Association Insurance Fund
// ("SAIF") administered by …"). Only the words after the last "and" or
// semicolon count: before them runs the description of the party before
// ("… a company limited by guarantee, … United Kingdom and CERES, INC.",
// "whose principal place of business is … and HIGH SPEED NET SOLUTIONS,
// INC."). The agreement's own making ("This Agreement is made and entered
// into … by") is no description.
func Describes(prefix string) bool {
	f := strings.Fields(strings.NewReplacer(",", " ", ";", " ; ").Replace(asciiLower(prefix)))
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == "and" || f[i] == ";" {
			f = f[i+1:]
			break
		}
	}
	if slices.Contains(f, "agreement") {
		return false
	}
	if slices.Contains(f, "which") || slices.Contains(f, "whose") {
		return true
	}
	for i := 1; i < len(f); i++ {
		if f[i] == "by" && strings.HasSuffix(f[i-1], "ed") && len(f[i-1]) > 4 {
			return true
		}
	}
	return false
}

// pieceName finds the party's name in a piece of the preamble: at its
// start; else after its last "and" or "by" before its definitions ("… whose
// address is …, and Beta Inc. ("Beta")", "This Agreement is entered into as
// of June 1 by Curo Corp. ("Curo")"); else the first name in it holding a
// legal-form word that a definition of the piece is drawn from ("and its
// Reseller, Schoolpop, Inc. ("Schoolpop")"). A name may start in lower case
// when a legal-form word follows ("e-centives, Inc."). A name that cannot
// be a party's ("This Servicing Agreement") is passed over.
func pieceName(p string) (string, string) {
	try := func(s string) (string, string, bool) {
		if name, rest := nameRun(s); name != "" && plausible(cleanName(name)) {
			return name, rest, true
		}
		if name, rest := looseRun(s); hasFormWord(name) && plausible(cleanName(name)) {
			return name, rest, true
		}
		return "", "", false
	}
	if name, rest, ok := try(skipJoiners(p)); ok {
		return name, rest
	}
	lim := len(p)
	if i := strings.IndexByte(p, '('); i >= 0 {
		lim = i
	}
	var starts []int
	for _, loc := range andRe().FindAllStringIndex(p[:lim], -1) {
		starts = append(starts, loc[1])
	}
	for _, loc := range byRe2().FindAllStringIndex(p[:lim], -1) {
		starts = append(starts, loc[1])
	}
	// A letter agreement's parties confirm "their agreement with" the
	// other party: the agreement is made with it.
	for _, loc := range withRe().FindAllStringIndex(p[:lim], -1) {
		starts = append(starts, loc[1])
	}
	slices.Sort(starts)
	for i := len(starts) - 1; i >= 0; i-- {
		if name, rest, ok := try(p[starts[i]:]); ok {
			return name, rest
		}
	}
	// Some name of the piece that a definition of it is drawn from.
	defs, _ := definitions(p[lim:], "")
	for i := 0; i < lim && len(defs) > 0; i++ {
		if i > 0 && !unicode.IsSpace(rune(p[i-1])) {
			continue
		}
		name, rest := nameRun(p[i:])
		if name == "" || !hasFormWord(name) {
			continue
		}
		for _, d := range defs {
			if Derived(d, name) {
				return name, rest
			}
		}
	}
	return "", p
}

// looseRun is nameRun that takes a first word in lower case ("e-centives").
func looseRun(s string) (string, string) {
	s = strings.TrimLeft(s, " \t\r\n")
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i <= 0 {
		return "", s
	}
	first := s[:i]
	r, _ := utf8.DecodeRuneInString(first)
	// A word of plain lower-case letters is prose ("between", "its").
	if !unicode.IsLetter(r) || strings.ContainsAny(first, "\"“”(") || !strings.ContainsAny(strings.TrimRight(first, ",;:"), "-.@0123456789") {
		return "", s
	}
	// Read the rest as if the first word were capitalized.
	name, rest := nameRun("X" + s[utf8.RuneLen(r):])
	if name == "" {
		return "", s
	}
	return string(r) + name[1:], rest
}

// titleBlock reads the parties of a title block: a paragraph starting with
// a name, joined to the next by a paragraph that says "and" ("&", "- and
// -"); what follows a name before the next joiner (an address, "(hereinafter
// called "MLX")") is read for its definitions.
func titleBlock(s string) []candidate {
	var out []candidate
	want := true // a name is expected next
	skipped := 0
	for _, para := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(para)
		bare := strings.ToLower(strings.Trim(t, " -–—:"))
		switch {
		case t == "":
			continue
		case bare == "and" || bare == "&":
			if want {
				return out
			}
			want = true
			continue
		case !want:
			// the last party's address or definitions
			if skipped++; skipped > 8 || len(t) > 300 {
				return out
			}
			last := &out[len(out)-1]
			defs, _ := definitions(t, last.name)
			last.defs = append(last.defs, defs...)
			continue
		}
		name, rest := nameRun(t)
		if name == "" {
			return out
		}
		c := candidate{name: name}
		c.defs, _ = definitions(rest, name)
		c.defined = true // set apart as a party by the layout itself
		out = append(out, c)
		want, skipped = false, 0
		if len(out) >= maxParties {
			break
		}
	}
	return out
}

// introducers are the words a preamble introduces its parties with, in
// lower case.
var introducers = []string{"between", "among", "amongst", "entered into by", "made by", "executed by"}

// introductions returns, for at most n places where head introduces its
// parties ("by and between", "among", "entered into by"), the span of the
// introducing words and the white space and colons after them. It scans a
// lower-case copy with plain string search: a case-insensitive regular
// expression over every document's head cost more than the rest of
// learning its names.
func introductions(head string, n int) [][2]int {
	lower := strings.ToLower(head) // same length: head's ASCII letters only change
	if len(lower) != len(head) {
		lower = asciiLower(head)
	}
	var out [][2]int
	for i := 0; i < len(lower) && len(out) < n; {
		best, bl := -1, 0
		for _, w := range introducers {
			if j := strings.Index(lower[i:], w); j >= 0 && (best < 0 || i+j < best) {
				best, bl = i+j, len(w)
			}
		}
		if best < 0 {
			break
		}
		e := best + bl
		i = e
		if best > 0 && isWordByte(lower[best-1]) || e < len(lower) && isWordByte(lower[e]) {
			continue
		}
		for e < len(head) && (head[e] == ' ' || head[e] == '\t' || head[e] == '\r' || head[e] == '\n' || head[e] == ':') {
			e++
		}
		out = append(out, [2]int{best, e})
	}
	return out
}

// recitals returns where s reaches the recitals or the operative words
// ("WHEREAS", "RECITALS", "WITNESSETH", "NOW, THEREFORE"), or -1.
func recitals(s string) int {
	lower := asciiLower(s)
	end := -1
	for _, w := range []string{"whereas", "recitals", "witnesseth", "w i t n e s s e t h", "now, therefore", "now therefore"} {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			a, b := i+j, i+j+len(w)
			if (a == 0 || !isWordByte(lower[a-1])) && (b == len(lower) || !isWordByte(lower[b])) {
				if end < 0 || a < end {
					end = a
				}
				break
			}
			i = a + 1
		}
	}
	return end
}

// asciiLower lowers the ASCII letters of s only, so byte offsets stay put.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipJoiners skips the white space, punctuation and joining words ("and",
// "the") that may come before a party's name.
func skipJoiners(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\r\n,;:-–—")
		for _, w := range []string{"and", "the", "&"} {
			if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) && strings.ContainsRune(" \t\r\n:-", rune(t[len(w)])) {
				t = t[len(w):]
				break
			}
		}
		t = skipListMark(t)
		if t == s {
			return s
		}
		s = t
	}
}

// skipListMark skips the mark of an item of a list of parties ("(1) Acme
// A/S …; and (2) Beta GmbH …", "1. Acme", "(a) Acme") and the white space
// after it.
func skipListMark(s string) string {
	i := 0
	paren := strings.HasPrefix(s, "(")
	if paren {
		i++
	}
	j := i
	for j < len(s) && j-i < 4 && (s[j] >= '0' && s[j] <= '9' || paren && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z')) {
		j++
	}
	if j == i || j >= len(s) {
		return s
	}
	switch {
	case paren && s[j] == ')', !paren && (s[j] == '.' || s[j] == ')') && s[i] >= '0' && s[i] <= '9':
		j++
	default:
		return s
	}
	if j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		return strings.TrimLeft(s[j:], " \t\r\n")
	}
	return s
}

// definingParagraph returns where the parties of the first paragraph of
// head that holds at least two quoted definitions in parentheses ("Acme"),
// (the "Company") start, or -1: at the start of the sentence of its first
// definition, so that a letter's address and salutation ("Ladies and
// Gentlemen:") laid out without blank lines before it are no party.
func definingParagraph(head string) int {
	at := 0
	for _, para := range strings.Split(head, "\n\n") {
		if defs := parenDefRe().FindAllStringIndex(para, -1); len(defs) >= 2 {
			lead := len(para) - len(strings.TrimLeft(para, " \t\r\n"))
			start := max(lead, letterStart(para, defs[0][0]))
			return at + start
		}
		at += len(para) + 2
	}
	return -1
}

// parenDefRe is a quoted definition in parentheses: ("Acme"), (the
// "Company"), over a line break too.
var parenDefRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(\s*(?:(?i:the)\s+)?["“]`)
})

// letterStart returns where the sentence holding byte at of para starts,
// counting a line that ends in a colon (a salutation, "Ladies and
// Gentlemen:", or a heading) as a sentence's end, or 0.
func letterStart(para string, at int) int {
	start := 0
	if i := strings.LastIndex(para[:at], ":\n"); i >= 0 {
		start = i + 2
	}
	if i := strings.LastIndex(para[:at], ":\r\n"); i >= 0 && i+3 > start {
		start = i + 3
	}
	return start
}

// preambleEnd returns where the party text s ends: at the first full stop
// that ends a sentence (not one after an abbreviation such as "Inc."), at
// the recitals, at a paragraph break after a long paragraph, or after 2,000
// bytes.
func preambleEnd(s string) int {
	end := min(len(s), 2000)
	if i := recitals(s[:end]); i >= 0 {
		end = i
	}
	// A cover's "by and among A, B and C" ends where its table of
	// contents starts ("… Payment of Termination Fee 23 ARTICLE 4
	// REPRESENTATIONS AND WARRANTIES OF THE COMPANY" names no party).
	if loc := contentsWordsRe().FindStringIndex(s[:end]); loc != nil {
		end = loc[0]
	}
	depth := 0
	paraStart := 0
	for i := 0; i < end; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case '\n':
			if i+1 < end && s[i+1] == '\n' || i+2 < end && s[i+1] == '\r' && s[i+2] == '\n' {
				if i-paraStart >= 200 && !continues(s[paraStart:i]) {
					return i
				}
				paraStart = i + 1
			}
		case '.':
			if depth > 0 || i+1 >= end || !unicode.IsSpace(rune(s[i+1])) {
				continue
			}
			// A sentence ends where the next word is capitalized and the
			// word before is no abbreviation ("Inc. (", "Corp., a" go on).
			next := strings.TrimLeft(s[i+1:end], " \t\r\n")
			r, _ := utf8.DecodeRuneInString(next)
			if (next == "" || unicode.IsUpper(r)) && !abbrevBefore(s[:i]) && !listNumber(s[:i]) {
				return i
			}
		}
	}
	return end
}

// continues reports whether a paragraph of a preamble ends by going on to
// the next ("…(the “Supplier”); and", "…(“Acme”),").
func continues(para string) bool {
	p := strings.ToLower(strings.TrimRight(para, " \t\r\n"))
	return strings.HasSuffix(p, " and") || strings.HasSuffix(p, ";") || strings.HasSuffix(p, ",")
}

// listNumber reports whether s ends with the number of an item of a list
// ("…between:\n\n1" before "1. Acme Ltd"): digits alone on their line.
func listNumber(s string) bool {
	line := s[strings.LastIndexByte(s, '\n')+1:]
	line = strings.TrimSpace(line)
	if line == "" || len(line) > 2 {
		return false
	}
	for _, c := range []byte(line) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// abbrevBefore reports whether the word ending s (before a period) is an
// abbreviation rather than the end of a sentence: a capitalized word of at
// most four letters ("Inc", "Co", "Ltd", "U.S", "B.V") or a single letter.
func abbrevBefore(s string) bool {
	i := strings.LastIndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ',' })
	w := s[i+1:]
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	r, _ := utf8.DecodeRuneInString(w)
	return letters > 0 && letters <= 4 && unicode.IsUpper(r)
}

// splitParties cuts the party text after each group of parentheses that
// defines a term, or, when nothing is defined, at each "and" and ";" outside
// parentheses.
func splitParties(s string) []string {
	defs := false
	var out []string
	from := 0
	for open, i := range outerParens(s) {
		if !quoted(s[open:i]) && !shortParen(s[open+1:i]) {
			continue
		}
		if !quoted(s[open:i]) {
			// "(USA)" inside "Fonterra (USA) Inc." defines nothing: the
			// name goes on after it.
			next := strings.TrimLeft(s[i+1:], " ")
			if w, _, _ := strings.Cut(next, " "); nameWord(strings.TrimRight(w, ",;:")) {
				continue
			}
		}
		defs = true
		// Several parentheses in a row define terms for one party.
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == ',') {
			j++
		}
		if j < len(s) && s[j] == '(' {
			continue
		}
		out = append(out, s[from:i+1])
		from = i + 1
	}
	out = append(out, s[from:])
	if defs {
		return out
	}
	// Nothing defined: "between Acme Corp. and Beta LLC".
	return andRe().Split(s, maxParties)
}

// quoted reports whether s holds a quotation mark.
func quoted(s string) bool { return strings.ContainsAny(s, "\"“”") }

// shortParen reports a parenthesis that may define a short name without
// quotation marks: one capitalized word ("(Torvec)").
func shortParen(s string) bool {
	s = strings.TrimSpace(s)
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && unicode.IsUpper(r) && !strings.ContainsAny(s, " ,;") && utf8.RuneCountInString(s) <= 30
}

var defQuoteRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["“”]([^"“”]{1,60})["“”]`)
})

// definitions returns the terms defined in parentheses in the rest of a
// party's piece of the preamble (its quoted names, or one capitalized word
// in parentheses), and whether there was any.
func definitions(rest, name string) ([]string, bool) {
	var defs []string
	for open, i := range outerParens(rest) {
		in := rest[open+1 : i]
		if quoted(in) {
			for _, m := range defQuoteRe().FindAllStringSubmatch(in, 6) {
				d := strings.TrimSpace(m[1])
				if len(d) > 4 && strings.EqualFold(d[:4], "the ") {
					d = d[4:]
				}
				if first, _, _ := strings.Cut(d, " "); d != "" && (startsUpper(d) || nameWord(first)) {
					defs = append(defs, d)
				}
			}
		} else if shortParen(in) && Derived(strings.TrimSpace(in), name) {
			defs = append(defs, strings.TrimSpace(in))
		}
	}
	return defs, len(defs) > 0
}

// outerParens yields the byte offsets of the '(' and the ')' of each
// outermost group of parentheses in s, in order; a ')' with no '(' open is
// skipped, and a group left open at the end is not yielded.
func outerParens(s string) iter.Seq2[int, int] {
	return func(yield func(open, close int) bool) {
		depth, open := 0, 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '(':
				if depth == 0 {
					open = i
				}
				depth++
			case ')':
				if depth == 0 {
					continue
				}
				depth--
				if depth == 0 && !yield(open, i) {
					return
				}
			}
		}
	}
}
