// Package contractnli is the ContractNLI harness (pakton eval contractnli):
// it reads the dataset in its own JSON format, asks the agents (the
// Researcher, or the whole Archivist/Interrogator loop) to label each
// (contract, hypothesis) pair Entailment, Contradiction or NotMentioned, and
// scores the labels as the paper's Table 1 does. It is the only harness that
// needs the agents and a model server, so it lives apart from the retrieval
// and review harnesses of package eval, which measure without either.
package contractnli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// Label is a ContractNLI label: whether a contract entails a hypothesis,
// contradicts it, or does not mention it (the paper's "neutral").
type Label string

// The ContractNLI labels, spelled as the dataset spells them.
const (
	Entailment    Label = "Entailment"
	Contradiction Label = "Contradiction"
	NotMentioned  Label = "NotMentioned"
)

// Labels lists the labels in the order the paper's Table 1 reports them.
var Labels = []Label{Entailment, Contradiction, NotMentioned}

// Class is the label's name in reports, as in the paper's Table 1:
// "entailment", "contradiction" and "neutral" (NotMentioned).
func (l Label) Class() string {
	switch l {
	case Entailment:
		return "entailment"
	case Contradiction:
		return "contradiction"
	case NotMentioned:
		return "neutral"
	}
	return string(l)
}

func (l Label) valid() bool { return l == Entailment || l == Contradiction || l == NotMentioned }

// Dataset is a ContractNLI file: NDAs, the hypotheses, and each NDA's
// label for each hypothesis.
type Dataset struct {
	Documents  []Document
	Hypotheses []Hypothesis // sorted by number: nda-1, nda-2, …, nda-20
}

// Hypothesis is one of the dataset's hypotheses.
type Hypothesis struct {
	Key   string // "nda-11"
	Text  string // "Receiving Party shall not reverse engineer …"
	Short string // "No reverse engineering"
}

// Document is one NDA with its annotations.
type Document struct {
	ID       int    // the dataset's document id
	FileName string // the dataset's file name, used as the document's name
	Text     string
	// Spans are the dataset's sentence-level spans of Text (code points,
	// end exclusive); annotations cite them by index.
	Spans []document.Span
	// Annotations maps a hypothesis key to its label and evidence (the
	// first annotation set of the document).
	Annotations map[string]Annotation
}

// Annotation is a document's label for one hypothesis.
type Annotation struct {
	Choice Label
	// Evidence are the spans of the document that justify the label
	// (none for NotMentioned).
	Evidence []document.Span
}

// Pair is one (document, hypothesis) example to classify.
type Pair struct {
	Doc        int // index into Dataset.Documents
	Hypothesis Hypothesis
	Gold       Label
	Evidence   []document.Span
}

// nliFile is the dataset's own JSON format.
type nliFile struct {
	Documents []struct {
		ID             *int    `json:"id"`
		FileName       string  `json:"file_name"`
		Text           *string `json:"text"`
		Spans          [][]int `json:"spans"`
		AnnotationSets []struct {
			Annotations map[string]struct {
				Choice string `json:"choice"`
				Spans  []int  `json:"spans"`
			} `json:"annotations"`
		} `json:"annotation_sets"`
	} `json:"documents"`
	Labels map[string]struct {
		Hypothesis       string `json:"hypothesis"`
		ShortDescription string `json:"short_description"`
	} `json:"labels"`
}

// Load reads a ContractNLI file in the dataset's own format
// (documents[].text, .spans, .annotation_sets[].annotations, labels) and
// checks it: every annotation names a known hypothesis and a known label,
// and cites spans that exist and lie inside the text.
func Load(path string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("contractnli: %w", err)
	}
	d, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("contractnli %s: %w", path, err)
	}
	return d, nil
}

