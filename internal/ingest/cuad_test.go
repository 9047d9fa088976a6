package ingest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/procstat"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// cuadDir returns the CUAD corpus of LegalBench-RAG beside the repository
// (../shared/data from the repository root), or skips the test.
func cuadDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("CUAD corpus not found at %s", dir)
	}
	return dir
}

// cuadDistinct is the number of distinct contracts among the corpus's 468
// files.
const cuadDistinct = 467

// TestIngestCUAD ingests the whole CUAD corpus (468 contracts) into a fresh
// store and loads its index back, reporting wall time, peak RSS and index
// load time. It runs only with PAKTON_SLOW=1:
//
//	PAKTON_SLOW=1 go test ./internal/ingest/ -run TestIngestCUAD -v

func TestIngestCUAD(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to ingest the whole CUAD corpus")
	}
	dir := cuadDir(t)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()

	start := time.Now()
	sum, err := Ingest(ctx, st, store.DefaultCollection, []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	// The corpus holds 468 files, two of them byte-identical: identical
	// bytes are one contract, so 467 documents are added and the copy is
	// reported unchanged, naming the file it duplicates.
	if n := sum.Count(StatusAdded); n != cuadDistinct {
		t.Errorf("added %d documents, want %d: %v", n, cuadDistinct, sum.Err())
	}
	if n := sum.Count(StatusUnchanged); n != 468-cuadDistinct {
		t.Errorf("%d copies reported unchanged, want %d", n, 468-cuadDistinct)
	}
	t.Logf("ingest: %d files, %.1f MB, %.2f s wall, peak RSS %.0f MB, %d CPUs", len(sum.Files), float64(sum.Bytes)/1e6, wall.Seconds(), float64(procstat.PeakRSS())/(1<<20), runtime.NumCPU())

	// A second run finds every file unchanged.
	start = time.Now()
	again, err := Ingest(ctx, st, store.DefaultCollection, []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := again.Count(StatusUnchanged); n != 468 {
		t.Errorf("second run: %d unchanged, want 468", n)
	}
	t.Logf("re-ingest (all unchanged): %.2f s", time.Since(start).Seconds())

	var ix *search.Index
	best := time.Duration(1 << 62)
	for range 3 {
		start = time.Now()
		ix, err = LoadIndex(ctx, st, store.DefaultCollection)
		if err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	t.Logf("LoadIndex: %d docs, %d units, best of 3 %.0f ms; peak RSS %.0f MB", ix.Docs(), ix.Units(), best.Seconds()*1000, float64(procstat.PeakRSS())/(1<<20))
	if ix.Docs() != cuadDistinct {
		t.Errorf("index holds %d documents, want %d", ix.Docs(), cuadDistinct)
	}
}

// BenchmarkLoadIndexCUAD measures loading the index of the whole CUAD corpus
// from a store. The store is built once per run (about 10 s), so it runs only
// with PAKTON_SLOW=1:
//
//	PAKTON_SLOW=1 go test ./internal/ingest/ -run '^$' -bench LoadIndexCUAD -benchtime 5x
func BenchmarkLoadIndexCUAD(b *testing.B) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		b.Skip("set PAKTON_SLOW=1")
	}
	dir := cuadDir(b)
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, store.DefaultCollection, []string{dir}, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := LoadIndex(ctx, st, store.DefaultCollection); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIngestCUAD measures ingesting the whole CUAD corpus into a fresh
// store (PAKTON_SLOW=1 only; about 10 s per iteration).
func BenchmarkIngestCUAD(b *testing.B) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		b.Skip("set PAKTON_SLOW=1")
	}
	dir := cuadDir(b)
	for b.Loop() {
		st, err := store.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Ingest(context.Background(), st, store.DefaultCollection, []string{dir}, Options{}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
	b.ReportMetric(float64(procstat.PeakRSS())/(1<<20), "peakRSS-MB")
}
