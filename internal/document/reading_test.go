package document

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// paragraphsOf returns the first words of each paragraph Paragraphs finds.
func paragraphsOf(d *Document, starts []int) []string {
	var out []string
	runes := []rune(d.Text)
	for _, p := range d.Paragraphs(starts) {
		w := string(runes[p:min(len(runes), p+12)])
		if i := strings.IndexByte(w, '\n'); i >= 0 {
			w = w[:i]
		}
		out = append(out, w)
	}
	return out
}

func TestParagraphs(t *testing.T) {
	wrapped := strings.Join([]string{
		"LEASE AGREEMENT",
		"",
		"1.1 The Lessor leases to the Lessee the two harbour cranes described in",
		"Schedule A (the Equipment) on the terms of this Agreement and nothing else.",
		"1.2 The Lessee shall use the Equipment only at the Port of Rotterdam and only",
		"for loading cargo.",
		"The Lessee shall pay rent of EUR 42,000 per month, in advance, on the first",
		"business day of each month.",
		"The Lessee agrees as follows, for every month of the term of the lease:",
		"(a) to keep the Equipment in good working order and insured for its value;",
		"(b) to return it at the end of the term.",
		"Rent not paid when due bears interest at four percent per annum above the",
	}, "\n")
	cases := []struct {
		name   string
		doc    *Document
		starts []int
		want   []string
	}{
		{"empty", &Document{}, nil, nil},
		{"wrapped lines flow, paragraph ends break", &Document{Text: wrapped}, nil,
			[]string{"LEASE AGREEM", "1.1 The Less", "1.2 The Less", "The Lessee s", "The Lessee a", "(a) to keep ", "(b) to retur", "Rent not pai"}},
		{"one line per paragraph keeps every break", &Document{Text: strings.Repeat("This paragraph is long enough not to be a wrapped line of a page, and it goes on and on past two hundred characters so that no page could hold it on one line at any reasonable size of type at all.\n", 3) + "Short.\nAlso short."}, nil,
			[]string{"This paragra", "This paragra", "This paragra", "Short.", "Also short."}},
		{"a clause start breaks a full line", &Document{Text: wrapped}, []int{strings.Index(wrapped, "business")},
			[]string{"LEASE AGREEM", "1.1 The Less", "1.2 The Less", "The Lessee s", "business day", "The Lessee a", "(a) to keep ", "(b) to retur", "Rent not pai"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := paragraphsOf(c.doc, c.starts)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("paragraphs:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestParagraphsPageBreak: a sentence running over a page break, with a
// running footer and a page number between, stays one paragraph; a blank
// line without furniture ends one.
func TestParagraphsPageBreak(t *testing.T) {
	line := "the Lessee shall keep the Equipment in good working order and insure it for"
	text := strings.Repeat(line+"\n", 8) + "\nACME CONFIDENTIAL\n- 3 -\n\nreplacement value with an insurer reasonably acceptable to the Lessor.\n\n" + strings.Repeat(line+"\n", 2)
	runeIdx := func(s string) int { return utf8.RuneCountInString(text[:strings.Index(text, s)]) }
	d := &Document{Text: text, Furniture: []Furniture{
		{Kind: FurnitureRunning, Span: Span{runeIdx("ACME"), runeIdx("ACME") + len("ACME CONFIDENTIAL")}},
		{Kind: FurniturePageNumber, Span: Span{runeIdx("- 3 -"), runeIdx("- 3 -") + 5}},
	}}
	got := d.Paragraphs(nil)
	want := []int{0, runeIdx("replacement") + len("replacement value with an insurer reasonably acceptable to the Lessor.\n\n")}
	// A full line ending a paragraph cannot be told from one inside it:
	// it flows on (the 9th and 10th lines of the fixture do).
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("paragraphs at %v, want %v", got, want)
	}
	for _, p := range got {
		if d.InFurniture(Span{p, p + 1}) {
			t.Errorf("a paragraph starts in furniture at %d", p)
		}
	}
}

func TestListItem(t *testing.T) {
	for s, want := range map[string]bool{
		"(a) the Customer": true, "(iv) any": true, "a) first": true, "1. Definitions": true, "2.3 Term": true,
		"2.3.1 Renewal": true, "• item": true, "- item": true, "2019. The": false, "(the Equipment)": false,
		"Section 4": false, "(“Equipment”) on": false, "1.": false, "abc": false, "10.2.": false,
	} {
		if got := listItem(s); got != want {
			t.Errorf("listItem(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzParagraphs: paragraph starts are increasing, inside the text, on a
// character that is not white space, and never in furniture.
func FuzzParagraphs(f *testing.F) {
	f.Add("LEASE\n\n1.1 The Lessor leases\nthe cranes.\n(a) one\n", 3, 9)
	f.Add("a\n\n\n  b  \n\x00\n€𝄞 c", 0, 2)
	f.Fuzz(func(t *testing.T, text string, fs, fe int) {
		if !utf8.ValidString(text) {
			return
		}
		d := &Document{Text: text}
		n := d.Runes()
		if fs >= 0 && fe > fs && fe <= n {
			d.Furniture = []Furniture{{Kind: FurnitureRunning, Span: Span{fs, fe}}}
		}
		runes := []rune(text)
		last := -1
		for _, p := range d.Paragraphs([]int{n / 2, n + 5, -1}) {
			if p <= last || p < 0 || p >= n {
				t.Fatalf("paragraph start %d after %d in %d code points", p, last, n)
			}
			if strings.TrimSpace(string(runes[p])) == "" {
				t.Fatalf("paragraph starts on white space at %d", p)
			}
			if d.InFurniture(Span{p, p + 1}) {
				t.Fatalf("paragraph starts in furniture at %d", p)
			}
			last = p
		}
	})
}
