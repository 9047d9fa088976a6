package search

import (
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/search/index"
)

// persist writes an index built in memory to a segment file and returns
// the index opened from it.
func persist(t testing.TB, built *Index) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seg")
	if _, err := index.WriteSegmentFile(path, built.b); err != nil {
		t.Fatal(err)
	}
	seg, err := index.OpenSegment(path)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := index.NewSnapshot([]*index.Segment{seg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Open(snap, nil)
}

// allRangesOf returns one range per segment over every unit.
func allRangesOf(v *index.Snapshot) [][2]int32 { return allRanges(v) }

// searchT runs q on ix, failing the test on an error.
func searchT(t testing.TB, ix *Index, q Query) Result {
	t.Helper()
	res, err := ix.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return res
}

// planT plans q on ix, failing the test on an error.
func planT(t testing.TB, ix *Index, q Query) *Plan {
	t.Helper()
	p, err := ix.Plan(t.Context(), q)
	if err != nil {
		t.Fatalf("plan %q: %v", q.Text, err)
	}
	return p
}

// runT runs p on ix, failing the test on an error.
func runT(t testing.TB, ix *Index, p *Plan) Result {
	t.Helper()
	res, err := ix.Run(t.Context(), p)
	if err != nil {
		t.Fatalf("run %q: %v", p.Query.Text, err)
	}
	return res
}
