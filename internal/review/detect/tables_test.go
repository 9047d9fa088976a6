package detect

import (
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

// refScores is the scorer as written over the passages' strings (a map of
// word weights per passage, a map lookup per feature occurrence): what
// Scores computes with the contract's tables must equal it exactly.
func refScores(s *Scorer, prep *Prepared) [][]float64 {
	z := s.zs
	zs := make([][]float64, z.n)
	for i := range zs {
		zs[i] = make([]float64, len(prep.passages))
	}
	dot := make([]float64, z.n)
	for k := range prep.passages {
		ps := &prep.wordPassages()[k]
		vec := map[string]float64{}
		var order []string
		for _, w := range ps.Words {
			if _, ok := vec[w]; !ok {
				order = append(order, w)
			}
			vec[w]++
		}
		for _, w := range ps.Context {
			if _, ok := vec[w]; !ok {
				order = append(order, w)
			}
			vec[w] += headingShare
		}
		clear(dot)
		var norm float64
		for _, w := range order {
			tf := vec[w]
			v := (1 + math.Log(tf)) * z.idf(w)
			if tf < 1 {
				v = tf * z.idf(w)
			}
			norm += v * v
			for _, ref := range z.terms[w] {
				dot[ref.prov] += v * ref.w
			}
		}
		norm = math.Sqrt(norm)
		for i := range dot {
			sc := 0.0
			if norm > 0 && z.norms[i] > 0 {
				sc = dot[i] / (norm * z.norms[i])
			}
			if len(z.phrases[i]) > 0 {
				sc += keywordBonus * math.Min(keywordHits(ps.Words, z.phrases[i]), keywordCap)
			}
			zs[i][k] = sc
		}
	}
	P := len(s.provs)
	out := make([][]float64, P)
	for i := range out {
		out[i] = make([]float64, len(prep.passages))
	}
	acc := make([]float64, P)
	neg := make([]float64, P)
	for k, feats := range prep.feats {
		clear(acc)
		clear(neg)
		prior := 0.0
		for _, f := range feats {
			prior += s.prior[f]
			row, ok := s.featRow[f]
			if !ok {
				continue
			}
			w := s.weights[int(row)*P : int(row)*P+P]
			for i, v := range w {
				if v < 0 && s.lengthNorm {
					neg[i] += float64(v)
				} else {
					acc[i] += float64(v)
				}
			}
		}
		for i, c := range s.provs {
			if c.model != nil {
				out[i][k] = sigmoid(c.model.Bias + acc[i] + lengthScale(c.model.LengthNorm, len(feats))*neg[i] + c.model.ZeroShotWeight*zs[i][k])
			} else {
				out[i][k] = sigmoid(c.cal.A*zs[i][k] + c.cal.B + prior)
			}
		}
	}
	return out
}

// TestScoresFromTablesExact checks that the scores of every provision of the
// built-in playbook, with the shipped detectors, are bit for bit those of
// the scorer over strings, for contracts prepared from their text and read
// back from their stored preparation.
func TestScoresFromTablesExact(t *testing.T) {
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
	s := NewScorer(pb, det)
	zero := NewScorer(pb, nil)
	for _, d := range exampleDocs(t) {
		computed := prepare(d)
		stored, err := DecodePrepared(d, computed.Encode())
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range []*Scorer{s, zero} {
			want := refScores(sc, prepare(d))
			for name, p := range map[string]*Prepared{"computed": computed, "stored": stored} {
				if got := sc.Scores(p); !reflect.DeepEqual(got, want) {
					t.Errorf("%s (%s): scores differ from the scorer over strings", d.Name, name)
				}
			}
		}
	}
}
