package answer

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The role of a clause: whether it operates. A yes/no answer is read only
// from a clause that operates — one that grants, binds, conditions or
// excludes. A clause that only mentions the provision's words does not:
//
//   - a definition ("“Change of Control” means …", a clause of the
//     definitions, an item of a definition's list);
//   - a recital or the preamble ("WHEREAS …", anything before the words by
//     which the parties agree: "NOW, THEREFORE", "agree as follows");
//   - a table of contents or a list of headings (lines of a few words each,
//     page numbers, no verb that binds);
//   - a heading on its own ("12. Change of Control.");
//   - a notice address ("Attention:", "Fax:", "with a copy to");
//   - a cross-reference: the provision's words appear only in the name of
//     another clause it points to ("Section 11.2 (Termination for
//     Convenience)");
//   - a statement of fact about the past — a representation that "no party
//     has sent or received any notice of termination" grants nothing.
//
// Written from how contracts are drafted (their structure and English
// grammar), not from any labelled contract's strings.

// role is what a clause does.
type role int

const (
	roleOperative role = iota
	roleDefinition
	roleRecital
	roleContents
	roleHeading
	roleAddress
	roleReference
	roleStatement
)

// String says what the clause is, as a cell's reason names it.
func (r role) String() string {
	switch r {
	case roleDefinition:
		return "a definition"
	case roleRecital:
		return "a recital or the preamble"
	case roleContents:
		return "a table of contents or a list of headings"
	case roleHeading:
		return "a heading"
	case roleAddress:
		return "a notice address"
	case roleReference:
		return "a cross-reference"
	case roleStatement:
		return "a statement of past fact"
	}
	return "an operative clause"
}

var (
	// reDefines is a sentence that defines a term: the term in quotation
	// marks (or bold) before "means", "shall have the meaning", "refers
	// to", "includes".
	reDefines = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^[\W\d]*(?:\(?[a-z0-9]{1,4}[.)]\s*)?["“*]+[^"”]{1,80}["”*]+\s*(?:\([^)]{0,80}\)\s*)?,?\s*(?:shall\s+|will\s+|has\s+|have\s+)?(?:mean|means|meaning|refers?\s+to|includes?|shall\s+include|is\s+defined)\b`)
	})
	// reDefinitionsLead is the lead-in of a definitions clause.
	reDefinitionsLead = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:following\s+(?:words|terms|expressions)\s+(?:shall\s+)?have\s+the\s+(?:following\s+)?meanings?|(?:words|terms|expressions)\s+(?:shall\s+)?have\s+the\s+(?:following\s+)?meanings?\s+(?:set\s+out|given|set\s+forth)|as\s+used\s+in\s+this\s+agreement,\s+the\s+following)\b`)
	})
	// reRecital opens a recital.
	reRecital = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[\W\d]*(?:[A-Z][.)]\s*)?(?:WHEREAS|Whereas|RECITALS?|Recitals?|BACKGROUND)\b`)
	})
	// reAgreeing is the words by which the parties agree: the operative
	// part of a contract follows them.
	reAgreeing = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bnow,?\s+therefore\b|\bagree[sd]?\s+as\s+follows\b|\b(?:hereby\s+)?(?:covenant\s+and\s+)?agree\s*:`)
	})
	// reBinding is a verb by which a clause operates.
	reBinding = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:shall|may|will|must|can|cannot|agrees?|undertakes?|covenants?|hereby|entitled|permitted|(?:has|have)\s+the\s+(?:right|option|power)|represents?|warrants?|acknowledges?|is|are|be)\b`)
	})
	// reModalOnly is a verb by which a clause grants or binds (a
	// statement of fact has none).
	reModalOnly = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:shall|may|will|must|can|cannot|agrees?|undertakes?|covenants?|hereby|entitled|permitted|(?:has|have)\s+(?:the\s+|an?\s+)?(?:right|option|power)|reserves?)\b`)
	})
	// rePast is a verb in the perfect: "has sent", "have received", "has
	// not been terminated", "had given".
	rePast = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:has|have|had)\s+(?:not\s+|never\s+|yet\s+)*(?:been\s+)?(?:\w+ed|sent|given|received|made|done|paid|taken|become|occurred|arisen|brought|threatened)\b`)
	})
	// rePageLine is a line of a table of contents: a heading and a page
	// number, with dot leaders or spaces between.
	rePageLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:\.{3,}|…+|\s{2,}|\t)\s*(?:page\s+)?[0-9ivxlc]{1,4}\s*$|^\s*(?:table\s+of\s+contents|contents|index)\s*$`)
	})
	// reAddressMark is a mark of a notice address.
	reAddressMark = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:attention|attn|facsimile|fax|telecopy|telecopier|telephone|tel|phone|e-?mail)\s*(?:no\.?|number)?\s*[:.]|\bwith\s+(?:a\s+)?cop(?:y|ies)\s+(?:\(\w+\s+\w+\s+\w+\)\s+)?to\b|\bif\s+to\s+[A-Z]|\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b(?:suite|floor|street|avenue|p\.?\s?o\.?\s+box)\b`)
	})
	// reRefName is another clause named where it is referred to: "Section
	// 11.2 (Termination for Convenience)", "Article 12 ("Change of
	// Control")", "as defined in Section 1.1".
	reRefName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:sections?|articles?|clauses?|paragraphs?|schedules?|exhibits?|annex(?:es)?|appendi(?:x|ces)|§)\s*[0-9A-Z][\w.]*(?:\s*\([\w.]{1,4}\))*\s*\(\s*["“]?[A-Z][^()]{0,80}\)|\(\s*as\s+(?:defined|described|set\s+forth)\s+(?:in|under)\s+[^()]{1,80}\)`)
	})
)

