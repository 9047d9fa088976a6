package detect

import (
	"math"
	"os"
	"sort"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

// sortedWeights is how NewScorer once compiled the models' weights: each
// model's names in sorted order, so names sharing a hash add up in that
// order. Feature → one weight per provision.
func sortedWeights(pb *playbook.Playbook, det *Detectors) map[uint32][]float32 {
	out := map[uint32][]float32{}
	for i := range pb.Provisions {
		m := det.lookup(&pb.Provisions[i])
		if m == nil {
			continue
		}
		var names []string
		for name := range m.Weights {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			id := featureID(name)
			if out[id] == nil {
				out[id] = make([]float32, len(pb.Provisions))
			}
			out[id][i] += float32(m.Weights[name])
		}
	}
	return out
}

// sameWeights fails t unless s holds exactly the weights of sortedWeights.
func sameWeights(t *testing.T, s *Scorer, pb *playbook.Playbook, det *Detectors) {
	t.Helper()
	want := sortedWeights(pb, det)
	P := len(pb.Provisions)
	if len(s.featRow) != len(want) || len(s.weights) != len(want)*P {
		t.Fatalf("%d features, %d weights; want %d features", len(s.featRow), len(s.weights), len(want))
	}
	for id, w := range want {
		row := s.row(id)
		if row < 0 {
			t.Fatalf("feature %d has no row", id)
		}
		for i, v := range w {
			if got := s.weights[int(row)*P+i]; math.Float32bits(got) != math.Float32bits(v) {
				t.Fatalf("feature %d, provision %d: weight %v, want %v", id, i, got, v)
			}
		}
	}
}

// TestScorerWeightsLikeSorted checks that NewScorer, which compiles the
// models' weights in map order, gives every feature bit for bit the
// weights of compiling them in sorted order: for the shipped detectors, and
// for a model whose names share hashes.
func TestScorerWeightsLikeSorted(t *testing.T) {
	pbData, err := os.ReadFile("../builtin/playbook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbook.ParsePlaybook("builtin", pbData)
	if err != nil {
		t.Fatal(err)
	}
	det, err := LoadDetectors("../builtin/detectors.json")
	if err != nil {
		t.Fatal(err)
	}
	sameWeights(t, NewScorer(pb, det), pb, det)

	// "w:f139599" and "w:f322382" share their FNV-1a hash.
	if featureID("w:f139599") != featureID("w:f322382") {
		t.Fatal("the two names no longer share a hash")
	}
	two, err := playbook.ParsePlaybook("two", []byte(`
provisions:
  - name: A
    definition: the first provision
  - name: B
    definition: the second provision
`))
	if err != nil {
		t.Fatal(err)
	}
	colliding := &Detectors{Models: []*Model{
		{Name: "A", Weights: map[string]float64{"w:f139599": 0.1, "w:f322382": 0.2, "w:x": -0.3, "w:y": math.Copysign(0, -1)}},
		{Name: "B", Weights: map[string]float64{"w:f322382": 1e-9, "w:x": 0.5}},
	}}
	for range 20 { // map order varies from run to run
		s := NewScorer(two, colliding)
		sameWeights(t, s, two, colliding)
		if got := s.weights[int(s.row(featureID("w:f139599")))*2]; got != float32(0.1)+float32(0.2) {
			t.Fatalf("colliding names: weight %v, want the sum of both", got)
		}
	}
}

// BenchmarkNewScorer compiles the shipped detectors for each built-in
// provision alone, as a process's first question about it does.
//
//	go test ./internal/review/detect -run '^$' -bench NewScorer -benchmem
func BenchmarkNewScorer(b *testing.B) {
	pbData, err := os.ReadFile("../builtin/playbook.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pb, err := playbook.ParsePlaybook("builtin", pbData)
	if err != nil {
		b.Fatal(err)
	}
	det, err := LoadDetectors("../builtin/detectors.json")
	if err != nil {
		b.Fatal(err)
	}
	var subs []*playbook.Playbook
	for i := range pb.Provisions {
		sub, err := pb.Select([]string{pb.Provisions[i].Name})
		if err != nil {
			b.Fatal(err)
		}
		subs = append(subs, sub)
	}
	for b.Loop() {
		for _, sub := range subs {
			NewScorer(sub, det)
		}
	}
}
