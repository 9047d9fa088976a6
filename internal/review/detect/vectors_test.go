package detect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/playbook"
)

// exceptionDocs are contracts in which the same exception ("Notwithstanding
// the foregoing, … may …") follows a covenant not to compete in some places
// and a payment clause in others, with enough other clauses for word
// vectors to be learnt.
func exceptionDocs(t *testing.T, n int) []TrainingDoc {
	t.Helper()
	var docs []TrainingDoc
	// Every clause but the exception carries three of 600 filler words,
	// each in ten clauses of five contracts, so the vocabulary is large
	// enough to learn vectors from.
	filler := func(i int) string {
		return fmt.Sprintf("x%d x%d x%d", (3*i)%600, (3*i+1)%600, (3*i+2)%600)
	}
	for d := range n {
		var b strings.Builder
		num := 0
		clause := func(format string, a ...any) {
			num++
			fmt.Fprintf(&b, "%d. "+format+"\n\n", append([]any{num}, a...)...)
		}
		for i := range 400 {
			switch i % 4 {
			case 0:
				clause("Covenant. The Distributor shall not compete with the Company nor sell competing products in the territory %s.", filler(i))
			case 1:
				clause("Payment. The Distributor shall pay each invoice of the Company within thirty days of its receipt %s.", filler(i))
			default:
				clause("Records. Each party shall keep accurate books and records of its activities under this agreement %s.", filler(i))
			}
			if i%4 < 2 {
				clause("Exception. Notwithstanding the foregoing, the Distributor may continue its existing business.")
			}
		}
		doc := &document.Document{ID: "d", Name: "d.txt", Format: "text", Text: b.String()}
		prep, err := Prepare(Doc{ID: fmt.Sprint(d), Name: "d.txt", Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, TrainingDoc{Prep: prep})
	}
	return docs
}

// TestPrototypeOfPassageBefore checks the passage views: with a prototype
// built from exceptions that follow a covenant not to compete, the view of
// the passage before ranks those exceptions above the same exception after
// a payment clause, which their own words cannot tell apart.
func TestPrototypeOfPassageBefore(t *testing.T) {
	docs := exceptionDocs(t, 5)
	wv := learnWordVectors(docs)
	if wv == nil {
		t.Fatal("no word vectors learnt")
	}
	idf, def := corpusIDF(docs)
	det := &Detectors{IDF: idf, DefaultIDF: def}
	views := make([]*passageViews, len(docs))
	var cells []cellData
	afterCovenant := func(prep *Prepared, k int) (exception, covenant bool) {
		text := prep.ix.Slice(prep.passages[k].Span)
		if !strings.Contains(text, "Notwithstanding") || k == 0 {
			return false, false
		}
		return true, strings.Contains(prep.ix.Slice(prep.passages[k-1].Span), "compete")
	}
	for d := range docs {
		views[d] = wv.views(docs[d].Prep, det.idf)
		c := cellData{doc: d, present: true, pos: make([]bool, len(docs[d].Prep.passages))}
		for k := range c.pos {
			ex, cov := afterCovenant(docs[d].Prep, k)
			c.pos[k] = ex && cov
		}
		cells = append(cells, c)
	}
	// Prototypes from the first two contracts, the third compared with them.
	sums := newProtoSums(cells[:2], views, wv.Dims)
	in, protos := cellInputs(cells, views, sums.protos()), sums.protos()
	if protos[0] == nil || protos[1] == nil || protos[2] != nil {
		t.Fatalf("prototypes of the views (own, before, parent) present: %v, %v, %v; want the first two (no clause here has a parent clause)", protos[0] != nil, protos[1] != nil, protos[2] != nil)
	}
	prep := docs[2].Prep
	var pos, neg []float64 // the before view's score of the exceptions
	var posOwn, negOwn []float64
	for k := range prep.passages {
		ex, cov := afterCovenant(prep, k)
		switch {
		case ex && cov:
			pos, posOwn = append(pos, in[2][k][1]), append(posOwn, in[2][k][0])
		case ex:
			neg, negOwn = append(neg, in[2][k][1]), append(negOwn, in[2][k][0])
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		t.Fatalf("%d exceptions after a covenant, %d after a payment", len(pos), len(neg))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range pos {
		lo = math.Min(lo, x)
	}
	for _, x := range neg {
		hi = math.Max(hi, x)
	}
	if lo <= hi {
		t.Errorf("the view of the passage before: the exceptions after a covenant score from %.3f, those after a payment up to %.3f; want every one of the first above", lo, hi)
	}
	if math.Abs(posOwn[0]-negOwn[0]) > 0.05 {
		t.Errorf("the exceptions' own views differ (%.3f, %.3f): the test wants them alike, so only the view before tells them apart", posOwn[0], negOwn[0])
	}

	// Learnt twice, the vectors are the same.
	if again := learnWordVectors(docs); again.Data != wv.Data {
		t.Error("word vectors differ between two runs on the same contracts")
	}
}

// TestFitStackWeighsWhatSeparates checks fitStack: when the held-out word
// logits are noise and one view's cosine tells the positives apart, that
// view gets the weight; when the logits tell them apart and the views are
// noise, the logit keeps its scale and the views get little.
func TestFitStackWeighsWhatSeparates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	build := func(logitSignal, viewSignal float64) ([][]float64, [][][protoViews]float64, [][]bool) {
		var ls [][]float64
		var ins [][][protoViews]float64
		var pos [][]bool
		for range 40 {
			n := 60
			l := make([]float64, n)
			in := make([][protoViews]float64, n)
			p := make([]bool, n)
			for k := range n {
				p[k] = k == 0
				y := 0.0
				if p[k] {
					y = 1
				}
				l[k] = -3 + logitSignal*y*4 + rng.NormFloat64()
				for v := range protoViews {
					in[k][v] = rng.NormFloat64()
				}
				in[k][1] += viewSignal * y * 3
			}
			ls, ins, pos = append(ls, l), append(ins, in), append(pos, p)
		}
		return ls, ins, pos
	}
	s := fitStack(build(0, 1))
	if s.u[1] < 1 || math.Abs(s.u[0]) > 0.5 || math.Abs(s.u[2]) > 0.5 {
		t.Errorf("views separate, logits noise: weights %.3f, want the second view's ≥ 1 and the others within ±0.5", s.u)
	}
	s = fitStack(build(1, 0))
	if s.scale < 0.5 || math.Abs(s.u[1]) > 0.5 {
		t.Errorf("logits separate, views noise: scale %.3f and weights %.3f, want a scale ≥ 0.5 and weights within ±0.5", s.scale, s.u)
	}
}

// TestPrototypesScoredAsTrained checks that the scorer adds a model's
// prototypes as the trainer does (Scale·logit + Σ Weights·input + Shift),
// and that the word vectors survive the detectors file.
func TestPrototypesScoredAsTrained(t *testing.T) {
	docs := exceptionDocs(t, 5)
	wv := learnWordVectors(docs)
	idf, def := corpusIDF(docs)
	det := &Detectors{Format: DetectorFormat, IDF: idf, DefaultIDF: def, Vectors: wv}
	prep := docs[1].Prep
	cells := []cellData{{doc: 0, present: true, pos: make([]bool, len(docs[0].Prep.passages))}}
	for k := range cells[0].pos {
		cells[0].pos[k] = strings.Contains(docs[0].Prep.ix.Slice(docs[0].Prep.passages[k].Span), "Notwithstanding")
	}
	views := []*passageViews{wv.views(docs[0].Prep, det.idf)}
	protos := newProtoSums(cells, views, wv.Dims).protos()
	weights := map[string]float64{"w:" + StemWord("notwithstanding"): 0.8, "w:" + StemWord("payment"): -0.4}
	m := &Model{Name: "Competitive Restriction Exception", Bias: -2, ZeroShotWeight: 1.5, Weights: weights,
		Prototypes: &Prototypes{Weights: [protoViews]float64{0.3, 0.9, -0.2}, Scale: 0.7, Shift: -0.5, Vectors: *protos}}
	det.Models = []*Model{m}
	path := filepath.Join(t.TempDir(), "detectors.json")
	if err := det.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadDetectors(path)
	if err != nil {
		t.Fatal(err)
	}
	pb := &playbook.Playbook{Name: "t", Provisions: []playbook.Provision{{Name: "Competitive Restriction Exception", Definition: "An exception to a covenant not to compete."}}}
	got := NewScorer(pb, loaded).Scores(prep)[0]

	// the trainer's computation, over the passages' features as strings
	plain := NewScorer(pb, &Detectors{IDF: idf, DefaultIDF: def, Models: []*Model{{Name: m.Name, Bias: m.Bias, ZeroShotWeight: m.ZeroShotWeight, Weights: weights}}}).Scores(prep)[0]
	in := wv.views(prep, det.idf).inputs(protos)
	for k := range got {
		want := m.Prototypes.Scale*logit(plain[k]) + m.Prototypes.Shift
		for v := range protoViews {
			want += m.Prototypes.Weights[v] * in[k][v]
		}
		if math.Abs(logit(got[k])-want) > 1e-3 {
			t.Fatalf("passage %d: logit %.5f, want %.5f", k, logit(got[k]), want)
		}
	}
}

// TestDamagedVectorsRefused checks that a detectors file whose word vectors
// or prototypes cannot be scored with is refused when read, naming what is
// wrong, rather than scoring every passage NaN or skipping the prototypes.
func TestDamagedVectorsRefused(t *testing.T) {
	wv := func(scale string) string {
		return `{"dims": 2, "words": ["a"], "scales": [` + scale + `], "data": "AQI="}`
	}
	model := func(protos string) string {
		return `{"name": "X", "bias": 0, "zero_shot_weight": 1, "weights": {}, "platt": [1, 0], "threshold": 0.5` + protos + `}`
	}
	file := func(vectors, protos string) string {
		v := ""
		if vectors != "" {
			v = `"word_vectors": ` + vectors + `, `
		}
		return `{"format": 1, "zero_shot": {"a": 1, "b": 0, "platt": [0, 0], "threshold": 0.5}, ` + v + `"models": [` + model(protos) + `]}`
	}
	good := `, "prototypes": {"weights": [1, 0, 0], "scale": 1, "shift": 0, "vectors": [[0.6, 0.8], null, null]}`
	if _, err := DecodeDetectors("ok", []byte(file(wv("0.01"), good))); err != nil {
		t.Fatalf("a sound file is refused: %v", err)
	}
	for name, data := range map[string]string{
		"prototypes without vectors":    file("", good),
		"a scale that is no number":     file(wv("1e9"), good),
		"bytes that do not fit":         file(`{"dims": 3, "words": ["a"], "scales": [0.01], "data": "AQI="}`, ""),
		"a prototype of another length": file(wv("0.01"), `, "prototypes": {"weights": [1, 0, 0], "scale": 1, "shift": 0, "vectors": [[0.6, 0.8, 0], null, null]}`),
		"a weight out of bounds":        file(wv("0.01"), `, "prototypes": {"weights": [1e9, 0, 0], "scale": 1, "shift": 0, "vectors": [[0.6, 0.8], null, null]}`),
	} {
		if _, err := DecodeDetectors(name, []byte(data)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// TestQualifiedInput checks the stack's input of what a passage qualifies:
// an exception after a covenant not to compete is read with the covenant's
// zero-shot score as a provision its definition names, an exception after
// a payment clause is not, and the scorer adds it as the trainer does.
func TestQualifiedInput(t *testing.T) {
	docs := exceptionDocs(t, 5)
	wv := learnWordVectors(docs)
	idf, def := corpusIDF(docs)
	det := &Detectors{Format: DetectorFormat, IDF: idf, DefaultIDF: def, Vectors: wv}
	pb := &playbook.Playbook{Name: "t", Provisions: []playbook.Provision{
		{Name: "Competitive Restriction Exception", Definition: "An exception to a Non-Compete: what the restricted party may still do."},
		{Name: "Non-Compete", Definition: "A covenant not to compete with the other party.", Keywords: []playbook.Keyword{{Text: "compete", Boost: 3}}},
		{Name: "Payment Terms", Definition: "When and how a party must pay."},
	}}
	if q := pb.Qualified(&pb.Provisions[0]); len(q) != 1 || q[0].Name != "Non-Compete" {
		t.Fatalf("the exception's definition names %v, want Non-Compete alone", q)
	}
	if q := pb.Qualified(&pb.Provisions[1]); len(q) != 0 {
		t.Fatalf("the covenant's definition names %v, want none", q)
	}
	prep := docs[1].Prep
	views := wv.views(prep, det.idf)
	q := qualifiedInputs(views, qualifiedScorer(pb, 0, det).scores(prep))
	var afterCovenant, afterPayment []float64
	for k := 1; k < len(prep.passages); k++ {
		if !strings.Contains(prep.ix.Slice(prep.passages[k].Span), "Notwithstanding") {
			continue
		}
		if strings.Contains(prep.ix.Slice(prep.passages[k-1].Span), "compete") {
			afterCovenant = append(afterCovenant, q[k])
		} else {
			afterPayment = append(afterPayment, q[k])
		}
	}
	if len(afterCovenant) == 0 || len(afterPayment) == 0 {
		t.Fatalf("%d exceptions after a covenant, %d after a payment clause", len(afterCovenant), len(afterPayment))
	}
	if lo, hi := slices.Min(afterCovenant), slices.Max(afterPayment); lo <= hi {
		t.Errorf("an exception after a covenant reads %.2f at least, after a payment clause %.2f at most", lo, hi)
	}

	weights := map[string]float64{"w:" + StemWord("notwithstanding"): 0.8}
	m := &Model{Name: "Competitive Restriction Exception", Bias: -2, ZeroShotWeight: 1.5, Weights: weights,
		Prototypes: &Prototypes{Weights: [protoViews]float64{0, 0, 0, 0.9}, Scale: 0.7, Shift: -0.5}}
	det.Models = []*Model{m}
	path := filepath.Join(t.TempDir(), "detectors.json")
	if err := det.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadDetectors(path)
	if err != nil {
		t.Fatal(err)
	}
	got := NewScorer(pb, loaded).Scores(prep)[0]
	plain := NewScorer(pb, &Detectors{IDF: idf, DefaultIDF: def, Models: []*Model{{Name: m.Name, Bias: m.Bias, ZeroShotWeight: m.ZeroShotWeight, Weights: weights}}}).Scores(prep)[0]
	for k := range got {
		want := m.Prototypes.Scale*logit(plain[k]) + m.Prototypes.Shift + 0.9*q[k]
		if math.Abs(logit(got[k])-want) > 1e-3 {
			t.Fatalf("passage %d: logit %.5f, want %.5f", k, logit(got[k]), want)
		}
	}
}
