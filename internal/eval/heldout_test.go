package eval

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/search"
)

func TestStartsMidToken(t *testing.T) {
	text := "2.7 Non-Arms Length. The word ends here."
	cases := []struct {
		start int
		want  bool
	}{
		{0, false},  // start of text
		{1, true},   // ".7 Non-…": inside the clause number
		{2, true},   // "7 Non-…": after "2."
		{4, false},  // "Non-…" after a space
		{5, true},   // "on-Arms": inside a word
		{21, false}, // "The": after a space
	}
	for _, c := range cases {
		if got := startsMidToken(text, c.start); got != c.want {
			t.Errorf("startsMidToken at %d (%q) = %v, want %v", c.start, text[c.start:], got, c.want)
		}
	}
}

func TestCoversHalf(t *testing.T) {
	truth := []Snippet{{FilePath: "a", Span: sp(100, 200)}, {FilePath: "a", Span: sp(400, 410)}}
	cases := []struct {
		hit  search.Hit
		want bool
	}{
		{search.Hit{DocID: "a", Span: sp(150, 300)}, true},  // exactly half of the first
		{search.Hit{DocID: "a", Span: sp(151, 300)}, false}, // just under half
		{search.Hit{DocID: "a", Span: sp(390, 405)}, true},  // half of the short one
		{search.Hit{DocID: "b", Span: sp(100, 200)}, false}, // another document
	}
	for _, c := range cases {
		if got := coversHalf(c.hit, truth); got != c.want {
			t.Errorf("coversHalf(%v) = %v, want %v", c.hit.Span, got, c.want)
		}
	}
}

func TestUnnamedQuestions(t *testing.T) {
	qs, err := UnnamedQuestions()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 100 {
		t.Fatalf("%d questions naming no contract; the issue asks for at least 100", len(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q] {
			t.Errorf("duplicate question %q", q)
		}
		seen[q] = true
	}
}

func TestParaphraseRewritesEveryQuery(t *testing.T) {
	b := &Benchmark{Name: "x", Tests: []Test{{Query: "Consider the Supply Agreement between A and B; What is the governing law for this contract?", Snippets: []Snippet{{FilePath: "a"}}}}}
	p, err := Paraphrase(b)
	if err != nil {
		t.Fatal(err)
	}
	if q := p.Tests[0].Query; !strings.HasPrefix(q, "Consider the Supply Agreement between A and B; ") || strings.Contains(q, "governing law") {
		t.Fatalf("paraphrased query %q", q)
	}
	b.Tests[0].Query = "Consider the X; Is this a question nobody rewrote?"
	if _, err := Paraphrase(b); err == nil {
		t.Fatal("a question without a rewrite was accepted")
	}
}

// TestHeldOutSets builds both held-out sets from the real development data:
// every dev template has a rewrite, and every new type is really new.
func TestHeldOutSets(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "data")
	b, err := LoadBenchmark(filepath.Join(dir, "legalbenchrag", "benchmarks", "cuad_dev.json"))
	if err != nil {
		t.Skip("../shared/data is absent:", err)
	}
	p, err := Paraphrase(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tests) != len(b.Tests) {
		t.Fatalf("%d paraphrased queries for %d", len(p.Tests), len(b.Tests))
	}
	review, err := LoadReview(filepath.Join(dir, "cuad", "review_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	nt, err := NewTypes(b, review, filepath.Join(dir, "legalbenchrag", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]int{}
	for _, q := range nt.Tests {
		cats[q.Category]++
	}
	for _, q := range b.Tests {
		if cats[q.Category] > 0 {
			t.Fatalf("new-type set asks about %q, which the dev set asks about", q.Category)
		}
	}
	if len(cats) < 4 || len(nt.Tests) < 300 {
		t.Fatalf("new-type set: %d queries over %v", len(nt.Tests), cats)
	}
}
