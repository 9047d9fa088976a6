package detect

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review/playbook"
)

// Matching a question to the provisions it asks about. A provision is its
// definition, not its keywords: "terminated for cause" shares the words
// "terminate" and "cause" with Termination for Convenience, whose
// definition says "without … cause". So the matcher reads negation and
// contrast in the playbook's own words:
//
//   - a word in the scope of a negation ("without cause", "no reason", "not
//     limited") is a different term from the word itself ("¬cause" against
//     "cause"), in the question and in the provision's profile alike;
//   - what a provision's Excludes field names ("Not termination for
//     convenience or without cause") is its contrast profile: a question
//     that asks about it scores lower for that provision, by the cosine of
//     the question with the contrast profile;
//   - a question that holds a provision's whole name names it, and scores
//     higher for it; a one-word name only in the name's own form and when
//     that form is rare in the playbook ("exclusivity", not "exclusive"),
//     and its word then counts for that provision alone;
//   - a value asked beside the provision in a coordinated question ("…, and
//     how much?", "…, and on what notice?") is not what the question is
//     about, so its words are left out.
//
// The profile is otherwise the zero-shot scorer's (name, definition,
// questions, keywords, examples, weighted alike and by the words' IDF).

// negators open a negation scope; it runs to the next punctuation mark, a
// turn of contrast or negScope words, whichever comes first.
var negators = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, w := range []string{"not", "no", "without", "never", "neither", "nor", "cannot"} {
		out[StemWord(w)] = true
	}
	return out
})

// scopeEnds end a negation scope: a turn of the sentence ("not for breach
// but for convenience").
var scopeEnds = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, w := range []string{"but", "except", "unless", "however", "although"} {
		out[StemWord(w)] = true
	}
	return out
})

const (
	negScope       = 8   // words a negation reaches at most
	negMark        = "¬" // the prefix of a negated word's term
	contrastWeight = 1.0 // how much of the question's share on a provision's contrast comes off its score
)

// analyzeNegated is Analyze with every word inside a negation scope marked
// (negMark + stem). The negating word itself is kept as it is.
func analyzeNegated(text string) []string {
	var out []string
	for _, piece := range splitClauses(text) {
		left := 0
		for _, w := range Analyze(piece) {
			switch {
			case w == "non":
				// a prefix: "non-exclusive", "non-renewal"
				out = append(out, w)
				left = 1
				continue
			case negators()[w]:
				out = append(out, w)
				left = negScope
				continue
			case scopeEnds()[w]:
				left = 0
			}
			if left > 0 {
				left--
				out = append(out, negMark+w)
				continue
			}
			out = append(out, w)
		}
	}
	return out
}

// splitClauses cuts text at punctuation that ends a negation's reach.
func splitClauses(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		switch r {
		case ',', ';', ':', '.', '?', '!', '(', ')', '[', ']', '—', '–':
			return true
		}
		return r != '\'' && r != '’' && r != '-' && unicode.IsPunct(r)
	})
}

// excludedItems reads an Excludes text as the list of what the provision is
// not: the "not" that heads each item ("Not termination for breach, …, and
// not non-renewal") marks the item, it does not negate it, so it is
// dropped; a negation inside an item ("without cause") is kept.
var reItemNot = regexp.MustCompile(`(?i)(^|[,;:.(]\s*|\b(?:and|or|nor)\s+)not\s+`)

func excludedItems(text string) []string {
	return analyzeNegated(reItemNot.ReplaceAllString(text, "$1"))
}

// reAskedBeside finds a value asked beside the provision: a coordinated
// question after the provision's ("…, and how much?", "… and on what
// notice?", "…, and under which law?").
var reAskedBeside = regexp.MustCompile(`(?i)(?:,\s*|\s)(?:and|or)\s+(?:(?:on|at|for|under|by|with|in|to|from|until|upon|after|within)\s+)?(?:how|what|which|when|where|who|whom|whose)\b`)

// aboutPart returns the part of question that says what it asks about:
// without a value asked beside it.
func aboutPart(question string) string {
	if loc := reAskedBeside.FindStringIndex(question); loc != nil && loc[0] > 0 {
		return question[:loc[0]]
	}
	return question
}

// matcher is what the playbook's provisions are not, and their names, for
// matching questions; the profiles themselves are the zero-shot scorer's.
type matcher struct {
	// contrast maps a term to the provisions it contradicts: what a
	// provision's Excludes names, and the plain form of a word its
	// definition negates ("cause" for a right defined as needing none),
	// less any term its own profile uses in the same form; only terms
	// that tell another provision (in its name or keywords) and are rare
	// enough to mean something (nameMinIDF).
	contrast map[string][]int
	// names holds each provision's name as the terms a question must
	// hold to name it: its words of nameMinIDF or more, a word after a
	// negating prefix marked ("Non-Transferable" → ¬transfer); nil when
	// fewer than two, unless the one word, in the form the name has
	// (exact), is rare in the playbook (oneWordMinIDF): a common one-word
	// name is too common a word to tell.
	names [][]string
	// exact is a one-word name's word as the name writes it, lower-cased,
	// which the question must hold in that form; "" for longer names.
	exact []string
}

