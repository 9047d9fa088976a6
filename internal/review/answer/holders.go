package answer

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Who holds a right, and on what terms. Rights belong to parties, and
// contracts often give them to the parties on different terms:
//
//	(a) Customer may terminate this Agreement for convenience at any time by
//	    giving Provider not less than sixty (60) days' prior written notice.
//	(b) If Customer terminates under Section (a) before the second
//	    anniversary, Customer shall pay the Early Termination Fee.
//	(c) Provider may not terminate this Agreement for convenience during
//	    the Initial Term. During any Renewal Term, Provider may terminate …
//	    by giving not less than one hundred eighty (180) days' notice.
//
// is "Customer: Yes, 60 days' notice, Early Termination Fee …; Provider:
// during any Renewal Term, 180 days' notice". A cell's extracts are read
// sentence by sentence: a sentence about the provision (its cue words
// weigh at least half as much as in the sentence they weigh most in) that
// says who may act is read for its holder — the subject of its modal verb
// ("Customer may", "Either party shall have the right to", "Licensee is
// entitled to"), or the agent of a passive ("may be terminated by either
// party") —, its polarity (polarity.go), the notice it asks for and its
// condition. A holder is a party the contract introduces (by its defined
// name or its name), a term the contract defines in quotation marks, or
// the parties together ("either party", "each party"). One holder's
// readings are merged: a right excluded for a period and granted in
// another sentence is Conditional (polarity.go grantedElsewhere), a grant
// outweighs a weaker exclusion. A sentence that makes the holder pay when
// it exercises the right (a fee, a payment, a penalty), in the cell's
// extracts or in a clause beside the one that grants it, is a term of the
// holder's right. Written from drafting conventions, not from any labelled
// contract's strings.

// Holder is one party's position on the provision a cell is about: whether
// it holds the right (or is bound by the restriction), on what condition,
// on how much notice, with what further terms.
type Holder struct {
	// Party names the holder as the contract does: a defined name
	// ("Customer"), a party's name, or "Either party".
	Party string `json:"party"`
	// Kind is "yes", "conditional" or "no".
	Kind Kind `json:"kind"`
	// Condition is, for kind "conditional", the condition in the
	// contract's words.
	Condition string `json:"condition,omitempty"`
	// Notice is the notice the holder must give, normalised ("60 days").
	Notice string `json:"notice,omitempty"`
	// Terms are further terms of the holder's right in the contract's
	// words, each with the clause it is in: "Early Termination Fee if with
	// effect before the second (2nd) anniversary of the Effective Date
	// (11.2(b))".
	Terms []string `json:"terms,omitempty"`
	// Spans are where the holding was read, inside the cell's extracts.
	// Roles: "party", "value", "condition", "notice", "term".
	Spans []Span `json:"spans,omitempty"`
}

