// Package compare sets two versions of a contract side by side clause by
// clause — a contract against the firm's standard form, an executed copy
// against its draft — and says which clauses of the first (the template,
// or the earlier version) are missing from the second, which were changed
// and how, word by word, and which are new.
//
// A clause here is a node of the clause tree with text of its own (its
// heading and the words before its first sub-clause, or all of a leaf).
// Its words are compared without its number, so renumbering is not a
// change, and without regard to white space, line breaks, page furniture
// or typographic quotes and dashes, so a re-flowed or re-formatted copy is
// the same. Clauses are aligned in document order by the alignment that
// maximises the total similarity of the pairs (dynamic programming over
// the two sequences, as a diff does for lines), pairing only clauses that
// share at least half their words (Dice coefficient of the word
// multisets); a clause left over on both sides that matches another
// closely (a moved clause) is paired afterwards. Paired clauses whose
// words differ are "changed", with a word-level difference; the rest of
// the template's clauses are "missing" and of the contract's "added" — a
// clause is reported once, under the highest ancestor that is missing or
// added as a whole.
package compare

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"golang.org/x/text/unicode/norm"
)

// Side is one document of a comparison.
type Side struct {
	Doc  *document.Document
	Tree *clause.Tree
}

// Clause is a clause of one side.
type Clause struct {
	Path    string        `json:"path"`
	Label   string        `json:"label,omitempty"`
	Heading string        `json:"heading,omitempty"`
	Span    document.Span `json:"span"` // the clause's own text
	Text    string        `json:"text"`
	// Clauses is how many clauses the report stands for (itself and its
	// descendants), for a missing or added clause; 1 otherwise.
	Clauses int `json:"clauses"`
	// Paragraphs marks whole paragraphs added or missing inside the clause
	// at Path (text the clause tree reads as part of that clause, such as
	// an unnumbered clause); Span and Text are the paragraphs'.
	Paragraphs bool `json:"paragraphs,omitempty"`
	node       int
}

// Change is a clause of the template and the contract's version of it.
type Change struct {
	Template   Clause  `json:"template"`
	Contract   Clause  `json:"contract"`
	Similarity float64 `json:"similarity"` // Dice coefficient of the two clauses' words
	Moved      bool    `json:"moved,omitempty"`
	// Diff is the word-level difference, template to contract: runs of
	// words kept ("="), removed ("-") and inserted ("+").
	Diff []Op `json:"diff"`
	// Substantive lists the edits that can change what the clause means:
	// a negation inserted or removed, a modal verb or quantifier changed,
	// "and" against "or", a number changed (Meaning). Empty for changes of
	// wording only.
	Substantive []string `json:"substantive,omitempty"`
}

// Op is one run of a word-level difference.
type Op struct {
	Op   string `json:"op"` // "=", "-", "+"
	Text string `json:"text"`
}

// Elide shortens a long unchanged run ("=") of a difference to its ends: the
// first and the last n/2 characters around " … ".
func Elide(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + " … " + string(r[len(r)-n/2:])
}

// Percent writes a similarity as a whole percentage for people, never
// "100%" for texts that differ (changed): 0.996 is "99%", not a rounded
// "100%" that hides an inserted "not".
func Percent(sim float64, changed bool) string {
	p := int(100*sim + 1e-9)
	if changed && p >= 100 {
		p = 99
	}
	return strconv.Itoa(p) + "%"
}

// Result is a comparison: what the template has that the contract lacks,
// what differs, what the contract adds.
type Result struct {
	Missing []Clause `json:"missing"`
	Changed []Change `json:"changed"`
	Added   []Clause `json:"added"`
	// Same counts the clauses whose words are the same on both sides;
	// Moved, those of them found elsewhere in the contract.
	Same  int `json:"same"`
	Moved int `json:"moved"`
	// Similarity is the share of the template's words found, in order, in
	// the contract (1 for identical texts).
	Similarity float64 `json:"similarity"`
}

// Options tune Compare. The zero value means the defaults.
type Options struct {
	// Pair is the least similarity (Dice of word multisets) two clauses need
	// to be aligned when the texts are compared clause by clause (default
	// 0.5); Moved the least for a clause found out of order (default 0.8).
	Pair, Moved float64
	// Budget bounds the word-level difference of the whole texts (DiffLinear;
	// default 50 million steps, about a second); past it, clauses are
	// aligned first.
	Budget int
}

