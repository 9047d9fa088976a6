package answer

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/names"
)

// Reading the parties of a contract. Drafters introduce the parties once,
// in the preamble, and sign at the end:
//
//	This Licence Agreement is made on 1 May 2020 by and between ACME
//	HOLDINGS, INC., a Delaware corporation with offices at … ("Acme"), and
//	Beta GmbH, a company incorporated in Germany (the "Licensee").
//
//	IN WITNESS WHEREOF … ACME HOLDINGS, INC.  By: ____  Name: …  Title: …
//
// The reader finds the preamble's introduction (the first "between",
// "among" or "BETWEEN:" in the contract's opening, before its recitals),
// and in it every defined name in brackets ("Acme", the "Licensee",
// hereinafter referred to as "Supplier") that follows a party's name: the
// name is what precedes the bracket back to the introduction, the previous
// party or the previous sentence, cut before its description (", a
// Delaware corporation", ", with offices at", ", having its registered
// office"). Parties introduced without a defined name are read by their
// company form (Inc., LLC, GmbH, …). Parties that only sign (an entity name
// above "By:" in the signature block, or "LICENSOR: ACME INC.") are added
// when the preamble did not name them. Written from drafting conventions,
// not from any labelled contract's strings.

// A partyRead is one party read from a text, in bytes of that text.
type partyRead struct {
	name, role                       string
	nameAt, nameEnd, roleAt, roleEnd int // roleAt < 0: no role
}

