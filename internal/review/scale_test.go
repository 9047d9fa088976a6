package review

import (
	"context"
	"reflect"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/procstat"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// BenchmarkStoreQueriesWithDetectors opens the collection of an existing
// store (made with "pakton ingest", e.g. by scripts/scale-bench.sh) and runs
// the CUAD development questions against it, corpus-wide, K=64, as "pakton
// search" ranks them: the review detectors' passage first for a question
// about a playbook provision (search.Models.Provisions, the built-in
// detectors reading contracts through StoreLoader). It reports the per-query
// p50/p99 of a cold pass (each contract's stored preparation read, or the
// contract prepared, on first use) and of a warm one, in wall time and in
// each question's own CPU time (cpu-p99-ms: what the p99 is on an idle
// machine).
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store go test ./internal/review/ -run '^$' -bench StoreQueriesWithDetectors -benchtime 1x
func BenchmarkStoreQueriesWithDetectors(b *testing.B) {
	st := devset.ScaleStore(b)
	dev := devset.Questions(b)
	ctx := context.Background()
	for b.Loop() {
		ix, _, err := ingest.Load(ctx, st, store.DefaultCollection)
		if err != nil {
			b.Fatal(err)
		}
		m := search.Models{Provisions: BuiltinProvisions(StoreLoader(st, store.DefaultCollection))}
		// Each question's wall time, and its own CPU time on the thread
		// it runs on (threadCPU), the figure to read on a loaded machine.
		pass := func() (lat, cpu []float64) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for _, q := range dev {
				t0, c0 := time.Now(), procstat.ThreadCPU()
				if _, err := ix.SearchWith(ctx, m, search.Query{Text: q, K: 64}, nil); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, float64(time.Since(t0))/1e6)
				cpu = append(cpu, float64(procstat.ThreadCPU()-c0)/1e6)
			}
			sort.Float64s(lat)
			sort.Float64s(cpu)
			return lat, cpu
		}
		c0 := cpuTime()
		cold, coldCPU := pass()
		c1 := cpuTime()
		warm, warmCPU := pass()
		c2 := cpuTime()
		b.ReportMetric(coldCPU[len(coldCPU)*99/100], "cold-cpu-p99-ms")
		b.ReportMetric(warmCPU[len(warmCPU)*99/100], "cpu-p99-ms")
		// Processor time per question (user+system of the whole process, so
		// the garbage collector's share too): unlike the latencies, it does
		// not grow with the other work on a loaded machine.
		b.ReportMetric(float64(c1-c0)/1e6/float64(len(dev)), "cold-cpu-ms/q")
		b.ReportMetric(float64(c2-c1)/1e6/float64(len(dev)), "cpu-ms/q")
		b.ReportMetric(float64(ix.Docs()), "docs")
		b.ReportMetric(cold[len(cold)/2], "cold-p50-ms")
		b.ReportMetric(cold[len(cold)*99/100], "cold-p99-ms")
		b.ReportMetric(warm[len(warm)/2], "p50-ms")
		b.ReportMetric(warm[len(warm)*99/100], "p99-ms")
	}
}

// TestStoreQueriesCachedLikeFresh checks, on an existing store, that the
// Finder's cache of checked contracts changes no answer: every CUAD
// development question searched as "pakton search" ranks it (K=64) gives
// the same hits and absences through one Finder kept across all the
// questions (asked twice: its cache filled, then used) as through a Finder
// that caches nothing.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store go test ./internal/review/ -run '^TestStoreQueriesCachedLikeFresh$' -v
func TestStoreQueriesCachedLikeFresh(t *testing.T) {
	st := devset.ScaleStore(t)
	dev := devset.Questions(t)
	ctx := context.Background()
	ix, _, err := ingest.Load(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := NewBuiltinFinder(StoreLoader(st, store.DefaultCollection))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := NewBuiltinFinder(StoreLoader(st, store.DefaultCollection))
	if err != nil {
		t.Fatal(err)
	}
	fresh.checked = newCheckCache(0)
	var asked, hits int
	for pass := range 2 {
		for _, q := range dev {
			r1, err1 := ix.SearchWith(ctx, search.Models{Provisions: cached}, search.Query{Text: q, K: 64}, nil)
			r2, err2 := ix.SearchWith(ctx, search.Models{Provisions: fresh}, search.Query{Text: q, K: 64}, nil)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !reflect.DeepEqual(r1.Hits, r2.Hits) || !reflect.DeepEqual(r1.NotFound, r2.NotFound) {
				t.Errorf("pass %d: %q: cached and fresh finders differ:\n%+v\n%+v", pass, q, r1.Hits, r2.Hits)
			}
			if pass == 0 {
				for _, h := range r1.Hits {
					if h.View == index.ViewProvision {
						asked++
						break
					}
				}
				hits += len(r1.Hits)
			}
		}
	}
	t.Logf("%d questions, %d with a provision passage first, %d hits compared per pass; %d (provisions, contract) checks cached", len(dev), asked, hits, cached.checked.ll.Len())
}

// cpuTime is the processor time the process has used (user+system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestStoreQueriesStoredLikeComputed checks, on an existing store ingested
// with the review artifact, that the contracts' stored preparations change
// no answer: every CUAD development question searched as "pakton search"
// ranks it (K=64) gives the same hits and absences through a Finder reading
// the stored preparations as through one preparing every contract from its
// text.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x1all/store go test ./internal/review/ -run '^TestStoreQueriesStoredLikeComputed$' -v
func TestStoreQueriesStoredLikeComputed(t *testing.T) {
	st := devset.ScaleStore(t)
	dev := devset.Questions(t)
	ctx := context.Background()
	ix, _, err := ingest.Load(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	load := StoreLoader(st, store.DefaultCollection)
	var read int
	stored, err := NewBuiltinFinder(func(ctx context.Context, id string) (detect.Doc, error) {
		d, err := load(ctx, id)
		if s := d.Stored; s != nil {
			d.Stored = func() []byte {
				b := s()
				if len(b) > 0 {
					read++
				}
				return b
			}
		}
		return d, err
	})
	if err != nil {
		t.Fatal(err)
	}
	computed, err := NewBuiltinFinder(func(ctx context.Context, id string) (detect.Doc, error) {
		d, err := load(ctx, id)
		d.Stored = nil
		return d, err
	})
	if err != nil {
		t.Fatal(err)
	}
	var asked int
	for _, q := range dev {
		r1, err1 := ix.SearchWith(ctx, search.Models{Provisions: stored}, search.Query{Text: q, K: 64}, nil)
		r2, err2 := ix.SearchWith(ctx, search.Models{Provisions: computed}, search.Query{Text: q, K: 64}, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !reflect.DeepEqual(r1.Hits, r2.Hits) || !reflect.DeepEqual(r1.NotFound, r2.NotFound) {
			t.Errorf("%q: stored and computed preparations differ:\n%+v\n%+v", q, r1.Hits, r2.Hits)
		}
		for _, h := range r1.Hits {
			if h.View == index.ViewProvision {
				asked++
				break
			}
		}
	}
	if read == 0 {
		t.Error("no stored preparation was read: was the store ingested with the review artifact?")
	}
	t.Logf("%d questions, %d with a provision passage first; %d stored preparations read", len(dev), asked, read)
}
