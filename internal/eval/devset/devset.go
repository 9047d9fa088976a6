// Package devset reads the questions of the shared LegalBench-RAG CUAD
// development benchmark for tests and benchmarks that time or compare
// searches over them (the benchmark itself is scored by package eval).
package devset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/store"
)

// Questions returns the queries of ../shared/data's cuad_dev.json, seen
// from a package directory two levels below the repository (internal/x).
// It skips tb when the data is absent.
func Questions(tb testing.TB) []string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "benchmarks", "cuad_dev.json"))
	if err != nil {
		tb.Skip("../shared/data is absent")
	}
	var dev struct {
		Tests []struct {
			Query string `json:"query"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &dev); err != nil {
		tb.Fatal(err)
	}
	qs := make([]string, len(dev.Tests))
	for i, t := range dev.Tests {
		qs[i] = t.Query
	}
	return qs
}

// ScaleStore opens, read-only, the store named by PAKTON_SCALE_STORE (one
// that scripts/scale-bench.sh or "pakton ingest" made) for the benchmarks
// and checks that run over a whole collection, closing it when tb ends. It
// skips tb when the variable is not set.
func ScaleStore(tb testing.TB) *store.Store {
	tb.Helper()
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		tb.Skip("set PAKTON_SCALE_STORE to a store directory")
	}
	st, err := store.OpenReader(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
