package versions

import (
	"math/rand"
	"regexp"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/document"
)

// EditPair is a contract (A, the template side) and a version of it (B)
// with one edit a reviewer must not miss:
//
//   - inserted: a clause of another contract of the corpus inserted as a
//     new paragraph, unnumbered, between two paragraphs anywhere from a
//     tenth of the way in to the end (signature blocks and exhibits
//     included);
//   - numbered: the same with the clause's number as the other contract
//     writes it;
//   - renumbered: a clause of another contract inserted as a new numbered
//     section before one of the contract's numbered sections, and every
//     later section renumbered;
//   - deleted: a paragraph of 15 to 300 words deleted;
//   - negated: "not" inserted after a modal verb ("shall" → "shall not");
//   - modal: "may" changed to "shall" or "shall" to "may".
//
// Where is the edit: the inserted text in B, the deleted text in A, the
// inserted or changed word in B.
type EditPair struct {
	Kind, From string
	A, B       string
	Where      document.Span
}

// BuildEdits makes the edit pairs for the contracts, reproducibly from seed.
func BuildEdits(contracts []Contract, seed int64) []EditPair {
	rng := rand.New(rand.NewSource(seed))
	var out []EditPair
	for i, c := range contracts {
		donor := contracts[(i+1+rng.Intn(len(contracts)-1))%len(contracts)]
		plain, numbered, ok := donorClause(rng, donor.Text)
		if ok {
			if p, ok := insertParagraph(rng, c, plain, "inserted"); ok {
				out = append(out, p)
			}
			if p, ok := insertParagraph(rng, c, numbered, "numbered"); ok {
				out = append(out, p)
			}
			if p, ok := renumber(rng, c, plain); ok {
				out = append(out, p)
			}
		}
		if p, ok := deleteParagraph(rng, c); ok {
			out = append(out, p)
		}
		if p, ok := replaceWord(rng, c, "negated"); ok {
			out = append(out, p)
		}
		if p, ok := replaceWord(rng, c, "modal"); ok {
			out = append(out, p)
		}
	}
	return out
}