// item is a clause prepared for comparison.
type item struct {
	node    int
	tokens  []string        // words and punctuation, normalised
	label   int             // how many leading tokens are the clause's number ("3", ".")
	ids     []int           // tokens interned
	sorted  []int           // ids after the number, sorted, for the Dice coefficient
	display []string        // tokens as written, for the difference
	spans   []document.Span // each token's code points in the document
	// breakBefore: a line break (or the clause's start) comes before the token.
	breakBefore []bool
}

// words are the item's token ids after its number: what is compared.
func (it *item) words() []int { return it.ids[it.label:] }

// Compare compares contract with template.
func Compare(contract, template Side, opt Options) Result {
	if opt.Pair <= 0 {
		opt.Pair = 0.5
	}
	if opt.Moved <= 0 {
		opt.Moved = 0.8
	}
	intern := map[string]int{}
	ti := items(template, intern)
	ci := items(contract, intern)
	m, ok := byText(ti, ci, opt.Budget)
	if !ok {
		// Too different for a word-level difference of the whole texts
		// within the budget (another party's paper against the firm's
		// form): clauses are aligned first, then compared.
		m = byClauses(ti, ci, opt.Pair)
	}
	// Moved clauses: a template clause left unmatched and a contract
	// clause left over that are close.
	taken := map[int]bool{}
	for _, j := range m.pair {
		taken[j] = true
	}
	for i := range ti {
		if !m.missing[i] {
			continue
		}
		best, bestJ := 0.0, -1
		for j := range ci {
			if !m.added[j] || taken[j] {
				continue
			}
			if s := dice(ti[i].sorted, ci[j].sorted); s > best {
				best, bestJ = s, j
			}
		}
		if bestJ >= 0 && best >= opt.Moved {
			m.pair[i], m.moved[i], taken[bestJ] = bestJ, true, true
			delete(m.missing, i)
			delete(m.added, bestJ)
			if !equalIDs(ti[i].words(), ci[bestJ].words()) {
				es := Diff(ti[i].words(), ci[bestJ].words(), 0)
				m.diff[i] = ops(ti[i].display[ti[i].label:], ci[bestJ].display[ci[bestJ].label:], es)
				m.delTok[i], m.insTok[i] = tokenChanges(ti[i].tokens[ti[i].label:], ci[bestJ].tokens[ci[bestJ].label:], es)
			} else {
				delete(m.diff, i)
			}
		}
	}
	return m.result(template, contract, ti, ci)
}

// matching is what a comparison found, by item index.
type matching struct {
	pair    map[int]int  // template item → its contract counterpart
	diff    map[int][]Op // changed template items: their word difference
	moved   map[int]bool // template items found out of order
	missing map[int]bool // template items not in the contract
	added   map[int]bool // contract items not in the template
	kept    int          // template words found, in order, in the contract
	// Whole paragraphs inserted into the contract or deleted from the
	// template inside a clause (token ranges of the concatenated streams).
	addedBlocks, missingBlocks []block
	// Words deleted from and inserted into each changed template item.
	delTok, insTok map[int][]string
}

func newMatching() *matching {
	return &matching{pair: map[int]int{}, diff: map[int][]Op{}, moved: map[int]bool{}, missing: map[int]bool{}, added: map[int]bool{},
		delTok: map[int][]string{}, insTok: map[int][]string{}}
}

