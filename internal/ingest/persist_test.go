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

// TestLoadIsIncremental checks that Load indexes what changed in the store
// and nothing else — a new document in a segment of its own, a deleted or
// replaced one marked deleted — that another process opens the index
// without rebuilding it, and that every state answers exactly as an index
// built from scratch from the same documents.
func TestLoadIsIncremental(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "src/a.txt", []byte(contractText(1, 3)))
	writeFile(t, dir, "src/b.txt", []byte(contractText(2, 3)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	ingest := func() {
		t.Helper()
		if _, err := Ingest(ctx, st, "deals", []string{filepath.Join(dir, "src")}, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	ingest()
	queries := []search.Query{{Text: "obligation 2-3-2 due care", K: 5}, {Text: "notice", K: 3, Docs: []string{store.DocID("a.txt")}},
		{Text: "liability cap notice obligation", K: 10, Stages: search.Stages{NoRoute: true}}}
	answers := func(ix *search.Index) []search.Result {
		var out []search.Result
		for _, q := range queries {
			res, err := ix.Search(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		return out
	}
	// fresh answers as one segment built from scratch from the same
	// documents in the same order would.
	fresh := func(ix *search.Index) []search.Result {
		t.Helper()
		ix, err := inMemory(ctx, st, "deals", liveOrder(ix)...)
		if err != nil {
			t.Fatal(err)
		}
		return answers(ix)
	}
	check := func(what string, ix *search.Index, rep LoadReport, err error, docs, added, deleted, segments int) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ix.Docs() != docs || rep.Added != added || rep.Deleted != deleted || rep.Segments != segments {
			t.Fatalf("%s: %d docs, report %+v; want %d docs, %d added, %d deleted, %d segments", what, ix.Docs(), rep, docs, added, deleted, segments)
		}
		if got, want := answers(ix), fresh(ix); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: answers %+v, built from scratch %+v", what, got, want)
		}
	}
	ix, rep, err := Load(ctx, st, "deals")
	check("first load", ix, rep, err, 2, 2, 0, 1)
	// Another process (a reader that takes no lock) opens it as it is.
	rd, err := store.OpenReader(st.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ix, rep, err = Load(ctx, rd, "deals")
	check("reader", ix, rep, err, 2, 0, 0, 1)
	if !rep.Opened {
		t.Fatal("a reader did not open the index as it was")
	}

	// A new document: one new segment, the others untouched.
	writeFile(t, dir, "src/c.txt", []byte(contractText(3, 3)))
	ingest()
	ix, rep, err = Load(ctx, rd, "deals")
	check("after an added document", ix, rep, err, 3, 1, 0, 2)
	// A changed document: the old version deleted, the new one added.
	writeFile(t, dir, "src/a.txt", []byte(contractText(4, 3)))
	ingest()
	ix, rep, err = Load(ctx, st, "deals")
	check("after a replaced document", ix, rep, err, 3, 1, 1, 3)
	// A deleted document: marked deleted, nothing written but the commit.
	if err := st.Delete(t.Context(), "deals", store.DocID("b.txt")); err != nil {
		t.Fatal(err)
	}
	ix, rep, err = Load(ctx, st, "deals")
	check("after a deleted document", ix, rep, err, 2, 0, 1, 3)
	if ix, rep, err = Load(ctx, st, "deals"); err != nil || !rep.Opened || ix.Docs() != 2 {
		t.Fatalf("load after the changes: %d docs, report %+v, %v", ix.Docs(), rep, err)
	}

	// A damaged index (here: a segment file cut short) is built again.
	cache, err := st.CacheDir(t.Context(), "deals")
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(cache, IndexDir, "seg-*"))
	if len(segs) == 0 {
		t.Fatal("no segment files")
	}
	if err := os.Truncate(segs[0], 100); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "src/d.txt", []byte(contractText(5, 3)))
	ingest()
	ix, rep, err = Load(ctx, st, "deals")
	check("after damage", ix, rep, err, 4, 4, 0, 1) // b.txt is ingested again from src
	if !rep.Rebuilt {
		t.Fatalf("report %+v: not rebuilt", rep)
	}
}

// liveOrder returns the ids of an index's live documents in its order.
func liveOrder(ix *search.Index) []string {
	v := ix.Snapshot()
	var out []string
	for g := range v.NumDocs() {
		if v.DocLive(g) {
			out = append(out, v.DocID(g))
		}
	}
	return out
}

// TestLoadNoOpen checks that a load that only brings the index up to date
// (LoadOptions.NoOpen) commits what Load would, reports the commit's
// counts, and returns no index.
func TestLoadNoOpen(t *testing.T) {
	dir := t.TempDir()
	for i := 1; i <= 3; i++ {
		writeFile(t, dir, "src/"+string(rune('a'+i))+".txt", []byte(contractText(i, 3)))
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, "deals", []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "deals", store.DocID("b.txt")); err != nil {
		t.Fatal(err)
	}
	ix, rep, err := LoadWith(ctx, st, "deals", LoadOptions{NoOpen: true})
	if err != nil || ix != nil || rep.Opened || rep.Added != 2 || rep.Docs != 2 || rep.Segments != 1 {
		t.Fatalf("index %v, report %+v, %v; want no index, 2 added, 2 documents in 1 segment", ix, rep, err)
	}
	// The index is up to date: Load opens it as it is.
	ix, rep, err = Load(ctx, st, "deals")
	if err != nil || !rep.Opened || ix.Docs() != 2 {
		t.Fatalf("load after: report %+v, %v", rep, err)
	}
}