var (
	// reIntro is the word that introduces the parties.
	reIntro = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:by\s+and\s+between|by\s+and\s+among|between|among|entered\s+into\s+by|made\s+by|executed\s+by)\b\s*:?`)
	})
	// reRecitals ends a preamble.
	reRecitals = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:WHEREAS|RECITALS?|BACKGROUND|PREAMBLE|NOW,?\s+THEREFORE|IN\s+CONSIDERATION\s+OF|IT\s+IS\s+(?:HEREBY\s+)?AGREED|AGREED\s+TERMS|THE\s+PARTIES\s+(?:HERETO\s+)?(?:HEREBY\s+)?AGREE)\b`)
	})
	// reDefined are the ways a preamble defines a party's short name, each
	// with the groups "pre" (the words before the name) and "role": in
	// brackets with quotes — ("Acme"), (the "Licensee"), ("X" or "Y"),
	// (hereinafter referred to as "Supplier") —, in brackets without
	// quotes after "hereinafter", "referred to as" or "the" — (hereinafter
	// referred to as Party A), (the Company) —, or without brackets:
	// hereinafter referred to as "TKCI". An unquoted name is every
	// capitalised word up to the bracket, however spaced: "(hereinafter
	// referred to as Pretzel  Time)" defines "Pretzel  Time", not "Time".
	reDefined = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`\((?P<pre>[^()]{0,200}?)["“”']{1,2}(?P<role>[^"“”()]{1,60}?)["“”']{1,2}[^()]{0,200}?\)`),
			// a quote left open: ("Celebrity)
			regexp.MustCompile(`\((?P<pre>)["“](?P<role>[A-Z][^"“”()]{0,40}?)\)`),
			regexp.MustCompile(`\((?P<pre>(?i:hereinafter|hereafter|referred\s+to|called|collectively|jointly)[^()"“”]{0,40}?\s(?:as\s+)?)(?P<role>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)\s*\)`),
			regexp.MustCompile(`\((?P<pre>the\s+)(?P<role>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,2})\s*\)`),
			// an unquoted short name in capitals right after a name:
			// "Mutual Insurance Corporation of America, a Michigan
			// insurance corporation (MICOA)", "USA Managed Care
			// Organization (USA MCO)"
			regexp.MustCompile(`\((?P<pre>)(?P<role>[A-Z][A-Z0-9&-]{1,11}(?:\s[A-Z][A-Z0-9&-]{1,11})?)\)`),
			regexp.MustCompile(`(?P<pre>,?\s*(?i:hereinafter|hereafter)\s+(?i:referred\s+to\s+as|called):?\s+)["“](?P<role>[^"“”]{1,60})["”]`),
		}
	})
	// reDescription starts the description that follows a party's name.
	reDescription = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:,|\s)\s*(?:an?\s+(?:[A-Z][\w.'-]*\s+){0,6}(?:corporation|company|limited|partnership|entity|individual|organi[sz]ation|association|bank|trust|business|firm|llc|corp|society|cooperative|public|private|joint|stock|société|sociedad|gmbh|ag\b)|an?\s+(?:corporation|company|limited|partnership|individual|natural|person|resident|citizen|national|wholly|subsidiary|division|body|statutory|government)|with\s+(?:its\s+|an?\s+|offices|principal|headquarters|registered|a\s+place|a\s+principal|its\s+principal|an\s+address|address)|,\s*(?:an?\s+)?(?i:individual)\b|having\s|whose\s|located\s|incorporated\s|organi[sz]ed\s|existing\s|duly\s|registered\s|residing\s|domiciled\s|acting\s|represented\s|on\s+behalf\s|through\s+its|in\s+(?:his|her|its|their)\s+(?:individual\s+)?capacity|[sdwr]/o\.?\s|\(?(?:registered|company|commercial)\s+(?:number|no))`)
	})
	// reCompanyForm ends an entity's name.
	reCompanyForm = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:GmbH\s*&\s*Co\.?\s*KG|Co\.?,?\s*Ltd|Inc|Incorporated|Corp|Corporation|Company|Co|LLC|L\.L\.C|Ltd|Limited|LP|L\.P|LLP|L\.L\.P|PLC|plc|P\.L\.C|GmbH|AG|S\.A|SA|S\.A\.S|SAS|S\.p\.A|SpA|S\.r\.l|N\.V|NV|B\.V|BV|AB|ASA|A/S|Oy|Pty|KK|K\.K|Trust|Bank|LLLP|PC|P\.C|PLLC)\b\.?`)
	})
	// reCompanyFormAnyCase is reCompanyForm in upper case too ("ACME INC.").
	reCompanyFormAnyCase = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)` + reCompanyForm().String())
	})
	reLeadingForm = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*,?\s*` + reCompanyForm().String())
	})
	// reArticleOpen opens a description, not a name: ", a charity …".
	reArticleOpen  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\s,;]*an?\s+[a-z]`) })
	reClauseNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z]`) })
	reLabelColon   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`:\s+`) })
	reJoin         = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`,\s*(?:and|AND)\s+|\s{2,}AND\s{2,}|\n\s*(?i:and)\s*:?\s*\n`)
	})
	reSeparator = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`;|,\s*(?:and|AND)\s|\s{2,}AND\s{2,}|-\s*(?i:and)\s*-|\n\s*\n|(?i)\b(?:by\s+and\s+between|by\s+and\s+among|between|among)\b\s*:?`)
	})
	// reOwnGroup follows a ", and" that belongs to the party's own name:
	// "Cardax, Inc., and its Affiliates".
	reOwnGroup = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:its|their)\b`)
	})
	reIndividual = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i),\s*(?:an?\s+)?individual\b|\s+(?:and|together\s+with|including)\s+its\s+(?:affiliates|subsidiaries|successors)\b`)
	})
	reNextParty = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\(?\d{1,2}[.)]|\([a-z]\)|(?i:and)\b|&|-\s*(?i:and)\s*-)`)
	})
	reRoleLabel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|\s)(Party\s+[A-Z]|[A-Z][a-z]{2,20}(?:\s[A-Z][a-z]{2,20})?)(?:\s*\([^()\n]{1,30}\))?\s*[:：]\s*([A-Z][^:：\n]{1,120}?` + reCompanyForm().String() + `)`)
	})
	reAnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(?:,\s*|\s)and,?\s|;\s*`) })
	// reLowerWord is a lower-case word of a description ("a registered
	// charity"), not of a name.
	reLowerWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)[a-z][a-z]+\b`) })
	// reSignedBy is a signature line.
	reSignedBy = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)^\s*(?:By|Signed|Signature|Per)\s*:`)
	})
	reWitness = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bIN\s+WITNESS\s+WHEREOF\b|\bSIGNED\s+(?:by|for\s+and\s+on\s+behalf)|\bEXECUTED\s+(?:by|as)`)
	})
	// reRoleLine is a signature block's "LICENSOR: ACME INC.".
	reRoleLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:THE\s+)?([A-Z][A-Za-z]{2,25}(?:\s[A-Z][A-Za-z]{2,25})?)\s*:\s*(\S.{1,100}?)\s*$`)
	})
)

// possessive are the words that set a party's role before its name ("its
// Reseller, Schoolpop, Inc.").
var possessive = map[string]bool{"its": true, "their": true, "his": true, "her": true}

