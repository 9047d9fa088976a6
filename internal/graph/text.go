package graph

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// text is a document being read: its canonical text, the code-point index
// and the clause tree, with the byte spans of the nodes.
type text struct {
	s      string
	ix     *document.Index
	t      *clause.Tree
	starts map[int]bool // rune offsets where a node's span starts
	// body is the document text anchors are looked for in: s itself, or
	// for Lookup the document whose tree resolves a reference typed apart.
	body   string
	bodyIx *document.Index
	// from, when ≥ 0, is the node every reference is read as written in
	// (Lookup); -1 reads it from the position in s.
	from int

	// Anchors of units the tree has no node for, found on first use:
	// attachment headings by label, clause numbers by label, and the
	// lower-cased body they are looked for in.
	headings map[string]int
	numbered map[string]int
	lower    string
	scans    int // whole-text looks for unusual labels (anchor)

	// others are the keys of the defined terms that can name another
	// document ("ISDA Form", "Credit Agreement"): every term but the one
	// naming this agreement (instrumentTerms).
	others map[string]bool

	ends endMemo // definition sentences' ends (meansSpan)

	// ctx stops the extraction (ExtractContext); err is why it stopped.
	ctx   context.Context
	err   error
	ticks int
}

// stopped reports whether the extraction must stop: its context is done.
// It is called in every loop of the extraction and looks at the context
// every 1,024 calls, so a cancelled or late extraction stops within
// microseconds of work.
func (x *text) stopped() bool {
	if x.err != nil {
		return true
	}
	if x.ticks++; x.ticks&1023 != 0 || x.ctx == nil {
		return false
	}
	x.err = x.ctx.Err()
	return x.err != nil
}

func newText(doc *document.Document, t *clause.Tree) *text {
	x := &text{s: doc.Text, ix: document.NewIndex(doc.Text), t: t, starts: map[int]bool{}, body: doc.Text, from: -1}
	x.bodyIx = x.ix
	for _, n := range t.Nodes[1:] {
		x.starts[n.Span.Start] = true
	}
	return x
}

// span converts a byte range to a code-point span.
func (x *text) span(b0, b1 int) document.Span { return x.ix.RuneSpan(b0, b1) }

// nodeAt returns the deepest node containing byte offset b.
func (x *text) nodeAt(b int) int {
	if x.from >= 0 {
		return x.from
	}
	return x.t.At(x.ix.Rune(b))
}

// nodeCovering returns the deepest node whose span holds bytes [a, b).
func (x *text) nodeCovering(a, b int) int {
	sp := x.span(a, b)
	id := x.t.At(sp.Start)
	for id > 0 && !x.t.Nodes[id].Span.Contains(sp) {
		id = x.t.Nodes[id].Parent
	}
	return id
}

// nodeBytes returns the byte range of node id's span.
func (x *text) nodeBytes(id int) (int, int) { return x.ix.ByteSpan(x.t.Nodes[id].Span) }

var keyQuotes = strings.NewReplacer("’", "'", "‘", "'", "“", "", "”", "", "\"", "")