const (
	nameMinIDF = 1.5  // a name's word at least this rare counts when a question names the provision
	nameBonus  = 0.10 // added to the score of a provision the question names
)

// oneWordMinIDF is how rare a one-word name must be in the playbook to name
// its provision: the IDF of the word, in the name's form, over the
// provisions' profiles; 3.0 is at most one profile in twenty.
const oneWordMinIDF = 3.0

func newMatcher(pb *playbook.Playbook, z *zeroShot) *matcher {
	m := &matcher{contrast: map[string][]int{}}
	// A provision's name and keywords are what tell it from the others:
	// the terms a contrast may be made of, with the provisions that hold
	// each.
	telling := map[string][]int{}
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		texts := []string{p.Name}
		for _, k := range p.Keywords {
			texts = append(texts, k.Text)
		}
		for _, text := range texts {
			for _, t := range analyzeNegated(text) {
				if l := telling[t]; len(l) == 0 || l[len(l)-1] != i {
					telling[t] = append(telling[t], i)
				}
			}
		}
	}
	for i := range pb.Provisions {
		p := &pb.Provisions[i]
		own := map[string]bool{}
		for _, text := range profileTexts(p) {
			for _, t := range analyzeNegated(text) {
				own[t] = true
			}
		}
		con := map[string]bool{}
		for _, t := range excludedItems(p.Excludes) {
			con[t] = true
		}
		for _, t := range analyzeNegated(p.Definition) {
			if w, ok := strings.CutPrefix(t, negMark); ok {
				con[w] = true
			}
		}
		for _, t := range sortedKeys(boolWeights(con)) {
			other := slices.ContainsFunc(telling[t], func(j int) bool { return j != i })
			if !own[t] && other && m.idf(z, t) >= nameMinIDF {
				m.contrast[t] = append(m.contrast[t], i)
			}
		}
		var name []string
		for _, t := range analyzeNegated(p.Name) {
			if m.idf(z, t) >= nameMinIDF && t != "non" && !negators()[t] {
				name = append(name, t)
			}
		}
		exact := ""
		if len(name) == 1 {
			exact = oneWordName(pb, i)
			if exact == "" {
				name = nil
			}
		}
		m.names = append(m.names, name)
		m.exact = append(m.exact, exact)
	}
	return m
}

// oneWordName returns provision i's one-word name, lower-cased, when the
// word in that form is rare in the playbook: its IDF over the provisions'
// profiles (the log of the number of provisions over those whose profile
// holds it) is at least oneWordMinIDF; otherwise "".
func oneWordName(pb *playbook.Playbook, i int) string {
	word := strings.ToLower(strings.TrimSpace(pb.Provisions[i].Name))
	if word == "" || strings.ContainsFunc(word, unicode.IsSpace) {
		return ""
	}
	df := 0
	for j := range pb.Provisions {
		if slices.ContainsFunc(profileTexts(&pb.Provisions[j]), func(text string) bool { return holdsWord(text, word) }) {
			df++
		}
	}
	if df == 0 || math.Log(float64(len(pb.Provisions))/float64(df)) < oneWordMinIDF {
		return ""
	}
	return word
}

// holdsWord reports whether text holds word (lower-case) as a whole word,
// in that form.
func holdsWord(text, word string) bool {
	text = strings.ToLower(text)
	for from := 0; ; {
		k := strings.Index(text[from:], word)
		if k < 0 {
			return false
		}
		k += from
		end := k + len(word)
		if (k == 0 || !isWordByte(text, k-1, true)) && (end == len(text) || !isWordByte(text, end, false)) {
			return true
		}
		from = k + 1
	}
}

// isWordByte reports whether the rune before (or at) byte k of text is a
// letter or digit.
func isWordByte(text string, k int, before bool) bool {
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(text[:k+1])
	} else {
		r, _ = utf8.DecodeRuneInString(text[k:])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// idf weighs a term as the zero-shot scorer weighs its word.
func (m *matcher) idf(z *zeroShot, t string) float64 {
	return z.idf(strings.TrimPrefix(t, negMark))
}

// profileTexts are the texts of a provision's profile.
func profileTexts(p *playbook.Provision) []string {
	out := []string{p.Name, p.Definition}
	out = append(out, p.Questions...)
	for _, k := range p.Keywords {
		out = append(out, k.Text)
	}
	return append(out, p.Examples...)
}

func boolWeights(m map[string]bool) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k := range m {
		out[k] = 1
	}
	return out
}

// names reports whether the question's terms q hold every term of name.
func names(q, name []string) bool {
	if len(name) == 0 {
		return false
	}
	for _, t := range name {
		if !slices.Contains(q, t) {
			return false
		}
	}
	return true
}

// QuestionMatch is how well a question asks about a provision.
type QuestionMatch struct {
	Provision string  // the provision's name
	Score     float64 // cosine with the provision's profile, less the share of the question on what it is not, plus nameBonus when named
	Margin    float64 // Score minus the next best provision's score
}

