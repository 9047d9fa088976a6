package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/search/index"
)

// TestTooManyTerms checks the early count of a text's distinct words: a
// text of made-up words over the margin is refused, one of a contract's
// vocabulary repeated is not, nor is a short text whatever it holds, and
// the count agrees with index.Analyze.
func TestTooManyTerms(t *testing.T) {
	var made strings.Builder
	for i := 0; made.Len() <= 1<<20 || i <= 2*MaxDocTerms+10; i++ {
		fmt.Fprintf(&made, "Term%dx means the %dth thing. ", i, i)
	}
	if got := tooManyTerms(made.String()); got != 2*MaxDocTerms {
		t.Errorf("made-up words: %d, want %d", got, 2*MaxDocTerms)
	}
	prose := strings.Repeat("The Supplier shall deliver the Goods within thirty days of each Order. ", 20_000)
	if got := tooManyTerms(prose); got != 0 {
		t.Errorf("prose of %d bytes: %d, want 0", len(prose), got)
	}
	short := made.String()[:1<<20]
	if got := tooManyTerms(short); got != 0 {
		t.Errorf("a mebibyte: %d, want 0", got)
	}
	// The words counted are the terms Analyze gives.
	sample := made.String()[:1<<16]
	want := map[string]bool{}
	for _, term := range index.Analyze(sample) {
		want[term] = true
	}
	got := map[string]bool{}
	index.ForEachWord(sample, func(w string, _ bool) {
		if !index.IsStopWord(w) {
			got[index.Stem(w)] = true
		}
	})
	if len(got) != len(want) {
		t.Errorf("%d terms counted, Analyze gives %d", len(got), len(want))
	}
}
