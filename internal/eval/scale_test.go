package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/search"
)

// BenchmarkCorpusSearchReplicated measures corpus-wide queries of the CUAD
// development set over the CUAD corpus indexed 1, 2 and 4 times (copies
// under new names), to check that query cost grows at most linearly with
// the corpus. It reports p50 and p99 per query besides ns/op (one op = the
// whole query set).
//
//	PAKTON_SLOW=1 go test ./internal/eval/ -run '^$' -bench CorpusSearchReplicated -benchtime 1x
func BenchmarkCorpusSearchReplicated(b *testing.B) {
	dir := sharedData(b)
	m, err := MethodByName("pakton")
	if err != nil {
		b.Fatal(err)
	}
	bench, err := LoadBenchmark(filepath.Join(dir, "benchmarks", "cuad_dev.json"))
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{CorpusDir: filepath.Join(dir, "corpus"), Method: m}
	ents, err := os.ReadDir(filepath.Join(opt.CorpusDir, "cuad"))
	if err != nil {
		b.Fatal(err)
	}
	var base []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			base = append(base, "cuad/"+e.Name())
		}
	}
	for _, r := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("x%d", r), func(b *testing.B) {
			files := append([]string(nil), base...)
			for c := 2; c <= r; c++ {
				for _, f := range base {
					files = append(files, f+copySuffix+strconv.Itoa(c))
				}
			}
			ix, _, err := buildIndex(context.Background(), opt, files)
			if err != nil {
				b.Fatal(err)
			}
			var lat []float64
			b.ResetTimer()
			for b.Loop() {
				for _, t := range bench.Tests {
					t0 := time.Now()
					if _, err := ix.Search(b.Context(), search.Query{Text: t.Query, K: 64}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, float64(time.Since(t0))/1e6)
				}
			}
			sort.Float64s(lat)
			b.ReportMetric(lat[len(lat)/2], "p50-ms")
			b.ReportMetric(lat[len(lat)*99/100], "p99-ms")
			b.ReportMetric(float64(ix.Units()), "units")
		})
	}
}
