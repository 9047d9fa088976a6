// Package reviewtest gives the tests of the review faces (runner, exports,
// CLI, HTTP API, web app, MCP) one small fixture: the example contracts of
// examples/contracts ingested into a store, and a four-provision playbook.
package reviewtest

import (
	"context"
	_ "embed"
	"os"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// PlaybookYAML is a small playbook: Governing Law, Termination For
// Convenience, Confidentiality and Source Code Escrow (which none of the
// example contracts hold).
//
//go:embed small.yaml
var PlaybookYAML []byte

// Playbook parses PlaybookYAML.
func Playbook(t testing.TB) *playbook.Playbook {
	t.Helper()
	pb, err := playbook.ParsePlaybook("small.yaml", PlaybookYAML)
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// Reviewer builds a zero-shot reviewer for Playbook.
func Reviewer(t testing.TB) *review.Reviewer {
	t.Helper()
	r, err := review.NewReviewer(Playbook(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Contracts returns the paths of the example contracts.
func Contracts(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(Root(t), "examples", "contracts")
	var out []string
	for _, n := range []string{"distribution-agreement.txt", "master-services-agreement.txt", "mutual-nda.md", "software-license-agreement.html", "supply-agreement.docx"} {
		out = append(out, filepath.Join(dir, n))
	}
	return out
}

// Ingest ingests the example contracts into collection of st.
func Ingest(t testing.TB, st *store.Store, collection string) {
	t.Helper()
	IngestFiles(t, st, collection, Contracts(t)...)
}

// IngestFiles ingests files into collection of st.
func IngestFiles(t testing.TB, st *store.Store, collection string, paths ...string) {
	t.Helper()
	sum, err := ingest.Ingest(context.Background(), st, collection, paths, ingest.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := sum.Err(); err != nil {
		t.Fatal(err)
	}
}

// Store opens a fresh store in a temporary directory holding the example
// contracts in collection.
func Store(t testing.TB, collection string) *store.Store {
	t.Helper()
	st := StoreAt(t, t.TempDir(), collection)
	t.Cleanup(func() { st.Close() })
	return st
}

// StoreAt opens a store in dir holding the example contracts in
// collection; the caller closes it and removes dir (for a store shared by
// the tests of a package).
func StoreAt(t testing.TB, dir, collection string) *store.Store {
	t.Helper()
	st, err := wvtest.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	Ingest(t, st, collection)
	return st
}

// Root returns the repository root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("reviewtest: no go.mod above the working directory")
		}
		dir = up
	}
}

// Corrupt damages the stored text of a document (same size, different
// bytes), so reading it fails its checksum.
func Corrupt(t testing.TB, st *store.Store, collection, id string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(st.Dir(), "collections", collection, "docs", id+"@*", "text.txt"))
	if len(matches) != 1 {
		t.Fatalf("reviewtest: stored text of %s: found %v", id, matches)
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		if raw[i] >= 'a' && raw[i] <= 'z' {
			raw[i] = 'x'
		}
	}
	if err := os.WriteFile(matches[0], raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
