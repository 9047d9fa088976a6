package chunk

import (
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

func TestSnapToWords(t *testing.T) {
	text := []rune("as set out in this Section 8.1 Confidentiality shall not apply to information that is public. 4.5 The Reseller shall provide support.")
	at := func(s string) int { return len([]rune(string(text)[:strings.Index(string(text), s)])) }
	cases := []struct {
		name      string
		sp        document.Span
		wantStart string // the text the snapped span starts with
	}{
		{"start inside a clause number moves back", document.Span{Start: at(".5 The"), End: len(text)}, "4.5 The Reseller"},
		{"start inside a word stays (only numbers move)", document.Span{Start: at("onfidentiality"), End: len(text)}, "onfidentiality shall"},
		{"start at a word stays", document.Span{Start: at("The Reseller"), End: len(text)}, "The Reseller"},
	}
	for _, c := range cases {
		got := snapToWords(runeSlice(text), c.sp)
		if !strings.HasPrefix(string(text[got.Start:got.End]), c.wantStart) {
			t.Errorf("%s: snapped span starts %q, want %q", c.name, string(text[got.Start:min(got.End, got.Start+20)]), c.wantStart)
		}
	}
	// An end inside "4.5" moves before it, so the number goes with its clause.
	end := snapToWords(runeSlice(text), document.Span{Start: 0, End: at(".5 The")})
	if s := string(text[end.Start:end.End]); !strings.HasSuffix(s, "is public.") {
		t.Errorf("snapped end: %q", s)
	}
}

func TestUnitsAreNeverTooShortOrMidWord(t *testing.T) {
	text := "SERVICES AGREEMENT\n\n1. Confidentiality\n\n1.1 The Recipient shall not disclose Confidential Information. " +
		"The restrictions above shall not apply to information which is:\n\n(a) public;\n\n(b) already known;\n\n" +
		"(c) independently developed by the Recipient without use of the Confidential Information.\n\n" +
		"2. Term. This Agreement lasts five years from the Effective Date unless terminated earlier as provided here.\n"
	doc := &document.Document{ID: "d", Name: "d.txt", Text: text}
	in := Build(doc, clause.Parse(doc), Options{})
	r := []rune(text)
	tree := clause.Parse(doc)
	for _, u := range in.Units {
		for _, sp := range u.Spans {
			if sp.Len() < minUnit && u.Node > 0 && tree.Nodes[u.Node].Leaf() {
				t.Errorf("leaf unit %q (%v view) is shorter than %d", string(r[sp.Start:sp.End]), u.View, minUnit)
			}
			if sp.Start > 1 && r[sp.Start] == '.' && r[sp.Start-1] >= '0' && r[sp.Start-1] <= '9' {
				t.Errorf("unit starts inside a number: %q", string(r[sp.Start-1:min(sp.End, sp.Start+20)]))
			}
		}
	}
}

// Reading a document through windows gives the characters its text holds,
// wherever the reads jump, in text with characters of several widths.
func TestDocRunes(t *testing.T) {
	text := strings.Repeat("§ 4.5 “Café” — naïve 8.1 ✓ x ", 40)
	want := []rune(text)
	d := newDocRunes(&document.Document{Text: text})
	if d.Len() != len(want) {
		t.Fatalf("Len %d, want %d", d.Len(), len(want))
	}
	for _, i := range []int{0, 1, 500, 499, 12, 13, len(want) - 1, 300, 47, 48, 49, 64, 65, 700, 5} {
		if got := d.At(i); got != want[i] {
			t.Errorf("At(%d) = %q, want %q", i, got, want[i])
		}
	}
	for i := len(want) - 1; i >= 0; i-- {
		if d.At(i) != want[i] {
			t.Fatalf("backwards At(%d) = %q, want %q", i, d.At(i), want[i])
		}
	}
}

// Two texts get the same duplicate hash exactly when their normalized keys
// are equal.
func TestNormHash(t *testing.T) {
	texts := []string{"", "  \n\t", "The Term", "the   term", " THE TERM\n", "The Terms", "Café", "CAFÉ", "caf é", "a\u00a0b", "a b", "x\xffy", "X\xffY"}
	for _, a := range texts {
		for _, b := range texts {
			ha, oka := normHash(a)
			hb, okb := normHash(b)
			if oka != (normKey(a) != "") {
				t.Errorf("normHash(%q) ok=%v, key %q", a, oka, normKey(a))
			}
			if same := normKey(a) == normKey(b); oka && okb && (ha == hb) != same {
				t.Errorf("%q vs %q: hashes equal %v, keys equal %v", a, b, ha == hb, same)
			}
		}
	}
}

// Text with no separator at all is cut into windows of the size, as
// merging its characters one by one would (without a piece per character).
func TestRecursiveNoSeparator(t *testing.T) {
	for _, n := range []int{1, 7, 900, 901, 2700, 5000} {
		text := []rune(strings.Repeat("x", n))
		var want []document.Span
		pieces := make([]piece, n)
		for i := range pieces {
			pieces[i] = piece{i, i + 1}
		}
		mergePieces(text, pieces, 900, &want)
		if got := Recursive(text, 900, nil); !slices.Equal(got, want) {
			t.Errorf("%d characters: %v, want %v", n, got, want)
		}
	}
}

// A clause longer than the splitter's window is split a window at a time:
// the pieces are in order, do not overlap, are at most the unit size and
// leave out no word.
func TestWindowPieces(t *testing.T) {
	var b strings.Builder
	for b.Len() < 2*maxSplitWindow+12345 {
		b.WriteString("the widget maker (the \"Term\") and ")
	}
	doc := &document.Document{Text: b.String()}
	sp := document.Span{Start: 0, End: doc.Runes()}
	parts := pieces(doc, sp, 900)
	prev := 0
	for i, p := range parts {
		if p.Start < prev || p.Len() > 900 || p.Len() == 0 {
			t.Fatalf("piece %d %v after %d", i, p, prev)
		}
		if gap := doc.Slice(document.Span{Start: prev, End: p.Start}); strings.TrimSpace(gap) != "" {
			t.Fatalf("piece %d leaves out %q", i, gap)
		}
		prev = p.End
	}
	if rest := doc.Slice(document.Span{Start: prev, End: sp.End}); strings.TrimSpace(rest) != "" {
		t.Fatalf("the end %q is left out", rest[:min(len(rest), 40)])
	}
}
