package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

func TestDealPoint(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{`Consider the Merger Agreement between "Parent Inc." and "Target Corp."; What is the Type of Consideration`, "Type of Consideration"},
		{`Consider the Merger Agreement between "P" and "T"; Where is the No-Shop Clause`, "No-Shop"},
		{`Consider the Merger Agreement between "P" and "T"; Where is the Closing Conditions: Regulatory Approvals clause`, "Closing Conditions: Regulatory Approvals"},
		{`Consider the Acquisition Agreement between "P" and "T"; What is the Definition of "Material Adverse Effect"`, `Definition of "Material Adverse Effect"`},
		{`Consider the Merger Agreement between "P" and "T"; Is there a Tail provision for acquisition proposals`, "Tail provision for acquisition proposals"},
		{`Consider the Merger Agreement between "P" and "T"; I want information about the Limitations on Antitrust Efforts`, "Limitations on Antitrust Efforts"},
		{`Consider the Merger Agreement between "P" and "T"; What happens during a Breach of No-Shop clause`, "Breach of No-Shop"},
		{`Consider the Merger Agreement between "P; Q" and "T"; Information about the Closing Condition: No Litigation clause`, "Closing Condition: No Litigation"},
		{`Specific Performance`, "Specific Performance"},
		{`What is the governing law?`, "governing law"},
	} {
		if got := DealPoint(c.q); got != c.want {
			t.Errorf("DealPoint(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestQuestionLabels turns a small templated benchmark into labels: one
// document per file in path order, one present label per deal point asked,
// every snippet's span kept, a second question about the same deal point
// adding its spans.
func TestQuestionLabels(t *testing.T) {
	sp := func(file string, a, b int) Snippet {
		return Snippet{FilePath: file, Span: document.Span{Start: a, End: b}}
	}
	b := &Benchmark{Name: "t", Tests: []Test{
		{Query: `Consider the Merger Agreement between "P" and "T"; What is the Type of Consideration`, Snippets: []Snippet{sp("m/z.txt", 50, 90)}},
		{Query: `Consider the Merger Agreement between "P" and "T"; Where is the Specific Performance clause`, Snippets: []Snippet{sp("m/z.txt", 200, 260), sp("m/z.txt", 10, 20)}},
		{Query: `Consider the Merger Agreement between "A" and "B"; What is the Type of Consideration`, Snippets: []Snippet{sp("m/a.txt", 5, 9)}},
		{Query: `Consider the Merger Agreement between "A" and "B"; What is the Type of Consideration`, Snippets: []Snippet{sp("m/a.txt", 1, 3)}},
	}}
	l, err := QuestionLabels(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Names(); len(got) != 2 || got[0] != "Type of Consideration" || got[1] != "Specific Performance" {
		t.Fatalf("provisions %v", got)
	}
	if len(l.Documents) != 2 || l.Documents[0].FilePath != "m/a.txt" || l.Documents[1].FilePath != "m/z.txt" {
		t.Fatalf("documents %+v", l.Documents)
	}
	a := l.Documents[0]
	if len(a.Labels) != 1 || !a.Labels[0].Present || len(a.Labels[0].Spans) != 2 || a.Labels[0].Spans[0] != [2]int{1, 3} {
		t.Errorf("m/a.txt labels %+v", a.Labels)
	}
	z := l.Documents[1]
	if lb, ok := z.Label("specific performance"); !ok || len(lb.Spans) != 2 || lb.Spans[0] != [2]int{10, 20} {
		t.Errorf("m/z.txt specific performance %+v", z.Labels)
	}
	if _, ok := a.Label("Specific Performance"); ok {
		t.Error("a deal point nobody asked about a document is labelled there; want unknown")
	}
	b.Tests = append(b.Tests, Test{Query: "Q; x", Snippets: []Snippet{sp("m/a.txt", 1, 2), sp("m/z.txt", 1, 2)}})
	if _, err := QuestionLabels(b); err == nil {
		t.Error("a question over two documents is accepted")
	}
}

// TestLoadReviewLabelsBenchmark reads a benchmark file as labels.
func TestLoadReviewLabelsBenchmark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	os.WriteFile(path, []byte(`{"tests": [{"query": "Consider the Merger Agreement between \"P\" and \"T\"; Where is the No-Shop Clause", "snippets": [{"file_path": "maud/x.txt", "span": [3, 8]}]}]}`), 0o644)
	l, err := LoadReviewLabels(path)
	if err != nil {
		t.Fatal(err)
	}
	if lb, ok := l.Documents[0].Label("No-Shop"); !ok || lb.Spans[0] != [2]int{3, 8} {
		t.Errorf("labels %+v", l)
	}
}
