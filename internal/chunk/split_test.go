package chunk

import (
	"math/rand"
	"strings"
	"testing"
	"unicode"

	"github.com/pakton/pakton/internal/document"
)

func TestNaive(t *testing.T) {
	text := []rune(strings.Repeat("é", 1234))
	got := Naive(text, 500)
	want := []document.Span{{Start: 0, End: 500}, {Start: 500, End: 1000}, {Start: 1000, End: 1234}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("chunk %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

func TestRecursiveSmallExamples(t *testing.T) {
	tests := []struct {
		name string
		text string
		size int
		want []string
	}{
		{"fits", "Hello world.", 50, []string{"Hello world."}},
		{"paragraphs merge while they fit", "aaa\n\nbbb\n\nccc", 9, []string{"aaa\n\nbbb", "ccc"}},
		// The separator stays at the start of the following piece, so the
		// second chunk starts with the blank line and is then trimmed.
		{"separator kept with next piece", "aaaa\n\nbbbb", 6, []string{"aaaa", "bbbb"}},
		{"falls back to sentences", "One two. Three four. Five six.", 12, []string{"One two", ". Three four", ". Five six."}},
		{"falls back to characters", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := []rune(tc.text)
			spans := Recursive(text, tc.size, nil)
			var got []string
			for _, sp := range spans {
				got = append(got, string(text[sp.Start:sp.End]))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRecursiveProperties checks, on random text, that chunks are in order,
// disjoint, no longer than the size, trimmed, and together keep every
// non-whitespace character.
func TestRecursiveProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alphabet := []rune("abc dé\n\n.,;:!?—€ xyz")
	for iter := 0; iter < 300; iter++ {
		n := rng.Intn(3000)
		text := make([]rune, n)
		for i := range text {
			text[i] = alphabet[rng.Intn(len(alphabet))]
		}
		size := 20 + rng.Intn(600)
		spans := Recursive(text, size, nil)
		covered := make([]bool, n)
		prev := 0
		for _, sp := range spans {
			if sp.Start < prev || sp.End <= sp.Start || sp.End > n {
				t.Fatalf("bad span %v after %d (n=%d)", sp, prev, n)
			}
			if sp.Len() > size {
				t.Fatalf("span %v longer than %d", sp, size)
			}
			if unicode.IsSpace(text[sp.Start]) || unicode.IsSpace(text[sp.End-1]) {
				t.Fatalf("span %v not trimmed", sp)
			}
			for i := sp.Start; i < sp.End; i++ {
				covered[i] = true
			}
			prev = sp.End
		}
		for i, c := range covered {
			if !c && !unicode.IsSpace(text[i]) {
				t.Fatalf("character %d (%q) lost", i, text[i])
			}
		}
	}
}
