package graph

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// labelled is one hand-labelled contract (testdata/labels).
type labelled struct {
	file string
	defs []string
	refs []goldRef
}

type goldRef struct{ label, status string }

func readLabels(t *testing.T, path string) labelled {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var l labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		cols := strings.Split(line, "\t")
		switch {
		case strings.HasPrefix(line, "# file\t"):
			l.file = cols[1]
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		case cols[0] == "def" && len(cols) == 2:
			l.defs = append(l.defs, cols[1])
		case cols[0] == "ref" && len(cols) == 3:
			l.refs = append(l.refs, goldRef{cols[1], cols[2]})
		default:
			t.Fatalf("%s: bad line %q", path, line)
		}
	}
	if l.file == "" {
		t.Fatalf("%s: no '# file' line", path)
	}
	return l
}

// refKey compares reference labels: words of the same class are one
// ("Clause 4" = "Section 4", "Part 2" = "Article 2"), case is ignored.
func refKey(label string) string {
	l := strings.ToLower(strings.Join(strings.Fields(label), " "))
	for _, w := range []string{"clause ", "paragraph ", "subsection ", "sub-clause "} {
		l = strings.Replace(l, w, "section ", 1)
	}
	return strings.Replace(l, "part ", "article ", 1)
}

func statusOf(r Reference) string {
	switch r.Status {
	case External:
		return "external"
	case Unresolved:
		return "missing"
	}
	return "internal"
}

// match counts the common elements of two multisets.
func match(gold, got []string) int {
	left := map[string]int{}
	for _, g := range gold {
		left[g]++
	}
	n := 0
	for _, x := range got {
		if left[x] > 0 {
			left[x]--
			n++
		}
	}
	return n
}

// TestLabelledSample measures definition and reference precision and recall
// on the hand-labelled contracts the extractor was developed on
// (docs/EVALUATION.md) and fails when they drop below floors.
func TestLabelledSample(t *testing.T) {
	measureLabels(t, "testdata/labels", 85)
}

// TestHeldOutSample measures the same on contracts labelled after the
// extractor was finished and never used to change it.
func TestHeldOutSample(t *testing.T) {
	measureLabels(t, "testdata/heldout", 75)
}

func measureLabels(t *testing.T, dir string, floor float64) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.tsv"))
	if len(paths) == 0 {
		t.Fatal("no labelled contracts in " + dir)
	}
	var dGold, dGot, dHit, rGold, rGot, rHit, sHit, sN int
	for _, p := range paths {
		l := readLabels(t, p)
		b, err := os.ReadFile(filepath.Join(corpusDir, "cuad", l.file))
		if err != nil {
			t.Skipf("shared corpus not present: %v", err)
		}
		doc := &document.Document{Name: l.file, Text: string(b)}
		g := Extract(doc, clause.Parse(doc))
		var gd, pd []string
		for _, d := range l.defs {
			gd = append(gd, Key(d))
		}
		for _, d := range g.Definitions {
			pd = append(pd, Key(d.Term))
		}
		var gr, pr, grs, prs []string
		for _, r := range l.refs {
			gr = append(gr, refKey(r.label))
			grs = append(grs, refKey(r.label)+"|"+r.status)
		}
		for _, r := range g.References {
			pr = append(pr, refKey(r.Label))
			prs = append(prs, refKey(r.Label)+"|"+statusOf(r))
		}
		dh, rh, sh := match(gd, pd), match(gr, pr), match(grs, prs)
		t.Logf("%-12s definitions %2d/%2d found, %2d extra; references %2d/%2d found, %2d extra, status right for %d",
			filepath.Base(p), dh, len(gd), len(pd)-dh, rh, len(gr), len(pr)-rh, sh)
		if testing.Verbose() && os.Getenv("PAKTON_LABELS_DIFF") != "" {
			t.Logf("  gold defs %q\n  got defs %q\n  gold refs %q\n  got refs %q", gd, pd, grs, prs)
		}
		dGold, dGot, dHit = dGold+len(gd), dGot+len(pd), dHit+dh
		rGold, rGot, rHit = rGold+len(gr), rGot+len(pr), rHit+rh
		sHit, sN = sHit+sh, sN+rh
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	dp, dr, rp, rr := pct(dHit, dGot), pct(dHit, dGold), pct(rHit, rGot), pct(rHit, rGold)
	t.Logf("definitions: precision %.1f%% (%d/%d), recall %.1f%% (%d/%d)", dp, dHit, dGot, dr, dHit, dGold)
	t.Logf("references:  precision %.1f%% (%d/%d), recall %.1f%% (%d/%d); status right for %.1f%% of those found (%d/%d)",
		rp, rHit, rGot, rr, rHit, rGold, pct(sHit, sN), sHit, sN)
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"definition precision", dp, floor}, {"definition recall", dr, floor}, {"reference precision", rp, floor}, {"reference recall", rr, floor}} {
		if f.got < f.want {
			t.Errorf("%s %.1f%% is below the floor %.0f%%", f.name, f.got, f.want)
		}
	}
}
