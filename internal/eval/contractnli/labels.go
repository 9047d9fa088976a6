package contractnli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/detect"
)

// Review labels: ContractNLI's NDAs as a review benchmark for a user's own
// playbook. A map names, for each provision of the playbook, the
// hypotheses that label it; an NDA whose evidence entails one of them has
// the provision, with the evidence spans as its spans; a contradiction (a
// clause that excludes the provision) and "not mentioned" are absent.

// NLIMap is the hypotheses that label each provision.
type NLIMap struct {
	Note       string              `json:"note,omitempty"`
	Provisions map[string][]string `json:"provisions"`
}

// NLILabelsReport says what WriteNLILabels wrote.
type NLILabelsReport struct {
	Labels    string         `json:"labels"`
	Corpus    string         `json:"corpus"`
	Documents int            `json:"documents"`
	Present   map[string]int `json:"present"`  // per provision
	Excluded  map[string]int `json:"excluded"` // contradictions: clauses that exclude the provision
}

// WriteReviewLabels reads a ContractNLI file and a map, and writes into outDir
// the NDAs' texts (corpus/nda-<id>.txt) and a labels file (labels.json)
// whose file paths are relative to that corpus.
func WriteReviewLabels(ctx context.Context, dataPath, mapPath, outDir string) (*NLILabelsReport, error) {
	ds, err := Load(dataPath)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(mapPath)
	if err != nil {
		return nil, fmt.Errorf("nli labels: %w", err)
	}
	var m NLIMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("nli labels: map %s: %w", mapPath, err)
	}
	if len(m.Provisions) == 0 {
		return nil, fmt.Errorf("nli labels: map %s names no provision", mapPath)
	}
	known := map[string]bool{}
	for _, h := range ds.Hypotheses {
		known[h.Key] = true
	}
	names := make([]string, 0, len(m.Provisions))
	for name, hyps := range m.Provisions {
		for _, h := range hyps {
			if !known[h] {
				return nil, fmt.Errorf("nli labels: map %s: provision %q: %s has no hypothesis %q", mapPath, name, dataPath, h)
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	corpus := filepath.Join(outDir, "corpus")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		return nil, fmt.Errorf("nli labels: %w", err)
	}
	rep := &NLILabelsReport{Labels: filepath.Join(outDir, "labels.json"), Corpus: corpus, Present: map[string]int{}, Excluded: map[string]int{}}
	labels := detect.Labels{}
	for _, name := range names {
		labels.Provisions = append(labels.Provisions, detect.LabelledProvision{Name: name, AnswerFormat: "Yes/No",
			Description: "ContractNLI " + strings.Join(m.Provisions[name], ", ")})
	}
	for _, d := range ds.Documents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		file := fmt.Sprintf("nda-%d.txt", d.ID)
		if err := atomicfile.Write(filepath.Join(corpus, file), []byte(d.Text), 0o644); err != nil {
			return nil, fmt.Errorf("nli labels: %w", err)
		}
		// the labels' spans are code points of the text as pakton reads
		// the file: refuse a file whose text it would read otherwise
		doc, err := parse.Bytes(ctx, file, []byte(d.Text), parse.Options{})
		if err != nil {
			return nil, fmt.Errorf("nli labels: %s: %w", file, err)
		}
		if doc.Text != d.Text {
			return nil, fmt.Errorf("nli labels: %s: pakton reads the text of NDA %d differently from the dataset (its spans would not fit)", file, d.ID)
		}
		ld := detect.LabelledDoc{FilePath: file}
		for _, name := range names {
			lb := detect.Label{Provision: name, Answer: "No"}
			excluded := false
			for _, h := range m.Provisions[name] {
				a, ok := d.Annotations[h]
				if !ok {
					continue
				}
				switch a.Choice {
				case Entailment:
					lb.Present, lb.Answer = true, "Yes"
					for _, sp := range a.Evidence {
						lb.Spans = append(lb.Spans, [2]int{sp.Start, sp.End})
					}
				case Contradiction:
					excluded = true
				}
			}
			if lb.Present {
				rep.Present[name]++
			} else if excluded {
				rep.Excluded[name]++
			}
			ld.Labels = append(ld.Labels, lb)
		}
		labels.Documents = append(labels.Documents, ld)
	}
	rep.Documents = len(labels.Documents)
	out, err := json.MarshalIndent(labels, "", " ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(rep.Labels, out, 0o644); err != nil {
		return nil, fmt.Errorf("nli labels: %w", err)
	}
	return rep, nil
}
