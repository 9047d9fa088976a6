package store

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// findByList is what FindSource must answer: List filtered by source hash.
func findByList(t *testing.T, s *Store, sha string) []string {
	t.Helper()
	all, err := s.List(context.Background(), DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range all {
		if sha != "" && in.Source.SHA256 == sha {
			ids = append(ids, in.ID)
		}
	}
	return ids
}

func findIDs(t *testing.T, s *Store, sha string) []string {
	t.Helper()
	got, err := s.FindSource(context.Background(), DefaultCollection, sha)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range got {
		ids = append(ids, in.ID)
	}
	return ids
}

func TestFindSourceAndChanges(t *testing.T) {
	old := compactMinDead
	compactMinDead = 4 // compact (a new state, the index built again) during the test
	t.Cleanup(func() { compactMinDead = old })
	ctx := context.Background()
	w := openTemp(t)
	r, err := OpenReader(w.Dir()) // another process's view, caught up record by record
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	shaA, shaB, shaC := strings.Repeat("a1", 32), strings.Repeat("b2", 32), strings.Repeat("c3", 32)
	put := func(name, sha, path string) {
		t.Helper()
		rec := record(name, name)
		rec.Source.SHA256, rec.Source.Path = sha, path
		if err := w.Put(ctx, DefaultCollection, rec); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string) {
		t.Helper()
		for _, s := range []*Store{w, r} {
			for _, sha := range []string{shaA, shaB, shaC, ""} {
				if got, want := findIDs(t, s, sha), findByList(t, s, sha); !slices.Equal(got, want) {
					t.Errorf("%s: FindSource(%.6s…) = %v, List says %v", step, sha, got, want)
				}
			}
			// every entry's hash read without decoding is the decoded one
			if err := s.view(DefaultCollection, func(m *manifest) error {
				for id, l := range m.Docs {
					d := &lazyEntry{dir: l.dir, raw: l.raw, e: l.e}
					if d.raw == nil {
						continue
					}
					e, err := d.get()
					if err != nil {
						t.Fatal(err)
					}
					if got := l.sourceSHA(); got != e.Info.Source.SHA256 {
						t.Errorf("%s: %s: sourceSHA %q, decoded %q", step, id, got, e.Info.Source.SHA256)
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Paths that look like the JSON sought, escaped quotes and backslashes.
	put("b.txt", shaA, `/x/"source":{"path":"evil","sha256":"`+shaC+`"\`)
	put("a.txt", shaA, `C:\contracts\a.txt`)
	put("c.txt", shaB, "/c.txt")
	put("d.txt", "", "/d.txt")
	check("first puts")
	if got := findIDs(t, w, shaA); !slices.Equal(got, []string{DocID("a.txt"), DocID("b.txt")}) {
		t.Errorf("FindSource(A) = %v, want a.txt then b.txt", got)
	}
	gen, err := w.Generation(ctx, DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	put("a.txt", shaC, "/a2.txt") // a.txt replaced: no longer holds A
	put("e.txt", shaB, "/e.txt")
	if err := w.Delete(ctx, DefaultCollection, DocID("c.txt")); err != nil {
		t.Fatal(err)
	}
	check("after replace and delete")
	for _, s := range []*Store{w, r} {
		changed, live, err := s.Changes(ctx, DefaultCollection, gen)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, in := range changed {
			names = append(names, in.Name)
		}
		if !slices.Equal(names, []string{"a.txt", "e.txt"}) {
			t.Errorf("Changes since %d: %v, want a.txt, e.txt", gen, names)
		}
		want := []string{DocID("a.txt"), DocID("b.txt"), DocID("d.txt"), DocID("e.txt")}
		slices.Sort(want)
		if got := slices.Sorted(maps.Keys(live)); !slices.Equal(got, want) {
			t.Errorf("live %v, want %v", got, want)
		}
		all, _, err := s.Changes(ctx, DefaultCollection, 0)
		if err != nil {
			t.Fatal(err)
		}
		list, _ := s.List(ctx, DefaultCollection)
		if len(all) != len(list) {
			t.Errorf("Changes since 0: %d documents, List %d", len(all), len(list))
		}
	}
	// Enough superseded records to compact the log: readers start over.
	for i := range 6 {
		put("b.txt", []string{shaB, shaA}[i%2], "/b.txt")
	}
	check("after compaction")
	if got := findIDs(t, r, shaA); !slices.Equal(got, []string{DocID("b.txt")}) {
		t.Errorf("after compaction FindSource(A) = %v, want b.txt", got)
	}
}

func TestDocumentAsOf(t *testing.T) {
	ctx := context.Background()
	w := openTemp(t)
	r, err := OpenReader(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	gen := func() uint64 {
		t.Helper()
		g, err := w.Generation(ctx, DefaultCollection)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	put := func(name, tag string) {
		t.Helper()
		if err := w.Put(ctx, DefaultCollection, record(name, tag)); err != nil {
			t.Fatal(err)
		}
	}
	// asOf checks that both the writer and a reader return the document
	// as of generation g, tagged want ("": none).
	asOf := func(step, name string, g uint64, want string) {
		t.Helper()
		for _, s := range []*Store{w, r} {
			rec, err := s.DocumentAsOf(ctx, DefaultCollection, DocID(name), g)
			switch {
			case want == "" && !errors.Is(err, ErrNotFound):
				t.Errorf("%s: DocumentAsOf(%s, %d) = %v, want ErrNotFound", step, name, g, err)
			case want != "" && err != nil:
				t.Errorf("%s: DocumentAsOf(%s, %d): %v", step, name, g, err)
			case want != "" && !strings.Contains(rec.Doc.Text, "— "+want+"\n"):
				t.Errorf("%s: DocumentAsOf(%s, %d) text %q, want tag %q", step, name, g, rec.Doc.Text, want)
			}
		}
	}
	put("a", "first a")
	g1 := gen()
	asOf("stored", "a", g1, "first a")
	asOf("generation 0", "a", 0, "")
	asOf("before it was stored", "a", g1-1, "")
	put("b", "b")
	asOf("another stored since", "a", g1, "first a")
	put("a", "second a")
	g3 := gen()
	asOf("replaced since", "a", g1, "")
	asOf("replaced, as of now", "a", g3, "second a")
	if err := w.Delete(ctx, DefaultCollection, DocID("a")); err != nil {
		t.Fatal(err)
	}
	asOf("deleted", "a", gen(), "")
	asOf("b as of the first generation", "b", g1, "")
	asOf("b", "b", gen(), "b")
}