// reRoleApposition is a role of one to three capitalized words and the
// comma after it, before a capitalized name.
var reRoleApposition = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2},\s+[A-Z]`)
})

// genericRoles are defined names that are not one party's: the parties as
// a whole, the agreement, its dates.
var genericRoles = map[string]bool{
	"party": true, "parties": true, "agreement": true, "this agreement": true, "effective date": true,
	"execution date": true, "commencement date": true, "effectivedate": true, "term": true, "contract": true, "each": true,
}

// Months and words that open a date or a description, not a name.
var notNameStart = map[string]bool{
	"this": true, "dated": true, "as": true, "effective": true, "on": true, "the": false,
	"schedule": true, "exhibit": true, "section": true, "annex": true, "appendix": true, "article": true,
	"p.o.": true, "p.o": true, "po": true,
}

// preambleParties reads the parties a contract's opening introduces. s is
// the opening (the contract's first characters).
func preambleParties(s string) []partyRead {
	intro := reIntro().FindStringIndex(s)
	// The parties may be introduced with defined names and no "between"
	// ("The Contractor: Acme Co. (hereinafter referred to as Party A) and
	// …", "Kiromic, Inc. (the "Company") is pleased to retain Gianluca
	// Rotino ("Consultant")", a letter's "X (the "Company") … hereby
	// confirm their agreement with Y (the "Agent")"): read the sentence of
	// the first defined name, when it comes before any "between".
	var defined []partyRead
	lo, ok := definedSentence(s)
	definedEnd := lo
	if ok && (intro == nil || lo < intro[0]) {
		definedEnd = introEnd(s, lo)
		ws := len(s[lo:]) - len(strings.TrimLeft(s[lo:], " \t\r\n"))
		if k := reRecitalStart().FindStringIndex(s[lo+ws:]); k != nil && k[0] == 0 {
			k[1] += ws
			// a contract that opens with its recitals ("WHEREAS, Movado
			// Group, Inc. (the "Company") and the Trustees … (the
			// "Trust") entered into …; and"): the first recital alone
			if next := reRecitals().FindStringIndex(s[lo+k[1] : definedEnd]); next != nil {
				definedEnd = lo + k[1] + next[0]
			}
			if semi := strings.IndexByte(s[lo:definedEnd], ';'); semi >= 0 {
				definedEnd = lo + semi
			}
		}
		defined = definedParties(s, lo, definedEnd)
	}
	// A "between" well after a sentence that introduced the parties with
	// their defined names is in the contract's body ("… shared among the
	// Joint Venturers as follows"), not an introduction.
	if intro != nil && ok && lo < intro[0] && (len(defined) >= 2 || len(defined) == 1 && intro[0]-definedEnd > bodyGap) && anyCompanyForm(defined) && intro[0] > definedEnd {
		return defined
	}
	if intro == nil {
		if ok {
			return defined
		}
		return labelledParties(s[:min(len(s), labelledChars)])
	}
	end := len(s)
	if loc := reRecitals().FindStringIndex(s[intro[1]:]); loc != nil {
		end = intro[1] + loc[0]
	}
	// A cover page ("Between: A And B Dated …") may come before the
	// preamble proper; prefer an introduction followed by defined names,
	// before the recitals (a "between" in the contract's body introduces
	// no party).
	firstEnd := end
	for _, m := range reIntro().FindAllStringIndex(s[:firstEnd], -1) {
		e := len(s)
		if loc := reRecitals().FindStringIndex(s[m[1]:]); loc != nil {
			e = m[1] + loc[0]
		}
		if hasRole(s[m[1]:min(e, introEnd(s, m[1]))]) {
			intro, end = m, e
			break
		}
	}
	end = min(end, introEnd(s, intro[1]))
	out := definedParties(s, intro[1], end)
	if len(out) == 0 {
		out = formParties(s, intro[1], min(end, intro[1]+800))
	} else if len(out) == 1 {
		// "between Tripath Technology, Inc. ("Tripath"), and Uniquest
		// Corporation 780 Montague Expressway …": a party named after the
		// last defined one, by its company form
		from := out[0].nameEnd
		if out[0].roleAt >= 0 {
			from = out[0].roleEnd
		}
		if k := strings.IndexByte(s[from:end], ')'); k >= 0 && k < 3 {
			from += k + 1
		}
		if sep := reSeparator().FindStringIndex(s[from:end]); sep != nil {
			for _, r := range formParties(s, from+sep[1], min(end, from+800)) {
				out = dedupeParties(append(out, r))
				break
			}
		}
	}
	if len(defined) >= 2 && len(out) < 2 {
		return defined
	}
	if len(out) < 2 {
		// "Party A: Acme Co., Ltd. … Party B: Beta Ltd.", or one party
		// introduced and the other written as a label ("Company: Bravatek
		// Solutions, Inc.")
		labelled := labelledParties(s[:min(len(s), labelledChars)])
		if len(labelled) >= 2 {
			return labelled
		}
		for _, r := range labelled {
			out = dedupeParties(append(out, r))
		}
	}
	return out
}

// definedSentence returns where the sentence of the first party's defined
// name starts (the line, or the sentence within it), if s defines one.
func definedSentence(s string) (int, bool) {
	for _, m := range definedMatches(s) {
		if isGenericRole(s[m.roleLo:m.roleHi]) {
			continue
		}
		lo := strings.LastIndexAny(s[:m.at], "\n") + 1
		for k := m.at - 1; k > lo; k-- {
			if s[k] == ' ' && s[k-1] == '.' && !endsWithForm(s[lo:k]) && !abbreviation(s[lo:k-1]) {
				lo = k + 1
				break
			}
		}
		return lo, true
	}
	return 0, false
}

// anyCompanyForm reports whether one of the parties' names has a company
// form (a sentence that defines other things names none).
func anyCompanyForm(ps []partyRead) bool {
	for _, p := range ps {
		if hasCompanyForm(p.name) {
			return true
		}
	}
	return false
}

// bodyGap is how far after the sentence that defined one party a
// "between" must come to be taken for the body's, not the preamble's.
const bodyGap = 1500

// reRecitalStart opens a recital.
var reRecitalStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:WHEREAS|Whereas)\b[,:]?\s*`) })

