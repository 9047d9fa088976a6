package usecase

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store"
)

// BenchmarkCollectionFamilies computes the families of the store
// PAKTON_SCALE_STORE (its default collection; the store's family caches are
// rewritten): from scratch (no cache of either kind: every signature read
// from the store) and from the signature cache (what a computation after
// an upload costs, less the uploaded documents' signatures), reporting the
// wall and processor seconds of each.
func BenchmarkCollectionFamilies(b *testing.B) {
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		b.Skip("PAKTON_SCALE_STORE is not set")
	}
	st, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := b.Context()
	const c = store.DefaultCollection
	remove := func(names ...string) {
		for _, n := range names {
			if p, err := st.CachePath(c, n); err == nil {
				os.Remove(p)
			}
		}
	}
	var scratch, cached, scratchCPU, cachedCPU time.Duration
	var fams int
	for range b.N {
		remove(familyCache, familySigCache)
		t0, c0 := time.Now(), cpuTime()
		f, err := CollectionFamilies(ctx, st, c)
		if err != nil {
			b.Fatal(err)
		}
		scratch += time.Since(t0)
		scratchCPU += cpuTime() - c0
		remove(familyCache)
		t0, c0 = time.Now(), cpuTime()
		g, err := CollectionFamilies(ctx, st, c)
		if err != nil {
			b.Fatal(err)
		}
		cached += time.Since(t0)
		cachedCPU += cpuTime() - c0
		if len(f.Families) != len(g.Families) {
			b.Fatalf("%d families from scratch, %d from the signature cache", len(f.Families), len(g.Families))
		}
		fams = len(f.Families)
	}
	b.ReportMetric(scratch.Seconds()/float64(b.N), "scratch-s")
	b.ReportMetric(cached.Seconds()/float64(b.N), "sigcache-s")
	b.ReportMetric(scratchCPU.Seconds()/float64(b.N), "scratch-cpu-s")
	b.ReportMetric(cachedCPU.Seconds()/float64(b.N), "sigcache-cpu-s")
	b.ReportMetric(float64(fams), "families")
}

// cpuTime is the processor time (user and system) of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
