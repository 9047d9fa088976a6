package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/review/detect"
)

// Review labels from a question benchmark. A LegalBench-RAG benchmark whose
// questions are templated — "Consider the Merger Agreement between "X" and
// "Y"; What is the Type of Consideration" — names in each question the deal
// point it asks about. DealPoint reads that name from the question's
// structure (the part after the document, less its question frame), and
// QuestionLabels turns the benchmark into review labels: one labelled
// contract per document, one present label per deal point asked about it,
// with every span of its snippets. A deal point no question asks about a
// document is unknown there, not absent (the benchmark samples questions).

// questionFrameWords bounds the question frame a templated question opens
// with before the deal point's name: its words up to the first article.
const questionFrameWords = 6

// DealPoint returns the deal point a templated benchmark question asks
// about: the text after the question's document part ("Consider the …;"),
// less the question frame up to its first article within the first words
// ("What is the", "Where is the", "Information about the", "Is there a")
// and a closing "clause". "Where is the No-Shop Clause" → "No-Shop".
func DealPoint(query string) string {
	q := query
	if i := questionStart(q); i >= 0 {
		q = q[i:]
	}
	q = strings.TrimSpace(q)
	words := strings.Fields(q)
	for i, w := range words[:min(len(words), questionFrameWords)] {
		switch strings.ToLower(w) {
		case "the", "a", "an":
			if i+1 < len(words) {
				q = strings.Join(words[i+1:], " ")
			}
		default:
			continue
		}
		break
	}
	q = strings.TrimRight(q, " ?.")
	if low := strings.ToLower(q); strings.HasSuffix(low, " clause") && len(q) > len(" clause") {
		q = q[:len(q)-len(" clause")]
	}
	return strings.TrimSpace(q)
}

// questionStart is where the question begins after the part naming the
// document: past the first "; " outside double quotes (a party's quoted
// name may hold one); -1 when there is none.
func questionStart(q string) int {
	inQuote := false
	for i := 0; i < len(q); i++ {
		switch {
		case q[i] == '"':
			inQuote = !inQuote
		case !inQuote && strings.HasPrefix(q[i:], "; "):
			return i + 2
		}
	}
	return -1
}

// QuestionLabels turns a templated question benchmark into review labels
// (see DealPoint). Documents are in file-path order, so folds by position
// are folds by document; a question whose snippets span several documents
// is an error.
func QuestionLabels(b *Benchmark) (*detect.Labels, error) {
	byDoc := map[string]map[string][][2]int{}
	var points []string
	for i, t := range b.Tests {
		if len(t.Snippets) == 0 {
			return nil, fmt.Errorf("benchmark %s: question %d has no snippets", b.Name, i+1)
		}
		file := t.Snippets[0].FilePath
		dp := DealPoint(t.Query)
		if dp == "" {
			return nil, fmt.Errorf("benchmark %s: question %d names no deal point: %q", b.Name, i+1, t.Query)
		}
		if !slices.Contains(points, dp) {
			points = append(points, dp)
		}
		if byDoc[file] == nil {
			byDoc[file] = map[string][][2]int{}
		}
		for _, s := range t.Snippets {
			if s.Span.End <= s.Span.Start || s.Span.Start < 0 {
				return nil, fmt.Errorf("benchmark %s: question %d: bad span [%d, %d]", b.Name, i+1, s.Span.Start, s.Span.End)
			}
			if s.FilePath != file {
				return nil, fmt.Errorf("benchmark %s: question %d has snippets in two documents (%s, %s)", b.Name, i+1, file, s.FilePath)
			}
			byDoc[file][dp] = append(byDoc[file][dp], [2]int{s.Span.Start, s.Span.End})
		}
	}
	l := &detect.Labels{}
	for _, p := range points {
		l.Provisions = append(l.Provisions, detect.LabelledProvision{Name: p})
	}
	files := make([]string, 0, len(byDoc))
	for f := range byDoc {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		d := detect.LabelledDoc{FilePath: f}
		for _, p := range points {
			spans, ok := byDoc[f][p]
			if !ok {
				continue
			}
			sort.Slice(spans, func(i, j int) bool {
				return spans[i][0] < spans[j][0] || spans[i][0] == spans[j][0] && spans[i][1] < spans[j][1]
			})
			d.Labels = append(d.Labels, detect.Label{Provision: p, Present: true, Spans: slices.Compact(spans)})
		}
		l.Documents = append(l.Documents, d)
	}
	return l, nil
}

// LoadReviewLabels reads review labels: a labels file (docs/PLAYBOOKS.md),
// or a LegalBench-RAG benchmark of templated questions ({"tests": …}),
// turned into labels by QuestionLabels.
func LoadReviewLabels(path string) (*detect.Labels, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	var probe struct {
		Tests json.RawMessage `json:"tests"`
	}
	if json.Unmarshal(data, &probe) == nil && len(probe.Tests) > 0 {
		b, err := LoadBenchmark(path)
		if err != nil {
			return nil, err
		}
		return QuestionLabels(b)
	}
	return detect.LoadLabels(path)
}