var (
	// reModal is a verb phrase by which a subject holds or is bound: the
	// modal verbs and "has the right", "is entitled", "reserves the right".
	reModal = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:may|shall|will|can|must|could|might|(?:has|have)\s+(?:the\s+|an?\s+)?(?:right|option|power)|(?:is|are|be)\s+(?:entitled|permitted|free)|reserves?\s+the\s+right)\b`)
	})
	// rePermissive is a modal verb phrase that grants: a party that "may"
	// act holds a right; one that "shall" act is bound.
	rePermissive = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)^(?:(?:shall|will)\s+(?:have|be)\b.*|may|can|could|might|(?:has|have)\b.*|(?:is|are|be)\b.*|reserves?\b.*)$`)
	})
	// reSubjectStart is where the clause holding a subject begins: a
	// comma, a semicolon, a colon, a bracket, "that", "then".
	// reSubjectNumber is a clause number that opens a sentence: "3.2 ",
	// "12. ", "Section 4.1 ".
	reSubjectNumber = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(?:Section|Clause|Article)\s+)?\d+(?:\.\d+)*\.?\s+`)
	})
	reSubjectStart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[,;:()\n]|\b(?:that|then|which|whereupon|and|or)\s`)
	})
	// reAllParties names the parties together.
	reAllParties = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:either|each|any|both|neither|all)\s+(?:of\s+the\s+)?part(?:y|ies)(?:\s+hereto)?$`)
	})
	// rePassiveBy is the agent of a passive: "may be terminated by either
	// party", "… by the Company".
	rePassiveBy = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:not\s+)?be\s+\w+ed\b[^.;:]{0,80}?\bby\s+((?:either|each|any|both)\s+part(?:y|ies)|(?:the\s+)?(?-i:[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3}))`)
	})
	// reFee is a payment a right costs its holder.
	reFee = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:fees?|penalt(?:y|ies)|charges?|pay|payment|compensat\w*|reimburs\w*)\b`)
	})
	// reFeeName is a fee a sentence names ("the Early Termination Fee", "a
	// termination fee", "a cancellation charge").
	reFeeName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:an?|the|any)\s+((?:[\w-]+\s+){0,3}?(?:[Ff]ees?|[Pp]enalty|[Cc]harges?))\b`)
	})
	// reWhen is a time a term applies in: "before the second anniversary".
	reWhen = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:before|after|prior\s+to|within|during|on\s+or\s+after|on\s+or\s+before)\s+(?:the\s+)?[^,;.]{3,60}?(?:anniversary|year|month|term|period|date)\b(?:\s+of\s+the\s+[A-Z]\w*(?:\s+[A-Z]\w*){0,3})?`)
	})
)

// reNotNext is a negation right after a modal verb: "may not".
var reNotNext = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*(?:not\b|n['’]t\b)`) })

// holding is one sentence's reading of a holder (bytes of the joined
// extracts).
type holding struct {
	party           string
	pol             polarity // positions relative to the joined text
	notice          string
	noticeAt        [2]int
	partyAt         [2]int
	sentence        [2]int
	forAPeriod      bool
	weight, weight0 float64
}

// holdersOf reads who holds provision p in the cell's extracts ex (a yes/no
// provision), and the terms of each holder's right; parties are the
// contract's parties (may be empty), defined reports whether the contract
// defines a term in quotation marks. It returns nil when no sentence says
// who holds it.
func holdersOf(p *playbook.Provision, nb []*playbook.Provision, ex []detect.Extract, parties []partyRead, defined func(string) bool) []holding {
	c := cueWordsOf(p)
	// a right is held by whoever may act; a restriction binds whoever
	// shall (or shall not) act
	var allowed func(modal, rest string) bool
	switch polarityOf(p, c) {
	case playbook.PolarityRight:
		allowed = func(m, _ string) bool { return rePermissive().MatchString(m) }
	case playbook.PolarityRestriction:
		allowed = func(m, rest string) bool { return !rePermissive().MatchString(m) || reNotNext().MatchString(rest) }
	default:
		return nil
	}
	j := joinExtracts(ex)
	s := j.s
	type sent struct {
		lo, hi int
		w      float64
	}
	var sents []sent
	best := 0.0
	seen := map[[2]int]bool{}
	for _, sg := range segments(s) {
		if seen[sg.sentence] {
			continue
		}
		seen[sg.sentence] = true
		lo, hi := sg.sentence[0], sg.sentence[1]
		_, _, w := focusIn(s[lo:hi], c)
		if w == 0 {
			continue
		}
		sents = append(sents, sent{lo, hi, w})
		best = max(best, w)
	}
	var out []holding
	for _, st := range sents {
		if st.w < best/2 {
			continue
		}
		text := s[st.lo:st.hi]
		pol := readPolarityOnce(p, text)
		if pol.weight == 0 || onStatedCauses(p, text, pol) || ofNeighbour(p, nb, text[pol.focus[0]:pol.focus[1]]) != nil {
			continue
		}
		names, at := subjectOf(text, pol, c, allowed)
		if len(names) == 0 {
			continue
		}
		for _, name := range names {
			party := holderName(name, parties, defined)
			if party == "" {
				continue
			}
			h := holding{party: party, pol: shift(pol, st.lo), sentence: [2]int{st.lo, st.hi},
				partyAt: [2]int{st.lo + at[0], st.lo + at[1]}, weight: pol.weight,
				forAPeriod: pol.kind == KindNo && reForAPeriod().MatchString(text[pol.focus[0]:pol.focus[1]])}
			if n, r, ok := noticeIn(text); ok {
				h.notice, h.noticeAt = n, [2]int{st.lo + r[0], st.lo + r[1]}
			}
			out = append(out, h)
		}
	}
	return out
}

