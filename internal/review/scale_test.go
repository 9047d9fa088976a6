package review

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// BenchmarkStoreQueriesWithDetectors opens the collection of an existing
// store (made with "pakton ingest", e.g. by scripts/scale-bench.sh) and runs
// the CUAD development questions against it, corpus-wide, K=64, as "pakton
// search" ranks them: the review detectors' passage first for a question
// about a playbook provision (search.Models.Provisions, the built-in
// detectors reading contracts through StoreLoader). It reports the per-query
// p50/p99 of a cold pass (contracts prepared for the detectors on first
// use) and of a warm one.
//
//	PAKTON_SCALE_STORE=/work/scale-data/x1/store go test ./internal/review/ -run '^$' -bench StoreQueriesWithDetectors -benchtime 1x
func BenchmarkStoreQueriesWithDetectors(b *testing.B) {
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		b.Skip("set PAKTON_SCALE_STORE to a store directory")
	}
	dev := devset.Questions(b)
	st, err := store.OpenReader(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for b.Loop() {
		ix, _, err := ingest.Load(ctx, st, store.DefaultCollection)
		if err != nil {
			b.Fatal(err)
		}
		m := search.Models{Provisions: BuiltinProvisions(StoreLoader(st, store.DefaultCollection))}
		pass := func() []float64 {
			var lat []float64
			for _, q := range dev {
				t0 := time.Now()
				if _, err := ix.SearchWith(ctx, m, search.Query{Text: q, K: 64}, nil); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, float64(time.Since(t0))/1e6)
			}
			sort.Float64s(lat)
			return lat
		}
		cold := pass()
		warm := pass()
		b.ReportMetric(float64(ix.Docs()), "docs")
		b.ReportMetric(cold[len(cold)/2], "cold-p50-ms")
		b.ReportMetric(cold[len(cold)*99/100], "cold-p99-ms")
		b.ReportMetric(warm[len(warm)/2], "p50-ms")
		b.ReportMetric(warm[len(warm)*99/100], "p99-ms")
	}
}
