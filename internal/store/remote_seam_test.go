package store_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/storetest"
)

// TestRemoteSeam runs the Store API over a Remote: what a directory store
// returns, a remote one returns too.
func TestRemoteSeam(t *testing.T) {
	remote := storetest.NewRemote()
	st, err := store.OpenRemote(remote, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.IsRemote() || st.Location() != "mem://test" {
		t.Fatalf("Location %q", st.Location())
	}
	// The default collection exists implicitly.
	if g, err := st.Generation(t.Context(), store.DefaultCollection); err != nil || g != 0 {
		t.Fatalf("Generation(default) = %d, %v", g, err)
	}
	if l, err := st.List(t.Context(), store.DefaultCollection); err != nil || len(l) != 0 {
		t.Fatalf("List(default) = %v, %v", l, err)
	}
	rec := func(id, text string) *store.Record {
		return &store.Record{Doc: &document.Document{ID: id, Name: id + ".txt", Format: "text", Text: text},
			Artifacts: map[string][]byte{"segment": []byte("seg-" + id)}}
	}
	if err := st.Put(t.Context(), store.DefaultCollection, rec("a", "alpha")); err != nil {
		t.Fatal(err)
	}
	g1, _ := st.Generation(t.Context(), store.DefaultCollection)
	if err := st.PutBatch(t.Context(), store.DefaultCollection, []*store.Record{rec("b", "beta"), rec("c", "gamma")}); err != nil {
		t.Fatal(err)
	}
	g2, _ := st.Generation(t.Context(), store.DefaultCollection)
	if g1 == g2 {
		t.Fatal("generation did not change on a put")
	}
	got, err := st.Get(t.Context(), store.DefaultCollection, "b")
	if err != nil || got.Doc.Text != "beta" || string(got.Artifacts["segment"]) != "seg-b" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if a, err := st.Artifact(t.Context(), store.DefaultCollection, "c", "segment"); err != nil || string(a) != "seg-c" {
		t.Fatalf("Artifact = %q, %v", a, err)
	}
	if _, err := st.Artifact(t.Context(), store.DefaultCollection, "c", "vectors"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing artifact: %v", err)
	}
	l, err := st.List(t.Context(), store.DefaultCollection)
	if err != nil || len(l) != 3 || l[0].ID != "a" || l[2].Runes != 5 || len(l[0].Artifacts) != 1 {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if err := st.Delete(t.Context(), store.DefaultCollection, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(t.Context(), store.DefaultCollection, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	if err := st.Delete(t.Context(), store.DefaultCollection, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	// A damaged file is refused, as in a directory store.
	remote.Damage(store.DefaultCollection)
	if _, err := st.Get(t.Context(), store.DefaultCollection, "b"); err == nil {
		t.Fatal("damaged file read without error")
	}
	// Other collections must be created; isolation.
	if err := st.Put(t.Context(), "other", rec("x", "x")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("put into a missing collection: %v", err)
	}
	if err := st.CreateCollection(t.Context(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(t.Context(), "other", rec("x", "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(t.Context(), store.DefaultCollection, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("isolation: %v", err)
	}
	cols, err := st.Collections(t.Context())
	if err != nil || len(cols) != 2 || cols[0].Name != store.DefaultCollection || cols[1].Docs != 1 {
		t.Fatalf("Collections = %+v, %v", cols, err)
	}
	// Derived files live in the local directory.
	if err := st.WriteCache(t.Context(), "other", "search.idx", func(w io.Writer) error { _, err := w.Write([]byte("ix")); return err }); err != nil {
		t.Fatal(err)
	}
	p, _ := st.CachePath("other", "search.idx")
	if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, []byte("ix")) {
		t.Fatalf("cache file: %q, %v", b, err)
	}
	if err := st.DeleteCollection(t.Context(), "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("cache file of a deleted collection: %v", err)
	}
	if _, err := st.Generation(t.Context(), "other"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted collection: %v", err)
	}
}
