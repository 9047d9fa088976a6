package report

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// Documents gives Verify the canonical text of the documents a report cites.
type Documents interface {
	Document(ctx context.Context, id string) (*document.Document, error)
}

// Locator is optionally implemented by Documents to name the clause path of
// a span, so a re-cited quote gets the path of the place it moved to.
type Locator interface {
	ClausePath(ctx context.Context, docID string, span document.Span) string
}

// Titler is optionally implemented by Documents to name a document as
// people do (its title, parties and date), so every verified source shows
// the contract by that name and not only by its file.
type Titler interface {
	DocTitle(docID string) string
}

// NameDocuments fills in, from t, how people name each contract the report
// mentions: its sources (kept and removed), provision checks, per-contract
// answers, the contracts a deal-room question did not list, and the
// documents asked about. The file names stay beside the titles.
func NameDocuments(r *Report, t Titler) {
	title := func(id string) string {
		if id == "" {
			return ""
		}
		return t.DocTitle(id)
	}
	for i := range r.Sources {
		if r.Sources[i].Status != StatusExternal {
			r.Sources[i].DocTitle = title(r.Sources[i].DocID)
		}
	}
	for i := range r.Removed {
		r.Removed[i].DocTitle = title(r.Removed[i].DocID)
	}
	for i := range r.Checks {
		r.Checks[i].DocTitle = title(r.Checks[i].DocID)
	}
	for i := range r.Contracts {
		r.Contracts[i].DocTitle = title(r.Contracts[i].DocID)
	}
	if r.DealRoom != nil {
		for i := range r.DealRoom.Others {
			r.DealRoom.Others[i].DocTitle = title(r.DealRoom.Others[i].DocID)
		}
	}
	for i := range r.Documents {
		r.Documents[i].Title = title(r.Documents[i].ID)
	}
}

// Label is how a report names a contract: the title people use with the
// file name after it, or the file name alone when there is no title.
func Label(title, name string) string {
	switch {
	case title == "" || title == name:
		return name
	case name == "":
		return title
	}
	return title + " (" + name + ")"
}

// Verify checks every contract quotation of r against the span it cites and
// rewrites the report accordingly:
//
//   - a quote found in its span is "verified" and its span narrowed to
//     exactly where it occurs;
//   - a quote found elsewhere in the same document is "recited": its span,
//     pages and clause path move to where it occurs;
//   - a quote found nowhere is "removed": it moves to r.Removed, and every
//     [n] citing it in the prose becomes "[n — unverified]";
//   - every [n] in the prose must name a source; one that does not becomes
//     "[n — no such source]".
//
// Matching is verbatim after normalization: runs of whitespace collapse to
// one space, curly quotes fold to straight ones and dashes to "-". An
// ellipsis ("...", "…") in a quote separates fragments that must occur in
// order. Verify is idempotent; it sets and returns r.Verification.
func Verify(ctx context.Context, r *Report, docs Documents) Verification {
	var v Verification
	// Sources removed by an earlier run stay removed and count again.
	v.Quotes, v.Removed = len(r.Removed), len(r.Removed)
	cache := map[string]*normDoc{}
	kept := r.Sources[:0:0]
	for _, s := range r.Sources {
		if s.Status == StatusExternal || (s.DocID == "" && (s.URL != "" || s.Tool != "")) {
			s.Status = StatusExternal
			kept = append(kept, s)
			continue
		}
		v.Quotes++
		verifySource(ctx, &s, docs, cache)
		switch s.Status {
		case StatusVerified:
			v.Verified++
		case StatusRecited:
			v.Recited++
			r.Flag(fmt.Sprintf("quote [%d] was not in the span it cited; re-cited to %s", s.N, where(s)))
		case StatusRemoved:
			v.Removed++
			r.Flag(fmt.Sprintf("quote [%d] does not occur in %s: removed, and the claims citing it are marked unverified", s.N, docLabel(s)))
			r.Removed = append(r.Removed, s)
			continue
		}
		kept = append(kept, s)
	}
	r.Sources = kept

	removed := map[int]bool{}
	for _, s := range r.Removed {
		removed[s.N] = true
	}
	dangling := map[int]bool{}
	fix := func(text string) string {
		return citeRe.ReplaceAllStringFunc(text, func(m string) string {
			nums := splitNums(m[1 : len(m)-1])
			var b strings.Builder
			changed := false
			for _, n := range nums {
				switch {
				case r.Source(n) != nil:
					fmt.Fprintf(&b, "[%d]", n)
				case removed[n]:
					fmt.Fprintf(&b, "[%d — unverified]", n)
					changed = true
				default:
					fmt.Fprintf(&b, "[%d — no such source]", n)
					dangling[n] = true
					changed = true
				}
			}
			if !changed {
				return m
			}
			return b.String()
		})
	}
	r.Title = fix(r.Title)
	r.Summary = fix(r.Summary)
	r.Reasoning = fix(r.Reasoning)
	r.Answer = fix(r.Answer)
	r.Gaps = fix(r.Gaps)
	// Markers flagged on an earlier run still count.
	for _, text := range []string{r.Title, r.Summary, r.Reasoning, r.Answer, r.Gaps} {
		for _, m := range flaggedDanglingRe.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			dangling[n] = true
		}
	}
	ds := make([]int, 0, len(dangling))
	for n := range dangling {
		ds = append(ds, n)
	}
	sort.Ints(ds)
	for _, n := range ds {
		r.Flag(fmt.Sprintf("citation [%d] names no source", n))
	}
	v.Dangling = len(ds)
	v.Rate, v.ExactRate = 1, 1
	if v.Quotes > 0 {
		v.Rate = float64(v.Verified+v.Recited) / float64(v.Quotes)
		v.ExactRate = float64(v.Verified) / float64(v.Quotes)
	}
	r.Verification = v
	if r.Mode == ModeAgents && v.Verified+v.Recited == 0 {
		r.Flag(FlagUnsupported)
	}
	return v
}