// Key normalises a term for comparison: case-folded, quotes straightened,
// white space collapsed.
func Key(term string) string {
	term = keyQuotes.Replace(term)
	return strings.ToLower(strings.Join(strings.Fields(term), " "))
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// wordBefore returns the word that ends at byte i (skipping spaces), and
// where it starts.
func wordBefore(s string, i int) (string, int) {
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	j := i
	for j > 0 && (isWordByte(s[j-1]) || s[j-1] == '.' && j-1 > 0 && isWordByte(s[j-2])) {
		j--
	}
	return s[j:i], j
}

// skipSpace returns the first byte at or after i that is not a space, tab or
// line break.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// hasWordPrefix reports whether s[i:] starts with word w (case-insensitive)
// followed by a non-letter, and returns the end of w.
func hasWordPrefix(s string, i int, w string) (int, bool) {
	if i+len(w) > len(s) || !strings.EqualFold(s[i:i+len(w)], w) {
		return i, false
	}
	e := i + len(w)
	if e < len(s) && isWordByte(s[e]) {
		return i, false
	}
	return e, true
}

// firstRune returns the first rune of s.
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// sentenceStart returns the byte offset where the sentence holding byte i
// starts, not before lo: after ". " (a full stop and a capital), a blank
// line or a line that ends with a colon.
func sentenceStart(s string, i, lo int) int {
	for j := i - 1; j > lo; j-- {
		switch s[j] {
		case '\n':
			if j > 0 && (s[j-1] == '\n' || s[j-1] == ':') {
				return skipSpace(s, j+1)
			}
		case ' ':
			if j > 1 && (s[j-1] == '.' || s[j-1] == ';') && !abbreviation(s, j-1) && j+1 < len(s) && startsSentence(s[j+1:]) {
				return j + 1
			}
		}
	}
	return skipSpace(s, lo)
}

// sentenceEnd returns the byte offset just after the sentence holding byte
// i ends, not after hi.
func sentenceEnd(s string, i, hi int) int {
	_, end := sentenceEndAt(s, i, hi)
	return end
}

// sentenceEndAt is sentenceEnd that also returns the byte at which the
// boundary was found (hi when none was).
func sentenceEndAt(s string, i, hi int) (at, end int) {
	for j := i; j < hi; j++ {
		switch s[j] {
		case '.', ';':
			if abbreviation(s, j) {
				continue
			}
			if j+1 >= hi {
				return j, hi
			}
			if s[j+1] == '\n' || (s[j+1] == ' ' && startsSentence(s[j+2:min(len(s), hi)])) {
				return j, j + 1
			}
		case '\n':
			if j+1 < hi && s[j+1] == '\n' {
				return j, trimRight(s, j)
			}
		}
	}
	return hi, trimRight(s, hi)
}

// endMemo remembers the last sentence end found for a bound: the sentence
// end of byte i under bound hi is the first boundary at or after i, so every
// i up to that boundary has the same answer. Definitions are read in text
// order, so the definition sentences of one long node cost one scan of it,
// not one scan each.
type endMemo struct {
	hi, from, at, end int // for i in [from, at] under hi: end
	ok                bool
}

func (m *endMemo) sentenceEnd(s string, i, hi int) int {
	if m.ok && m.hi == hi && i >= m.from && i <= m.at {
		return m.end
	}
	at, end := sentenceEndAt(s, i, hi)
	*m = endMemo{hi: hi, from: i, at: at, end: end, ok: true}
	return end
}

func trimRight(s string, e int) int {
	for e > 0 && (s[e-1] == ' ' || s[e-1] == '\n' || s[e-1] == '\t' || s[e-1] == '\r') {
		e--
	}
	return e
}

func startsSentence(rest string) bool {
	r := firstRune(rest)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '(' || r == '"' || r == '“'
}

// abbreviation reports whether the full stop at byte j ends a short
// abbreviation or a number ("Inc.", "U.S.", "No.", "4.1") rather than a
// sentence.
func abbreviation(s string, j int) bool {
	if s[j] != '.' {
		return false
	}
	if j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
		return true
	}
	w, _ := wordBefore(s, j)
	if w == "" {
		return false
	}
	if len(w) <= 3 && unicode.IsUpper(firstRune(w)) || strings.Contains(w, ".") {
		return true
	}
	switch strings.ToLower(w) {
	case "inc", "corp", "ltd", "co", "no", "nos", "sec", "art", "para", "seq", "etc", "viz", "vs":
		return true
	}
	return false
}

// entryStart reports whether byte b starts an entry of a list: the start of
// its node's text (after the node's label) or of a line.
func (x *text) entryStart(b int) bool {
	s := x.s
	n0, _ := x.nodeBytes(x.nodeAt(b))
	if pre := strings.TrimSpace(s[n0:b]); pre == "" || len(pre) <= 8 && !strings.Contains(pre, " ") && strings.IndexFunc(pre, unicode.IsLower) < 0 || entryLabel(pre) {
		return true
	}
	j := b
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	return j == 0 || s[j-1] == '\n' || b-j >= 3
}

// entryLabel reports whether s is a list label such as "(e)" or "1.2".
func entryLabel(s string) bool {
	if len(s) > 8 || strings.Contains(s, " ") {
		return false
	}
	s = strings.Trim(s, "().")
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(unicode.IsDigit(r) || r == '.' || r >= 'a' && r <= 'z' && len(s) <= 4) {
			return false
		}
	}
	return true
}