// shift moves a polarity read in a sentence to the text the sentence
// starts at byte lo of.
func shift(pol polarity, lo int) polarity {
	pol.focus = [2]int{pol.focus[0] + lo, pol.focus[1] + lo}
	if pol.kind == KindConditional {
		pol.cond = [2]int{pol.cond[0] + lo, pol.cond[1] + lo}
	}
	return pol
}

// subjectOf returns the words naming who acts in sentence s — the subject
// of the last modal verb before the focus's first cue word, or a passive's
// agent — split where they join several ("Customer or Provider"), with
// where they are written (bytes of s).
func subjectOf(s string, pol polarity, c cues, allowed func(modal, rest string) bool) ([]string, [2]int) {
	cue := -1
	for _, t := range tokens(s) {
		if t.at >= pol.focus[0] && t.end <= pol.focus[1] && c[t.stem] > 0 {
			cue = t.at
			break
		}
	}
	if cue < 0 {
		return nil, [2]int{}
	}
	ms := reModal().FindAllStringIndex(s[:cue], -1)
	if len(ms) == 0 {
		// a right a sentence puts after its trigger: "if Provider
		// undergoes a Change of Control, Customer may terminate"
		m := reModal().FindStringIndex(s[cue:])
		if m == nil {
			return nil, [2]int{}
		}
		ms = [][]int{{cue + m[0], cue + m[1]}}
	}
	k := len(ms) - 1
	for k > 0 && strings.TrimSpace(s[ms[k-1][1]:ms[k][0]]) == "" {
		k-- // "shall have the right": the subject is before the first
	}
	m := []int{ms[k][0], ms[len(ms)-1][1]}
	if !allowed(s[m[0]:m[1]], s[m[1]:]) {
		return nil, [2]int{}
	}
	// the subject: back from the modal to the start of its clause
	lo := 0
	for _, b := range reSubjectStart().FindAllStringIndex(s[:m[0]], -1) {
		lo = b[1]
	}
	subj := strings.TrimSpace(s[lo:m[0]])
	// a clause's own number before its subject: "3.2 Customer may"
	if n := reSubjectNumber().FindString(subj); n != "" && n != subj {
		subj = subj[len(n):]
	}
	at := lo + strings.Index(s[lo:m[0]], subj)
	if subj == "" || len(strings.Fields(subj)) > 6 || !startsCapitalOrAll(subj) {
		// "This Agreement may be terminated by either party": the agent
		if a := rePassiveBy().FindStringSubmatchIndex(s[m[1]:]); a != nil {
			subj = s[m[1]+a[2] : m[1]+a[3]]
			at = m[1] + a[2]
		} else {
			return nil, [2]int{}
		}
	}
	if a := rePassiveBy().FindStringSubmatchIndex(s[m[1]:]); a != nil && documentSubject(subj) {
		subj = s[m[1]+a[2] : m[1]+a[3]]
		at = m[1] + a[2]
	}
	var names []string
	for _, part := range regexp.MustCompile(`(?i)\s+(?:or|and)\s+|\s*/\s*`).Split(subj, -1) {
		part = strings.TrimSpace(part)
		part = strings.TrimPrefix(strings.TrimPrefix(part, "either "), "Either ")
		if part != "" {
			names = append(names, part)
		}
	}
	if reAllParties().MatchString(subj) {
		names = []string{subj}
	}
	return names, [2]int{at, at + len(subj)}
}

