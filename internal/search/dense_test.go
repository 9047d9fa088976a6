package search

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/embed"
	"github.com/pakton/pakton/internal/embed/embedtest"
	"github.com/pakton/pakton/internal/rerank"
	"github.com/pakton/pakton/internal/search/index"
)

// concepts is the scripted embedding server's vocabulary: words of one
// concept share a dimension.
var concepts = map[string]int{
	"terminate": 0, "termination": 0, "cancel": 0, "end": 0,
	"convenience": 1, "reason": 1, "any": 1,
	"liability": 2, "damages": 2, "losses": 2,
	"law": 3, "governed": 3, "jurisdiction": 3,
	"pay": 4, "fees": 4, "invoice": 4,
}

func denseCorpus(t *testing.T, emb Embedder) *Index {
	t.Helper()
	ix := NewIndex()
	in := index.DocInput{ID: "msa", Name: "msa.txt"}
	for i, text := range []string{
		"Either party may terminate this Agreement for convenience on sixty days notice.",
		"Neither party is liable for indirect damages or lost profits.",
		"This Agreement is governed by the law of Delaware.",
		"Customer shall pay all fees within thirty days of invoice.",
	} {
		in.Units = append(in.Units, index.UnitInput{Text: text, Spans: []document.Span{{Start: i * 100, End: i*100 + len(text)}}, Node: i})
	}
	if err := ix.Add(in); err != nil {
		t.Fatal(err)
	}
	v, err := EmbedDoc(t.Context(), emb, in)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := index.DecodeVectors(v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v, dec) {
		t.Fatalf("vectors changed in a round trip")
	}
	if err := ix.AddVectors("msa", dec); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestHybridSearchFindsParaphrase(t *testing.T) {
	srv := embedtest.NewServer(t, concepts)
	emb, err := embed.New(embed.Config{BaseURL: srv.BaseURL(), Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	ix := denseCorpus(t, emb)
	q := "can we cancel early for any reason"
	lex := searchT(t, ix, Query{Text: q, K: 1, Docs: []string{"msa"}, Stages: Stages{NoAssociations: true, NoHeadings: true}})
	qv, err := emb.Embed(t.Context(), []string{q})
	if err != nil {
		t.Fatal(err)
	}
	hyb := searchT(t, ix, Query{Text: q, K: 1, Docs: []string{"msa"}, Vector: qv[0], Stages: Stages{NoAssociations: true, NoHeadings: true}})
	if len(hyb.Hits) != 1 || hyb.Hits[0].Span.Start != 0 {
		t.Fatalf("hybrid top hit %v, want the termination clause at 0", hyb.Hits)
	}
	if len(lex.Hits) == 1 && lex.Hits[0].Span.Start == 0 && lex.Hits[0].Score > 0 {
		t.Fatalf("lexical search already matched the paraphrase; the test proves nothing")
	}
}

func TestAddVectorsRefusesMixedModels(t *testing.T) {
	ix := NewIndex()
	in := index.DocInput{ID: "a", Units: []index.UnitInput{{Text: "x", Spans: []document.Span{{Start: 0, End: 1}}}}}
	in2 := index.DocInput{ID: "b", Units: in.Units}
	ix.Add(in)
	ix.Add(in2)
	if err := ix.AddVectors("a", &index.Vectors{Model: "m1", Units: []int32{0}, Vecs: [][]float32{{1, 0}}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.AddVectors("b", &index.Vectors{Model: "m2", Units: []int32{0}, Vecs: [][]float32{{1, 0}}}); err == nil {
		t.Fatal("vectors of another model accepted")
	}
	if err := ix.AddVectors("b", &index.Vectors{Model: "m1", Units: []int32{0}, Vecs: [][]float32{{1, 0, 0}}}); err == nil {
		t.Fatal("vectors of another dimension accepted")
	}
	if err := ix.AddVectors("b", &index.Vectors{Model: "m1", Units: []int32{5}, Vecs: [][]float32{{1, 0}}}); err == nil {
		t.Fatal("vectors past the document's units accepted")
	}
}

func TestRerankHits(t *testing.T) {
	// A Cohere-style rerank server that prefers passages mentioning "Delaware".
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type res struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out []res
		for i, d := range req.Documents {
			s := 0.1
			if strings.Contains(d, "Delaware") {
				s = 0.9
			}
			out = append(out, res{i, s})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer srv.Close()
	rr, err := rerank.New(rerank.Config{BaseURL: srv.URL, Model: "scripted", Style: "cohere"})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[int]string{0: "fees are due", 100: "governed by Delaware law", 200: "no damages"}
	hits := []Hit{{DocID: "a", Span: document.Span{Start: 0, End: 10}}, {DocID: "a", Span: document.Span{Start: 100, End: 110}}, {DocID: "a", Span: document.Span{Start: 200, End: 210}}}
	got, err := RerankHits(t.Context(), rr, "which law", hits, 3, func(h Hit) string { return texts[h.Span.Start] })
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Span.Start != 100 || got[0].Rank != 1 || len(got) != 3 {
		t.Fatalf("reranked %v", got)
	}
}

func TestNormalizeAndDot(t *testing.T) {
	v := []float32{3, 4}
	normalize(v)
	if math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Errorf("normalize([3 4]) = %v", v)
	}
	zero := []float32{0, 0, 0}
	normalize(zero)
	if zero[0] != 0 || math.IsNaN(float64(zero[0])) {
		t.Errorf("normalize(zero) = %v", zero)
	}
	tests := []struct {
		a, b []float32
		want float32
	}{
		{nil, nil, 0},
		{[]float32{1, 2, 3}, []float32{4, 5, 6}, 32},
		{[]float32{1, 1, 1, 1, 1, 1, 1}, []float32{1, 2, 3, 4, 5, 6, 7}, 28},
		{v, v, 1},
	}
	for _, tt := range tests {
		if got := dot(tt.a, tt.b); math.Abs(float64(got-tt.want)) > 1e-5 {
			t.Errorf("dot(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