// Parse reads a ContractNLI dataset from its JSON bytes (see Load).
func Parse(data []byte) (*Dataset, error) {
	var f nliFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a ContractNLI file: %w", err)
	}
	if len(f.Labels) == 0 {
		return nil, errors.New(`no hypotheses: the "labels" object is missing or empty`)
	}
	if len(f.Documents) == 0 {
		return nil, errors.New(`no documents: the "documents" array is missing or empty`)
	}
	ds := &Dataset{}
	for key, l := range f.Labels {
		if strings.TrimSpace(l.Hypothesis) == "" {
			return nil, fmt.Errorf("hypothesis %s: empty \"hypothesis\" text", key)
		}
		ds.Hypotheses = append(ds.Hypotheses, Hypothesis{Key: key, Text: strings.TrimSpace(l.Hypothesis), Short: l.ShortDescription})
	}
	sort.Slice(ds.Hypotheses, func(i, j int) bool { return hypLess(ds.Hypotheses[i].Key, ds.Hypotheses[j].Key) })

	seen := map[int]bool{}
	for i, fd := range f.Documents {
		where := fmt.Sprintf("document %d", i)
		if fd.FileName != "" {
			where += " (" + fd.FileName + ")"
		}
		if fd.ID == nil {
			return nil, fmt.Errorf("%s: no \"id\"", where)
		}
		if seen[*fd.ID] {
			return nil, fmt.Errorf("%s: id %d used twice", where, *fd.ID)
		}
		seen[*fd.ID] = true
		if fd.Text == nil || strings.TrimSpace(*fd.Text) == "" {
			return nil, fmt.Errorf("%s: no \"text\"", where)
		}
		if !utf8.ValidString(*fd.Text) {
			return nil, fmt.Errorf("%s: text is not valid UTF-8", where)
		}
		n := utf8.RuneCountInString(*fd.Text)
		doc := Document{ID: *fd.ID, FileName: fd.FileName, Text: *fd.Text, Annotations: map[string]Annotation{}}
		if doc.FileName == "" {
			doc.FileName = "contractnli-" + strconv.Itoa(doc.ID)
		}
		for j, sp := range fd.Spans {
			if len(sp) != 2 || sp[0] < 0 || sp[1] < sp[0] || sp[1] > n {
				return nil, fmt.Errorf("%s: span %d is %v, not [start, end] within the text's %d characters", where, j, sp, n)
			}
			doc.Spans = append(doc.Spans, document.Span{Start: sp[0], End: sp[1]})
		}
		if len(fd.AnnotationSets) == 0 {
			return nil, fmt.Errorf("%s: no \"annotation_sets\"", where)
		}
		for key, a := range fd.AnnotationSets[0].Annotations {
			if _, ok := f.Labels[key]; !ok {
				return nil, fmt.Errorf("%s: annotation %q names no hypothesis of \"labels\"", where, key)
			}
			choice := Label(a.Choice)
			if !choice.valid() {
				return nil, fmt.Errorf("%s: annotation %s: choice %q is not Entailment, Contradiction or NotMentioned", where, key, a.Choice)
			}
			ann := Annotation{Choice: choice}
			for _, si := range a.Spans {
				if si < 0 || si >= len(doc.Spans) {
					return nil, fmt.Errorf("%s: annotation %s cites span %d; the document has %d spans", where, key, si, len(doc.Spans))
				}
				ann.Evidence = append(ann.Evidence, doc.Spans[si])
			}
			doc.Annotations[key] = ann
		}
		ds.Documents = append(ds.Documents, doc)
	}
	return ds, nil
}

// hypLess orders hypothesis keys by their number ("nda-2" before
// "nda-10"), then by name.
func hypLess(a, b string) bool {
	na, oka := keyNumber(a)
	nb, okb := keyNumber(b)
	if oka && okb && na != nb {
		return na < nb
	}
	if oka != okb {
		return oka
	}
	return a < b
}

func keyNumber(k string) (int, bool) {
	i := strings.LastIndexAny(k, "-_")
	n, err := strconv.Atoi(k[i+1:])
	return n, err == nil
}