// startsCapitalOrAll reports whether a subject can name a party: it starts
// with a capital, or names the parties together ("either party").
func startsCapitalOrAll(s string) bool {
	if reAllParties().MatchString(s) {
		return true
	}
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// documentSubject reports whether a subject is the contract itself ("This
// Agreement", "the Agreement"): its agent, if any, holds the right.
func documentSubject(s string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && reDocWord().MatchString(f[len(f)-1])
}

// holderName returns the name a subject holds the provision under: "Either
// party" for the parties together, a party's defined name (else its name)
// when the subject names a party, the subject itself when the contract
// defines it in quotation marks; "" otherwise.
func holderName(subj string, parties []partyRead, defined func(string) bool) string {
	subj = strings.Join(strings.Fields(subj), " ")
	if reAllParties().MatchString(subj) {
		return "Either party"
	}
	bare := strings.TrimPrefix(strings.TrimPrefix(subj, "the "), "The ")
	if bare == "" || documentSubject(bare) || genericRoles[strings.ToLower(bare)] {
		return ""
	}
	for _, pr := range parties {
		role := strings.Join(strings.Fields(pr.role), " ")
		if pr.roleAt >= 0 && strings.EqualFold(bare, role) {
			return role
		}
	}
	for _, pr := range parties {
		if sameParty(bare, pr.name) && len(partyWords(bare)) > 0 {
			if pr.roleAt >= 0 && !isGenericRole(pr.role) {
				return strings.Join(strings.Fields(pr.role), " ")
			}
			return strings.Join(strings.Fields(pr.name), " ")
		}
	}
	if r := []rune(bare); len(r) > 1 && unicode.IsUpper(r[0]) && len(strings.Fields(bare)) <= 3 && defined != nil && defined(bare) {
		return bare
	}
	return ""
}

// A period is a notice period when "notice" follows it ("sixty (60)
// days' prior written notice", "30 days written notice", "ninety days
// advance notice") or it is the period of a notice ("a notice period of
// 30 days", "notice of at least 90 days") — not "twelve months before
// the solicitation" nor "30 days after notice" (a time to cure).
var (
	reNoticeFollows = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^[\s'’]*(?:s\b)?[\s'’]*(?:\([^()]{1,30}\)\s*)?(?:(?:prior|advance|advanced|written|express|formal|clear|calendar|business)\s+){0,3}(?:notice|notification)\b`)
	})
	reNoticeOf = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bnotice\s+(?:period\s+)?of\s+(?:at\s+least\s+|not\s+less\s+than\s+|no\s+less\s+than\s+|a\s+minimum\s+of\s+)?$`)
	})
)

// noticeIn returns the notice period s asks for ("by giving not less than
// sixty (60) days' prior written notice" → "60 days") and where it is.
func noticeIn(s string) (string, [2]int, bool) {
	for _, v := range allDurationsAt(s) {
		if reNoticeFollows().MatchString(s[v.end:min(len(s), v.end+60)]) || reNoticeOf().MatchString(s[max(0, v.at-45):v.at]) {
			return v.v, [2]int{v.at, v.end}, true
		}
	}
	return "", [2]int{}, false
}