// donorClause picks a leaf clause of 15 to 120 words from a contract: its
// text without its number, and as written.
func donorClause(rng *rand.Rand, text string) (plain, numbered string, ok bool) {
	doc := &document.Document{Text: text}
	t := clause.Parse(doc)
	var cands []int
	for id := 1; id < len(t.Nodes); id++ {
		n := &t.Nodes[id]
		if !n.Leaf() || n.Label == "" || n.Kind == clause.KindDefinition || n.Kind == clause.KindPreamble {
			continue
		}
		own := strings.TrimSpace(doc.Slice(n.Own))
		if w := len(strings.Fields(own)); w >= 15 && w <= 120 && strings.HasPrefix(own, n.Label) {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 {
		return "", "", false
	}
	n := &t.Nodes[cands[rng.Intn(len(cands))]]
	numbered = strings.Join(strings.Fields(doc.Slice(n.Own)), " ")
	plain = strings.TrimLeft(strings.TrimPrefix(numbered, n.Label), ".):- ")
	return plain, numbered, plain != ""
}

// paragraphBreaks are the byte offsets just after each blank line between
// a tenth of the text and its end.
func paragraphBreaks(text string) []int {
	var out []int
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '\n' && text[i+1] == '\n' && i > len(text)/10 {
			j := i + 2
			for j < len(text) && text[j] == '\n' {
				j++
			}
			if j < len(text) {
				out = append(out, j)
			}
			i = j - 1
		}
	}
	return out
}

func insertParagraph(rng *rand.Rand, c Contract, para, kind string) (EditPair, bool) {
	breaks := paragraphBreaks(c.Text)
	if len(breaks) == 0 {
		return EditPair{}, false
	}
	at := breaks[rng.Intn(len(breaks))]
	b := c.Text[:at] + para + "\n\n" + c.Text[at:]
	return EditPair{Kind: kind, From: c.Name, A: c.Text, B: b, Where: runeSpan(b, at, at+len(para))}, true
}

var sectionRE = regexp.MustCompile(`(?m)^[ \t]*(\d{1,2})\.[ \t]`)

// renumber inserts para as a new section before a numbered section from
// the middle of the contract and renumbers that section and every later
// one (the number at the start of a line only).
func renumber(rng *rand.Rand, c Contract, para string) (EditPair, bool) {
	locs := sectionRE.FindAllStringSubmatchIndex(c.Text, -1)
	// The run of sections numbered 1, 2, 3, … in order.
	var run [][]int
	want := 1
	for _, l := range locs {
		if n, _ := strconv.Atoi(c.Text[l[2]:l[3]]); n == want {
			run = append(run, l)
			want++
		}
	}
	if len(run) < 4 {
		return EditPair{}, false
	}
	k := 1 + rng.Intn(len(run)-2) // never the first or the last
	lineStart := run[k][0]
	var b strings.Builder
	b.WriteString(c.Text[:lineStart])
	where := [2]int{b.Len(), 0}
	b.WriteString(strconv.Itoa(k+1) + ". " + para)
	where[1] = b.Len()
	b.WriteString("\n\n")
	prev := lineStart
	for x := k; x < len(run); x++ { // section x+1 becomes x+2
		b.WriteString(c.Text[prev:run[x][2]])
		b.WriteString(strconv.Itoa(x + 2))
		prev = run[x][3]
	}
	b.WriteString(c.Text[prev:])
	s := b.String()
	return EditPair{Kind: "renumbered", From: c.Name, A: c.Text, B: s, Where: runeSpan(s, where[0], where[1])}, true
}

func deleteParagraph(rng *rand.Rand, c Contract) (EditPair, bool) {
	breaks := paragraphBreaks(c.Text)
	var cands [][2]int
	for _, at := range breaks {
		end := strings.Index(c.Text[at:], "\n\n")
		if end < 0 {
			continue
		}
		if w := len(strings.Fields(c.Text[at : at+end])); w >= 15 && w <= 300 {
			cands = append(cands, [2]int{at, at + end})
		}
	}
	if len(cands) == 0 {
		return EditPair{}, false
	}
	p := cands[rng.Intn(len(cands))]
	// The paragraph and the blank line after it.
	end := p[1]
	for end < len(c.Text) && c.Text[end] == '\n' {
		end++
	}
	b := c.Text[:p[0]] + c.Text[end:]
	return EditPair{Kind: "deleted", From: c.Name, A: c.Text, B: b, Where: runeSpan(c.Text, p[0], p[1])}, true
}

var (
	modalRE = regexp.MustCompile(`\b(shall|will|may|must)\s+([a-z]+)`)
	mayRE   = regexp.MustCompile(`\b(may|shall)\b`)
)

// replaceWord inserts "not" after a modal verb (negated) or turns a "may"
// into "shall" or a "shall" into "may" (modal), past the first tenth of
// the text.
func replaceWord(rng *rand.Rand, c Contract, kind string) (EditPair, bool) {
	var locs [][]int
	re := mayRE
	if kind == "negated" {
		re = modalRE
	}
	for _, l := range re.FindAllStringSubmatchIndex(c.Text, -1) {
		if l[0] < len(c.Text)/10 {
			continue
		}
		if kind == "negated" && c.Text[l[4]:l[5]] == "not" {
			continue
		}
		locs = append(locs, l)
	}
	if len(locs) == 0 {
		return EditPair{}, false
	}
	l := locs[rng.Intn(len(locs))]
	var b string
	var where [2]int
	if kind == "negated" {
		at := l[3] // after the modal
		b = c.Text[:at] + " not" + c.Text[at:]
		where = [2]int{at + 1, at + 4}
	} else {
		w := map[string]string{"may": "shall", "shall": "may"}[c.Text[l[2]:l[3]]]
		b = c.Text[:l[2]] + w + c.Text[l[3]:]
		where = [2]int{l[2], l[2] + len(w)}
	}
	return EditPair{Kind: kind, From: c.Name, A: c.Text, B: b, Where: runeSpan(b, where[0], where[1])}, true
}

func runeSpan(s string, b0, b1 int) document.Span {
	return document.NewIndex(s).RuneSpan(b0, b1)
}

// EditCounts says, per kind, of how many pairs compare reported the edit
// as a reviewer needs it.
type EditCounts struct {
	Found, Total int
	// Shown100 counts reversals whose clause is shown as 100% similar
	// (compare.Percent), of the negated and modal pairs.
	Shown100 int
	// Spurious counts pairs with a change or a removal reported away from
	// the edit.
	Spurious int
}

// EditScore runs compare on the edit pairs: an inserted clause counts when
// the added clauses overlapping it hold at least 80% of it and are
// together at most half again as long (plus a line); a deleted paragraph
// likewise among the missing clauses; a negation or a changed modal when the changed clause holding
// it is marked substantive.
func EditScore(pairs []EditPair, debug func(EditPair, compare.Result)) map[string]EditCounts {
	out := map[string]EditCounts{}
	for _, p := range pairs {
		da, db := &document.Document{Text: p.A}, &document.Document{Text: p.B}
		r := compare.Compare(compare.Side{Doc: db, Tree: clause.Parse(db)}, compare.Side{Doc: da, Tree: clause.Parse(da)}, compare.Options{})
		c := out[p.Kind]
		c.Total++
		found := false
		// covers: the clauses reported that overlap the edit hold at least
		// 80% of it and are together at most half again as long (plus a line).
		covers := func(cls []compare.Clause) bool {
			in, total := 0, 0
			for _, cl := range cls {
				if x := cl.Span.Intersect(p.Where); !x.Empty() {
					in += x.Len()
					total += cl.Span.Len()
				}
			}
			return in > 0 && 5*in >= 4*p.Where.Len() && 2*total <= 3*p.Where.Len()+160
		}
		spurious := false
		switch p.Kind {
		case "inserted", "numbered", "renumbered":
			found = covers(r.Added)
			for _, ch := range r.Changed {
				spurious = spurious || !ch.Contract.Span.Overlaps(p.Where)
			}
			spurious = spurious || len(r.Missing) > 0
		case "deleted":
			found = covers(r.Missing)
			spurious = len(r.Added) > 0
		default:
			for _, ch := range r.Changed {
				if ch.Contract.Span.Contains(p.Where) {
					found = found || len(ch.Substantive) > 0
					if compare.Percent(ch.Similarity, len(ch.Diff) > 0) == "100%" {
						c.Shown100++
					}
				} else {
					spurious = true
				}
			}
			spurious = spurious || len(r.Added)+len(r.Missing) > 0
		}
		if found {
			c.Found++
		} else if debug != nil {
			debug(p, r)
		}
		if spurious {
			c.Spurious++
		}
		out[p.Kind] = c
	}
	return out
}
