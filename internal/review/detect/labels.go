package detect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// Labels are a review's ground truth: for each contract and each labelled
// provision, whether it is there and every span that holds it. The format
// is CUAD's review labels (../shared/data/cuad/review_dev.json):
//
//	{"provisions": [{"name", "description", "answer_format"}],
//	 "documents": [{"file_path", "labels": [{"provision", "present",
//	                "spans": [[start, end], …], "answer"}]}]}
//
// Spans are code points of the contract's text, end exclusive. A provision
// a document has no label for is unknown there, not absent.
type Labels struct {
	Provisions []LabelledProvision `json:"provisions"`
	Documents  []LabelledDoc       `json:"documents"`
}

// LabelledProvision names a provision the labels cover.
type LabelledProvision struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	AnswerFormat string `json:"answer_format,omitempty"`
}

// LabelledDoc is one contract's labels. FilePath is relative to the corpus
// directory the labels go with.
type LabelledDoc struct {
	FilePath string  `json:"file_path"`
	Labels   []Label `json:"labels"`
}

// Label is one contract × provision.
type Label struct {
	Provision string   `json:"provision"`
	Present   bool     `json:"present"`
	Spans     [][2]int `json:"spans,omitempty"`
	Answer    string   `json:"answer,omitempty"`
}

// LoadLabels reads and checks a labels file.
func LoadLabels(path string) (*Labels, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	var l Labels
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("labels %s: %w", path, err)
	}
	if len(l.Documents) == 0 {
		return nil, fmt.Errorf("labels %s: no documents", path)
	}
	for i, d := range l.Documents {
		if d.FilePath == "" {
			return nil, fmt.Errorf("labels %s: document %d has no file_path", path, i+1)
		}
		if filepath.IsAbs(d.FilePath) || strings.Contains(filepath.ToSlash(d.FilePath), "../") {
			return nil, fmt.Errorf("labels %s: document %d: file_path %q must be relative to the corpus directory", path, i+1, d.FilePath)
		}
		for _, lb := range d.Labels {
			if lb.Provision == "" {
				return nil, fmt.Errorf("labels %s: %s: a label has no provision", path, d.FilePath)
			}
			for _, sp := range lb.Spans {
				if sp[0] < 0 || sp[1] <= sp[0] {
					return nil, fmt.Errorf("labels %s: %s: %s: bad span [%d, %d]", path, d.FilePath, lb.Provision, sp[0], sp[1])
				}
			}
			if lb.Present && len(lb.Spans) == 0 {
				return nil, fmt.Errorf("labels %s: %s: %s is present but has no spans", path, d.FilePath, lb.Provision)
			}
		}
	}
	return &l, nil
}

// Names returns the provisions the labels cover: those listed, else those
// used by some label, in order of first use.
func (l *Labels) Names() []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		k := strings.ToLower(n)
		if !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	for _, p := range l.Provisions {
		add(p.Name)
	}
	for _, d := range l.Documents {
		for _, lb := range d.Labels {
			add(lb.Provision)
		}
	}
	return out
}

// Covers reports whether the labels hold the provision (case-insensitive).
func (l *Labels) Covers(name string) bool {
	for _, n := range l.Names() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// Label returns d's label for a provision (case-insensitive), if any.
func (d *LabelledDoc) Label(name string) (*Label, bool) {
	for i := range d.Labels {
		if strings.EqualFold(d.Labels[i].Provision, name) {
			return &d.Labels[i], true
		}
	}
	return nil, false
}

// Hits reports whether a passage belongs to a labelled provision, for
// training: it covers at least half of a labelled span, or at least half of
// the passage lies inside one (a piece of a long provision).
func Hits(ex document.Span, spans [][2]int) bool {
	for _, sp := range spans {
		lo, hi := max(ex.Start, sp[0]), min(ex.End, sp[1])
		if hi <= lo {
			continue
		}
		ov := hi - lo
		if 2*ov >= sp[1]-sp[0] || 2*ov >= ex.End-ex.Start {
			return true
		}
	}
	return false
}

// Covers reports whether the extracts returned for a cell find the
// provision, by the rule of the review benchmark: together they cover at
// least half of the characters of one labelled span.
func Covers(extracts []document.Span, spans [][2]int) bool {
	for _, sp := range spans {
		covered := 0
		// The extracts do not overlap each other (they are distinct
		// passages), so their overlaps with the span add up.
		for _, ex := range extracts {
			lo, hi := max(ex.Start, sp[0]), min(ex.End, sp[1])
			if hi > lo {
				covered += hi - lo
			}
		}
		if 2*covered >= sp[1]-sp[0] {
			return true
		}
	}
	return false
}
