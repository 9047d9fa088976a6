package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateBM25Bench measures what Weaviate's own BM25F would give as
// the ranker, to compare with pakton's: every retrieval unit of a method
// (its indexed text — for "pakton" each view of each clause) is an object
// of a Weaviate class, each CUAD dev question is a `bm25` query (corpus
// scope, top 200 units), and the units' source spans are returned in that
// order, overlapping ones skipped, as the eval harness scores pakton's.
//
//	PAKTON_WEAVIATE_BENCH=1 go test ./internal/store/weaviate/ -run WeaviateBM25Bench -v -timeout 60m
//
// WEAVIATE_BM25_METHODS picks methods (default "naive,pakton").
func TestWeaviateBM25Bench(t *testing.T) {
	if os.Getenv("PAKTON_WEAVIATE_BENCH") != "1" {
		t.Skip("set PAKTON_WEAVIATE_BENCH=1")
	}
	data := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag")
	corpusDir := filepath.Join(data, "corpus")
	benchFile := filepath.Join(data, "benchmarks", "cuad_dev.json")
	if _, err := os.Stat(benchFile); err != nil {
		t.Skipf("no benchmark at %s", benchFile)
	}
	b, err := eval.LoadBenchmark(benchFile)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(corpusDir, "cuad"))
	if err != nil {
		t.Fatal(err)
	}
	c := wvtest.Require(t, 1)
	base := "http://" + c.Addr(1)
	for _, mname := range strings.Split(envOr("WEAVIATE_BM25_METHODS", "naive,pakton"), ",") {
		t.Run(mname, func(t *testing.T) {
			m, err := eval.MethodByName(mname)
			if err != nil {
				t.Fatal(err)
			}
			class := "BenchUnits" + strings.ToUpper(mname[:1]) + mname[1:]
			mustJSON(t, "POST", base+"/v1/schema", map[string]any{
				"class": class, "vectorizer": "none", "vectorIndexConfig": map[string]any{"skip": true},
				"properties": []map[string]any{
					{"name": "doc", "dataType": []string{"text"}, "tokenization": "field", "indexSearchable": false},
					{"name": "spans", "dataType": []string{"text"}, "indexFilterable": false, "indexSearchable": false},
					{"name": "text", "dataType": []string{"text"}, "tokenization": "word"},
				}}, nil)
			var batch []map[string]any
			flush := func() {
				if len(batch) > 0 {
					mustJSON(t, "POST", base+"/v1/batch/objects", map[string]any{"objects": batch}, nil)
					batch = batch[:0]
				}
			}
			units := 0
			for _, e := range ents {
				rel := "cuad/" + e.Name()
				raw, err := os.ReadFile(filepath.Join(corpusDir, rel))
				if err != nil || !utf8.Valid(raw) {
					t.Fatalf("%s: %v", rel, err)
				}
				in, err := m.Units(&document.Document{ID: rel, Name: e.Name(), Format: "text", Text: string(raw)})
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range in.Units {
					sp, _ := json.Marshal(u.Spans)
					batch = append(batch, map[string]any{"class": class, "properties": map[string]any{"doc": rel, "spans": string(sp), "text": u.Text}})
					units++
					if len(batch) == 500 {
						flush()
					}
				}
			}
			flush()
			for _, scope := range []string{"corpus", "document"} {
				sum := map[int]float64{}
				for _, tc := range b.Tests {
					where := ""
					if scope == "document" {
						where = fmt.Sprintf(`, where:{path:["doc"], operator:Equal, valueText:%s}`, gqlString(tc.Snippets[0].FilePath))
					}
					q := fmt.Sprintf(`{Get{%s(bm25:{query:%s, properties:["text"]}%s, limit:200){doc spans}}}`, class, gqlString(tc.Query), where)
					var res struct {
						Data struct {
							Get map[string][]struct {
								Doc   string `json:"doc"`
								Spans string `json:"spans"`
							} `json:"Get"`
						} `json:"data"`
						Errors []struct{ Message string } `json:"errors"`
					}
					mustJSON(t, "POST", base+"/v1/graphql", map[string]string{"query": q}, &res)
					if len(res.Errors) > 0 {
						t.Fatalf("bm25: %s", res.Errors[0].Message)
					}
					var ret []eval.Snippet
					taken := map[string][]document.Span{}
					for _, h := range res.Data.Get[class] {
						var sps []document.Span
						json.Unmarshal([]byte(h.Spans), &sps)
						for _, sp := range sps {
							if overlaps(taken[h.Doc], sp) || len(ret) >= 64 {
								continue
							}
							taken[h.Doc] = append(taken[h.Doc], sp)
							ret = append(ret, eval.Snippet{FilePath: h.Doc, Span: sp})
						}
					}
					sc, err := eval.ScoreQuery(tc.Snippets, ret)
					if err != nil {
						t.Fatal(err)
					}
					for _, k := range eval.Ks {
						sum[k] += sc.Recall[k]
					}
				}
				n := float64(len(b.Tests))
				var ks []int
				for k := range sum {
					ks = append(ks, k)
				}
				sort.Ints(ks)
				var parts []string
				for _, k := range ks {
					parts = append(parts, fmt.Sprintf("R@%d %.2f", k, 100*sum[k]/n))
				}
				t.Logf("RESULT weaviate bm25 over %s units (%d units, %d questions, %s scope): %s", mname, units, len(b.Tests), scope, strings.Join(parts, "  "))
				rep, err := eval.Run(context.Background(), eval.Options{CorpusDir: corpusDir, Benches: []string{benchFile}, Scope: scope, Method: m})
				if err != nil {
					t.Fatal(err)
				}
				r := rep.Benchmarks["cuad_dev"].Recall
				t.Logf("RESULT pakton search over %s units, %s scope: R@1 %.2f  R@8 %.2f  R@64 %.2f", mname, scope, r["1"], r["8"], r["64"])
			}
		})
	}
}

func overlaps(have []document.Span, sp document.Span) bool {
	for _, h := range have {
		if sp.Start < h.End && h.Start < sp.End {
			return true
		}
	}
	return false
}

func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustJSON(t *testing.T, method, url string, body, out any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: HTTP %d: %.300s", method, url, res.StatusCode, buf.String())
	}
	if out != nil {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
}
