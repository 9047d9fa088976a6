package answer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestSentenceEndsLikeExpression checks that sentenceEnds finds exactly the
// matches of reSentenceEnd: on random texts made of the characters that
// matter to it (stops, quotes, every kind of white space, bytes that are
// not UTF-8) and, when the shared corpus is present, on the CUAD contracts.
func TestSentenceEndsLikeExpression(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := reSentenceEnd().FindAllStringIndex(s, -1)
		if got := sentenceEnds(s); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("sentenceEnds(%q) = %v, the expression %v", s, got, want)
		}
	}
	pieces := []string{".", "!", "?", "\"", "”", "’", ")", "“", " ", "  ", "\n", "\n\n", "\t", "\r", "\f", "\v", "\u00a0", "a", "Word", "x.", "\xe2", "\x80", "\x9d", "\xe2\x80", "\u2019", "(", ";"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) > 60 {
		files = files[:60]
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(string(b))
	}
	t.Logf("%d contracts compared", len(files))
}

// TestSegmentBreaksLikeExpression checks that segmentBreaks finds exactly
// the matches of reSegmentBreak, on random texts made of its words, their
// cases and the long s, the punctuation and white space around them, and
// on the sentences of CUAD contracts when the shared corpus is present.
func TestSegmentBreaksLikeExpression(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := reSegmentBreak().FindAllStringIndex(s, -1)
		if got := segmentBreaks(s); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("segmentBreaks(%q) = %v, the expression %v", s, got, want)
		}
	}
	pieces := []string{"but", "BUT", "But", "except", "unless", "unleſs", "however", "HOWEVER", "whereas", "although", "save", "ſave", "Save", "other", "than", "other than",
		"provided", "Provided", "that", "further", "always", "and", "or", "AND", "x", "a", "_", "9", ";", ":", ",", ".", " ", "  ", "\t", "\n", "\f", "\r", "\v", "\u00a0", "ſ", "\xc5", "\xbf", "é", "(", "—"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 300000 {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
	// long runs of white space inside a match
	check("provided" + strings.Repeat(" ", 300) + "," + strings.Repeat("\n", 200) + "however ,\t\t that is")
	check(", " + strings.Repeat(" ", 500) + "and ")
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) > 60 {
		files = files[:60]
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		check(s)
		at := 0
		for _, e := range sentenceEnds(s) {
			check(s[at:e[0]]) // as cutSegments asks it: a sentence at a time
			at = e[1]
		}
	}
}

// TestQuotedTermsLikeExpression checks that quotedTerms finds exactly the
// matches of reQuotedTerm, with their groups: on random texts made of
// quotes, capitals, word characters, white space and bytes that are not
// UTF-8, and on the CUAD contracts when the shared corpus is present.
func TestQuotedTermsLikeExpression(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := reQuotedTerm().FindAllStringSubmatchIndex(s, -1)
		if got := quotedTerms(s); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("quotedTerms(%q) = %v, the expression %v", s, got, want)
		}
	}
	pieces := []string{"\"", "“", "”", "‘", "’", "'", "A", "Change", "of", "Control", "X.Y", "&", "-", "_", "9", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0",
		"\xe2", "\x80", "\x9c", "\x9d", "\xe2\x80", "é", "É", "(", ")", ",", "means"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 300000 {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
	check(`"` + strings.Repeat("A", 5000) + `"`)
	check(`“Agreement” “Term"` + strings.Repeat(" ", 300) + `"Big  Co Inc"`)
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Skip("no CUAD corpus at " + dir + "; the random texts compared")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(string(b))
	}
	t.Logf("%d contracts compared", len(files))
}

// TestAddressMarksLikeExpression and TestRefNamesLikeExpression check that
// addressMarks and refNames find exactly the matches of their expressions:
// on random texts made of the expressions' words, in every case and spelt
// with the long s and the Kelvin sign, digits, brackets, quotes and white
// space, and on every line of the CUAD contracts when the shared corpus is
// present.
func TestAddressMarksLikeExpression(t *testing.T) {
	compareOnTexts(t, 7, []string{"Attention", "ATTN", "attn.", "Facsimile", "faCSimile", "Fax", "Telecopy", "telecopier", "Telephone", "Tel", "Phone", "E-mail", "email",
		"No.", "number", ":", ".", "with", "With", "a", "copy", "copies", "(which shall not)", "to", "To", "if", "If", "IF", "Acme", "NY", "ny", "ſ", "K", "12345", "123", "-6789", "99",
		"Suite", "ſuite", "SUITE", "Floor", "Street", "ſtreet", "Avenue", "P.O.", "P. O.", "PO", "Box", "box", "x", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "_"},
		func(s string) ([][]int, [][]int) {
			return addressMarks(s, 3), reAddressMark().FindAllStringIndex(s, 3)
		})
}