// MatchQuestion returns the playbook provisions a question asks about, best
// first: the cosine between the question's words and each provision's
// zero-shot profile (name, definition, questions, keywords, examples),
// counting only words some profile holds, so the names of contracts and
// parties in the question do not dilute it; less the share of the
// question's weight on terms that contradict the provision (what its
// Excludes names, what its definition negates); plus nameBonus when the
// question names the provision. A value asked beside the provision
// ("…, and on what notice?") is left out.
func (s *Scorer) MatchQuestion(question string) []QuestionMatch {
	s.matchOnce.Do(func() { s.match = newMatcher(s.pb, s.zs) })
	m, z := s.match, s.zs
	marked := analyzeNegated(aboutPart(question))
	vec := map[string]float64{}
	var order []string
	for _, t := range marked {
		w := strings.TrimPrefix(t, negMark)
		if _, ok := z.terms[w]; !ok {
			continue
		}
		if _, ok := vec[w]; !ok {
			order = append(order, w)
		}
		vec[w]++
	}
	// A question that names several provisions names none of them clearly.
	var named []int
	for i := range m.names {
		if names(marked, m.names[i]) && (m.exact[i] == "" || holdsWord(question, m.exact[i])) {
			named = append(named, i)
		}
	}
	// The word a question names a provision by in its one-word name
	// ("exclusivity") is that provision's: it is no evidence for the
	// others whose profiles share its stem ("exclusive license").
	owned := map[string]bool{}
	if len(named) == 1 && m.exact[named[0]] != "" {
		for _, t := range m.names[named[0]] {
			owned[strings.TrimPrefix(t, negMark)] = true
		}
	}
	n := len(s.pb.Provisions)
	dot := make([]float64, n)
	var norm float64
	for _, w := range order {
		v := (1 + math.Log(vec[w])) * z.idf(w)
		norm += v * v
		for _, ref := range z.terms[w] {
			if owned[w] && ref.prov != named[0] {
				continue
			}
			dot[ref.prov] += v * ref.w
		}
	}
	if norm == 0 {
		return nil
	}
	// The share of the question's weight on each provision's contrast.
	against := make([]float64, n)
	seen := map[string]bool{}
	for _, t := range marked {
		w := strings.TrimPrefix(t, negMark)
		if seen[t] || vec[w] == 0 {
			continue
		}
		seen[t] = true
		v := (1 + math.Log(vec[w])) * z.idf(w)
		for _, i := range m.contrast[t] {
			against[i] += v * v / norm
		}
	}
	norm = math.Sqrt(norm)
	out := make([]QuestionMatch, 0, n)
	for i := range dot {
		if z.norms[i] == 0 || dot[i] == 0 {
			continue
		}
		sc := dot[i]/(norm*z.norms[i]) - contrastWeight*against[i]
		if len(named) == 1 && named[0] == i {
			sc += nameBonus
		}
		out = append(out, QuestionMatch{Provision: s.pb.Provisions[i].Name, Score: sc})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	for i := range out {
		if i+1 < len(out) {
			out[i].Margin = out[i].Score - out[i+1].Score
		} else {
			out[i].Margin = out[i].Score
		}
	}
	return out
}

// Thresholds of AskedProvisions. The best provision is asked about when it
// scores at least askMinScore and leads the next by askTie, or, with a
// wider lead (askLead), from askLowScore: a question in plain words shares
// fewer words with any profile, but a clear lead still singles its
// provision out. Measured with each question's own provision's playbook
// questions held out of its profile: the CUAD dev questions, whose category
// is known, 1,123 right of 1,163 answered (96.6%), our plain rewrites of
// them 148 of 280 (TestAskedCategories); the built-in playbook's own
// questions 40 of 43 (TestAskedProvisionsHeldOut). Before the negation,
// contrast and name rules: 511 of 605, 179 of 387 and 36 of 40; before
// one-word names: 1,082 of 1,129, 147 of 264 and 40 of 43.
const (
	askMinScore = 0.30
	askTie      = 0.05
	askLowScore = 0.20
	askLead     = 0.08
)

// AskedProvisions returns the provisions a question clearly asks about:
// the best match when it scores at least askMinScore and leads the next
// by askTie, or scores askLowScore and leads by askLead; the two best when
// they are closer than that and both score askMinScore; nothing when the
// question matches no provision clearly.
func (s *Scorer) AskedProvisions(question string) []string {
	m := s.MatchQuestion(question)
	switch {
	case len(m) == 0 || m[0].Score < askLowScore:
		return nil
	case m[0].Margin >= askLead && m[0].Score >= askLowScore:
		return []string{m[0].Provision}
	case m[0].Score < askMinScore:
		return nil
	case m[0].Margin >= askTie:
		return []string{m[0].Provision}
	case len(m) > 1 && m[1].Score >= askMinScore:
		return []string{m[0].Provision, m[1].Provision}
	}
	return nil
}