// labelledChars is how much of a contract's opening is searched for
// parties written as "Party A: NAME".
const labelledChars = 5000

// labelledParties reads parties written as labels — "Party A: Acme Co.,
// Ltd.", "Licensor: Beta GmbH" — before the recitals: the label is the
// role, the name runs to its company form.
func labelledParties(s string) []partyRead {
	if loc := reRecitals().FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	var out []partyRead
	for _, m := range reRoleLabel().FindAllStringSubmatchIndex(s, -1) {
		role := s[m[2]:m[3]]
		if notRoleLabel[strings.ToLower(role)] {
			continue
		}
		name := s[m[4]:m[5]]
		if _, dated := FirstDate(name); dated || !onlyName(name) || len(partyWords(name)) == 0 {
			continue // a sentence ("Pricing: Reseller will obtain a quote from Company"), not a name
		}
		out = append(out, partyRead{name: name, nameAt: m[4], nameEnd: m[5], role: role, roleAt: m[2], roleEnd: m[3]})
	}
	return dedupeParties(out)
}

// notRoleLabel are labels that introduce something other than a party.
var notRoleLabel = map[string]bool{
	"address": true, "legal representative": true, "representative": true, "tel": true, "fax": true,
	"email": true, "attention": true, "attn": true, "re": true, "date": true, "title": true, "name": true,
	"by": true, "signature": true, "source": true, "exhibit": true, "contract no": true, "telephone": true,
}