// roleOf returns the role of extract e of contract c (c may be nil: the
// text alone is read) for provision p.
func roleOf(c *detect.Prepared, p *playbook.Provision, e detect.Extract) role {
	t := strings.TrimSpace(e.Text)
	if t == "" {
		return roleOperative
	}
	if r := treeRole(c, e); r != roleOperative {
		if r == roleDefinition && definesProvisionUsed(c, p, e) {
			return roleOperative
		}
		return r
	}
	if pathDefines(e.Path) || reDefines().MatchString(t) || reDefinitionsLead().MatchString(t) && definitionsOnly(t) {
		if definesProvisionUsed(c, p, e) {
			return roleOperative
		}
		return roleDefinition
	}
	if reRecital().MatchString(t) || beforeAgreeing(c, p, e) {
		return roleRecital
	}
	if contentsList(t) {
		return roleContents
	}
	if len(strings.Fields(t)) <= 8 && headingLike(t) && !reModalOnly().MatchString(t) && !reRedacted().MatchString(t) && !headsBody(c, e) {
		return roleHeading
	}
	if len(addressMarks(t, 3)) >= 2 && !reModalOnly().MatchString(addressFree(t)) {
		return roleAddress
	}
	if onlyInReferences(p, e.Text) {
		return roleReference
	}
	if pastStatement(p, e.Text) {
		return roleStatement
	}
	return roleOperative
}

// treeRole reads the role the clause tree gives e: a definition node or
// one of its items.
func treeRole(c *detect.Prepared, e detect.Extract) role {
	if c == nil || c.Tree() == nil || e.Node <= 0 || e.Node >= len(c.Tree().Nodes) {
		return roleOperative
	}
	t := c.Tree()
	for k, id := range append([]int{e.Node}, t.Ancestors(e.Node)...) {
		n := &t.Nodes[id]
		if n.Kind == clause.KindDefinition && n.Term != "" {
			return roleDefinition
		}
		// an item of a definition's list: "(b) "Change of Control"
		// means: (i) …"
		if k > 0 && k <= 3 && n.Kind != clause.KindArticle && n.Kind != clause.KindSchedule &&
			n.Own.End > n.Own.Start && reDefines().MatchString(strings.TrimSpace(c.Index().Slice(n.Own))) {
			return roleDefinition
		}
	}
	return roleOperative
}

