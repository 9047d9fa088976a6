package answer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
