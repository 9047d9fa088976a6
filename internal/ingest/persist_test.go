package ingest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// TestLoadUsesCurrentIndexFileOnly checks that Load writes the collection's
// index file, opens it on the next load with the same answers, and never
// opens a stale one: not after a write, and not when an old file is put
// back.
func TestLoadUsesCurrentIndexFileOnly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "src/a.txt", []byte(contractText(1, 3)))
	writeFile(t, dir, "src/b.txt", []byte(contractText(2, 3)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, "deals", []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	queries := []search.Query{{Text: "obligation 2-3-2 due care", K: 5}, {Text: "notice", K: 3, Docs: []string{store.DocID("a.txt")}}}
	answers := func(ix *search.Index) []search.Result {
		var out []search.Result
		for _, q := range queries {
			out = append(out, ix.Search(q))
		}
		return out
	}
	built, rep, err := Load(ctx, st, "deals")
	if err != nil || rep.Opened || !rep.Saved {
		t.Fatalf("first load: report %+v, %v; want built and saved", rep, err)
	}
	want := answers(built)
	path, err := st.CachePath("deals", IndexFile)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Another process (a reader that takes no lock) opens the file.
	rd, err := store.OpenReader(st.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	opened, rep, err := Load(ctx, rd, "deals")
	if err != nil || !rep.Opened || opened.Docs() != 2 {
		t.Fatalf("second load: %d docs, report %+v, %v; want the file opened", opened.Docs(), rep, err)
	}
	if got := answers(opened); !reflect.DeepEqual(got, want) {
		t.Errorf("opened index answers %+v, built %+v", got, want)
	}

	writeFile(t, dir, "src/c.txt", []byte(contractText(3, 3)))
	if _, err := Ingest(ctx, st, "deals", []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old, 0o644); err != nil { // a stale file put back
		t.Fatal(err)
	}
	ix, rep, err := Load(ctx, rd, "deals")
	if err != nil || rep.Opened || ix.Docs() != 3 {
		t.Fatalf("load after a write: %d docs, report %+v, %v; want 3 docs built, not the stale file", ix.Docs(), rep, err)
	}
	if !rep.Saved {
		t.Error("a reader did not save the rebuilt index")
	}
	if ix, rep, err = Load(ctx, st, "deals"); err != nil || !rep.Opened || ix.Docs() != 3 {
		t.Errorf("load after the rebuild: %d docs, report %+v, %v", ix.Docs(), rep, err)
	}
}