// headsBody reports whether e is the heading of a clause whose body
// follows in its sub-clauses (the article is then the provision, not a
// heading on its own); false when c is nil.
func headsBody(c *detect.Prepared, e detect.Extract) bool {
	if c == nil || c.Tree() == nil || e.Node <= 0 || e.Node >= len(c.Tree().Nodes) {
		return false
	}
	return len(c.Tree().Nodes[e.Node].Children) > 0
}

// reDefinedTerm is a term in quotation marks.
var reDefinedTerm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["“]([^"”]{2,80})["”]`)
})

// definesProvisionUsed reports whether e defines a term that names the
// provision itself (its words carry p's cue words: "Change of Control",
// "Minimum Purchase Commitment") and the contract uses that term outside
// its definition: the clauses that use it operate, and the definition
// gives the provision its content. The defined term is the one quoted in
// e's path, else the first quoted in its text; false when c is nil.
func definesProvisionUsed(c *detect.Prepared, p *playbook.Provision, e detect.Extract) bool {
	if c == nil {
		return false
	}
	term := ""
	for _, part := range strings.Split(e.Path, " > ") {
		if m := reDefinedTerm().FindStringSubmatch(part); m != nil {
			term = m[1]
		}
	}
	if term == "" {
		if m := reDefinedTerm().FindStringSubmatch(e.Text); m != nil {
			term = m[1]
		}
	}
	term = strings.TrimSpace(strings.Trim(term, "*"))
	if term == "" {
		return false
	}
	// a name of a provision: two words or more, capitalised as a defined
	// term is, weighing as one of p's key words ("control" alone, or
	// "Affiliate", names no provision)
	if len(strings.Fields(term)) < 2 || !headingLike(term) {
		return false
	}
	if _, _, w := focusIn(term, cueWordsOf(p)); w < 2 {
		return false
	}
	return strings.Count(c.Doc().Doc.Text, term) >= 3 // quoted, and used at least twice
}

// pathDefines reports whether a clause path passes through a defined term
// ("ARTICLE I > 1.1 > "Change of Control" > (b)").
func pathDefines(path string) bool {
	for _, part := range strings.Split(path, " > ") {
		if strings.HasPrefix(part, `"`) || strings.HasPrefix(part, "“") {
			return true
		}
	}
	return false
}

// definitionsOnly reports whether every sentence of t after its lead-in
// that mentions anything defines a term.
func definitionsOnly(t string) bool {
	lead := reDefinitionsLead().FindStringIndex(t)
	rest := t[lead[1]:]
	n, defs := 0, 0
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•:"))
		if len(strings.Fields(line)) < 3 {
			continue
		}
		n++
		if reDefines().MatchString(line) {
			defs++
		}
	}
	return n == 0 || 2*defs >= n
}

// agreeingAt returns where (code points) c's operative part starts: after
// the words by which the parties agree, when they come in the first third
// of the contract; -1 when there are none. It is read once per contract,
// or from the contract's stored preparation (Sections).
func agreeingAt(c *detect.Prepared) int {
	return c.Memo(agreeingKey, func() any {
		if b, ok := c.Section(agreeingSection); ok {
			if at, err := decodeAgreeing(b, c.Index().Len()); err == nil {
				return at
			}
		}
		text := c.Doc().Doc.Text
		m := reAgreeing().FindStringIndex(text)
		if m == nil || m[0] > len(text)/3 {
			return -1
		}
		return utf8.RuneCountInString(text[:m[0]])
	}).(int)
}