// introEnd returns where the sentence that introduces the parties ends:
// the first full stop after from that ends a sentence (not one of "Inc.",
// "St.", "U.S." or an initial) and is followed by white space, or from +
// 2,000 bytes.
func introEnd(s string, from int) int {
	hi := min(len(s), from+2000)
	for i := from; i < hi; i++ {
		// a blank line ends the introduction, unless the next party
		// follows it ("(2) BETA INC …", "AND")
		if s[i] == '\n' && i > from && strings.TrimSpace(s[from:i]) != "" {
			if k := strings.IndexFunc(s[i+1:min(len(s), i+20)], func(r rune) bool { return !unicode.IsSpace(r) }); k >= 0 && strings.Contains(s[i:i+1+k], "\n\n") || k >= 0 && strings.Count(s[i:i+1+k], "\n") >= 2 {
				before := strings.TrimRightFunc(s[from:i], unicode.IsSpace)
				last, _ := utf8.DecodeLastRuneInString(before)
				if (last == '.' || last == ')') && !reNextParty().MatchString(s[i+1+k:]) && hasRole(s[from:i]) {
					return i
				}
			}
		}
		// a numbered clause on a new line ends it ("…as "plan_b"\n1
		// PURPOSE OF THE AGREEMENT")
		if s[i] == '\n' && i > from && hasRole(s[from:i]) && reClauseNumber().MatchString(strings.TrimLeft(s[i+1:min(len(s), i+80)], " \t")) {
			return i
		}
		if s[i] != '.' || i+1 >= len(s) || (s[i+1] != ' ' && s[i+1] != '\n' && s[i+1] != '\r' && s[i+1] != '\t') {
			continue
		}
		if endsWithForm(s[from:i+1]) || initial(s[from:i]) {
			continue
		}
		// a sentence starts with a capital, a digit or a quote, not "("
		next := strings.TrimLeftFunc(s[i+1:min(len(s), i+40)], unicode.IsSpace)
		if r, _ := utf8.DecodeRuneInString(next); next != "" && !unicode.IsUpper(r) && !unicode.IsDigit(r) && !strings.ContainsRune("\"“'", r) {
			continue
		}
		// a number after the stop is a clause number ("1. Term", "2
		// PURPOSE"), not an address's ("Schaafenstr. 25 50676 Cologne")
		if r, _ := utf8.DecodeRuneInString(next); unicode.IsDigit(r) && !reClauseNumber().MatchString(next) {
			continue
		}
		// the word before the stop: an abbreviation ("St", "No", "U.S") is
		// short and capitalised, or holds a stop itself; a short one with a
		// slash describes a person ("s/o." son of, "r/o." resident of,
		// "c/o." care of)
		w := s[from:i]
		if k := strings.LastIndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || r == '(' }); k >= 0 {
			w = w[k+1:]
		}
		if strings.Contains(w, ".") || len(w) <= 3 && w != "" && unicode.IsUpper(rune(w[0])) && !strings.ContainsAny(w, "\"”')") || len(w) == 3 && w[1] == '/' {
			continue
		}
		return i + 1
	}
	return hi
}

// abbreviation reports whether s ends with a word whose stop is not a
// sentence's: an initial or a short capitalised abbreviation ("W.",
// "St.", "No."), or a word holding a stop itself ("U.S.").
func abbreviation(s string) bool {
	w := s
	if k := strings.LastIndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || r == '(' }); k >= 0 {
		w = w[k+1:]
	}
	return initial(s) || strings.Contains(w, ".") || len(w) <= 3 && w != "" && unicode.IsUpper(rune(w[0]))
}

// isGenericRole reports whether a defined name is not one party's: the
// parties as a whole, a date, or a document ("Supply Agreement",
// "Amendment #3").
func isGenericRole(role string) bool {
	role = strings.ToLower(strings.TrimSpace(role))
	return genericRoles[role] || genericRoles[strings.ReplaceAll(role, " ", "")] || reKindWord().MatchString(role)
}

// hasRole reports whether s defines a party's short name.
func hasRole(s string) bool {
	for _, m := range definedMatches(s) {
		if !isGenericRole(s[m.roleLo:m.roleHi]) {
			return true
		}
	}
	return false
}

// unquotedCapsForm is the index in reDefined of the unquoted short name in
// capitals, taken for a defined name only when shortNameUsed.
const unquotedCapsForm = 4

// shortNameUsed reports whether an unquoted short name in capitals,
// written in brackets at "at", names a party: it follows a name (not a
// number or a clause reference), is not a company form, and the text uses
// it again after the bracket.
func shortNameUsed(s string, at int, role string) bool {
	if hasCompanyForm(role) || at == 0 || reRoman().MatchString(role) || !initialsOf(s[max(0, at-200):at], role) {
		return false
	}
	before := strings.TrimRight(s[:at], " ")
	if r, _ := utf8.DecodeLastRuneInString(before); !unicode.IsLetter(r) {
		return false
	}
	rest := s[at+len(role)+2:]
	// the name ends at the bracket: "(AFRICA) (PTY) LIMITED" is inside one
	next := strings.TrimLeft(rest, " ")
	if strings.HasPrefix(next, "(") || reLeadingForm().MatchString(next) || reLeadingForm().MatchString(titleCase(next[:min(len(next), 20)])) {
		return false
	}
	for k := strings.Index(rest, role); k >= 0; {
		a, b := k, k+len(role)
		okA := a == 0 || !unicode.IsLetter(rune(rest[a-1])) && !unicode.IsDigit(rune(rest[a-1]))
		okB := b == len(rest) || !unicode.IsLetter(rune(rest[b])) && !unicode.IsDigit(rune(rest[b]))
		if okA && okB {
			return true
		}
		n := strings.Index(rest[b:], role)
		if n < 0 {
			break
		}
		k = b + n
	}
	return false
}