// mergeHoldings merges each holder's readings into one Holder, in the
// order holders are first read; spans are mapped through j.
func mergeHoldings(hs []holding, j joined) []Holder {
	var order []string
	by := map[string][]holding{}
	for _, h := range hs {
		if _, ok := by[h.party]; !ok {
			order = append(order, h.party)
		}
		by[h.party] = append(by[h.party], h)
	}
	var out []Holder
	for _, party := range order {
		rs := by[party]
		var grant, no *holding
		for i := range rs {
			r := &rs[i]
			if r.pol.kind == KindNo {
				if no == nil || r.weight > no.weight {
					no = r
				}
				continue
			}
			if grant == nil || r.weight > grant.weight {
				grant = r
			}
		}
		h := Holder{Party: party}
		add := func(r [2]int, role string) {
			if sp, ok := j.span(r[0], r[1], role); ok {
				h.Spans = append(h.Spans, sp)
			}
		}
		switch {
		case grant == nil:
			h.Kind = KindNo
			add(no.partyAt, "party")
			add(no.pol.focus, "value")
		case no != nil && no.forAPeriod:
			// excluded for a period and granted otherwise: a right on a
			// condition (the grant's own, else the period excluded)
			h.Kind = KindConditional
			if grant.pol.kind == KindConditional {
				h.Condition = grant.pol.condition
				add(grant.pol.cond, "condition")
			} else {
				h.Condition = strings.Join(strings.Fields(j.s[no.pol.focus[0]:no.pol.focus[1]]), " ")
				add(no.pol.focus, "condition")
			}
			add(grant.partyAt, "party")
			add(grant.pol.focus, "value")
		case no != nil && no.weight > grant.weight:
			h.Kind = KindNo
			add(no.partyAt, "party")
			add(no.pol.focus, "value")
		default:
			h.Kind = grant.pol.kind
			if h.Kind == KindConditional {
				h.Condition = grant.pol.condition
				add(grant.pol.cond, "condition")
			}
			add(grant.partyAt, "party")
			add(grant.pol.focus, "value")
		}
		if h.Kind != KindNo {
			for _, r := range rs {
				if r.pol.kind != KindNo && r.notice != "" {
					h.Notice = r.notice
					add(r.noticeAt, "notice")
					break
				}
			}
		}
		out = append(out, h)
	}
	// a party that holds what "either party" holds, on the same terms,
	// adds nothing
	for _, all := range out {
		if all.Party != "Either party" {
			continue
		}
		out = slices.DeleteFunc(out, func(h Holder) bool {
			return h.Party != all.Party && h.Kind == all.Kind && h.Condition == all.Condition && h.Notice == all.Notice
		})
		break
	}
	return out
}

// feeTerms reads the terms a holder's right costs it from text t (a
// clause's text, bytes): sentences that name the holder, mention the
// provision (a cue word) and a payment, and do not negate it ("No Early
// Termination Fee is payable …" is not a term). Each term is the fee's
// name (or "a payment"), the time it applies in, if written, and where
// (the clause's label). It returns the terms and where each is (bytes of t).
func feeTerms(t, holder, label string, c cues) ([]string, [][2]int) {
	var terms []string
	var at [][2]int
	if holder != "Either party" && !strings.Contains(t, holder) || !namesFee(t) {
		// no sentence of t names the holder (containsWord) or a fee (a
		// sentence is cut after a full stop and space, so a fee word
		// of one is a word of t): t need not be cut into sentences
		return nil, nil
	}
	seen := map[[2]int]bool{}
	for _, sg := range segments(t) {
		if seen[sg.sentence] {
			continue
		}
		seen[sg.sentence] = true
		sent := t[sg.sentence[0]:sg.sentence[1]]
		if !namesFee(sent) || negates(sent) || !containsWord(sent, holder) {
			continue
		}
		if segWeight(t, segment{sg.sentence[0], sg.sentence[1], sg.sentence}, c) == 0 {
			continue
		}
		m := reFeeName().FindStringSubmatch(sent)
		if m == nil || strings.Contains(m[1], holder) || len(strings.Fields(m[1])) < 2 {
			continue // not named, or only "the Fees" the contract charges
		}
		term := m[1]
		if r := []rune(term); !unicode.IsUpper(r[0]) {
			term = "a " + term
		}
		if w := reWhen().FindString(sent); w != "" {
			term += " if " + strings.Join(strings.Fields(w), " ")
		}
		if label != "" {
			term += " (" + label + ")"
		}
		if !slices.Contains(terms, term) {
			terms = append(terms, term)
			at = append(at, sg.sentence)
		}
	}
	return terms, at
}

