package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/eval/headline"
)

// The headline numbers are measured by go run ./scripts/numbers, which
// writes docs/numbers.json and renders the README's and EVALUATION.md's
// tables from it.

// TestNumbersRendered fails when the README's or EVALUATION.md's numbers
// differ from what docs/numbers.json renders: a table edited by hand, or a
// numbers file committed without its pages.
func TestNumbersRendered(t *testing.T) {
	n, err := headline.Load("numbers.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range headline.Pages {
		page, err := os.ReadFile(filepath.Join("..", p.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Blocks {
			got, err := headline.NamedBlock(string(page), r.Name)
			if err != nil {
				t.Errorf("%s: %v", p.File, err)
				continue
			}
			want, err := r.Render(n)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: its numbers (block %q) differ from docs/numbers.json's (a table edited by hand?): render them again with\n\tgo run ./scripts/numbers -render\n--- the page\n%s\n--- docs/numbers.json\n%s", p.File, r.Name, got, want)
			}
		}
	}
}

// TestNumbersFingerprint fails when the tuned constants EVALUATION.md names
// are no longer those the headline numbers were measured with, saying which
// changed and how to measure again.
func TestNumbersFingerprint(t *testing.T) {
	n, err := headline.Load("numbers.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(n.Commit, "-dirty") {
		t.Errorf("docs/numbers.json was measured on a tree with uncommitted changes (%s): measure the committed tree with go run ./scripts/numbers", n.Commit)
	}
	if headline.Fingerprint(n.Constants) != n.Fingerprint {
		t.Fatalf("docs/numbers.json: its fingerprint is not that of its constants (edited by hand?): measure again with go run ./scripts/numbers")
	}
	names, err := headline.Named("EVALUATION.md")
	if err != nil {
		t.Fatal(err)
	}
	now, err := headline.Declarations("..", names)
	if err != nil {
		t.Fatal(err)
	}
	if fp := headline.Fingerprint(now); fp != n.Fingerprint {
		t.Errorf("the tuned constants changed since docs/numbers.json was measured on commit %s:\n\t%s\nre-measure the headline numbers on a committed tree (about 30 minutes on 2 cores) and commit the three files it writes:\n\tgo run ./scripts/numbers",
			n.Commit, strings.Join(headline.Changed(n.Constants, now), "\n\t"))
	}
}
