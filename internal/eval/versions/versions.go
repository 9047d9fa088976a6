// Package versions measures how pakton tells the same contract twice
// (internal/family) and what changed between two versions
// (internal/compare), on pairs of texts built from a corpus of contracts by
// edits whose effect is known:
//
//   - same contract: re-flowed (line breaks, spacing, typographic quotes),
//     re-paginated (page headers and numbers inserted), edited (one to
//     three clauses reworded), executed (an execution-version banner, a
//     filled-in date, a signature page), amended and restated (a fifth of
//     the clauses reworded, one removed, one added);
//   - not the same contract: another contract of the corpus, and the same
//     contract with its parties replaced by another contract's parties
//     (the firm's form signed with someone else), the party names taken
//     from CUAD's own Parties annotations.
//
// For compare, the edited, executed and restated pairs know which of the
// original's clauses were reworded, removed and added; predicted clauses
// are matched to them by clause path.
package versions

import (
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/family"
	"github.com/pakton/pakton/internal/names"
)

// Contract is a text of the corpus with the parties CUAD annotates for it.
type Contract struct {
	Name    string
	Text    string
	Parties []Party
}

// Party is one party as CUAD writes it: its name and the short names the
// contract defines for it.
type Party struct {
	Name  string
	Short []string
}

// Pair is two texts and what is true of them.
type Pair struct {
	Kind string // reflow, paginate, edited, executed, restated, other, template
	From string // the corpus contract A was built from
	A, B string // A: the original (the template side), B: the other version
	Same bool
	// Changed, Missing are clause paths of A reworded or removed in B;
	// Added, paths of B that A lacks. Set for pairs built by clause edits.
	Changed, Missing, Added []string
	Edits                   bool

	sa, sb *family.Signature // computed once, on first use
}

// Signatures returns the pair's family signatures.
func (p *Pair) Signatures() (family.Signature, family.Signature) {
	if p.sa == nil {
		a, b := sign(p.A), sign(p.B)
		p.sa, p.sb = &a, &b
	}
	return *p.sa, *p.sb
}

// Build makes the pairs for the contracts, reproducibly from seed.
func Build(contracts []Contract, seed int64) []Pair {
	rng := rand.New(rand.NewSource(seed))
	var pairs []Pair
	for i, c := range contracts {
		doc := &document.Document{Text: c.Text}
		tree := clause.Parse(doc)
		leaves := editable(doc, tree)
		pairs = append(pairs,
			Pair{Kind: "reflow", From: c.Name, A: c.Text, B: reflow(rng, c.Text), Same: true, Edits: true},
			Pair{Kind: "paginate", From: c.Name, A: c.Text, B: paginate(c.Text), Same: true},
		)
		if len(leaves) >= 6 {
			p := Pair{Kind: "edited", From: c.Name, A: c.Text, Same: true, Edits: true}
			p.B, p.Changed = reword(rng, doc, tree, pick(rng, leaves, 1+rng.Intn(3)))
			pairs = append(pairs, p)

			e := Pair{Kind: "executed", From: c.Name, A: c.Text, Same: true}
			e.B = "EXECUTION VERSION\n\n" + c.Text + "\n\nIN WITNESS WHEREOF the parties have executed this Agreement.\n\nBy: /s/ Jane Smith\nName: Jane Smith\nTitle: Chief Executive Officer\nDate: March 3, 2021\n"
			pairs = append(pairs, e)

			r := Pair{Kind: "restated", From: c.Name, A: c.Text, Same: true, Edits: true}
			chosen := pick(rng, leaves, max(2, len(leaves)/5)+2)
			reworded, removed := chosen[:len(chosen)-1], chosen[len(chosen)-1:]
			var b string
			b, r.Changed, r.Missing = restate(rng, doc, tree, reworded, removed)
			r.B = "AMENDED AND RESTATED\n\n" + b
			// The banner joins the clause the text opens with.
			if first := tree.At(0); first > 0 {
				r.Changed = append(r.Changed, tree.Path(first))
			}
			pairs = append(pairs, r)
		}
		other := contracts[(i+1+rng.Intn(len(contracts)-1))%len(contracts)]
		pairs = append(pairs, Pair{Kind: "other", From: c.Name, A: c.Text, B: other.Text})
		if t, ok := swapParties(c, contracts[(i+7)%len(contracts)]); ok {
			pairs = append(pairs, Pair{Kind: "template", From: c.Name, A: c.Text, B: t})
		}
	}
	return pairs
}

// editable lists the leaf clauses with enough words of their own to edit
// without touching their numbering.
func editable(doc *document.Document, t *clause.Tree) []int {
	var out []int
	for id := 1; id < len(t.Nodes); id++ {
		n := &t.Nodes[id]
		if !n.Leaf() || n.Kind == clause.KindPreamble || n.Kind == clause.KindDefinition {
			continue
		}
		if len(strings.Fields(doc.Slice(n.Own))) >= 15 {
			out = append(out, id)
		}
	}
	return out
}

