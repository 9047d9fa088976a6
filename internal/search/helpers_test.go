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