// reRoman is a roman numeral: "(ii)" numbers a list, it names no one.
var reRoman = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^[ivxl]+$`) })

// initialsOf reports whether the short name abbreviates the words before
// it: its letters are, in order, the initials of the last 12 words of
// before that a name holds — capitalised, or "of", "and", "for" (a word
// in capitals of up to five letters gives all of its letters):
// "Mutual Insurance Corporation of America, a Michigan insurance
// corporation (MICOA)", "USA Managed Care Organization (USA MCO)".
func initialsOf(before, short string) bool {
	words := strings.FieldsFunc(before, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&' })
	if len(words) > 12 {
		words = words[len(words)-12:]
	}
	var ini []rune
	for _, w := range words {
		if len(w) <= 5 && strings.ToUpper(w) == w {
			ini = append(ini, []rune(strings.ToLower(w))...)
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) {
			switch w {
			case "of", "and", "for", "de", "du", "la":
			default:
				continue // a name's words are capitalised ("value added tax (VAT)" names no one)
			}
		}
		ini = append(ini, unicode.ToLower(r))
	}
	k := 0
	for _, r := range strings.ToLower(short) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		for k < len(ini) && ini[k] != r {
			k++
		}
		if k == len(ini) {
			return false
		}
		k++
	}
	return true
}

// definedMatch is one defined short name: the match [at, end), the words
// before the name and the name, in bytes.
type definedMatch struct{ at, end, preLo, preHi, roleLo, roleHi int }

// definedMatches returns every defined short name in s, in order, without
// overlaps (the earliest, then the longest, wins).
func definedMatches(s string) []definedMatch { return definedMatchesIn(s, 0, len(s)) }

// definedMatchesIn is definedMatches of s[lo:hi] (offsets in it), with the
// whole of s to check a short name's later uses against.
func definedMatchesIn(full string, lo, hi int) []definedMatch {
	s := full[lo:hi]
	var all []definedMatch
	for i, re := range reDefined() {
		pre, role := re.SubexpIndex("pre"), re.SubexpIndex("role")
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			if i == unquotedCapsForm && !shortNameUsed(full, lo+m[0], s[m[2*role]:m[2*role+1]]) {
				continue
			}
			all = append(all, definedMatch{at: m[0], end: m[1], preLo: m[2*pre], preHi: m[2*pre+1], roleLo: m[2*role], roleHi: m[2*role+1]})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].at != all[j].at {
			return all[i].at < all[j].at
		}
		return all[i].end > all[j].end
	})
	return withoutOverlaps(all, func(m definedMatch) (int, int) { return m.at, m.end })
}

// definedParties reads the parties between lo and hi of s whose names are
// followed by a defined short name in brackets.
func definedParties(s string, lo, hi int) []partyRead {
	var out []partyRead
	from := lo // where the next party's name may start
	for _, m := range definedMatchesIn(s, lo, hi) {
		m.at, m.end, m.preLo, m.preHi, m.roleLo, m.roleHi = m.at+lo, m.end+lo, m.preLo+lo, m.preHi+lo, m.roleLo+lo, m.roleHi+lo
		// emphasis marks around a defined name ("**Acme**") are not part of it
		for m.roleLo < m.roleHi && strings.ContainsRune("*_ ", rune(s[m.roleLo])) {
			m.roleLo++
		}
		for m.roleHi > m.roleLo && strings.ContainsRune("*_ ", rune(s[m.roleHi-1])) {
			m.roleHi--
		}
		role := strings.TrimSpace(s[m.roleLo:m.roleHi])
		pre := s[m.preLo:m.preHi]
		segLo, segHi := from, m.at
		from = m.end
		if isGenericRole(role) || strings.Contains(strings.ToLower(pre), "each") || strings.Contains(strings.ToLower(pre), "together") && len(out) > 0 {
			continue
		}
		if _, ok := FirstDate(s[segLo:segHi]); ok && !hasCompanyForm(s[segLo:segHi]) {
			continue // (the "Effective Date") after a date
		}
		nameAt, nameEnd, ok := nameBefore(s, segLo, segHi)
		if !ok {
			continue
		}
		if len(out) > 0 && names.Describes(s[segLo:nameAt]) {
			// a body named in the description of the party before it
			// ("… (the "Bank"), the deposit accounts of which are insured
			// by the Federal Deposit Insurance Corporation ("FDIC")")
			continue
		}
		out = append(out, partyRead{name: s[nameAt:nameEnd], nameAt: nameAt, nameEnd: nameEnd, role: role, roleAt: m.roleLo, roleEnd: m.roleLo + len(strings.TrimRightFunc(s[m.roleLo:m.roleHi], unicode.IsSpace))})
		// a second party may share the bracket's sentence ("… and B ("B")")
	}
	return dedupeParties(out)
}

// nameBefore returns the party name in s[lo:hi]: the text before a
// defined-name bracket, back to the previous party or the introduction,
// cut before its description, without a leading "and", and trimmed to
// start at a capital letter or digit.
func nameBefore(s string, lo, hi int) (int, int, bool) {
	// Start after the last separator between parties: a semicolon, ",
	// and", a free-standing AND, "- and -", an introducing "between", a
	// blank line ("…, with his offices in Ohio; and The Right Solution, a
	// Nevada corporation"), so the previous party's description is left
	// behind — unless no name is left after it (a semicolon inside the
	// party's own description).
	seg := plainMarks(s[lo:hi])
	var cuts []int
	for _, k := range reSeparator().FindAllStringIndex(seg, -1) {
		if !reOwnGroup().MatchString(seg[k[1]:]) {
			cuts = append(cuts, k[1])
		}
	}
	if len(cuts) > 0 {
		if at, end, ok := nameFrom(s, lo+cuts[len(cuts)-1], hi); ok {
			return at, end, true
		}
	}
	return nameFrom(s, lo, hi)
}

// nameFrom is nameBefore from lo, with no separator cut.
func nameFrom(s string, lo, hi int) (int, int, bool) {
	seg := plainMarks(s[lo:hi])
	// The previous party's description may still run into this segment
	// (", a Nevada corporation and John Smith"): skip it, up to its "and".
	if d := reDescription().FindStringIndex(seg); d != nil && (strings.TrimLeft(seg[:d[0]], " ,;\n\t") == "" || reArticleOpen().MatchString(seg)) {
		// the "and" before the name: the first after which only a name
		// is left ("…, registered in England No. 473456 and a registered
		// Charity …, United Kingdom and CERES, INC."), else the first
		ands := reAnd().FindAllStringIndex(seg[d[1]:], -1)
		for i, k := range ands {
			if i == len(ands)-1 || onlyName(seg[d[1]+k[1]:]) {
				lo += d[1] + k[1]
				seg = plainMarks(s[lo:hi])
				break
			}
		}
	}
	if d := reDescription().FindStringIndex(seg); d != nil {
		seg = seg[:d[0]]
	}
	if d := reIndividual().FindStringIndex(seg); d != nil {
		seg = seg[:d[0]]
	}
	// An address written straight after the name ("Data Call
	// Technologies, Inc. 600 Kenrick, Suite B-12 Houston", "PLAN_B MEDIA
	// AG Schaafenstr. 25"): the name ends at the last company form before
	// the address's first number.
	if k := strings.IndexFunc(seg, unicode.IsDigit); k > 0 {
		if locs := reCompanyFormAnyCase().FindAllStringIndex(seg[:k], -1); len(locs) > 0 {
			if e := locs[len(locs)-1][1]; strings.TrimSpace(seg[e:k]) != "" || k < len(seg) {
				seg = seg[:e]
			}
		}
	}
	// Start after the last sentence end, blank line or semicolon before
	// the name ("Inc. " and initials are not sentence ends).
	cut := 0
	for i := 0; i < len(seg); i++ {
		switch {
		case strings.HasPrefix(seg[i:], "\n\n"), seg[i] == ';':
			cut = i + 1
		case seg[i] == '.' && i+1 < len(seg) && (seg[i+1] == ' ' || seg[i+1] == '\n') && !endsWithForm(seg[:i+1]) && !initial(seg[:i]):
			cut = i + 1
		}
	}
	// A label before the name ("The Contractor: Acme Co.") is not part of it.
	if k := reLabelColon().FindAllStringIndex(seg, -1); len(k) > 0 && k[len(k)-1][0] >= cut {
		cut = k[len(k)-1][1]
	}
	// "A Inc., through its agent …, AND B Ltd.": the last party named.
	if k := reJoin().FindAllStringIndex(seg, -1); len(k) > 0 && k[len(k)-1][0] >= cut {
		cut = k[len(k)-1][1]
	}
	seg = seg[cut:]
	lo += cut
	// Skip leading connectors and lower-case words ("and", "for services
	// of"), opening quotes and enumerators ("(1)", "2.").
	start := 0
	for start < len(seg) {
		r, n := utf8.DecodeRuneInString(seg[start:])
		if unicode.IsUpper(r) || unicode.IsDigit(r) && !enumerator(seg[start:]) {
			break
		}
		if unicode.IsLower(r) {
			// keep a lower-case name with its company form ("e-centives,
			// Inc."); skip any other word
			w := seg[start:]
			if k := strings.IndexFunc(w, unicode.IsSpace); k > 0 && (reLeadingForm().MatchString(w[k:]) || strings.IndexFunc(w[:k], unicode.IsUpper) > 0) || reLeadingForm().MatchString(strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyz.-0123456789")) && strings.ContainsAny(w[:min(len(w), 20)], ".-") {
				break
			}
			// skip the word
			for start < len(seg) {
				r, n := utf8.DecodeRuneInString(seg[start:])
				if unicode.IsSpace(r) {
					break
				}
				start += n
			}
			continue
		}
		if unicode.IsDigit(r) {
			for start < len(seg) && !unicode.IsSpace(rune(seg[start])) {
				start++
			}
			continue
		}
		start += n
	}
	// "and its Reseller, Schoolpop, Inc.": the capitalized words after a
	// possessive are the party's role, set before its name with a comma
	if f := strings.Fields(strings.ToLower(seg[:start])); len(f) > 0 && possessive[f[len(f)-1]] {
		if m := reRoleApposition().FindStringIndex(seg[start:]); m != nil && hasCompanyForm(seg[start+m[1]-1:]) {
			start += m[1] - 1
		}
	}
	seg = seg[start:]
	lo += start
	// Trim trailing punctuation, quotes and lower-case words ("and/or
	// assigns").
	end := len(seg)
	for end > 0 {
		trimmed := strings.TrimRightFunc(seg[:end], func(r rune) bool {
			return unicode.IsSpace(r) || r == ',' || r == '"' || r == '“' || r == '”' || r == '\'' || r == '(' || r == ':'
		})
		end = len(trimmed)
		i := strings.LastIndexFunc(trimmed, unicode.IsSpace)
		last := trimmed[i+1:]
		if r, _ := utf8.DecodeRuneInString(last); i >= 0 && unicode.IsLower(r) && !strings.ContainsAny(last, ".") && !hasCompanyForm(last) {
			end = i
			continue
		}
		break
	}
	seg = seg[:end]
	// a bracket that describes the name is not part of it: "PlanetCAD
	// Inc. (formerly known as Spatial Technology Inc.)", "(f/k/a …)"
	if k := strings.Index(seg, " ("); k > 0 && len(seg) > k+2 && (unicode.IsLower(rune(seg[k+2])) || strings.HasPrefix(strings.ToLower(seg[k+2:]), "f/k/a") || strings.HasPrefix(strings.ToLower(seg[k+2:]), "d/b/a")) {
		seg = strings.TrimRight(seg[:k], " ,")
	}
	seg = strings.TrimLeft(seg, "\"“”' ")
	// a recital's opening word is not part of a name ("WHEREAS, Movado
	// Group, Inc.")
	if k := reRecitalStart().FindStringIndex(seg); k != nil {
		seg = seg[k[1]:]
	}
	if seg == "" || len(seg) > 150 || utf8.RuneCountInString(seg) < 2 || len(partyWords(seg)) == 0 {
		return 0, 0, false // nothing but "the Company"
	}
	first := strings.ToLower(strings.Fields(seg)[0])
	if notNameStart[first] {
		return 0, 0, false
	}
	if _, ok := FirstDate(seg); ok {
		return 0, 0, false // a name holds no date ("Source: ACME CORP, 10-K, 2/21/2014")
	}
	if strings.IndexFunc(seg, unicode.IsLetter) < 0 {
		return 0, 0, false
	}
	at := strings.Index(plainMarks(s[lo:hi]), seg)
	if at < 0 {
		return 0, 0, false
	}
	return lo + at, lo + at + len(seg), true
}
