package collection

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/learnq"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// contract is a small agreement between party and a supplier.
func contract(party, law string) string {
	return fmt.Sprintf(`SUPPLY AGREEMENT

This Supply Agreement is made between %s ("Customer") and Acme Supplies Ltd ("Supplier").

1. Term
This Agreement runs for two years from the Effective Date.

2. Termination
Either party may terminate this Agreement on ninety days' written notice.

3. Governing Law
This Agreement is governed by the laws of %s.
`, party, law)
}

// newStore ingests files (name → text) into collection "c" of a new store.
func newStore(t *testing.T, files map[string]string) (*store.Store, string) {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ingest.Ingest(t.Context(), st, "c", []string{dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return st, dir
}

func newService(t *testing.T, st *store.Store) *Service {
	svc := New(st, Options{})
	t.Cleanup(svc.Close)
	return svc
}

func TestGetCachesBySnapshotGeneration(t *testing.T) {
	st, dir := newStore(t, map[string]string{"a.txt": contract("Beta Corp", "England")})
	svc := newService(t, st)
	ctx := t.Context()
	first, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	again, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Fatal("the same generation loaded twice")
	}
	if first.Index.Docs() != 1 {
		t.Fatalf("%d documents, want 1", first.Index.Docs())
	}

	// Another writer adds a document: the next Get still answers at once
	// (the previous snapshot), and Refresh brings the new one in.
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte(contract("Gamma LLC", "New York")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "b.txt")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Get(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	svc.Refresh(ctx, "c")
	now, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if now == first || now.Index.Docs() != 2 {
		t.Fatalf("after Refresh: same snapshot %v, %d documents", now == first, now.Index.Docs())
	}
	if gen, _ := st.Generation(ctx, "c"); now.Gen != gen {
		t.Errorf("snapshot generation %d, store %d", now.Gen, gen)
	}

	if _, err := svc.Get(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing collection: %v", err)
	}
}

// TestBackgroundReload: a Get that finds the generation moved returns the
// previous snapshot and loads the new one in the background.
func TestBackgroundReload(t *testing.T) {
	st, dir := newStore(t, map[string]string{"a.txt": contract("Beta Corp", "England")})
	// Without maintenance: a maintenance pass finishing between the two
	// Gets (as on a loaded machine) replaces the snapshot at the same
	// generation, which is not what this test is about.
	svc := New(st, Options{NoMaintenance: true})
	t.Cleanup(svc.Close)
	ctx := t.Context()
	first, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte(contract("Gamma LLC", "New York")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "b.txt")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if got != first {
		t.Fatal("a stale Get waited for the reload instead of answering from the previous snapshot")
	}
	// The reload finishes in the background (no timing asserted: wait for it).
	for deadline := time.Now().Add(time.Minute); ; {
		sn, err := svc.Get(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if sn.Index.Docs() == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background reload never arrived")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDocAndRespond(t *testing.T) {
	st, dir := newStore(t, map[string]string{
		"a.txt": contract("Beta Corp", "England"),
		"b.txt": contract("Gamma LLC", "New York"),
	})
	svc := newService(t, st)
	ctx := t.Context()
	sn, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sn.Search(ctx, search.Query{Text: "which law governs the agreement", K: 4, Stages: search.Stages{NoProvisions: true}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := sn.Respond(ctx, "which law governs the agreement", res)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) == 0 || len(resp.Hits) != len(res.Hits) {
		t.Fatalf("%d passages for %d hits", len(resp.Hits), len(res.Hits))
	}
	for i, p := range resp.Hits {
		if p.Rank != i+1 || p.DocName == "" || p.Text == "" {
			t.Errorf("passage %d: %+v", i, p)
		}
	}

	// A hit of a document gone since the snapshot was loaded is left out
	// and the others are ranked again.
	gone := search.Hit{DocID: "0000000000000000", Span: res.Hits[0].Span, Rank: 1}
	withGone := search.Result{Hits: append([]search.Hit{gone}, res.Hits...)}
	resp2, err := sn.Respond(ctx, "q", withGone)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp2.Hits) != len(resp.Hits) || resp2.Hits[0].Rank != 1 || resp2.Hits[0].DocID != resp.Hits[0].DocID {
		t.Errorf("with a gone document: %d passages, first %+v", len(resp2.Hits), resp2.Hits[0])
	}
	_ = dir
}

func TestDocChangedSinceLoad(t *testing.T) {
	st, dir := newStore(t, map[string]string{"a.txt": contract("Beta Corp", "England")})
	svc := newService(t, st)
	ctx := t.Context()
	sn, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(contract("Delta SA", "France")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "a.txt")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sn.Doc(ctx, store.DocID("a.txt")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a document replaced since the snapshot: %v, want ErrNotFound", err)
	}
}

func TestProvisionsAndModels(t *testing.T) {
	st, _ := newStore(t, map[string]string{"a.txt": contract("Beta Corp", "England")})
	svc := newService(t, st)
	sn, err := svc.Get(t.Context(), "c")
	if err != nil {
		t.Fatal(err)
	}
	if sn.Provisions() == nil || sn.Provisions() != sn.Provisions() {
		t.Error("the provision finder is not set up once per snapshot")
	}
	c := sn.Corpus()
	if c.Index != sn.Index || c.Collection != "c" || c.Models.Provisions == nil {
		t.Errorf("corpus %+v", c)
	}
	if sn.Library() == nil {
		t.Error("no library")
	}
}

// TestWaitForReload: a service for one client sees another process's change
// in its next answer.
func TestWaitForReload(t *testing.T) {
	st, dir := newStore(t, map[string]string{"a.txt": contract("Beta Corp", "England")})
	svc := New(st, Options{WaitForReload: true})
	defer svc.Close()
	ctx := t.Context()
	if _, err := svc.Get(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte(contract("Gamma LLC", "New York")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "b.txt")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	sn, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if sn.Index.Docs() != 2 {
		t.Errorf("%d documents right after the change, want 2", sn.Index.Docs())
	}
}

// TestSearchAddsTheShippedLearntWords: the snapshot's searches (the CLI,
// ask, the API and MCP all search through it) add the words of the shipped
// model of labelled questions, and NoLearnt turns them off.
func TestSearchAddsTheShippedLearntWords(t *testing.T) {
	st, _ := newStore(t, map[string]string{
		"a.txt": contract("Beta Corp", "England"),
		"b.txt": contract("Gamma LLC", "New York"),
	})
	svc := newService(t, st)
	ctx := t.Context()
	sn, err := svc.Get(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if sn.SearchModels().Learnt != learnq.Builtin() {
		t.Fatal("the snapshot's search models do not carry the shipped model of labelled questions")
	}
	// A CUAD development question's wording ("Governing Law").
	q := search.Query{Text: "Which state/country's law governs the interpretation of the contract?", K: 4, Explain: true}
	res, err := sn.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Explain.Learned) == 0 {
		t.Fatal("the search added no learnt word")
	}
	q.NoLearnt = true
	if res, err = sn.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	if len(res.Explain.Learned) != 0 {
		t.Fatalf("with NoLearnt the search added %v", res.Explain.Learned)
	}
}
