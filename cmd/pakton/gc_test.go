package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
)

// TestDocsGC: on a directory store "docs gc" has nothing to do and says
// why; an age threshold too short for a commit in progress is refused.
func TestDocsGC(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	noModel(t)
	if _, _, err := capture(t, runIngest, "-q", src); err != nil {
		t.Fatal(err)
	}
	out, _, err := capture(t, runDocs, "gc")
	if err != nil || !strings.Contains(out, "directory store: nothing to collect") {
		t.Fatalf("docs gc: %v\n%s", err, out)
	}
	if _, _, err := capture(t, runDocs, "gc", "--min-age", "10s"); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("docs gc --min-age 10s: %v", err)
	}
}