func (m *matching) result(template, contract Side, ti, ci []item) Result {
	var res Result
	total := 0
	for i, t := range ti {
		total += len(t.words())
		j, ok := m.pair[i]
		if !ok || m.missing[i] {
			continue
		}
		d, changed := m.diff[i]
		if !changed {
			res.Same++
			if m.moved[i] {
				res.Moved++
			}
			continue
		}
		res.Changed = append(res.Changed, Change{
			Template: clauseOf(template, t.node, 1), Contract: clauseOf(contract, ci[j].node, 1),
			Similarity: round3(dice(t.sorted, ci[j].sorted)), Moved: m.moved[i], Diff: d,
			Substantive: Meaning(m.delTok[i], m.insTok[i]),
		})
	}
	missing, added := map[int]bool{}, map[int]bool{}
	for i := range m.missing {
		if len(ti[i].words()) > 0 { // a bare number is reported with its clause
			missing[ti[i].node] = true
		}
	}
	for j := range m.added {
		if len(ci[j].words()) > 0 {
			added[ci[j].node] = true
		}
	}
	res.Missing = wholes(template, missing, ownNodes(ti))
	res.Added = wholes(contract, added, ownNodes(ci))
	for _, bl := range m.missingBlocks {
		res.Missing = append(res.Missing, blockClause(template, ti, bl))
	}
	for _, bl := range m.addedBlocks {
		res.Added = append(res.Added, blockClause(contract, ci, bl))
	}
	byStart := func(x, y Clause) int { return x.Span.Start - y.Span.Start }
	slices.SortStableFunc(res.Missing, byStart)
	slices.SortStableFunc(res.Added, byStart)
	switch {
	case total > 0:
		res.Similarity = round3(float64(min(m.kept, total)) / float64(total))
	case len(ci) == 0:
		res.Similarity = 1
	}
	if res.Missing == nil {
		res.Missing = []Clause{}
	}
	if res.Changed == nil {
		res.Changed = []Change{}
	}
	if res.Added == nil {
		res.Added = []Clause{}
	}
	return res
}