// containsWord reports whether s holds w as a whole word or words.
func containsWord(s, w string) bool {
	if w == "" || w == "Either party" {
		return w != ""
	}
	for from := 0; ; {
		k := strings.Index(s[from:], w)
		if k < 0 {
			return false
		}
		k += from
		before := k == 0 || !isWordByte(s[k-1])
		after := k+len(w) >= len(s) || !isWordByte(s[k+len(w)])
		if before && after {
			return true
		}
		from = k + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// withHolders adds to a yes/no cell's answer a who holds the provision,
// on what terms (Answer.Holders, Answer.Summary), when its extracts say
// so. A holder's payment terms written in a clause beside the one that
// grants its right, outside the cell's extracts, bring that clause's
// passage in as an extract (last). When one holder holds the right
// outright, the answer is Yes, whatever condition another holder's right
// is under.
func withHolders(p *detect.Prepared, pr *playbook.Provision, nb []*playbook.Provision, ex []detect.Extract, a *Answer, scores []float64) ([]detect.Extract, *Answer) {
	if a.Kind != KindYes && a.Kind != KindConditional || aboutPayment(pr) {
		return ex, a
	}
	var parties []partyRead
	var defined func(string) bool
	known := p != nil
	if known {
		parties, defined = partyReads(p), func(t string) bool { return definesTerm(p, t) }
	}
	hs := holdersOf(pr, nb, ex, parties, defined)
	if len(hs) == 0 {
		return ex, a
	}
	holders := mergeHoldings(hs, joinExtracts(ex))
	restriction := polarityOf(pr, cueWordsOf(pr)) == playbook.PolarityRestriction
	if !restriction && known {
		ex, holders = addFeeTerms(p, pr, ex, holders, scores)
	}
	slices.SortStableFunc(holders, func(x, y Holder) int { return kindRank(x.Kind) - kindRank(y.Kind) })
	out := *a
	out.Holders, out.Summary = holders, Summary(holders, restriction)
	for _, h := range holders {
		if h.Kind == KindYes && out.Kind == KindConditional {
			out.Kind, out.Text, out.Condition = KindYes, "Yes", ""
			out.Spans = nil
			for _, sp := range h.Spans {
				if sp.Role == "value" {
					out.Spans = append(out.Spans, sp)
				}
			}
		}
	}
	return ex, &out
}

// aboutPayment reports whether a provision is itself about paying (its name
// or keywords speak of fees or payments): a payment is then the provision,
// not a term of a holder's right.
func aboutPayment(p *playbook.Provision) bool {
	if reFee().MatchString(p.Name) {
		return true
	}
	for _, k := range p.Keywords {
		if reFee().MatchString(k.Text) {
			return true
		}
		for _, n := range k.Near {
			if reFee().MatchString(n) {
				return true
			}
		}
	}
	return false
}

// kindRank orders holders: those who hold the right outright first.
func kindRank(k Kind) int {
	switch k {
	case KindYes:
		return 0
	case KindConditional:
		return 1
	}
	return 2
}

// addFeeTerms reads the payment terms of each holder's right from the
// cell's extracts and the clauses beside the one that grants it.
func addFeeTerms(p *detect.Prepared, pr *playbook.Provision, ex []detect.Extract, holders []Holder, scores []float64) ([]detect.Extract, []Holder) {
	c := cueWordsOf(pr)
	tree := p.Tree()
	for hi := range holders {
		h := &holders[hi]
		if h.Kind == KindNo || h.Party == "Either party" {
			continue
		}
		grantAt := -1
		for _, sp := range h.Spans {
			if sp.Role == "value" {
				grantAt = sp.Extract
				break
			}
		}
		if grantAt < 0 {
			continue
		}
		// the clauses to read: the cell's extracts and the grant's siblings
		type place struct {
			node int
			lo   int // code point the clause's text starts at
			text string
		}
		var places []place
		for _, e := range ex {
			places = append(places, place{e.Node, e.Span.Start, e.Text})
		}
		if g := ex[grantAt].Node; tree != nil && g > 0 && g < len(tree.Nodes) && tree.Nodes[g].Parent >= 0 {
			for _, sib := range tree.Nodes[tree.Nodes[g].Parent].Children {
				if sib == g {
					continue
				}
				sp := tree.Nodes[sib].Span
				places = append(places, place{sib, sp.Start, p.Doc().Doc.Masked(sp)})
			}
		}
		for _, pl := range places {
			label := ""
			if tree != nil && pl.node > 0 && pl.node < len(tree.Nodes) {
				label = clauseLabel(tree.Path(pl.node))
			}
			terms, at := feeTerms(pl.text, h.Party, label, c)
			for k, t := range terms {
				if slices.Contains(h.Terms, t) {
					continue
				}
				lo := pl.lo + len([]rune(pl.text[:at[k][0]]))
				hi := lo + len([]rune(pl.text[at[k][0]:at[k][1]]))
				var idx int
				ex, idx = extractAppended(p, ex, spanOf(lo, hi), scores)
				if idx < 0 {
					continue
				}
				h.Terms = append(h.Terms, t)
				h.Spans = append(h.Spans, Span{Extract: idx, Span: spanOf(lo, hi), Role: "term"})
			}
		}
	}
	return ex, holders
}

// extractAppended returns ex and the index of the first extract that holds
// sp; when none does, the passage that holds sp is appended to ex. The
// index is -1 when no passage holds sp either.
func extractAppended(p *detect.Prepared, ex []detect.Extract, sp document.Span, scores []float64) ([]detect.Extract, int) {
	for i, e := range ex {
		if e.Span.Contains(sp) {
			return ex, i
		}
	}
	if e, ok := passageExtract(p, sp, scores); ok {
		return append(ex, e), len(ex)
	}
	return ex, -1
}

func spanOf(lo, hi int) document.Span { return document.Span{Start: lo, End: hi} }

// clauseLabel names the clause a path ends in as a lawyer cites it: an
// item keeps the clause it belongs to ("11.2 > (b)" is "11.2(b)").
func clauseLabel(path string) string {
	if path == "" {
		return ""
	}
	parts := strings.Split(path, " > ")
	last := parts[len(parts)-1]
	if reItemLabel().MatchString(last) && len(parts) > 1 {
		last = parts[len(parts)-2] + last
	}
	return last
}

var reItemLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\(?[a-z0-9]{1,4}\)$`) })

// definesTerm reports whether contract p defines term in quotation marks
// ("Licensee", “Customer”); the defined terms are read once.
func definesTerm(p *detect.Prepared, term string) bool {
	set := p.Memo(termsKey, func() any {
		out := map[string]bool{}
		text := p.Doc().Doc.Text
		for _, m := range quotedTerms(text) {
			out[strings.Join(strings.Fields(text[m[2]:m[3]]), " ")] = true
		}
		return out
	}).(map[string]bool)
	return set[term]
}

var reQuotedTerm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["“]([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,2})["”]`)
})