// beforeAgreeing reports whether p's cue words in e all come before the
// words by which c's parties agree (e may run on past them: a preamble
// passage that ends with "NOW, THEREFORE, the parties agree as follows").
func beforeAgreeing(c *detect.Prepared, p *playbook.Provision, e detect.Extract) bool {
	if c == nil {
		return false
	}
	at := agreeingAt(c)
	if at < 0 || e.Span.Start >= at {
		return false
	}
	if e.Span.End <= at {
		return true
	}
	cut := 0
	for n := 0; cut < len(e.Text) && n < at-e.Span.Start; n++ {
		_, size := utf8.DecodeRuneInString(e.Text[cut:])
		cut += size
	}
	cs := cueWordsOf(p)
	_, _, after := focusIn(e.Text[cut:], cs)
	return after == 0
}

// contentsList reports whether t is a list of headings: at least three
// lines, no verb that grants or binds, most of the lines page lines or a
// few words.
func contentsList(t string) bool {
	var lines []string
	for _, l := range strings.Split(t, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 3 || reModalOnly().MatchString(t) {
		return false // a clause that grants or binds is not a list of headings
	}
	pages, short := 0, 0
	for _, l := range lines {
		if rePageLine().MatchString(l) {
			pages++
		}
		if len(strings.Fields(l)) <= 8 && !reBinding().MatchString(l) {
			short++
		}
	}
	return 2*pages >= len(lines) || 4*short >= 3*len(lines)
}

// addressFree is t without its address lines (those with an address
// mark): what remains of a notices clause is its operative sentence.
func addressFree(t string) string {
	var b strings.Builder
	for _, l := range strings.Split(t, "\n") {
		if !reAddressMark().MatchString(l) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// maskRefs returns s with the names of the clauses it refers to blanked
// (each byte a space, so places stay the same).
func maskRefs(s string) string {
	ms := refNames(s)
	if ms == nil {
		return s
	}
	b := []byte(s)
	for _, m := range ms {
		for k := m[0]; k < m[1]; k++ {
			if b[k] < utf8.RuneSelf {
				b[k] = ' '
			}
		}
	}
	return string(b)
}

// onlyInReferences reports whether p's cue words in s all lie in the names
// of clauses s refers to.
func onlyInReferences(p *playbook.Provision, s string) bool {
	c := cueWordsOf(p)
	_, _, w := focusIn(s, c)
	if w == 0 {
		return false
	}
	m := maskRefs(s)
	if m == s {
		return false
	}
	_, _, wm := focusIn(m, c)
	return wm == 0
}

// pastStatement reports whether the sentence p's cue words weigh most in
// states a past fact: a verb in the perfect and none by which a clause
// grants or binds ("No party has sent or received any notice indicating
// the termination of …").
func pastStatement(p *playbook.Provision, s string) bool {
	c := cueWordsOf(p)
	sg, _, w := focusIn(s, c)
	if w == 0 {
		return false
	}
	sent := s[sg.sentence[0]:sg.sentence[1]]
	if reModalOnly().MatchString(sent) {
		return false
	}
	// the perfect of the main clause, not of a condition ("even if it
	// has been advised", "if the term has not been renewed")
	for _, m := range rePast().FindAllStringIndex(sent, -1) {
		if !reInnerSubordinate().MatchString(sent[:m[0]]) && !reEvenIf().MatchString(sent[:m[0]]) {
			return true
		}
	}
	return false
}

var (
	// reEvenIf opens a condition that rePast's main clause may not be in.
	reEvenIf = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:whether|that|to\s+the\s+extent)\b`)
	})
	// reRedacted is a redaction mark: a heading with its body redacted
	// is a clause.
	reRedacted = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[\s*\*+\s*\]|\*{3,}|\[(?i:redacted)\]`)
	})
)