// byClauses aligns clauses first (align) and compares the pairs.
func byClauses(ti, ci []item, least float64) *matching {
	m := newMatching()
	matched := map[int]bool{}
	for _, p := range align(ti, ci, least) {
		i, j := p[0], p[1]
		m.pair[i], matched[j] = j, true
		es := Diff(ti[i].words(), ci[j].words(), 0)
		for _, e := range es {
			if e.Kind == Equal {
				m.kept += e.AEnd - e.AStart
			}
		}
		if !equalIDs(ti[i].words(), ci[j].words()) {
			m.diff[i] = ops(ti[i].display[ti[i].label:], ci[j].display[ci[j].label:], es)
			m.delTok[i], m.insTok[i] = tokenChanges(ti[i].tokens[ti[i].label:], ci[j].tokens[ci[j].label:], es)
		}
	}
	for i := range ti {
		if _, ok := m.pair[i]; !ok {
			m.missing[i] = true
		}
	}
	for j := range ci {
		if !matched[j] {
			m.added[j] = true
		}
	}
	return m
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

func equalIDs(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ownNodes are the nodes with words of their own (a bare number does not
// count).
func ownNodes(its []item) map[int]bool {
	out := map[int]bool{}
	for _, it := range its {
		if len(it.words()) > 0 {
			out[it.node] = true
		}
	}
	return out
}

// items lists a side's clauses with text of their own, in document order.
func items(s Side, intern map[string]int) []item {
	var out []item
	for id := 1; id < len(s.Tree.Nodes); id++ {
		n := &s.Tree.Nodes[id]
		text := s.Doc.Masked(n.Own)
		display, tokens, offs := tokenizeAt(text)
		// A token written after white space carries one space before it, so
		// a difference's text reads as written ("3.5", "Section 11.5").
		for k := 1; k < len(display); k++ {
			if offs[k][0] > offs[k-1][1] {
				display[k] = " " + display[k]
			}
		}
		// The number is not part of the words: renumbering is no change.
		label := 0
		if n.Label != "" && len(tokens) > 0 {
			_, lt := tokenize(n.Label)
			if len(lt) <= len(tokens) && equalStrings(tokens[:len(lt)], lt) {
				label = len(lt)
				// and the punctuation that closes it: "3." "(a)" "4:"
				for label < len(tokens) && len(tokens[label]) == 1 && strings.Contains(".):-", tokens[label]) {
					label++
				}
			}
		}
		if len(tokens) == 0 {
			continue
		}
		it := item{node: id, tokens: tokens, display: display, label: label, spans: make([]document.Span, len(offs))}
		// Each token's code points in the document, counted along the text.
		at, cp := 0, n.Own.Start
		for k, o := range offs {
			cp += utf8.RuneCountInString(text[at:o[0]])
			start := cp
			cp += utf8.RuneCountInString(text[o[0]:o[1]])
			it.spans[k] = document.Span{Start: start, End: cp}
			at = o[1]
			if k > 0 {
				it.breakBefore = append(it.breakBefore, strings.Contains(text[offs[k-1][1]:o[0]], "\n"))
			} else {
				it.breakBefore = append(it.breakBefore, lineStart(s.Doc, start))
			}
		}
		for _, t := range tokens {
			v, ok := intern[t]
			if !ok {
				v = len(intern)
				intern[t] = v
			}
			it.ids = append(it.ids, v)
		}
		it.sorted = append([]int(nil), it.words()...)
		slices.Sort(it.sorted)
		out = append(out, it)
	}
	return out
}

// lineStart reports whether only spaces stand between the start of a line
// (or of the text) and code point at.
func lineStart(d *document.Document, at int) bool {
	before := d.Slice(document.Span{Start: max(0, at-200), End: at})
	trimmed := strings.TrimRight(before, " \t\u00a0")
	return trimmed == "" && at <= 200 || strings.HasSuffix(trimmed, "\n") || strings.HasSuffix(trimmed, "\f")
}

func equalStrings(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tokenize splits text into words (letters and digits) and single
// punctuation marks; tokens are normalised (Unicode NFKC, so ligatures and
// look-alike punctuation such as the Greek question mark PDFs use for ";"
// are their plain forms; typographic quotes and dashes to plain ones),
// display keeps them as written.
func tokenize(text string) (display, tokens []string) {
	display, tokens, _ = tokenizeAt(text)
	return display, tokens
}

// tokenizeAt is tokenize with each token's byte offsets in text.
func tokenizeAt(text string) (display, tokens []string, offs [][2]int) {
	i := 0
	for i < len(text) {
		r, w := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			i += w
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// A word, with hyphens between letters joined in: "non-exclusive",
			// "non- exclusive" (a hyphen at a line break) and "nonexclusive"
			// (the hyphen a PDF reader took away) are one word.
			j := i
			var word strings.Builder
			for j < len(text) {
				r2, w2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) || unicode.Is(unicode.Mn, r2) {
					// A number and a word written together ("3Intellectual", a
					// space a PDF lost) are two tokens, as when apart.
					if prev, _ := utf8.DecodeLastRuneInString(word.String()); word.Len() > 0 && unicode.IsDigit(prev) != unicode.IsDigit(r2) && !unicode.Is(unicode.Mn, r2) {
						break
					}
					word.WriteRune(r2)
					j += w2
					continue
				}
				if isHyphen(r2) && word.Len() > 0 {
					// A hyphen between letters, or at a line break before
					// one ("non-\nexclusive", "Know- How").
					k := j + w2
					for nl := 0; k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' && nl == 0) && k-(j+w2) < 64; k++ {
						if text[k] == '\n' {
							nl++ // one line break, never a paragraph break
						}
					}
					if r3, _ := utf8.DecodeRuneInString(text[k:]); k < len(text) && unicode.IsLetter(r3) {
						j = k
						continue
					}
				}
				break
			}
			display = append(display, text[i:j])
			tokens = append(tokens, norm.NFKC.String(word.String()))
			offs = append(offs, [2]int{i, j})
			i = j
		default:
			display = append(display, text[i:i+w])
			tokens = append(tokens, normPunct(r))
			offs = append(offs, [2]int{i, i + w})
			i += w
		}
	}
	return display, tokens, offs
}

func isHyphen(r rune) bool {
	return r == '-' || r == '\u00ad' || r == '‐' || r == '‑'
}

func normPunct(r rune) string {
	r = []rune(norm.NFKC.String(string(r)) + " ")[0] // U+037E → ";", "；" → ";"
	switch r {
	case '‘', '’', '‚', '′':
		return "'"
	case '“', '”', '„', '″':
		return "\""
	case '–', '—', '‐', '‑', '−':
		return "-"
	case '\u00a0':
		return " "
	}
	return string(r)
}

// dice is the Dice coefficient of two sorted multisets.
func dice(a, b []int) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// align pairs template and contract items in order, maximising the sum of
// the similarities of the pairs, each at least least.
func align(t, c []item, least float64) [][2]int {
	n, m := len(t), len(c)
	if n == 0 || m == 0 {
		return nil
	}
	score := make([]float32, (n+1)*(m+1))
	from := make([]uint8, (n+1)*(m+1)) // 0 up, 1 left, 2 diagonal
	at := func(i, j int) int { return i*(m+1) + j }
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			best, dir := score[at(i-1, j)], uint8(0)
			if s := score[at(i, j-1)]; s > best {
				best, dir = s, 1
			}
			a, b := t[i-1].sorted, c[j-1].sorted
			// Dice ≤ 2·min(|a|,|b|)/(|a|+|b|): skip pairs that cannot reach min.
			if 2*float64(min(len(a), len(b))) >= least*float64(len(a)+len(b)) {
				if d := dice(a, b); d >= least {
					if s := score[at(i-1, j-1)] + float32(d); s > best {
						best, dir = s, 2
					}
				}
			}
			score[at(i, j)], from[at(i, j)] = best, dir
		}
	}
	var pairs [][2]int
	for i, j := n, m; i > 0 && j > 0; {
		switch from[at(i, j)] {
		case 2:
			pairs = append(pairs, [2]int{i - 1, j - 1})
			i, j = i-1, j-1
		case 1:
			j--
		default:
			i--
		}
	}
	for l, r := 0, len(pairs)-1; l < r; l, r = l+1, r-1 {
		pairs[l], pairs[r] = pairs[r], pairs[l]
	}
	return pairs
}