// reQuotedTermAt is reQuotedTerm anchored at the start of its input.
var reQuotedTermAt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^["“]([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,2})["”]`)
})

// quotedTerms is reQuotedTerm().FindAllStringSubmatchIndex(s, -1), found by
// trying the expression, anchored, only at an opening quote and on the
// window that ends with the first closing quote after it: what lies between
// a match's quotes holds no quote, so a match from an opening quote ends
// there or nowhere. Read over a whole contract's text for every contract a
// deal-room question reviews, the expression tried at every position was a
// fortieth of the question's processor time (TestQuotedTermsLikeExpression).
func quotedTerms(s string) [][]int {
	var out [][]int
	// the next straight, left and right double quote at or after a place
	// asked about (len(s): none)
	straight, left, right := -1, -1, -1
	next := func(at *int, q string, from int) int {
		if *at < from {
			*at = len(s)
			if k := strings.Index(s[from:], q); k >= 0 {
				*at = from + k
			}
		}
		return *at
	}
	for i := 0; i < len(s); {
		a, b := next(&straight, `"`, i), next(&left, "“", i)
		open, inner := a, a+1
		if b < a {
			open, inner = b, b+len("“")
		}
		if open == len(s) {
			break
		}
		c, d := next(&straight, `"`, inner), next(&right, "”", inner)
		end := c + 1
		if d < c {
			end = d + len("”")
		}
		if c == len(s) && d == len(s) {
			break // no closing quote after this one, so no match here or after
		}
		m := reQuotedTermAt().FindStringSubmatchIndex(s[open:end])
		if m == nil {
			i = inner
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += open
			}
		}
		out = append(out, m)
		i = m[1]
	}
	return out
}

