package eval

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

func sp(a, b int) document.Span { return document.Span{Start: a, End: b} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScoreQueryByHand(t *testing.T) {
	truth := []Snippet{{FilePath: "a.txt", Span: sp(100, 200)}, {FilePath: "a.txt", Span: sp(150, 250)}} // union [100,250): 150 chars
	ret := []Snippet{
		{FilePath: "a.txt", Span: sp(50, 150)},  // 50 relevant of 100
		{FilePath: "b.txt", Span: sp(0, 100)},   // wrong document
		{FilePath: "a.txt", Span: sp(200, 300)}, // 50 relevant of 100
	}
	sc, err := ScoreQuery(truth, ret)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		k         int
		p, r, drm float64
		chars     float64
	}{
		{1, 50.0 / 100, 50.0 / 150, 0, 100},
		{2, 50.0 / 200, 50.0 / 150, 0.5, 200},
		{4, 100.0 / 300, 100.0 / 150, 1.0 / 3, 300},
		{64, 100.0 / 300, 100.0 / 150, 1.0 / 3, 300},
	}
	for _, c := range checks {
		if !near(sc.Precision[c.k], c.p) || !near(sc.Recall[c.k], c.r) || !near(sc.DRM[c.k], c.drm) || sc.Chars[c.k] != c.chars {
			t.Errorf("k=%d: precision %v recall %v drm %v chars %v; want %v %v %v %v", c.k, sc.Precision[c.k], sc.Recall[c.k], sc.DRM[c.k], sc.Chars[c.k], c.p, c.r, c.drm, c.chars)
		}
	}
}

func TestScoreQueryEmptyRetrieval(t *testing.T) {
	sc, err := ScoreQuery([]Snippet{{FilePath: "a", Span: sp(0, 10)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Precision[1] != 0 || sc.Recall[64] != 0 {
		t.Fatalf("empty retrieval scored %v", sc)
	}
}

func TestScoreQueryRefusesOverlap(t *testing.T) {
	_, err := ScoreQuery([]Snippet{{FilePath: "a", Span: sp(0, 10)}}, []Snippet{{FilePath: "a", Span: sp(0, 10)}, {FilePath: "a", Span: sp(5, 20)}})
	if !errors.Is(err, ErrOverlap) {
		t.Fatalf("got %v, want ErrOverlap", err)
	}
	// The same span in two different files is not an overlap.
	if _, err := ScoreQuery(nil, []Snippet{{FilePath: "a", Span: sp(0, 10)}, {FilePath: "b", Span: sp(0, 10)}}); err != nil {
		t.Fatal(err)
	}
}

// TestRunOnTinyBenchmark runs the whole harness on a benchmark written here,
// with code-point offsets into non-ASCII text.
func TestRunOnTinyBenchmark(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(filepath.Join(corpus, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	docA := "SUPPLY AGREEMENT between Émile Foods SA and Zürich Trading AG.\n\n1. Term. This Agreement lasts three years.\n\n2. Liability. Aggregate liability shall not exceed €100,000.\n"
	docB := "LICENSE AGREEMENT between Nordic Apps AB and Kite Labs Inc.\n\n1. Grant. Licensor grants a non-exclusive licence.\n\n2. Audit. Licensor may audit records once a year.\n"
	for name, text := range map[string]string{"a.txt": docA, "b.txt": docB} {
		if err := os.WriteFile(filepath.Join(corpus, "c", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runes := []rune(docA)
	start := indexRunes(runes, []rune("Aggregate liability"))
	end := indexRunes(runes, []rune("€100,000.")) + len([]rune("€100,000."))
	bench := `{"tests":[{"query":"Consider the Supply Agreement between Émile Foods and Zürich Trading; is liability capped?","snippets":[{"file_path":"c/a.txt","span":[` + itoa(start) + `,` + itoa(end) + `]}]}]}`
	bpath := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(bpath, []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range Methods {
		m, err := MethodByName(name)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(t.Context(), Options{CorpusDir: corpus, Benches: []string{bpath}, Method: m})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b := rep.Benchmarks["tiny"]
		if b == nil || b.Queries != 1 {
			t.Fatalf("%s: report %+v", name, rep)
		}
		if b.Recall["64"] != 100 {
			t.Errorf("%s: recall@64 %v, want 100", name, b.Recall["64"])
		}
		if name == "pakton" && b.Recall["1"] != 100 {
			t.Errorf("pakton: recall@1 %v, want 100 (the liability clause)", b.Recall["1"])
		}
	}
}

func indexRunes(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if string(s[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCorpusGroups: benchmarks over the same corpus share an index,
// benchmarks over different corpora get one each.
func TestCorpusGroups(t *testing.T) {
	set := func(ds ...string) map[string]bool {
		m := map[string]bool{}
		for _, d := range ds {
			m[d] = true
		}
		return m
	}
	got := corpusGroups([]map[string]bool{set("cuad"), set("contractnli"), set("cuad"), set("maud", "x"), set("x")})
	want := [][]int{{0, 2}, {1}, {3, 4}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
