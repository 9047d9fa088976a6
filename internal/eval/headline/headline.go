// Package headline holds pakton's headline numbers: the file the
// measurement script writes (docs/numbers.json, by go run ./scripts/numbers),
// its rendering into the README and docs/EVALUATION.md, and the fingerprint
// of the tuned constants the numbers were measured with.
//
// The numbers are never typed by hand: the script runs the documented
// commands on a committed tree, records the commit, and renders the tables
// between markers in the two pages. A test in docs/ renders them again from
// the file and fails when a page differs, and computes the fingerprint of
// the code and fails when it no longer matches the file's — so a page cannot
// show numbers the file does not hold, and the file cannot outlive the
// constants it was measured with.
package headline

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Numbers is docs/numbers.json.
type Numbers struct {
	// Commit is the commit measured (git rev-parse HEAD of a clean tree),
	// Measured the day it was measured (YYYY-MM-DD, UTC).
	Commit   string `json:"commit"`
	Measured string `json:"measured"`
	// Fingerprint is Fingerprint(Constants); Constants the declarations of
	// the tuned constants docs/EVALUATION.md's "What was chosen on which
	// set" names, as the code held them.
	Fingerprint string            `json:"fingerprint"`
	Constants   map[string]string `json:"constants"`
	// Retrieval holds one entry a LegalBench-RAG benchmark run.
	Retrieval []Subset `json:"retrieval"`
	Review    Review   `json:"review"`
	// Commands are the commands that measured the numbers, in order, with
	// the data directory written as $DATA.
	Commands []string `json:"commands"`
}

// Subset is one benchmark's scores in one run.
type Subset struct {
	// Key names the run and benchmark ("cuad", "cuad-words", "contractnli",
	// "maud", "privacyqa", "cuad-newtypes", "cuad-paraphrased").
	Key        string `json:"key"`
	Benchmark  string `json:"benchmark"` // the file's name without .json
	Queries    int    `json:"queries"`
	Scope      string `json:"scope"`     // corpus or document
	Documents  int    `json:"documents"` // documents in the index searched
	Provisions string `json:"provisions"`
	// Recall and Precision are LegalBench-RAG's, in percent, by k.
	Recall    map[string]float64 `json:"recall"`
	Precision map[string]float64 `json:"precision"`
	// Chars is the mean number of characters returned and DRM the share of
	// snippets from a document holding no answer, in percent, by k.
	Chars map[string]float64 `json:"chars,omitempty"`
	DRM   map[string]float64 `json:"drm,omitempty"`
	// QueryMsP50 and QueryMsP99 are the run's query latencies in process,
	// on the machine that measured them.
	QueryMsP50 float64 `json:"query_ms_p50,omitempty"`
	QueryMsP99 float64 `json:"query_ms_p99,omitempty"`
	// Quotes, FirstElsewhere, ProvisionTop1, ShortTop1 and MidTokenTop1
	// are first-hit diagnostics, percent of queries: the first hit covers
	// at least half of an answer, comes from a document holding none, was
	// found by the review detectors, is under 40 characters, starts inside
	// a word or clause number.
	Quotes         float64 `json:"quotes_answer_at_1,omitempty"`
	FirstElsewhere float64 `json:"first_hit_elsewhere,omitempty"`
	ProvisionTop1  float64 `json:"provision_top1,omitempty"`
	ShortTop1      float64 `json:"short_top1,omitempty"`
	MidTokenTop1   float64 `json:"mid_token_top1,omitempty"`
	// Command is the index of the command in Numbers.Commands.
	Command int `json:"command"`
}

// Review is the offline review's scores, detectors cross-validated.
type Review struct {
	Contracts int     `json:"contracts"`
	Cells     int     `json:"cells"`
	Folds     int     `json:"folds"`
	MicroP    float64 `json:"micro_precision"`
	MicroR    float64 `json:"micro_recall"`
	MicroF1   float64 `json:"micro_f1"`
	MacroF1   float64 `json:"macro_f1"`
	AUPR      float64 `json:"aupr"`
	PAt80R    float64 `json:"p_at_80_recall"`
	// Values and ValuesRight count the development contracts' answers (the
	// held-out quarter is reported at release time only).
	Values      int `json:"values"`
	ValuesRight int `json:"values_right"`
	Command     int `json:"command"`
}

// Subset returns the entry with the key, and whether there is one.
func (n *Numbers) Subset(key string) (Subset, bool) {
	for _, s := range n.Retrieval {
		if s.Key == key {
			return s, true
		}
	}
	return Subset{}, false
}

// Load reads a numbers file.
func Load(path string) (*Numbers, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("headline numbers: %w", err)
	}
	var n Numbers
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("headline numbers %s: %w", path, err)
	}
	if n.Commit == "" || len(n.Retrieval) == 0 {
		return nil, fmt.Errorf("headline numbers %s: no commit or no retrieval numbers", path)
	}
	return &n, nil
}

// Write writes a numbers file, indented, with a final newline.
func Write(path string, n *Numbers) error {
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return fmt.Errorf("headline numbers: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("headline numbers: %w", err)
	}
	return nil
}

// Markers around a rendered block; the text between them is replaced
// whole. A page may hold several blocks, each with a name ("" for the
// headline table): <!-- numbers NAME: begin … --> … <!-- numbers NAME: end -->.
func markers(name string) (begin, end string) {
	tag := "numbers"
	if name != "" {
		tag += " " + name
	}
	return "<!-- " + tag + ": begin (rendered from docs/numbers.json by go run ./scripts/numbers; do not edit) -->",
		"<!-- " + tag + ": end -->"
}

// Block returns the headline block held between the markers of a page.
func Block(page string) (string, error) { return NamedBlock(page, "") }

// Splice returns the page with its headline block replaced by body.
func Splice(page, body string) (string, error) { return SpliceNamed(page, "", body) }

// NamedBlock returns the block of that name held between its markers.
func NamedBlock(page, name string) (string, error) {
	begin, end := markers(name)
	i := strings.Index(page, begin)
	j := strings.Index(page, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no numbers block %q (the markers %q … %q)", name, begin, end)
	}
	return page[i+len(begin) : j], nil
}

// SpliceNamed returns the page with the block of that name replaced by
// body.
func SpliceNamed(page, name, body string) (string, error) {
	begin, end := markers(name)
	i := strings.Index(page, begin)
	j := strings.Index(page, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no numbers block %q (the markers %q … %q)", name, begin, end)
	}
	if strings.Contains(page[j+len(end):], begin) {
		return "", fmt.Errorf("more than one numbers block %q", name)
	}
	return page[:i+len(begin)] + body + page[j:], nil
}

// A Rendered is one block of a page and how it is rendered.
type Rendered struct {
	Name   string // "" for the headline table
	Render func(*Numbers) (string, error)
}

// Pages are the pages holding rendered numbers, by path from the
// repository root, with their blocks in the order they appear.
var Pages = []struct {
	File   string
	Blocks []Rendered
}{
	{"README.md", []Rendered{{"", README}}},
	{"docs/EVALUATION.md", []Rendered{{"", Evaluation}, {"table2", Table2}, {"sets", Sets}}},
}
