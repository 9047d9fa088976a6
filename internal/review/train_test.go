package review_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The synthetic deal room: contracts of filler clauses; some hold a
// "frobnicator deposit" clause written in words the playbook's definition
// never uses, so only a trained detector can find it.
const synthPlaybook = `name: synthetic
provisions:
  - name: Material Deposit
    definition: An arrangement under which one side places something with a third person to be released on conditions.
    answer: yes_no
  - name: Governing Law
    definition: Which jurisdiction's law governs the contract.
    keywords: ["governed by the laws of"]
    answer: jurisdiction
`

var fillerWords = strings.Fields(`the supplier customer shall provide services goods under this agreement within days
of receipt notice writing party parties payment invoice price delivery quality product warranty records term
period reasonable efforts obligations performance schedule order purchase accept reject return account report`)

func sentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fillerWords[rng.IntN(len(fillerWords))]
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + "."
}

// synthCorpus writes n contracts into dir and returns their labels.
func synthCorpus(t *testing.T, dir string, n int, seed uint64) *detect.Labels {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	labels := &detect.Labels{Provisions: []detect.LabelledProvision{{Name: "Material Deposit"}, {Name: "Governing Law"}}}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "SUPPLY AGREEMENT %d\n\n", i)
		has := i%2 == 0
		at := 2 + rng.IntN(4)
		var span [2]int
		for s := 1; s <= 7; s++ {
			if has && s == at {
				fmt.Fprintf(&b, "%d. %s\n\n", s, strings.Title(fillerWords[rng.IntN(len(fillerWords))]))
				start := utf8.RuneCountInString(b.String())
				fmt.Fprintf(&b, "%s The Depositary shall keep the frobnicator materials in safekeeping and hand them over when the trigger occurs. %s\n\n", sentence(rng, 10), sentence(rng, 10))
				span = [2]int{start, utf8.RuneCountInString(b.String()) - 2}
				continue
			}
			fmt.Fprintf(&b, "%d. %s\n\n%s %s %s\n\n", s, strings.Title(fillerWords[rng.IntN(len(fillerWords))]), sentence(rng, 12), sentence(rng, 10), sentence(rng, 14))
		}
		// A decoy in every contract, in the definition's own words.
		b.WriteString("8. Records\n\nEach side places something with a third person under an arrangement on conditions of its choosing, and records are released on request.\n\n")
		b.WriteString("9. Law\n\n")
		lawStart := utf8.RuneCountInString(b.String())
		b.WriteString("This agreement is governed by the laws of the State of Delaware.\n")
		law := [2]int{lawStart, utf8.RuneCountInString(b.String()) - 1}
		name := fmt.Sprintf("c%03d.txt", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		lb := detect.Label{Provision: "Material Deposit", Present: has}
		if has {
			lb.Spans = [][2]int{span}
		}
		labels.Documents = append(labels.Documents, detect.LabelledDoc{FilePath: name, Labels: []detect.Label{lb,
			{Provision: "Governing Law", Present: true, Spans: [][2]int{law}}}})
	}
	return labels
}

