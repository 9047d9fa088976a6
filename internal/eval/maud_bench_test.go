package eval

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/procstat"
	"github.com/pakton/pakton/internal/search"
)

// BenchmarkMAUDQuestion measures the in-process cost of one question about
// a merger agreement (MAUD, 150 agreements of about 350,000 characters, at
// 1×) as pakton search runs it: routed to the agreement the question names,
// the shipped review detectors asked about the provision (each agreement
// prepared as pakton ingest stores it, read on its first question as in a
// fresh process), the words learnt
// from the labelled dev questions added. Each iteration is one dev
// question, in the benchmark's order; p50 and p99 (ms) are reported beside
// ns/op. The corpus is indexed before the timer starts. Run it with
//
//	PAKTON_SLOW=1 go test -run '^$' -bench MAUDQuestion -benchtime 839x ./internal/eval
func BenchmarkMAUDQuestion(b *testing.B) {
	dir := sharedData(b)
	benchPath := filepath.Join(dir, "benchmarks", "maud_dev.json")
	if _, err := os.Stat(benchPath); err != nil {
		b.Skip("no MAUD dev half in ../shared/data")
	}
	ctx := context.Background()
	bench, err := LoadBenchmark(benchPath)
	if err != nil {
		b.Fatal(err)
	}
	corpus := filepath.Join(dir, "corpus")
	ents, err := os.ReadDir(filepath.Join(corpus, "maud"))
	if err != nil {
		b.Fatal(err)
	}
	var files []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			files = append(files, "maud/"+e.Name())
		}
	}
	sort.Strings(files)
	opt := Options{CorpusDir: corpus, Method: paktonMethod{}, Scope: "corpus", Benches: []string{benchPath}}
	ix, texts, err := buildIndex(ctx, opt, files)
	if err != nil {
		b.Fatal(err)
	}
	// The agreements are prepared for the detectors as pakton ingest
	// prepares and stores them (ProvisionSource.PrepareAhead).
	src := BuiltinProvisions()
	src.PrepareAhead = true
	ff, err := src.finder(texts, func(id string) string { return id })
	if err != nil {
		b.Fatal(err)
	}
	opt.Learn = &LearnSource{From: []string{benchPath}}
	lf, _, err := learnFolds(ctx, opt, ix, files, func(p string) string { return p })
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for i := range b.N {
		t := bench.Tests[i%len(bench.Tests)]
		t0, c0 := time.Now(), procstat.ThreadCPU()
		q := search.Query{Text: t.Query, K: 64}
		p, err := ix.Plan(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		q.Learned = lf.forDoc(t.Snippets[0].FilePath).Expand(p.Words)
		if _, err := ix.SearchWith(ctx, search.Models{Provisions: ff}, q, nil); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		cpu = append(cpu, procstat.ThreadCPU()-c0)
	}
	b.StopTimer()
	p50, p99 := percentiles(lat)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	// Each question's own CPU time (threadCPU): what p50 and p99 are on
	// an idle machine.
	p50, p99 = percentiles(cpu)
	b.ReportMetric(p50, "cpu-p50-ms")
	b.ReportMetric(p99, "cpu-p99-ms")
}
