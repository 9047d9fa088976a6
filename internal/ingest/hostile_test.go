package ingest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pakton/pakton/internal/parse/pdftest"
	"github.com/pakton/pakton/internal/store"
)

// hostileLimit is the peak resident memory allowed while ingesting hostile
// files.
const hostileLimit = 1 << 30

// TestHostileFilesBounded ingests, in one batch, the attacks
// beside a good contract: a 60 KB one-page PDF with two million text
// operations, a 1 MB PDF whose content stream inflates to 1 GiB, and 19 MB
// of HTML list items nested 240 deep. It runs the ingest in a child process
// and fails when that process's peak resident memory passes 1 GiB, when a
// hostile file is not refused with a clear reason, or when the good file is
// not stored. Slow (about a minute): PAKTON_SLOW=1.
//
//	PAKTON_SLOW=1 go test ./internal/ingest/ -run TestHostileFilesBounded -v
func TestHostileFilesBounded(t *testing.T) {
	if dir := os.Getenv("PAKTON_HOSTILE_CHILD"); dir != "" {
		hostileChild(t, dir)
		return
	}
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to ingest hostile files and measure peak memory")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "batch")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	var deep strings.Builder
	deep.WriteString("<html><body>")
	for range 240 {
		deep.WriteString("<ul><li>x")
	}
	for deep.Len() < 19<<20 {
		deep.WriteString("<li>x")
	}
	files := map[string][]byte{
		"ops.pdf":   pdftest.ManyTextOps(2_000_000),
		"bomb.pdf":  pdftest.FlateBomb(1 << 30),
		"deep.html": []byte(deep.String()),
		"good.txt":  []byte("SUPPLY AGREEMENT\n\n1. Term\nThis Agreement lasts five years.\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileFilesBounded$", "-test.v")
	cmd.Env = append(os.Environ(), "PAKTON_HOSTILE_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peak := ru.Maxrss * 1024 // kilobytes on Linux
	t.Logf("peak resident memory of the ingest: %d MiB", peak>>20)
	if peak > hostileLimit {
		t.Errorf("peak resident memory %d MiB, want ≤ %d MiB", peak>>20, hostileLimit>>20)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var sum Summary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	for _, f := range sum.Files {
		t.Logf("%s: %s %s", f.Name, f.Status, f.Reason)
		switch {
		case f.Name == "good.txt" && f.Status != StatusAdded:
			t.Errorf("good.txt: %s %s, want added", f.Status, f.Reason)
		case f.Name != "good.txt" && (f.Status != StatusFailed || !strings.Contains(f.Reason, "too large")):
			t.Errorf("%s: %s %q, want failed as too large", f.Name, f.Status, f.Reason)
		}
	}
	if len(sum.Files) != len(files) {
		t.Errorf("%d results, want %d", len(sum.Files), len(files))
	}
}

// hostileChild ingests dir/batch into dir/store and writes the summary.
func hostileChild(t *testing.T, dir string) {
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Ingest(context.Background(), st, "default", []string{filepath.Join(dir, "batch")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(sum)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