func trainSynthetic(t *testing.T, dir string, labels *detect.Labels) (*detect.Detectors, *detect.TrainReport, *playbook.Playbook) {
	t.Helper()
	pb, err := playbook.ParsePlaybook("synthetic.yaml", []byte(synthPlaybook))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := detect.LoadTraining(context.Background(), dir, labels, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	det, rep, err := detect.Train(context.Background(), docs, pb, detect.TrainOptions{Version: "test", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return det, rep, pb
}

func TestTrainFindsAndAbstains(t *testing.T) {
	trainDir, testDir := t.TempDir(), t.TempDir()
	labels := synthCorpus(t, trainDir, 40, 1)
	det, rep, pb := trainSynthetic(t, trainDir, labels)
	shipped := false
	for _, m := range det.Models {
		shipped = shipped || m.Name == "Material Deposit"
	}
	if !shipped {
		t.Fatalf("want the Material Deposit detector shipped, got %d models (report %+v)", len(det.Models), rep.Provisions)
	}
	if p := rep.Provisions[0]; p.Name != "Material Deposit" || p.DetectorF1 <= p.ZeroShotF1 {
		t.Errorf("cross-validated detector F1 %.3f not above zero-shot %.3f", p.DetectorF1, p.ZeroShotF1)
	}
	rev, err := review.NewReviewer(pb, det)
	if err != nil {
		t.Fatal(err)
	}
	// Unseen contracts.
	held := synthCorpus(t, testDir, 20, 99)
	docs, err := detect.LoadTraining(context.Background(), testDir, held, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var right, wrong int
	for _, d := range docs {
		row, err := rev.ReviewPrepared(context.Background(), d.Prep)
		if err != nil {
			t.Fatal(err)
		}
		c := row.Cells[0]
		if c.Method != "detector" {
			t.Fatalf("cell method %q, want detector", c.Method)
		}
		lb := d.Labels.Labels[0]
		switch {
		case lb.Present && c.Found && detect.Hits(c.Extracts[0].Span, lb.Spans):
			right++
		case !lb.Present && !c.Found:
			right++
		default:
			wrong++
			t.Logf("%s: present=%v found=%v conf=%.3f extract %q", d.Labels.FilePath, lb.Present, c.Found, c.Confidence, c.Extracts[0].Text)
		}
		if c.Confidence < 0 || c.Confidence > 1 {
			t.Errorf("confidence %v outside [0, 1]", c.Confidence)
		}
		// Governing law is found, with its value read from the text.
		if gl := row.Cells[1]; !gl.Found || gl.Value != "Delaware" {
			t.Errorf("governing law: method %s found %v value %q extracts %+v", gl.Method, gl.Found, gl.Value, gl.Extracts)
		}
	}
	if right < 18 {
		t.Errorf("%d of 20 held-out cells right (%d wrong), want at least 18", right, wrong)
	}
}

func TestTrainReproducible(t *testing.T) {
	dir := t.TempDir()
	labels := synthCorpus(t, dir, 24, 3)
	var files [][]byte
	for range 2 {
		det, _, _ := trainSynthetic(t, dir, labels)
		path := filepath.Join(t.TempDir(), "d.json")
		if err := det.Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
		back, err := detect.LoadDetectors(path)
		if err != nil {
			t.Fatalf("the saved file does not load: %v", err)
		}
		if len(back.Models) != len(det.Models) {
			t.Fatalf("loaded %d models, saved %d", len(back.Models), len(det.Models))
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two trainings on the same labels wrote different files")
	}
}

func TestTrainNoCoveredProvision(t *testing.T) {
	dir := t.TempDir()
	labels := synthCorpus(t, dir, 4, 5)
	for i := range labels.Documents {
		for j := range labels.Documents[i].Labels {
			labels.Documents[i].Labels[j].Provision = "Something Else"
		}
	}
	pb, _ := playbook.ParsePlaybook("synthetic.yaml", []byte(synthPlaybook))
	docs, err := detect.LoadTraining(context.Background(), dir, labels, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := detect.Train(context.Background(), docs, pb, detect.TrainOptions{}); err == nil || !strings.Contains(err.Error(), "cover none") {
		t.Fatalf("want an error naming the mismatch, got %v", err)
	}
}

func TestLoadTrainingMismatch(t *testing.T) {
	dir := t.TempDir()
	labels := synthCorpus(t, dir, 2, 6)
	labels.Documents[0].Labels[0] = detect.Label{Provision: "Material Deposit", Present: true, Spans: [][2]int{{10, 1 << 20}}}
	if _, err := detect.LoadTraining(context.Background(), dir, labels, 1, nil); err == nil || !strings.Contains(err.Error(), "do not match") {
		t.Fatalf("a span past the end of the text: want an error, got %v", err)
	}
	labels = synthCorpus(t, dir, 2, 6)
	labels.Documents[1].FilePath = "missing.txt"
	if _, err := detect.LoadTraining(context.Background(), dir, labels, 1, nil); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("a missing contract: want an error naming it, got %v", err)
	}
}

func TestLoadLabelsErrors(t *testing.T) {
	for name, body := range map[string]string{
		"not json":          `{`,
		"no documents":      `{"documents": []}`,
		"absolute path":     `{"documents": [{"file_path": "/etc/passwd", "labels": []}]}`,
		"parent path":       `{"documents": [{"file_path": "a/../../x.txt", "labels": []}]}`,
		"bad span":          `{"documents": [{"file_path": "a.txt", "labels": [{"provision": "X", "present": true, "spans": [[5, 2]]}]}]}`,
		"present, no spans": `{"documents": [{"file_path": "a.txt", "labels": [{"provision": "X", "present": true}]}]}`,
		"no provision":      `{"documents": [{"file_path": "a.txt", "labels": [{"present": false}]}]}`,
	} {
		path := filepath.Join(t.TempDir(), "labels.json")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := detect.LoadLabels(path); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "labels") {
			t.Errorf("%s: error %q does not say it is the labels file", name, err)
		}
	}
}

func TestLoadDetectorsErrors(t *testing.T) {
	for name, body := range map[string]string{
		"not json":   `{"format": 1,`,
		"old format": `{"format": 0, "models": []}`,
		"no name":    `{"format": 1, "models": [{"weights": {}}]}`,
	} {
		path := filepath.Join(t.TempDir(), "d.json")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := detect.LoadDetectors(path); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A weight that is not a number cannot be written as JSON, but a file
	// edited by hand can hold one encoded as a huge exponent.
	path := filepath.Join(t.TempDir(), "d.json")
	data, _ := json.Marshal(map[string]any{"format": 1, "models": []any{map[string]any{"name": "X", "weights": map[string]any{"w:x": json.RawMessage("1e999")}}}})
	os.WriteFile(path, data, 0o644)
	if _, err := detect.LoadDetectors(path); err == nil {
		t.Error("an infinite weight: no error")
	}
}

func TestBuiltinDetectorsLoad(t *testing.T) {
	pb, det := review.Builtin()
	if det.Format != detect.DetectorFormat {
		t.Fatalf("built-in detectors format %d", det.Format)
	}
	for _, m := range det.Models {
		if pb.Provision(m.Name) == nil {
			t.Errorf("built-in detector %q matches no built-in provision", m.Name)
		}
	}
	if _, err := review.NewReviewer(pb, det); err != nil {
		t.Fatal(err)
	}
}

func TestTrainCancelled(t *testing.T) {
	dir := t.TempDir()
	labels := synthCorpus(t, dir, 8, 9)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := detect.LoadTraining(ctx, dir, labels, 2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("LoadTraining on a cancelled context: %v, want context.Canceled", err)
	}
	docs, err := detect.LoadTraining(context.Background(), dir, labels, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := playbook.ParsePlaybook("synthetic.yaml", []byte(synthPlaybook))
	if _, _, err := detect.Train(ctx, docs, pb, detect.TrainOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Train on a cancelled context: %v, want context.Canceled", err)
	}
}
