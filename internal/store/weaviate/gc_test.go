package weaviate_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store"
)

// TestWeaviateGC: the file parts of commits cut short — a new version's
// files written but never its document object, a replaced version's files
// not removed — are collected once older than the threshold, never before,
// and the live versions' files are untouched. So are the records of jobs,
// which share no class with files.
func TestWeaviateGC(t *testing.T) {
	_, r := openCluster(t)
	ctx := context.Background()
	st, err := store.OpenRemote(r, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const coll = "gc"
	if err := r.CreateCollection(t.Context(), coll); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16) // 3 parts of 2 MB
	commit := func(id, version string, files map[string][]byte) {
		t.Helper()
		err := r.Commit(t.Context(), coll, []store.RemoteVersion{{RemoteEntry: store.RemoteEntry{ID: id, Version: version, Entry: []byte(`{}`)}, Files: files}})
		if err != nil {
			t.Fatal(err)
		}
	}
	orphan := func(id, version, name string, b []byte) int {
		t.Helper()
		n, err := r.WriteOrphan(ctx, coll, id, version, name, b)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	commit("d1", "v1", map[string][]byte{"meta.json": []byte("m1"), "text.txt": []byte("old")})
	commit("d1", "v2", map[string][]byte{"meta.json": []byte("m2"), "text.txt": big})
	commit("d2", "v1", map[string][]byte{"meta.json": []byte("m3")})
	n := orphan("d1", "v3", "text.txt", big)           // a replacement cut short
	n += orphan("d3", "v1", "meta.json", []byte("x"))  // a first commit cut short
	n += orphan("d1", "v1", "text.txt", []byte("old")) // a replaced version left behind
	if err := r.PutRecord(t.Context(), "job", "j1", []byte(`{"id":"j1"}`)); err != nil {
		t.Fatal(err)
	}

	gs, err := st.CollectGarbage(t.Context(), coll, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Removed != 0 || gs.Young != n || gs.Parts != n+5 {
		t.Fatalf("young orphans: %+v, want %d young of %d parts", gs, n, n+5)
	}
	time.Sleep(1100 * time.Millisecond)
	gs, err = st.CollectGarbage(t.Context(), coll, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Removed != n || gs.Young != 0 {
		t.Fatalf("old orphans: %+v, want %d removed", gs, n)
	}
	t.Logf("collected %d orphan parts of %d", gs.Removed, gs.Parts)
	for _, f := range []struct{ id, version, name string }{{"d1", "v3", "text.txt"}, {"d3", "v1", "meta.json"}, {"d1", "v1", "text.txt"}} {
		if _, err := r.ReadFile(t.Context(), coll, f.id, f.version, f.name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("orphan %v still readable: %v", f, err)
		}
	}
	if b, err := r.ReadFile(t.Context(), coll, "d1", "v2", "text.txt"); err != nil || !bytes.Equal(b, big) {
		t.Fatalf("live file after gc: %d bytes, %v", len(b), err)
	}
	if b, err := r.ReadFile(t.Context(), coll, "d2", "v1", "meta.json"); err != nil || string(b) != "m3" {
		t.Fatalf("live file after gc: %q, %v", b, err)
	}
	if gs, err := st.CollectGarbage(t.Context(), coll, time.Second); err != nil || gs.Removed != 0 || gs.Parts != 5 {
		t.Fatalf("gc again: %+v, %v", gs, err)
	}
	if b, err := r.Record(t.Context(), "job", "j1"); err != nil || string(b) != `{"id":"j1"}` {
		t.Fatalf("record after gc: %q, %v", b, err)
	}
	recs, err := r.Records(t.Context(), "job")
	if err != nil || len(recs) != 1 {
		t.Fatalf("records of kind job: %v, %v", recs, err)
	}
	if recs, err := r.Records(t.Context(), "report/gc"); err != nil || len(recs) != 0 {
		t.Fatalf("records of kind report/gc: %v, %v", recs, err)
	}
}