// Pairs returns every annotated (document, hypothesis) pair, documents in
// file order and, within a document, hypotheses by number. A run with
// --limit N takes the first N of them.
func (d *Dataset) Pairs() []Pair {
	var out []Pair
	for i, doc := range d.Documents {
		for _, h := range d.Hypotheses {
			a, ok := doc.Annotations[h.Key]
			if !ok {
				continue
			}
			out = append(out, Pair{Doc: i, Hypothesis: h, Gold: a.Choice, Evidence: a.Evidence})
		}
	}
	return out
}

// Scores are the classification metrics of the paper's Table 1, as
// percentages (0–100), plus the confusion matrix and class counts.
type Scores struct {
	N        int     `json:"n"` // pairs scored
	Accuracy float64 `json:"accuracy"`
	// WeightedF1 is the mean of the per-class F1 weighted by each class's
	// support (its number of gold examples), as scikit-learn's
	// f1_score(average="weighted").
	WeightedF1 float64            `json:"weighted_f1"`
	F1         map[string]float64 `json:"f1"` // by class: entailment, contradiction, neutral
	Precision  map[string]float64 `json:"precision"`
	Recall     map[string]float64 `json:"recall"`
	// Confusion counts pairs by gold class (outer key) and predicted class
	// (inner key).
	Confusion map[string]map[string]int `json:"confusion"`
	Gold      map[string]int            `json:"gold"`      // support: gold examples per class
	Predicted map[string]int            `json:"predicted"` // predictions per class
}

// Score scores predictions against gold labels (same length, same
// order). Precision, recall or F1 whose denominator is zero — a class
// never predicted, or absent from the gold labels — is 0, as scikit-learn
// reports with zero_division=0; a class absent from the gold labels has no
// weight in WeightedF1.
func Score(gold, pred []Label) (Scores, error) {
	if len(gold) != len(pred) {
		return Scores{}, fmt.Errorf("contractnli: %d gold labels but %d predictions", len(gold), len(pred))
	}
	s := Scores{N: len(gold), F1: map[string]float64{}, Precision: map[string]float64{}, Recall: map[string]float64{},
		Confusion: map[string]map[string]int{}, Gold: map[string]int{}, Predicted: map[string]int{}}
	for _, g := range Labels {
		s.Confusion[g.Class()] = map[string]int{}
		for _, p := range Labels {
			s.Confusion[g.Class()][p.Class()] = 0
		}
		s.Gold[g.Class()], s.Predicted[g.Class()] = 0, 0
	}
	correct := 0
	for i := range gold {
		if !gold[i].valid() {
			return Scores{}, fmt.Errorf("contractnli: gold label %d is %q", i, gold[i])
		}
		if !pred[i].valid() {
			return Scores{}, fmt.Errorf("contractnli: prediction %d is %q", i, pred[i])
		}
		s.Confusion[gold[i].Class()][pred[i].Class()]++
		s.Gold[gold[i].Class()]++
		s.Predicted[pred[i].Class()]++
		if gold[i] == pred[i] {
			correct++
		}
	}
	if s.N == 0 {
		for _, l := range Labels {
			s.F1[l.Class()], s.Precision[l.Class()], s.Recall[l.Class()] = 0, 0, 0
		}
		return s, nil
	}
	s.Accuracy = 100 * float64(correct) / float64(s.N)
	for _, l := range Labels {
		c := l.Class()
		tp := s.Confusion[c][c]
		p, r := ratio(tp, s.Predicted[c]), ratio(tp, s.Gold[c])
		f1 := 0.0
		if p+r > 0 {
			f1 = 2 * p * r / (p + r)
		}
		s.Precision[c], s.Recall[c], s.F1[c] = 100*p, 100*r, 100*f1
		s.WeightedF1 += 100 * f1 * float64(s.Gold[c]) / float64(s.N)
	}
	return s, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
