package answer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDurationsLikeExpression checks that durationFinder finds exactly the
// matches of reDurationValue, with their groups, from every place a search
// starts: on random texts made of the expression's words (in every case,
// spelt with the long s and the Kelvin sign), digits, brackets, hyphens,
// white space, punctuation and bytes that are not UTF-8; and that
// allDurationsAt reads the same periods as the expression on every CUAD
// contract (sixty of them also line by line) when the shared corpus is present.
func TestDurationsLikeExpression(t *testing.T) {
	plain := func(s string) func(int) []int {
		return func(from int) []int { return shifted(reDurationValue().FindStringSubmatchIndex(s[from:]), from) }
	}
	pieces := []string{"one", "One", "ONE", "two", "three", "four", "five", "ſix", "six", "Seven", "ſeven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
		"ſixteen", "nineteen", "twenty", "Twenty-four", "thirty", "forty", "fifty", "Fifteen", "fourteen", "ſixty", "seventy", "eighty", "ninety", "hundred", "a", "A", "and", "an", "to",
		"1", "12", "2020", "12345", "0", "(", ")", "(5)", "( 10 )", "-", "day", "Days", "DAY", "month", "Months", "year", "YEARS", "yeaRſ", "week", "wee\u212a", "WEE\u212aS", "weeks",
		"calendar", "business", "full", "per", "the", "initial", "x", "_", ".", ",", ";", "'", "\"", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "’",
		"\xc5", "\xbf", "\xe2\x84", "s", "k"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(3) == 0 {
				b.WriteByte(' ')
			}
		}
		s := b.String()
		f, want := newDurationFinder(s), plain(s)
		for from := 0; from <= len(s); from++ {
			if got, exp := f.next(from), want(from); !reflect.DeepEqual(got, exp) {
				t.Fatalf("on %q from %d: the finder %v, the expression %v", s, from, got, exp)
			}
		}
	}
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Skip("no CUAD corpus at " + dir + "; the random texts compared")
	}
	var periods int
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		texts := []string{s}
		if i < 60 {
			texts = append(texts, strings.Split(s, "\n")...)
		}
		for _, text := range texts {
			got, want := allDurationsAt(text), durationsWith(text, plain(text))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: the finder %v, the expression %v", filepath.Base(name), got, want)
			}
			if len(text) == len(s) {
				periods += len(got)
			}
		}
	}
	t.Logf("%d contracts compared, %d periods", len(files), periods)
}

func TestPerpetualInLikeExpression(t *testing.T) {
	compareOnTexts(t, 13, []string{"perpetual", "Perpetually", "PERPETUITY", "in", "In", "perpetuity", "indefinite", "Indefinitely", "indefinitely", "perpetu", "indefinit",
		"ly", "LY", "x", "K", "ſ", "a", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "_", ".", ","},
		func(s string) ([][]int, [][]int) {
			return oneMatch(perpetualIn(s, lowerASCII(s))), oneMatch(rePerpetual().FindStringIndex(s))
		})
}

func TestEndOfYearInLikeExpression(t *testing.T) {
	compareOnTexts(t, 14, []string{"until the end of", "Through End of the", "to\tend of", "THAT CALENDAR YEAR", "then-current calendar year", "then\ncurrent calendar\nyear", "same calendar year",
		"the current calendar year", "end of that", "ſame calendar year", "until", "UNTIL", "through", "to", "To", "the", "THE", "end", "End", "of", "current", "then", "then-current", "then current", "same", "ſame", "that",
		"calendar", "Calendar", "year", "YEAR", "years", "x", "K", "ſ", "a", " ", "  ", "\n", "\t", "\r", "\f", "\v", "\u00a0", "é", "_", ".", ",", "-"},
		func(s string) ([][]int, [][]int) {
			return oneMatch(endOfYearIn(s, lowerASCII(s))), oneMatch(reEndOfYear().FindStringIndex(s))
		})
}

// oneMatch is m as a list of matches: none for nil.
func oneMatch(m []int) [][]int {
	if m == nil {
		return nil
	}
	return [][]int{m}
}