func TestRefNamesLikeExpression(t *testing.T) {
	compareOnTexts(t, 8, []string{"Section", "ſection", "SECTIONS", "Article", "articles", "Clause", "clauſes", "Paragraph", "Schedule", "ſchedules", "Exhibit", "Annex", "annexes", "Appendix", "Appendices", "§",
		"11.2", "A", "(b)", "(iv)", "(", ")", "\"", "“", "Termination", "for", "Convenience", "as", "defined", "described", "deſcribed", "set", "forth", "in", "under", "x", "K",
		" ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "_", "."},
		func(s string) ([][]int, [][]int) {
			return refNames(s), reRefName().FindAllStringIndex(s, -1)
		})
}

// compareOnTexts calls find on random texts made of pieces and on every
// line of the CUAD contracts, failing where the fast path's matches (its
// first result) are not the expression's (its second).
func compareOnTexts(t *testing.T, seed uint64, pieces []string, find func(string) ([][]int, [][]int)) {
	t.Helper()
	check := func(s string) {
		t.Helper()
		if got, want := find(s); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("on %q: the fast path %v, the expression %v", s, got, want)
		}
	}
	r := rand.New(rand.NewPCG(seed, seed+1))
	for range 100000 {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		check(b.String())
	}
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Skip("no CUAD corpus at " + dir + "; the random texts compared")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			check(line)
		}
	}
	t.Logf("%d contracts compared", len(files))
}

func TestConditionInLikeExpression(t *testing.T) {
	pieces := []string{"except", "EXCEPT", "exceptions", "to", "for", "as", "that", "with", "where", "when", "if", "other", "than", "only", "Only", "upon", "on", "in", "the", "extent",
		"provided", "Provided", ",", "however", "subject", "ſubject", "unless", "unleſs", "UNLESS", "after", "following", "expiry", "expiration", "end", "of", "initial", "first", "firſt", "minimum",
		"term", "period", "year", "during", "any", "each", "a", "every", "renewal", "renewed", "extension", "extenſion", "extended", "prior", "written", "consent", "conſent", "approval", "agreement",
		"mutual", "not", "be", "unreasonably", "unreaſonably", "withheld", "delayed", "conditioned", "x", "K", "ſ", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "_", "."}
	for _, restriction := range []bool{false, true} {
		compareOnTexts(t, 9, pieces, func(s string) ([][]int, [][]int) {
			re := reRightCondition()
			if restriction {
				re = reRestrictionCondition()
			}
			var got, want [][]int
			if m := conditionIn(s, restriction); m != nil {
				got = [][]int{m}
			}
			if m := re.FindStringIndex(s); m != nil {
				want = [][]int{m}
			}
			return got, want
		})
	}
}

func TestNamesFeeLikeExpression(t *testing.T) {
	pieces := []string{"fee", "Fees", "FEES", "feeſ", "penalty", "penalties", "penaltieſ", "charge", "charges", "chargeſ", "pay", "Payment", "payment", "compensation", "compenſate", "reimburse",
		"reimburſement", "x", "K", "ſ", "a", " ", "  ", "\n", "\t", "é", "_", "."}
	compareOnTexts(t, 10, pieces, func(s string) ([][]int, [][]int) {
		got, want := [][]int{}, [][]int{}
		if namesFee(s) {
			got = [][]int{{1}}
		}
		if reFee().MatchString(s) {
			want = [][]int{{1}}
		}
		return got, want
	})
}

// TestPieceGatesFoldSafe checks that no gate's piece holds what a
// case-folded match may spell otherwise: a capital, an "s" or a "k" (the
// long s and the Kelvin sign fold to those two, and no other letter outside
// ASCII folds to an ASCII one).
func TestPieceGatesFoldSafe(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf && !strings.ContainsRune("sSkK", f) {
				t.Fatalf("%U folds to %q", r, f)
			}
		}
	}
	for _, g := range []pieceGate{rightConditionGate, restrictionConditionGate, feeGate, noCauseGate, perpetualGate, endOfYearGate} {
		for _, alt := range g {
			for _, p := range alt {
				if strings.ContainsAny(p, "skSK") || strings.ToLower(p) != p {
					t.Errorf("piece %q", p)
				}
			}
		}
	}
}

func TestSaysNoCauseLikeExpression(t *testing.T) {
	pieces := []string{"without", "WITHOUT", "any", "Any", "cause", "cauſe", "CAUSE", "reason", "reaſon", "for", "its", "their", "the", "convenience", "Convenience", "or", "no", "No", "at", "will", "Will",
		"x", "K", "ſ", "a", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "_", ".", ","}
	compareOnTexts(t, 11, pieces, func(s string) ([][]int, [][]int) {
		got, want := [][]int{}, [][]int{}
		if saysNoCause(s) {
			got = [][]int{{1}}
		}
		if reNoCause().MatchString(s) {
			want = [][]int{{1}}
		}
		return got, want
	})
}
