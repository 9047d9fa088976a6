//go:build linux

package index

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/procstat"
)

// TestMergeSegmentFiles merges the segment files listed in
// PAKTON_MERGE_SEGS (space-separated paths, opened read-only, no deleted
// documents) into the file PAKTON_MERGE_OUT, sampling the process's
// anonymous and file-backed resident memory every 20 ms: the merge of an
// ingest alone, on real segments, to measure its memory and time (docs/
// SCALE.md, "Memory"). Skipped when unset.
func TestMergeSegmentFiles(t *testing.T) {
	list, out := os.Getenv("PAKTON_MERGE_SEGS"), os.Getenv("PAKTON_MERGE_OUT")
	if list == "" || out == "" {
		t.Skip("PAKTON_MERGE_SEGS and PAKTON_MERGE_OUT not set")
	}
	var segs []*Segment
	for _, p := range strings.Fields(list) {
		s, err := OpenSegment(p)
		if err != nil {
			t.Fatal(err)
		}
		s.name = filepath.Base(p)
		segs = append(segs, s)
	}
	runtime.GC()
	var mu sync.Mutex
	var maxAnon, maxFile, maxRSS int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			a, f := procstat.Bytes("RssAnon")>>10, procstat.Bytes("RssFile")>>10
			mu.Lock()
			maxAnon, maxFile, maxRSS = max(maxAnon, a), max(maxFile, f), max(maxRSS, a+f)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	st, err := mergeSegments(newFileWriter(f, segmentMagic, segmentFormat, numSections), segs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	close(stop)
	<-done
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cpu := func(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }
	t.Logf("%d segments -> %d docs, %d units, %d terms, %d MB in %s; CPU user %.1f s, system %.1f s",
		len(segs), st.Docs, st.Units, st.Terms, st.Bytes>>20, time.Since(start).Round(time.Second),
		cpu(ru.Utime)-cpu(ru0.Utime), cpu(ru.Stime)-cpu(ru0.Stime))
	t.Logf("sampled max: RSS %d MB, anonymous %d MB, file %d MB; VmHWM %d MB; Go heap: peak sys %d MB, total alloc %d MB",
		maxRSS>>10, maxAnon>>10, maxFile>>10, procstat.PeakRSS()>>20, ms.HeapSys>>20, ms.TotalAlloc>>20)
}
