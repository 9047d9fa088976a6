package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/store"
)

// TestDocGraph checks that ingest stores each document's graph, that a
// document stored without one (an older store) gets it computed on load,
// and that Reindex stores it again.
func TestDocGraph(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "src/a.txt", []byte(contractText(1, 3)))
	writeFile(t, dir, "src/b.txt", []byte(contractText(2, 3)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, store.DefaultCollection, []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	id := store.DocID("a.txt")
	rec, err := st.Document(store.DefaultCollection, id)
	if err != nil {
		t.Fatal(err)
	}
	rec.Tree = Tree(rec)
	g, computed, err := DocGraph(st, store.DefaultCollection, rec)
	if err != nil || computed {
		t.Fatalf("DocGraph: computed %v, err %v", computed, err)
	}
	if len(g.Definition("Services")) != 1 || len(g.References) == 0 {
		t.Fatalf("graph of a.txt: %d definitions of Services, %d references", len(g.Definition("Services")), len(g.References))
	}

	// An older store: the document has no graph artifact.
	full, err := st.Get(store.DefaultCollection, id)
	if err != nil {
		t.Fatal(err)
	}
	delete(full.Artifacts, ArtifactGraph)
	if err := st.Put(store.DefaultCollection, full); err != nil {
		t.Fatal(err)
	}
	g2, computed, err := DocGraph(st, store.DefaultCollection, rec)
	if err != nil || !computed || len(g2.References) != len(g.References) {
		t.Fatalf("DocGraph without artifact: computed %v, %d references (want %d), err %v", computed, len(g2.References), len(g.References), err)
	}
	cg, n, err := CollectionGraph(ctx, st, store.DefaultCollection, nil)
	if err != nil || n != 1 {
		t.Fatalf("CollectionGraph: %d computed, err %v", n, err)
	}
	stats := cg.Stats()
	if stats[string(graph.NodeDocument)] != 2 || stats[string(graph.EdgeRefersTo)] == 0 || stats[string(graph.EdgeDefines)] < 2 || stats[string(graph.EdgePartOf)] == 0 {
		t.Errorf("collection graph stats %v", stats)
	}
	if _, err := Reindex(ctx, st, store.DefaultCollection, nil); err != nil {
		t.Fatal(err)
	}
	if _, n, _ = CollectionGraph(ctx, st, store.DefaultCollection, nil); n != 0 {
		t.Errorf("after Reindex, %d graphs still computed on load", n)
	}
}
