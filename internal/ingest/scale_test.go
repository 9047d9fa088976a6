package ingest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// BenchmarkStoreQueries opens the collection of an existing store (made
// with "pakton ingest", e.g. by scripts/scale-bench.sh) and runs the CUAD
// development questions against it, corpus-wide: it reports how long
// opening the index took and the per-query p50/p99, cold (the first pass,
// which learns word associations) and warm; and, of the warm pass, the
// share of questions routed to the contracts they name (routed-%) with
// their p99, and the p50/p99 of the others, which search the whole
// collection. PAKTON_ROUTES=FILE writes each question's route decision
// ("named", "several", "ambiguous", "all", "unknown"), the number of
// contracts it was routed to and the question, tab-separated, one a line.
// The cpu- metrics are the warm pass's CPU time per question (the process
// CPU clock: both goroutines of a whole-collection question), all, routed
// and whole-collection.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store go test ./internal/ingest/ -run '^$' -bench StoreQueries -benchtime 1x
func BenchmarkStoreQueries(b *testing.B) {
	st := devset.ScaleStore(b)
	dev := devset.Questions(b)
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
		// routed[i]: the warm pass routed question i to the contracts it
		// names; the others search the whole collection.
		routed := make([]bool, len(dev))
		var decisions []string
		var cpu, routedCPU, wholeCPU []float64 // CPU per question, of the last pass
		pass := func() (all, narrowed, whole []float64) {
			decisions = decisions[:0]
			cpu, routedCPU, wholeCPU = nil, nil, nil
			for i, q := range dev {
				t0, c0 := time.Now(), devset.ProcessCPU()
				res, err := ix.Search(b.Context(), search.Query{Text: q, K: 64})
				if err != nil {
					b.Fatal(err)
				}
				ms := float64(time.Since(t0)) / 1e6
				c := float64(devset.ProcessCPU()-c0) / 1e6
				all = append(all, ms)
				cpu = append(cpu, c)
				routed[i] = res.Route != nil && res.Route.Decision.Narrowed()
				if routed[i] {
					narrowed = append(narrowed, ms)
					routedCPU = append(routedCPU, c)
				} else {
					whole = append(whole, ms)
					wholeCPU = append(wholeCPU, c)
				}
				d, docs := "all", 0
				if res.Route != nil {
					d, docs = string(res.Route.Decision), len(res.Route.Docs)
				}
				decisions = append(decisions, fmt.Sprintf("%s\t%d\t%s", d, docs, q))
			}
			for _, l := range [][]float64{all, narrowed, whole, cpu, routedCPU, wholeCPU} {
				sort.Float64s(l)
			}
			return all, narrowed, whole
		}
		pct := func(l []float64, p int) float64 {
			if len(l) == 0 {
				return 0
			}
			return l[len(l)*p/100]
		}
		cold, _, _ := pass()
		warm, narrowed, whole := pass()
		b.ReportMetric(float64(load)/1e6, "load-ms")
		b.ReportMetric(opened, "opened")
		b.ReportMetric(float64(ix.Docs()), "docs")
		b.ReportMetric(pct(cold, 50), "cold-p50-ms")
		b.ReportMetric(pct(cold, 99), "cold-p99-ms")
		b.ReportMetric(pct(warm, 50), "p50-ms")
		b.ReportMetric(pct(warm, 99), "p99-ms")
		b.ReportMetric(100*float64(len(narrowed))/float64(len(dev)), "routed-%")
		b.ReportMetric(pct(narrowed, 99), "routed-p99-ms")
		b.ReportMetric(pct(whole, 50), "whole-p50-ms")
		b.ReportMetric(pct(whole, 99), "whole-p99-ms")
		b.ReportMetric(pct(cpu, 50), "cpu-p50-ms")
		b.ReportMetric(pct(cpu, 99), "cpu-p99-ms")
		b.ReportMetric(pct(routedCPU, 50), "routed-cpu-p50-ms")
		b.ReportMetric(pct(routedCPU, 99), "routed-cpu-p99-ms")
		b.ReportMetric(pct(wholeCPU, 50), "whole-cpu-p50-ms")
		b.ReportMetric(pct(wholeCPU, 99), "whole-cpu-p99-ms")
		if f := os.Getenv("PAKTON_ROUTES"); f != "" {
			// One line per question: its route decision, a tab, the question.
			if err := os.WriteFile(f, []byte(strings.Join(decisions, "\n")+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkStoreRoutes routes every CUAD development question on an
// existing store, without searching, and writes how each was routed: the
// route decision, the number of contracts routed to and the question,
// tab-separated, one a line (as BenchmarkStoreQueries's PAKTON_ROUTES); it
// reports the time to route a question and the share of each decision.
// Planning only, so it takes seconds where BenchmarkStoreQueries takes
// minutes at 100×.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store PAKTON_ROUTES=routes.tsv go test ./internal/ingest/ -run '^$' -bench StoreRoutes -benchtime 1x
func BenchmarkStoreRoutes(b *testing.B) {
	st := devset.ScaleStore(b)
	dev := devset.Questions(b)
	ix, _, err := Load(context.Background(), st, store.DefaultCollection)
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	count := map[search.RouteDecision]int{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lines = lines[:0]
		clear(count)
		for _, q := range dev {
			r, err := ix.Route(b.Context(), search.Query{Text: q, K: 64})
			if err != nil {
				b.Fatal(err)
			}
			count[r.Decision]++
			lines = append(lines, fmt.Sprintf("%s\t%d\t%s", r.Decision, len(r.Docs), q))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(dev)), "ms/question")
	for d, n := range count {
		b.ReportMetric(100*float64(n)/float64(len(dev)), "%"+string(d))
	}
	if out := os.Getenv("PAKTON_ROUTES"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d documents, %d questions: %v", ix.Docs(), len(dev), count)
}

// oneShotQuestions are the questions scripts/scale-bench.sh times one-shot.
var oneShotQuestions = []string{
	"Is there a cap on liability?",
	"Can the customer terminate the agreement for convenience?",
	"Which law governs the agreement?",
	"Is there a non-compete or exclusivity clause?",
	"May a party assign the agreement after a change of control?",
}

// BenchmarkOneShotStore measures what one "pakton search" does after the
// process has started, on an existing store: open the store for reading,
// open the collection's persisted index, answer one question (cold: a fresh
// Index, so nothing learned by an earlier question is reused) and read the
// passages of its hits. Each iteration asks the next of the five
// scale-bench questions.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store go test ./internal/ingest/ -run '^$' -bench OneShotStore
func BenchmarkOneShotStore(b *testing.B) {
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		b.Skip("set PAKTON_SCALE_STORE to a store directory")
	}
	benchOneShot(b, dir, store.DefaultCollection)
}

func benchOneShot(b *testing.B, dir, collection string) {
	ctx := context.Background()
	var open, load, query, passages time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		st, err := store.OpenReader(dir)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		ix, rep, err := Load(ctx, st, collection)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Opened {
			b.Fatal("the index file was not opened (stale or missing)")
		}
		t2 := time.Now()
		res, err := ix.Search(b.Context(), search.Query{Text: oneShotQuestions[i%len(oneShotQuestions)], K: 5})
		if err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if _, err := docread.Passages(b.Context(), st, collection, res.Hits); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		st.Close()
		open += t1.Sub(t0)
		load += t2.Sub(t1)
		query += t3.Sub(t2)
		passages += t4.Sub(t3)
		i++
	}
	n := float64(max(i, 1)) * 1e6
	b.ReportMetric(float64(open)/n, "store-ms")
	b.ReportMetric(float64(load)/n, "index-ms")
	b.ReportMetric(float64(query)/n, "query-ms")
	b.ReportMetric(float64(passages)/n, "passages-ms")
}

// TestDumpStoreHits writes the hits of every CUAD development question
// (corpus-wide, K=64, routed and not routed) against an existing store, once
// with the collection's index opened from its segments and once with one
// segment built in memory from the stored documents, to
// $PAKTON_DUMP_HITS.opened and .built: a change that must not change
// results is checked by comparing the dumps of the code before and after
// it, and the two dumps must be identical: the test fails at the first line
// where they are not.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store PAKTON_DUMP_HITS=hits go test ./internal/ingest/ -run DumpStoreHits
func TestDumpStoreHits(t *testing.T) {
	out := os.Getenv("PAKTON_DUMP_HITS")
	if out == "" {
		t.Skip("set PAKTON_SCALE_STORE and PAKTON_DUMP_HITS")
	}
	st := devset.ScaleStore(t)
	dev := devset.Questions(t)
	ctx := context.Background()
	opened, rep, err := Load(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Opened {
		t.Log("the index file was built, not opened")
	}
	built, err := inMemory(ctx, st, store.DefaultCollection, liveOrder(opened)...)
	if err != nil {
		t.Fatal(err)
	}
	dumps := map[string]string{}
	for name, ix := range map[string]*search.Index{"opened": opened, "built": built} {
		var b strings.Builder
		for i, q := range dev {
			for _, noRoute := range []bool{false, true} {
				if noRoute && i%8 != 0 {
					continue // every 8th question unrouted too: they are slow
				}
				res, err := ix.Search(t.Context(), search.Query{Text: q, K: 64, Stages: search.Stages{NoRoute: noRoute}})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%d %v %q routed %v\n", i, noRoute, q, res.RoutedTo)
				for _, h := range res.Hits {
					fmt.Fprintf(&b, "  %d %s %d %v %v\n", h.Rank, h.DocID, h.Node, h.Span, h.Score)
				}
			}
		}
		if err := os.WriteFile(out+"."+name, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		dumps[name] = b.String()
	}
	o, bl := strings.Split(dumps["opened"], "\n"), strings.Split(dumps["built"], "\n")
	for i := range max(len(o), len(bl)) {
		if i >= len(o) || i >= len(bl) || o[i] != bl[i] {
			t.Fatalf("the opened index and the one built in memory differ at line %d of %s.opened and .built", i+1, out)
		}
	}
}