// Summary is the one line that says who holds a provision on what terms:
// "Customer: Yes, 60 days' notice, Early Termination Fee (11.2(b));
// Provider: only during any Renewal Term, 180 days' notice"; for a
// restriction, who is bound by it ("Distributor: bound"). Empty when there
// are no holders.
func Summary(holders []Holder, restriction bool) string {
	var parts []string
	for _, h := range holders {
		var b strings.Builder
		b.WriteString(h.Party)
		b.WriteString(": ")
		switch {
		case restriction && h.Kind == KindYes:
			b.WriteString("bound")
		case restriction && h.Kind == KindNo:
			b.WriteString("not bound")
		case restriction && len(strings.Fields(h.Condition)) >= 3:
			b.WriteString("bound, " + h.Condition)
		case restriction:
			b.WriteString("bound, on a condition")
		case h.Kind == KindYes:
			b.WriteString("Yes")
		case h.Kind == KindNo:
			b.WriteString("No")
		default:
			b.WriteString(conditionPhrase(h.Condition))
		}
		if h.Notice != "" {
			b.WriteString(", " + NoticePhrase(h.Notice))
		}
		for _, t := range h.Terms {
			b.WriteString(", " + t)
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "; ")
}

// conditionPhrase says a condition as the restriction of a right: "During
// any Renewal Term" is "only during any Renewal Term".
func conditionPhrase(c string) string {
	if len(strings.Fields(c)) < 3 {
		return "Conditional" // "provided that", cut where the condition was read
	}
	r := []rune(c)
	first := strings.ToLower(strings.Fields(c)[0])
	switch first {
	case "during", "after", "following", "before", "in", "upon", "on", "with", "if", "when", "for", "within", "once":
		if len(r) > 1 && !unicode.IsUpper(r[1]) {
			r[0] = unicode.ToLower(r[0])
		}
		return "only " + string(r)
	}
	return c
}

// NoticePhrase says a notice period as a lawyer writes it: "60 days" is
// "60 days' notice", "1 year" "1 year's notice".
func NoticePhrase(n string) string {
	if strings.HasSuffix(n, "s") {
		return n + "' notice"
	}
	return n + "'s notice"
}

// namesFee is reFee().MatchString(s), the expression tried only on a text
// its gate admits (TestNamesFeeLikeExpression).
func namesFee(s string) bool {
	return feeGate.admits(lowerASCII(s)) && reFee().MatchString(s)
}

var feeGate = pieceGate{{"fee"}, {"penalt"}, {"charge"}, {"pay"}, {"compen"}, {"reimbur"}}