// headingLike reports whether t is written as a heading: its words
// capitalised (but for the small words of a title), or in capitals.
func headingLike(t string) bool {
	n, caps := 0, 0
	for _, w := range strings.Fields(t) {
		w = strings.Trim(w, "\"'“”‘’()[].,;:-–—*#")
		if w == "" || !strings.ContainsAny(strings.ToLower(w), "abcdefghijklmnopqrstuvwxyz") {
			continue
		}
		switch strings.ToLower(w) {
		case "of", "for", "and", "or", "the", "to", "in", "on", "a", "an", "by", "with":
			continue
		}
		n++
		if r, _ := utf8.DecodeRuneInString(w); r >= 'A' && r <= 'Z' {
			caps++
		}
	}
	return n > 0 && 4*caps >= 3*n
}

// operative returns, for each extract, its role.
func rolesOf(c *detect.Prepared, p *playbook.Provision, ex []detect.Extract) []role {
	out := make([]role, len(ex))
	for i, e := range ex {
		out[i] = roleOf(c, p, e)
	}
	return out
}

// maskInoperative returns ex with the text of every extract that does not
// operate blanked (one space a character, so spans keep their places).
func maskInoperative(ex []detect.Extract, roles []role) []detect.Extract {
	out := make([]detect.Extract, len(ex))
	copy(out, ex)
	for i := range out {
		if roles[i] != roleOperative {
			out[i].Text = strings.Repeat(" ", utf8.RuneCountInString(out[i].Text))
		}
	}
	return out
}

// addressMarks is reAddressMark().FindAllStringIndex(s, n), the expression
// tried only on a text that holds, in some case, a piece every match of one
// of its alternatives holds: "att", "fac", "fax", "tel", "phone", "mail",
// "cop", "uite", "floor", "treet", "avenue", "box", "if" and "to" with white
// space between them, or five digits in a row. No piece holds an "s" or a
// "k", which a case-folded match may spell with the long s or the Kelvin
// sign, the only letters outside ASCII that fold to ASCII ones. Asked of
// every clause a deal-room question reads, the expression was a fiftieth of
// its processor time (TestAddressMarksLikeExpression).
func addressMarks(s string, n int) [][]int {
	l := lowerASCII(s)
	for _, w := range [...]string{"att", "fac", "fax", "tel", "phone", "mail", "cop", "uite", "floor", "treet", "avenue", "box"} {
		if strings.Contains(l, w) {
			return reAddressMark().FindAllStringIndex(s, n)
		}
	}
	if ifTo(l) || digitRun(s, 5) {
		return reAddressMark().FindAllStringIndex(s, n)
	}
	return nil
}

// refNames is reRefName().FindAllStringIndex(s, -1), the expression tried
// only on a text that holds an opening bracket and, in some case, a piece
// every match of one of its alternatives holds ("ection", "article",
// "clau", "paragraph", "chedule", "exhibit", "annex", "appendi", "§";
// "defined", "cribed", "forth"), none with an "s" or a "k", as in
// addressMarks (TestRefNamesLikeExpression).
func refNames(s string) [][]int {
	if !strings.Contains(s, "(") {
		return nil
	}
	l := lowerASCII(s)
	for _, w := range [...]string{"ection", "article", "clau", "paragraph", "chedule", "exhibit", "annex", "appendi", "§", "defined", "cribed", "forth"} {
		if strings.Contains(l, w) {
			return reRefName().FindAllStringIndex(s, -1)
		}
	}
	return nil
}

// lowerASCII returns s with its ASCII capitals lowered, every byte in its
// place.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// ifTo reports whether l holds "if", white space (\s) and "to".
func ifTo(l string) bool {
	for at := 0; ; {
		k := strings.Index(l[at:], "if")
		if k < 0 {
			return false
		}
		j := at + k + 2
		e := spaceRun(l, j)
		if e > j && strings.HasPrefix(l[e:], "to") {
			return true
		}
		at = j
	}
}

// digitRun reports whether s holds n ASCII digits in a row.
func digitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
