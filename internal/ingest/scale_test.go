package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// BenchmarkStoreQueries opens the collection of an existing store (made
// with "pakton ingest", e.g. by scripts/scale-bench.sh) and runs the CUAD
// development questions against it, corpus-wide: it reports how long
// opening the index took and the per-query p50/p99, cold (the first pass,
// which learns word associations) and warm.
//
//	PAKTON_SCALE_STORE=/tmp/pk-scale/s1 go test ./internal/ingest/ -run '^$' -bench StoreQueries -benchtime 1x
func BenchmarkStoreQueries(b *testing.B) {
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		b.Skip("set PAKTON_SCALE_STORE to a store directory")
	}
	bench := filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "benchmarks", "cuad_dev.json")
	raw, err := os.ReadFile(bench)
	if err != nil {
		b.Skip("../shared/data is absent")
	}
	var dev struct {
		Tests []struct {
			Query string `json:"query"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &dev); err != nil {
		b.Fatal(err)
	}
	st, err := store.OpenReader(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for b.Loop() {
		t0 := time.Now()
		ix, rep, err := Load(context.Background(), st, store.DefaultCollection)
		if err != nil {
			b.Fatal(err)
		}
		load := time.Since(t0)
		opened := 0.0
		if rep.Opened {
			opened = 1
		}
		pass := func() []float64 {
			var lat []float64
			for _, t := range dev.Tests {
				t0 := time.Now()
				ix.Search(search.Query{Text: t.Query, K: 64})
				lat = append(lat, float64(time.Since(t0))/1e6)
			}
			sort.Float64s(lat)
			return lat
		}
		cold := pass()
		warm := pass()
		b.ReportMetric(float64(load)/1e6, "load-ms")
		b.ReportMetric(opened, "opened")
		b.ReportMetric(float64(ix.Docs()), "docs")
		b.ReportMetric(cold[len(cold)/2], "cold-p50-ms")
		b.ReportMetric(cold[len(cold)*99/100], "cold-p99-ms")
		b.ReportMetric(warm[len(warm)/2], "p50-ms")
		b.ReportMetric(warm[len(warm)*99/100], "p99-ms")
	}
}
