package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLearnsInFolds: questions asked of many agreements learn, in folds
// by document, the clause that answers them though it shares none of their
// words, while a clause that does share them is no answer; the report says
// so and prints the Table 2 layout.
func TestRunLearnsInFolds(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(filepath.Join(corpus, "maud_x"), 0o755); err != nil {
		t.Fatal(err)
	}
	type test struct {
		Query    string `json:"query"`
		Snippets []struct {
			FilePath string `json:"file_path"`
			Span     [2]int `json:"span"`
		} `json:"snippets"`
	}
	var tests []test
	for i := range 8 {
		name := fmt.Sprintf("deal%d.txt", i)
		answer := fmt.Sprintf("2. Conversion of Shares. Each share of common stock is converted into the right to receive $%d.00 in cash, without interest.", 10+i)
		text := fmt.Sprintf("AGREEMENT AND PLAN OF MERGER between Parentco%d Holdings and Targetco%d Systems.\n\n"+
			"1. Definitions. Terms have the meanings given to them in this Agreement.\n\n%s\n\n"+
			"3. Notices. A notice of any type given for consideration by the board is effective when delivered.\n\n"+
			"4. Covenants. The company shall operate its business in the ordinary course.\n", i, i, answer)
		if err := os.WriteFile(filepath.Join(corpus, "maud_x", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		start := len([]rune(text[:strings.Index(text, answer)]))
		tt := test{Query: fmt.Sprintf("Consider the Agreement and Plan of Merger between Parentco%d Holdings and Targetco%d Systems; What is the Type of Consideration", i, i)}
		tt.Snippets = append(tt.Snippets, struct {
			FilePath string `json:"file_path"`
			Span     [2]int `json:"span"`
		}{"maud_x/" + name, [2]int{start, start + len([]rune(answer))}})
		tests = append(tests, tt)
	}
	data, err := json.Marshal(map[string]any{"tests": tests})
	if err != nil {
		t.Fatal(err)
	}
	bpath := filepath.Join(dir, "maud_x.json")
	if err := os.WriteFile(bpath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := MethodByName("pakton")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{CorpusDir: corpus, Benches: []string{bpath}, Method: m, Scopes: map[string]string{"maud_x": "document"}}
	plain, err := Run(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Learn = &LearnSource{From: []string{bpath}, Folds: 2}
	learnt, err := Run(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	p, l := plain.Benchmarks["maud_x"], learnt.Benchmarks["maud_x"]
	if p.Scope != "document" || l.Scope != "document" {
		t.Errorf("scopes %q, %q: want document (Options.Scopes)", p.Scope, l.Scope)
	}
	if l.Recall["1"] != 100 || p.Recall["1"] >= l.Recall["1"] {
		t.Errorf("R@1 without learning %.1f, learnt in folds %.1f: want 100, and more than without", p.Recall["1"], l.Recall["1"])
	}
	if learnt.Learned == "" || plain.Learned != "" {
		t.Errorf("report says learnt %q / %q", plain.Learned, learnt.Learned)
	}
	var b bytes.Buffer
	WriteTable2(&b, learnt)
	out := b.String()
	for _, want := range []string{"precision", "recall", "chars", "DRM", "MAUD_x", "all", "document", "p99"} {
		if !strings.Contains(out, want) {
			t.Errorf("Table 2 layout lacks %q:\n%s", want, out)
		}
	}
}
