//go:build unix

package search

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/search/index"
)

// TestLearnAssociationsOfIndex learns the word associations of an index
// directory given by PAKTON_ASSOC_INDEX, read-only, and writes the table to
// PAKTON_ASSOC_OUT: the pass "pakton ingest" and "docs optimize" end with,
// alone, to measure its memory and time on a large collection and to
// compare its table across versions (docs/SCALE.md, "Memory"). Skipped
// when unset.
func TestLearnAssociationsOfIndex(t *testing.T) {
	dir, out := os.Getenv("PAKTON_ASSOC_INDEX"), os.Getenv("PAKTON_ASSOC_OUT")
	if dir == "" || out == "" {
		t.Skip("PAKTON_ASSOC_INDEX and PAKTON_ASSOC_OUT not set")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	d, err := index.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, c, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	err = Open(snap, nil).WriteAssociations(f, func(done, total int) {
		if done%16384 == 0 {
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			t.Logf("%s: %d/%d terms, CPU user %d s, system %d s", time.Since(start).Round(time.Second), done, total, ru.Utime.Sec, ru.Stime.Sec)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("commit %d, %d segments: %s", c.ID, len(c.Segments), time.Since(start).Round(time.Second))
}