func pick(rng *rand.Rand, from []int, n int) []int {
	idx := rng.Perm(len(from))
	n = min(n, len(from))
	out := make([]int, n)
	for i := range out {
		out[i] = from[idx[i]]
	}
	sort.Ints(out)
	return out
}

var wordRE = regexp.MustCompile(`[A-Za-z]{4,}`)

// rewordText changes a clause's words the way a negotiation does: a number
// or period changed, a word replaced, a proviso added.
func rewordText(rng *rand.Rand, s string) string {
	words := strings.Fields(s)
	if len(words) < 6 {
		return s + " provided that the other party consents in writing"
	}
	start := 3 // leave the number and the first words alone
	switch rng.Intn(3) {
	case 0: // a proviso at the end
		return strings.TrimRight(s, " \n") + " Notwithstanding the foregoing, this obligation shall not apply during the first ninety days."
	case 1: // a word replaced by another
		k := start + rng.Intn(len(words)-start)
		words[k] = map[bool]string{true: "reasonable", false: "exclusive"}[rng.Intn(2) == 0]
	default: // a phrase deleted
		k := start + rng.Intn(len(words)-start)
		end := min(len(words), k+3)
		words = append(words[:k], words[end:]...)
	}
	return strings.Join(words, " ")
}

// reword rewrites the own text of the chosen clauses and returns the new
// text and their paths.
func reword(rng *rand.Rand, doc *document.Document, t *clause.Tree, chosen []int) (string, []string) {
	out, paths, _ := rewrite(rng, doc, t, chosen, nil)
	return out, paths
}

// restate rewords some clauses and removes others.
func restate(rng *rand.Rand, doc *document.Document, t *clause.Tree, reworded, removed []int) (string, []string, []string) {
	return rewrite(rng, doc, t, reworded, removed)
}

func rewrite(rng *rand.Rand, doc *document.Document, t *clause.Tree, reworded, removed []int) (string, []string, []string) {
	type edit struct {
		sp   document.Span
		with string
	}
	var edits []edit
	var changed, missing []string
	for _, id := range reworded {
		n := &t.Nodes[id]
		edits = append(edits, edit{n.Own, rewordText(rng, doc.Slice(n.Own))})
		changed = append(changed, t.Path(id))
	}
	for _, id := range removed {
		edits = append(edits, edit{t.Nodes[id].Span, ""})
		missing = append(missing, t.Path(id))
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].sp.Start > edits[j].sp.Start })
	text := doc.Text
	ix := document.NewIndex(text)
	for _, e := range edits {
		b0, b1 := ix.ByteSpan(e.sp)
		text = text[:b0] + e.with + text[b1:]
	}
	return text, changed, missing
}

// reflow re-wraps every paragraph at a random width, turns straight
// quotes typographic and doubles some spaces.
func reflow(rng *rand.Rand, s string) string {
	width := 50 + rng.Intn(40)
	var b strings.Builder
	for i, para := range strings.Split(s, "\n\n") {
		if i > 0 {
			b.WriteString("\n\n")
		}
		col := 0
		for j, w := range strings.Fields(para) {
			if j > 0 {
				if col+len(w) > width {
					b.WriteByte('\n')
					col = 0
				} else {
					b.WriteByte(' ')
					col++
				}
			}
			b.WriteString(w)
			col += len(w)
		}
	}
	return strings.NewReplacer(`"`, "“", "'", "’").Replace(b.String())
}

// paginate inserts a page header and footer every 3,000 characters, as a
// text exported from a PDF has them.
func paginate(s string) string {
	var b strings.Builder
	page := 1
	for len(s) > 0 {
		cut := min(len(s), 3000)
		for cut < len(s) && s[cut] != '\n' {
			cut++
		}
		b.WriteString(s[:cut])
		s = s[cut:]
		if len(s) > 0 {
			fmt.Fprintf(&b, "\n\nPage %d\n\fCONFIDENTIAL\n\n", page)
			page++
		}
	}
	return b.String()
}

// swapParties replaces c's parties by other's — full names, the first
// word of each full name, and the short names that are names (not roles
// such as "Company") — everywhere in the text, ignoring case. It reports
// false when the result is not a contract with other parties: fewer than
// three replacements, or a party's first word still in the text.
func swapParties(c, other Contract) (string, bool) {
	if len(c.Parties) == 0 || len(other.Parties) == 0 {
		return "", false
	}
	type swap struct{ from, to string }
	var swaps []swap
	var firsts []string
	for i, p := range c.Parties {
		q := other.Parties[i%len(other.Parties)]
		if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(q.Name) == "" || strings.EqualFold(p.Name, q.Name) {
			continue
		}
		swaps = append(swaps, swap{p.Name, q.Name})
		pw, qw := firstWord(p.Name), firstWord(q.Name)
		if len(pw) >= 3 && len(qw) >= 3 {
			swaps = append(swaps, swap{pw, qw})
			firsts = append(firsts, pw)
		}
		for _, sh := range p.Short {
			if shares(sh, p.Name) && len(sh) >= 3 {
				swaps = append(swaps, swap{sh, qw})
			}
		}
	}
	text, n := c.Text, 0
	for _, sw := range swaps {
		re, err := regexp.Compile(`(?i)\b` + regexp.QuoteMeta(sw.from) + `\b`)
		if err != nil {
			continue
		}
		n += len(re.FindAllStringIndex(text, -1))
		text = re.ReplaceAllLiteralString(text, sw.to)
	}
	if n < 3 {
		return "", false
	}
	for _, f := range firsts {
		if regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(f) + `\b`).MatchString(text) {
			return "", false
		}
	}
	return text, true
}

