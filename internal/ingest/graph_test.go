package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/search"
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
	rec, err := st.Document(t.Context(), store.DefaultCollection, id)
	if err != nil {
		t.Fatal(err)
	}
	rec.Tree = docread.Tree(rec)
	g, computed, err := docread.DocGraph(ctx, st, store.DefaultCollection, rec)
	if err != nil || computed {
		t.Fatalf("DocGraph: computed %v, err %v", computed, err)
	}
	if len(g.Definition("Services")) != 1 || len(g.References) == 0 {
		t.Fatalf("graph of a.txt: %d definitions of Services, %d references", len(g.Definition("Services")), len(g.References))
	}

	// An older store: the document has no graph artifact.
	full, err := st.Get(t.Context(), store.DefaultCollection, id)
	if err != nil {
		t.Fatal(err)
	}
	delete(full.Artifacts, docread.ArtifactGraph)
	if err := st.Put(t.Context(), store.DefaultCollection, full); err != nil {
		t.Fatal(err)
	}
	g2, computed, err := docread.DocGraph(ctx, st, store.DefaultCollection, rec)
	if err != nil || !computed || len(g2.References) != len(g.References) {
		t.Fatalf("DocGraph without artifact: computed %v, %d references (want %d), err %v", computed, len(g2.References), len(g.References), err)
	}
	// A graph stored by an older extraction version is computed again.
	old := *g
	old.Version = graph.Version - 1
	if full.Artifacts[docread.ArtifactGraph], err = old.Encode(); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(t.Context(), store.DefaultCollection, full); err != nil {
		t.Fatal(err)
	}
	if g3, computed, err := docread.DocGraph(ctx, st, store.DefaultCollection, rec); err != nil || !computed || g3.Version != graph.Version {
		t.Fatalf("DocGraph of an older version: computed %v, version %d, err %v", computed, g3.Version, err)
	}
	if _, err := Reindex(ctx, st, store.DefaultCollection, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, computed, err := docread.ReadGraph(ctx, st, store.DefaultCollection, rec.Doc.ID); err != nil || computed {
		t.Errorf("after Reindex, the graph is still computed on load (err %v)", err)
	}
}

// TestPassageSupport searches the sample master services agreement and
// checks that a passage carries the definitions of the terms it uses and
// the clause it refers to, apart from its own span.
func TestPassageSupport(t *testing.T) {
	dir := t.TempDir()
	data, err := examples.FS.ReadFile("contracts/master-services-agreement.txt")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "src/msa.txt", data)
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, store.DefaultCollection, []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	ix, err := LoadIndex(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, search.Query{Text: "service credits sole and exclusive remedy", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := docread.Passages(t.Context(), st, store.DefaultCollection, res.Hits)
	if err != nil || len(ps) != 1 {
		t.Fatalf("passages: %v, %d", err, len(ps))
	}
	p := ps[0]
	if !strings.Contains(p.Text, "Section 11.3(c)") || p.Support == nil {
		t.Fatalf("top passage %q (%s) has support %+v", p.Text, p.Path, p.Support)
	}
	terms := map[string]bool{}
	for _, d := range p.Support.Definitions {
		terms[d.Term] = true
		if d.Span.Overlaps(p.Span) || !strings.Contains(d.Text, d.Term) {
			t.Errorf("definition of %q: span %v overlaps the passage %v or text %q lacks the term", d.Term, d.Span, p.Span, d.Text)
		}
	}
	if !terms["Service Levels"] || !terms["Security Incident"] || terms["Provider"] {
		t.Errorf("definitions supporting %s: %v (want Service Levels and Security Incident, no party names)", p.Path, terms)
	}
	var found bool
	for _, r := range p.Support.References {
		if r.Label == "Section 11.3(c)" {
			found = r.Status == graph.Resolved && r.Span != nil && !r.Span.Overlaps(p.Span) && strings.Contains(r.Path, "11.3") && r.TargetText != ""
		}
	}
	if !found {
		t.Errorf("reference to Section 11.3(c) not supported: %+v", p.Support.References)
	}
}