// tokenChanges lists the tokens an edit script deletes from a and inserts
// from b.
func tokenChanges(a, b []string, es []Edit) (del, ins []string) {
	for _, e := range es {
		switch e.Kind {
		case Delete:
			del = append(del, a[e.AStart:e.AEnd]...)
		case Insert:
			ins = append(ins, b[e.BStart:e.BEnd]...)
		}
	}
	return del, ins
}

// ops renders an edit script over tokens as runs of words.
func ops(a, b []string, es []Edit) []Op {
	var out []Op
	for _, e := range es {
		var op Op
		switch e.Kind {
		case Equal:
			op = Op{"=", joinTokens(b[e.BStart:e.BEnd])}
		case Insert:
			op = Op{"+", joinTokens(b[e.BStart:e.BEnd])}
		case Delete:
			op = Op{"-", joinTokens(a[e.AStart:e.AEnd])}
		}
		out = append(out, op)
	}
	return out
}

// joinTokens writes tokens back as text: each carries the space written
// before it (items), none before the first.
func joinTokens(ts []string) string {
	return strings.TrimLeft(strings.Join(ts, ""), " ")
}

// clauseOf describes node id of a side.
func clauseOf(s Side, id, count int) Clause {
	n := &s.Tree.Nodes[id]
	return Clause{Path: s.Tree.Path(id), Label: n.Label, Heading: n.Heading, Span: n.Own,
		Text: strings.TrimSpace(s.Doc.Masked(n.Own)), Clauses: count, node: id}
}

// blockClause describes whole paragraphs [bl.start, bl.end) of a side's
// token stream, under the clause holding their first word.
func blockClause(s Side, its []item, bl block) Clause {
	var first, last document.Span
	holder := 0
	k := 0
	for _, it := range its {
		for t := range it.ids {
			if k == bl.start {
				first, holder = it.spans[t], it.node
			}
			if k == bl.end-1 {
				last = it.spans[t]
			}
			k++
		}
	}
	sp := document.Span{Start: first.Start, End: last.End}
	text := strings.TrimSpace(s.Doc.Masked(sp))
	return Clause{Path: s.Tree.Path(holder), Heading: blockHeading(text), Span: sp, Text: text, Clauses: 1, Paragraphs: true, node: holder}
}

// wholes reports the nodes in set, each under its highest ancestor whose
// clauses (those with text of their own) are all in set.
func wholes(s Side, set, own map[int]bool) []Clause {
	// whole[id]: every clause with text in id's subtree is in set.
	whole := make([]bool, len(s.Tree.Nodes))
	count := make([]int, len(s.Tree.Nodes))
	for id := len(s.Tree.Nodes) - 1; id > 0; id-- {
		n := &s.Tree.Nodes[id]
		ok := !own[id] || set[id]
		c := 0
		if own[id] {
			c = 1
		}
		for _, ch := range n.Children {
			ok = ok && whole[ch]
			c += count[ch]
		}
		whole[id] = ok && c > 0
		count[id] = c
	}
	var out []Clause
	var walk func(id int)
	walk = func(id int) {
		if id > 0 && whole[id] {
			out = append(out, clauseOf(s, id, count[id]))
			return
		}
		if id > 0 && set[id] {
			out = append(out, clauseOf(s, id, 1))
		}
		for _, ch := range s.Tree.Nodes[id].Children {
			walk(ch)
		}
	}
	walk(0)
	return out
}