func firstWord(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '.' })
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func shares(short, name string) bool {
	for _, w := range family.Words(short) {
		if len(w) >= 3 && strings.Contains(strings.ToLower(name), w) {
			return true
		}
	}
	return false
}

// sign signs a text as ingest does: with the parties internal/names reads.
func sign(text string) family.Signature {
	return family.SignWithParties(text, family.Parties(names.Learn(text, "")))
}

// ParseParties reads CUAD's Parties answer: `Name ("Short", "S2"); Name2 (…)`.
func ParseParties(answer string) []Party {
	var out []Party
	for _, part := range strings.Split(answer, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p := Party{Name: part}
		if i := strings.Index(part, "("); i > 0 {
			p.Name = strings.TrimSpace(part[:i])
			for _, m := range regexp.MustCompile(`["“]([^"”]+)["”]`).FindAllStringSubmatch(part[i:], -1) {
				p.Short = append(p.Short, m[1])
			}
		}
		p.Name = strings.TrimRight(p.Name, " ,")
		out = append(out, p)
	}
	return out
}

// Counts are a confusion matrix.
type Counts struct{ TP, FP, FN, TN int }

// Precision, Recall and F1 of the counts.
func (c Counts) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }
func (c Counts) Recall() float64    { return ratio(c.TP, c.TP+c.FN) }
func (c Counts) F1() float64 {
	p, r := c.Precision(), c.Recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// FamilyDebug, when set, is called for each pair decided wrongly.
var FamilyDebug func(p Pair, a, b family.Signature)

// FamilyScore scores "same family" decisions per pair kind and overall.
func FamilyScore(pairs []Pair, o family.Options) (all Counts, byKind map[string]Counts) {
	byKind = map[string]Counts{}
	for i := range pairs {
		p := &pairs[i]
		sa, sb := p.Signatures()
		_, same := o.Same(family.Member{Sig: &sa}, family.Member{Sig: &sb})
		if FamilyDebug != nil && same != p.Same {
			FamilyDebug(*p, sa, sb)
		}
		c := byKind[p.Kind]
		switch {
		case same && p.Same:
			c.TP++
			all.TP++
		case same && !p.Same:
			c.FP++
			all.FP++
		case !same && p.Same:
			c.FN++
			all.FN++
		default:
			c.TN++
			all.TN++
		}
		byKind[p.Kind] = c
	}
	return all, byKind
}

// ClauseScore scores compare's changed, missing and added clauses against
// what the edits did, over the pairs built by clause edits.
type ClauseScore struct {
	Changed, Missing, Added Counts
	// Spurious counts pairs with no edits to their clauses (re-flowed,
	// executed) for which compare reported any change, of Clean such pairs.
	Spurious, Clean int
}

// CompareScore runs compare on the edited pairs.
func CompareScore(pairs []Pair) ClauseScore {
	var s ClauseScore
	for _, p := range pairs {
		if !p.Edits {
			continue
		}
		da, db := &document.Document{Text: p.A}, &document.Document{Text: p.B}
		r := compare.Compare(compare.Side{Doc: db, Tree: clause.Parse(db)}, compare.Side{Doc: da, Tree: clause.Parse(da)}, compare.Options{})
		var changed, missing []string
		for _, c := range r.Changed {
			changed = append(changed, c.Template.Path)
		}
		for _, c := range r.Missing {
			missing = append(missing, c.Path)
		}
		if len(p.Changed)+len(p.Missing) == 0 {
			s.Clean++
			if len(changed)+len(missing) > 0 {
				s.Spurious++
			}
		}
		before := s.Changed.FP
		count(&s.Changed, changed, p.Changed)
		count(&s.Missing, missing, p.Missing)
		if Debug != nil && s.Changed.FP > before {
			Debug(p, r)
		}
	}
	return s
}

// Debug, when set, is called for each pair with a clause wrongly reported
// changed (for looking at errors).
var Debug func(p Pair, r compare.Result)

func count(c *Counts, got, want []string) {
	w := map[string]int{}
	for _, x := range want {
		w[x]++
	}
	for _, x := range got {
		if w[x] > 0 {
			c.TP++
			w[x]--
		} else {
			c.FP++
		}
	}
	for _, n := range w {
		c.FN += n
	}
}
