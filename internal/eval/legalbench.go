// Package eval measures pakton on public benchmarks without a model:
// LegalBench-RAG retrieval (character precision and recall at k), with the
// official metric reproduced exactly, plus the diagnostics pakton cares about
// (document-level retrieval mismatch, characters returned, speed), and the
// offline review of labelled contracts against a playbook. It never imports
// the agents: the harness that needs them (ContractNLI) is eval/contractnli.
package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/pakton/pakton/internal/document"
)

// Ks are the cut-offs LegalBench-RAG reports.
var Ks = []int{1, 2, 4, 8, 16, 32, 64}

// Snippet is a ground-truth or retrieved passage: a file of the corpus and a
// code-point span of it.
type Snippet struct {
	FilePath string        `json:"file_path"`
	Span     document.Span `json:"-"`
	Answer   string        `json:"answer,omitempty"`
}

// UnmarshalJSON reads the benchmark's [start, end] span array.
func (s *Snippet) UnmarshalJSON(b []byte) error {
	var raw struct {
		FilePath string `json:"file_path"`
		Span     []int  `json:"span"`
		Answer   string `json:"answer"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw.Span) != 2 || raw.Span[0] < 0 || raw.Span[1] < raw.Span[0] {
		return fmt.Errorf("snippet of %q: span %v is not [start, end]", raw.FilePath, raw.Span)
	}
	s.FilePath, s.Answer = raw.FilePath, raw.Answer
	s.Span = document.Span{Start: raw.Span[0], End: raw.Span[1]}
	return nil
}

// Test is one benchmark query with its ground truth.
type Test struct {
	Query    string    `json:"query"`
	Snippets []Snippet `json:"snippets"`
	Category string    `json:"category,omitempty"`
}

// Benchmark is one LegalBench-RAG benchmark file.
type Benchmark struct {
	Name  string // file base name without extension, e.g. "cuad_dev"
	Tests []Test `json:"tests"`
}

// LoadBenchmark reads a LegalBench-RAG benchmark file.
func LoadBenchmark(path string) (*Benchmark, error) {
	var b Benchmark
	if err := readJSONFile(path, "benchmark", &b); err != nil {
		return nil, err
	}
	if len(b.Tests) == 0 {
		return nil, fmt.Errorf("benchmark %s: no tests", path)
	}
	for i, t := range b.Tests {
		if len(t.Snippets) == 0 {
			return nil, fmt.Errorf("benchmark %s: test %d has no ground-truth snippets", path, i)
		}
	}
	base := filepath.Base(path)
	b.Name = base[:len(base)-len(filepath.Ext(base))]
	return &b, nil
}

// readJSONFile reads the JSON file path into v; errors name the file as
// what ("benchmark", "review") and path.
func readJSONFile(path, what string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return nil
}

// WriteJSONFile writes v to path as JSON indented by indent, with a final
// newline (a benchmark file, an eval's --json report).
func WriteJSONFile(path string, v any, indent string) error {
	data, err := json.MarshalIndent(v, "", indent)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Scores holds one query's (or a mean over queries') metrics per k.
type Scores struct {
	Precision map[int]float64
	Recall    map[int]float64
	DRM       map[int]float64 // share of retrieved snippets from documents without ground truth
	Chars     map[int]float64 // characters retrieved
}

func newScores() Scores {
	return Scores{Precision: map[int]float64{}, Recall: map[int]float64{}, DRM: map[int]float64{}, Chars: map[int]float64{}}
}

// ErrOverlap is returned when a method returns overlapping spans: the
// benchmark counts such text twice, so pakton refuses to score it.
var ErrOverlap = fmt.Errorf("retrieved snippets overlap")

// ScoreQuery computes the LegalBench-RAG metrics of one query: for each k,
// precision is the share of retrieved characters that fall inside
// ground-truth spans and recall the share of ground-truth characters covered
// by the retrieved snippets. Retrieved snippets beyond the list's length are
// simply absent (a method may return fewer than k).
func ScoreQuery(truth, retrieved []Snippet) (Scores, error) {
	if err := checkOverlap(retrieved); err != nil {
		return Scores{}, err
	}
	sc := newScores()
	gt := map[string][]document.Span{}
	for _, s := range truth {
		gt[s.FilePath] = append(gt[s.FilePath], s.Span)
	}
	totalGT := 0
	for f, spans := range gt {
		gt[f] = union(spans)
		for _, sp := range gt[f] {
			totalGT += sp.Len()
		}
	}
	for _, k := range Ks {
		top := retrieved[:min(k, len(retrieved))]
		retChars, relChars, mismatched := 0, 0, 0
		covered := map[string][]document.Span{}
		for _, r := range top {
			retChars += r.Span.Len()
			spans, ok := gt[r.FilePath]
			if !ok {
				mismatched++
				continue
			}
			for _, g := range spans {
				relChars += g.Intersect(r.Span).Len()
			}
			covered[r.FilePath] = append(covered[r.FilePath], r.Span)
		}
		coveredGT := 0
		for f, spans := range covered {
			cov := union(spans)
			for _, g := range gt[f] {
				for _, c := range cov {
					coveredGT += g.Intersect(c).Len()
				}
			}
		}
		if retChars > 0 {
			sc.Precision[k] = float64(relChars) / float64(retChars)
		}
		if totalGT > 0 {
			sc.Recall[k] = float64(coveredGT) / float64(totalGT)
		}
		if len(top) > 0 {
			sc.DRM[k] = float64(mismatched) / float64(len(top))
		}
		sc.Chars[k] = float64(retChars)
	}
	return sc, nil
}

func checkOverlap(ret []Snippet) error {
	by := map[string][]document.Span{}
	for _, r := range ret {
		by[r.FilePath] = append(by[r.FilePath], r.Span)
	}
	for f, spans := range by {
		sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
		for i := 1; i < len(spans); i++ {
			if spans[i].Start < spans[i-1].End {
				return fmt.Errorf("%w: %s %v and %v", ErrOverlap, f, spans[i-1], spans[i])
			}
		}
	}
	return nil
}

// union merges overlapping or touching spans into a sorted disjoint list.
func union(spans []document.Span) []document.Span {
	s := append([]document.Span(nil), spans...)
	sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	var out []document.Span
	for _, sp := range s {
		if sp.Empty() {
			continue
		}
		if n := len(out); n > 0 && sp.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// kmap renders a per-k map with string keys, as the JSON report wants.
func kmap(m map[int]float64, scale float64) map[string]float64 {
	out := map[string]float64{}
	for _, k := range Ks {
		out[strconv.Itoa(k)] = m[k] * scale
	}
	return out
}