// FlagUnsupported flags a model-written report none of whose statements
// rests on a quotation that verified: its prose is the model's alone.
const FlagUnsupported = "no quotation from the documents supports this report: none of its statements is verified"

var (
	// citeRe matches a citation marker: [3], [1, 2], [1; 4].
	citeRe            = regexp.MustCompile(`\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]`)
	flaggedDanglingRe = regexp.MustCompile(`\[(\d{1,4}) — no such source\]`)
)

// Citations returns the source numbers cited in text, in order of first use.
func Citations(text string) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range citeRe.FindAllStringSubmatch(text, -1) {
		for _, n := range splitNums(m[1]) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func splitNums(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func docLabel(s Source) string {
	if s.DocName != "" {
		return Label(s.DocTitle, s.DocName)
	}
	if s.DocID != "" {
		return "document " + s.DocID
	}
	return "any named document"
}

func where(s Source) string {
	w := docLabel(s)
	if s.Path != "" {
		w += " " + s.Path
	}
	return w + " " + s.Span.String()
}

// verifySource checks one contract quotation and sets its status, span,
// pages and path.
func verifySource(ctx context.Context, s *Source, docs Documents, cache map[string]*normDoc) {
	s.Status, s.Note = StatusRemoved, ""
	if s.DocID == "" {
		s.Note = "the source names no document"
		return
	}
	frags := quoteFragments(s.Quote)
	if len(frags) == 0 || !hasWord(frags) {
		s.Note = "the source has no quotation"
		return
	}
	nd, ok := cache[s.DocID]
	if !ok {
		doc, err := docs.Document(ctx, s.DocID)
		if err != nil || doc == nil {
			cache[s.DocID] = nil
		} else {
			nd = &normDoc{doc: doc, norm: normalize(doc.MaskedText())}
			cache[s.DocID] = nd
		}
	}
	if nd == nil {
		s.Note = "the cited document is not in the collection"
		return
	}
	s.DocName = nd.doc.Name
	if t, ok := docs.(Titler); ok {
		s.DocTitle = t.DocTitle(s.DocID)
	}
	n := nd.norm
	// The normalized range covering the cited span.
	lo, hi := n.fromOrig(s.Span.Start), n.fromOrig(s.Span.End)
	if sp, ok := n.findFrags(frags, lo, hi); ok {
		s.Status, s.Span = StatusVerified, sp
		// The narrowed span may sit in a deeper clause of the one cited.
		if l, ok := docs.(Locator); ok {
			if p := l.ClausePath(ctx, s.DocID, sp); p != "" && strings.HasPrefix(p, s.Path) {
				s.Path = p
			}
		}
	} else if sp, ok := n.findNearest(frags, s.Span.Start); ok && wordCount(frags) >= MinRecitedWords {
		s.Status, s.Span = StatusRecited, sp
		s.Note = "the quotation was not in the cited span; it occurs here"
		if l, ok := docs.(Locator); ok {
			s.Path = l.ClausePath(ctx, s.DocID, sp)
		}
	} else if ok {
		s.Note = fmt.Sprintf("%s (%s)", NoteTooShort, plural(wordCount(frags), "word"))
		return
	} else {
		s.Note = "the quotation does not occur in the document"
		return
	}
	s.Pages = nd.doc.PagesOf(s.Span)
	if s.Pages == nil {
		s.Pages = []int{}
	}
	s.PageLabels = nd.doc.PageLabelsOf(s.Pages)
	if len(frags) == 1 {
		// Show the document's own characters, not the model's retyping.
		s.Quote = nd.doc.Masked(s.Span) // page furniture left out
	}
}

type normDoc struct {
	doc  *document.Document
	norm normText
}

// quoteFragments normalizes a quotation and splits it at ellipses.
func quoteFragments(q string) []string {
	q = strings.NewReplacer("[...]", "\x00", "[…]", "\x00", "...", "\x00", "…", "\x00").Replace(q)
	var out []string
	for _, f := range strings.Split(q, "\x00") {
		f = strings.TrimSpace(normalize(f).text)
		f = strings.Trim(f, `"' `)
		if utf8.RuneCountInString(f) >= 2 {
			out = append(out, f)
		}
	}
	return out
}

// normText is text normalized for quote matching, with the map back to the
// original's code points.
type normText struct {
	text  string
	bytes []int // byte offset in text of normalized rune i
	start []int // original code point where normalized rune i starts
	end   []int // original code point after normalized rune i
	n     int   // original length in code points
}

// fold maps typographic characters to their plain forms.
func fold(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '`':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u00AB', '\u00BB':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u00A0', '\u2007', '\u202F':
		return ' '
	}
	return r
}

// normalize collapses whitespace runs to one space and folds quotes and
// dashes, remembering where each normalized rune came from.
func normalize(s string) normText {
	var n normText
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	inSpace := false
	for _, r := range s {
		r = fold(r)
		if unicode.IsSpace(r) {
			if inSpace {
				n.end[len(n.end)-1] = i + 1
				i++
				continue
			}
			inSpace = true
			r = ' '
		} else {
			inSpace = false
		}
		n.bytes = append(n.bytes, b.Len())
		n.start = append(n.start, i)
		n.end = append(n.end, i+1)
		b.WriteRune(r)
		i++
	}
	n.text = b.String()
	n.n = i
	return n
}

// fromOrig returns the index of the first normalized rune at or after
// original code point p.
func (n normText) fromOrig(p int) int {
	return sort.Search(len(n.start), func(k int) bool { return n.end[k] > p })
}

// runeAt converts a byte offset of n.text to a normalized rune index.
func (n normText) runeAt(b int) int {
	return sort.SearchInts(n.bytes, b)
}

// byteAt converts a normalized rune index to a byte offset of n.text.
func (n normText) byteAt(k int) int {
	if k >= len(n.bytes) {
		return len(n.text)
	}
	return n.bytes[k]
}

// findFrags finds the fragments in order inside normalized runes [lo, hi),
// returning the original span from the first fragment's start to the last
// one's end.
func (n normText) findFrags(frags []string, lo, hi int) (document.Span, bool) {
	if lo >= hi {
		return document.Span{}, false
	}
	from, to := n.byteAt(lo), n.byteAt(hi)
	first, last := -1, -1
	for _, f := range frags {
		at := indexWords(n.text, f, from, to)
		if at < 0 {
			return document.Span{}, false
		}
		if first < 0 {
			first = at
		}
		last = at + len(f)
		from = last
	}
	a, z := n.runeAt(first), n.runeAt(last)-1
	return document.Span{Start: n.start[a], End: n.end[z]}, true
}

// indexWords returns the byte offset of the first occurrence of f in
// text[from:to] that starts and ends on word boundaries of text, or -1. A
// quotation is an excerpt of whole words: "30 days" is not in "130 days",
// nor "Section 5" in "Section 50", nor "th" in "the".
func indexWords(text, f string, from, to int) int {
	for from < to {
		k := strings.Index(text[from:to], f)
		if k < 0 {
			return -1
		}
		at := from + k
		if wordEdge(text, at, f, true) && wordEdge(text, at+len(f), f, false) {
			return at
		}
		_, w := utf8.DecodeRuneInString(text[at:])
		from = at + w
	}
	return -1
}

// wordEdge reports whether a fragment f placed at byte offset at of text
// (its start when start is set, else its end) does not cut a word: the
// fragment's rune and the text's rune across the edge are not both word
// runes.
func wordEdge(text string, at int, f string, start bool) bool {
	var in, out rune
	if start {
		in, _ = utf8.DecodeRuneInString(f)
		if at == 0 {
			return true
		}
		out, _ = utf8.DecodeLastRuneInString(text[:at])
	} else {
		in, _ = utf8.DecodeLastRuneInString(f)
		if at >= len(text) {
			return true
		}
		out, _ = utf8.DecodeRuneInString(text[at:])
	}
	return !wordRune(in) || !wordRune(out)
}

// wordRune reports whether r is part of a space-separated word: a letter
// or digit of a script that separates words with spaces. Chinese, Japanese
// and the Southeast Asian scripts that do not are left out, so a quotation
// may start or end anywhere in them.
func wordRune(r rune) bool {
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	return !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// MinRecitedWords is the fewest words a quotation needs to be re-cited: one
// not in the span it cites is looked for in the rest of the document only
// when it is long enough to mean something there. A word or two occurs all
// over a contract — an untrained model's one-word "quotes" attributed to
// passages that do not exist were otherwise re-located, and shown as
// findings.
const MinRecitedWords = 3

// NoteTooShort begins the note of a quotation removed because it is not in
// the span it cites and is too short to re-cite (MinRecitedWords).
const NoteTooShort = "the quotation is not in the cited span, and too short to be placed elsewhere in the document"

// wordCount counts the runs of letters and digits in the fragments (each
// rune of a script without spaces counts as a word).
func wordCount(frags []string) int {
	n := 0
	for _, f := range frags {
		in := false
		for _, r := range f {
			switch {
			case !unicode.IsLetter(r) && !unicode.IsDigit(r):
				in = false
			case !wordRune(r):
				n++
				in = false
			case !in:
				n++
				in = true
			}
		}
	}
	return n
}

// hasWord reports whether any fragment holds a letter or digit: a
// quotation of punctuation alone evidences nothing.
func hasWord(frags []string) bool {
	for _, f := range frags {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return true
		}
	}
	return false
}

// findNearest finds the fragments anywhere in the document, preferring the
// occurrence nearest to original code point near. Fragments must lie within
// a window a few times the quote's length, so scattered words do not pass
// for a quotation.
func (n normText) findNearest(frags []string, near int) (document.Span, bool) {
	total := 0
	for _, f := range frags {
		total += len(f)
	}
	window := 3*total + 1000
	best, bestDist := document.Span{}, -1
	off := 0
	for {
		k := strings.Index(n.text[off:], frags[0])
		if k < 0 {
			break
		}
		at := off + k
		a := n.runeAt(at)
		hiByte := min(len(n.text), at+window)
		hi := n.runeAt(hiByte)
		if sp, ok := n.findFrags(frags, a, hi); ok {
			d := sp.Start - near
			if d < 0 {
				d = -d
			}
			if bestDist < 0 || d < bestDist {
				best, bestDist = sp, d
			}
		}
		off = at + len(frags[0])
		if off >= len(n.text) {
			break
		}
	}
	return best, bestDist >= 0
}

// Locate finds quote in text verbatim after the same normalization Verify
// uses (whitespace collapsed, quotes and dashes folded, ellipses separating
// fragments in order) and returns the code-point span of text it covers.
func Locate(text, quote string) (document.Span, bool) {
	frags := quoteFragments(quote)
	if len(frags) == 0 || !hasWord(frags) {
		return document.Span{}, false
	}
	n := normalize(text)
	return n.findFrags(frags, 0, len(n.start))
}
