package eval

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// Held-out evaluation sets: questions pakton was not tuned on, built
// reproducibly from the development data and question files written by the
// team (questions/*.json, embedded). They measure what the dev benchmark
// cannot: new question types, the same questions in a lawyer's own words, and
// routing of questions that name no contract.

//go:embed questions/*.json
var questionFiles embed.FS

// questionFile reads one embedded question file into v.
func questionFile(name string, v any) error {
	data, err := questionFiles.ReadFile("questions/" + name)
	if err != nil {
		return fmt.Errorf("eval: question file %s: %w", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("eval: question file %s: %w", name, err)
	}
	return nil
}

// questionsIn reads the "questions" member of one embedded question file.
func questionsIn[T any](name string) (T, error) {
	var f struct {
		Questions T `json:"questions"`
	}
	if err := questionFile(name, &f); err != nil {
		var none T
		return none, err
	}
	return f.Questions, nil
}

// UnnamedQuestions returns the plain questions that name no contract
// (questions/no_contract.json): routing should narrow none of them.
func UnnamedQuestions() ([]string, error) {
	return questionsIn[[]string]("no_contract.json")
}

// Paraphrase rewrites every query of a CUAD benchmark ("Consider the
// <title>; <question>") with the team's plain-language rewrite of its
// question (questions/paraphrased.json). A query whose question has no
// rewrite is an error, so a changed benchmark cannot be half paraphrased.
func Paraphrase(b *Benchmark) (*Benchmark, error) {
	var f struct {
		Rewrites map[string]string `json:"rewrites"`
	}
	if err := questionFile("paraphrased.json", &f); err != nil {
		return nil, err
	}
	out := &Benchmark{Name: b.Name + "_paraphrased"}
	for _, t := range b.Tests {
		title, question, ok := strings.Cut(t.Query, "; ")
		if !ok {
			return nil, fmt.Errorf("eval: %s: query %q has no \"; \" after its title", b.Name, t.Query)
		}
		re, ok := f.Rewrites[strings.TrimSpace(question)]
		if !ok {
			return nil, fmt.Errorf("eval: %s: no rewrite for question %q", b.Name, question)
		}
		t.Query = title + "; " + re
		out.Tests = append(out.Tests, t)
	}
	return out, nil
}

// Review is the CUAD review benchmark (review_dev.json): per document and
// provision, whether the provision is present and the spans of its quotes.
type Review struct {
	Documents []ReviewDoc `json:"documents"`
}

// ReviewDoc is one labelled document of the review benchmark.
type ReviewDoc struct {
	FilePath string        `json:"file_path"`
	Labels   []ReviewLabel `json:"labels"`
}

// ReviewLabel is one provision's label in a document.
type ReviewLabel struct {
	Provision string  `json:"provision"`
	Present   bool    `json:"present"`
	Spans     [][]int `json:"spans"`
	Answer    string  `json:"answer"`
}

// eachQuoted reads d's text from corpus and calls add, provision by
// provision in the order given, for every label marking one of provisions
// present with at least one quote, with its ground truth (quoteSnippets).
func (d ReviewDoc) eachQuoted(corpus string, provisions []string, add func(p string, l ReviewLabel, snips []Snippet)) error {
	data, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(d.FilePath)))
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	text := []rune(string(data))
	for _, p := range provisions {
		for _, l := range d.Labels {
			if !strings.EqualFold(l.Provision, p) || !l.Present {
				continue
			}
			snips, err := quoteSnippets(d.FilePath, text, l.Spans)
			if err != nil {
				return err
			}
			if len(snips) > 0 {
				add(p, l, snips)
			}
		}
	}
	return nil
}

// NewTypes builds a benchmark in LegalBench-RAG's CUAD format for the
// provisions of questions/new_types.json that the dev benchmark b never asks
// about: one query per document where the provision is present, titled as b
// titles that document ("Consider the <title>; <question>"). review_dev.json
// lists every occurrence of every annotated quote; the ground truth keeps the
// first occurrence of each distinct quote, where an annotator reads it.
// corpus is the benchmark's corpus directory (to read the quotes).
func NewTypes(b *Benchmark, review *Review, corpus string) (*Benchmark, error) {
	questions, err := questionsIn[map[string]string]("new_types.json")
	if err != nil {
		return nil, err
	}
	asked := map[string]bool{}
	titles := map[string]string{}
	for _, t := range b.Tests {
		asked[strings.ToLower(t.Category)] = true
		if title, _, ok := strings.Cut(t.Query, "; "); ok {
			titles[t.Snippets[0].FilePath] = title
		}
	}
	provisions := make([]string, 0, len(questions))
	for p := range questions {
		if asked[strings.ToLower(p)] {
			return nil, fmt.Errorf("eval: new_types.json: %q is asked by %s, so it is not a new type", p, b.Name)
		}
		provisions = append(provisions, p)
	}
	sort.Strings(provisions)
	out := &Benchmark{Name: b.Name + "_newtypes"}
	for _, d := range review.Documents {
		title, ok := titles[d.FilePath]
		if !ok {
			continue
		}
		err := d.eachQuoted(corpus, provisions, func(p string, l ReviewLabel, snips []Snippet) {
			out.Tests = append(out.Tests, Test{Query: title + "; " + questions[p], Snippets: snips, Category: l.Provision})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out.Tests) == 0 {
		return nil, fmt.Errorf("eval: no review document of %s is in the benchmark", b.Name)
	}
	return out, nil
}

// quoteSnippets returns the ground truth of a labelled provision: the first
// occurrence of each distinct quote among its spans (review_dev.json lists
// every occurrence of every annotated quote), where an annotator reads it.
func quoteSnippets(file string, text []rune, spans [][]int) ([]Snippet, error) {
	seen := map[string]bool{}
	var snips []Snippet
	for _, s := range spans {
		if len(s) != 2 || s[0] < 0 || s[1] <= s[0] || s[1] > len(text) {
			return nil, fmt.Errorf("eval: review: %s: span %v outside the document", file, s)
		}
		q := string(text[s[0]:s[1]])
		if seen[q] {
			continue
		}
		seen[q] = true
		snips = append(snips, Snippet{FilePath: file, Span: document.Span{Start: s[0], End: s[1]}})
	}
	return snips, nil
}

// LoadReview reads review_dev.json.
func LoadReview(path string) (*Review, error) {
	var r Review
	if err := readJSONFile(path, "review", &r); err != nil {
		return nil, err
	}
	if len(r.Documents) == 0 {
		return nil, fmt.Errorf("review %s: no documents", path)
	}
	return &r, nil
}

// WriteBenchmark writes b in LegalBench-RAG's format.
func WriteBenchmark(path string, b *Benchmark) error {
	type snip struct {
		FilePath string `json:"file_path"`
		Span     [2]int `json:"span"`
	}
	type test struct {
		Query    string `json:"query"`
		Category string `json:"category,omitempty"`
		Snippets []snip `json:"snippets"`
	}
	out := struct {
		Tests []test `json:"tests"`
	}{}
	for _, t := range b.Tests {
		tt := test{Query: t.Query, Category: t.Category}
		for _, s := range t.Snippets {
			tt.Snippets = append(tt.Snippets, snip{s.FilePath, [2]int{s.Span.Start, s.Span.End}})
		}
		out.Tests = append(out.Tests, tt)
	}
	return WriteJSONFile(path, out, " ")
}
