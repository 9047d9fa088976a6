package index

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// writeFormat5 rewrites the format 6 segment file at path as a format 5
// file (the same sections but the block bounds, and no bounds in its
// meta), as an earlier version wrote it.
func writeFormat5(t *testing.T, path, to string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := openContainer(data, segmentMagic, segmentFormat, numSections)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(c.secs[secMeta-1], &meta); err != nil {
		t.Fatal(err)
	}
	delete(meta, "blocks")
	mj, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	err = writeFileAtomic(to, func(f *os.File) error {
		w := newFileWriter(f, segmentMagic, segmentFormat5, numSections5)
		for id := 2; id <= numSections5; id++ {
			w.section(id, c.secs[id-1])
		}
		_, err := w.finish(mj)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBlockBounds: every posting's BM25 factor (with the segment's average
// lengths) is at most its block's bound, and some posting of each block
// reaches it (up to the float32 rounding); a format 5 file, which holds no
// bounds, is opened and gives the same bounds, counted on first use; a
// merge writes the bounds a fresh build writes (TestMergeIsBuild compares
// every section).
func TestBlockBounds(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewSource(5)), 80)
	dir := t.TempDir()
	opened, _ := writeOpen(t, dir, "seg", build(t, docs))
	if !opened.HasBounds() || len(opened.bmax) == 0 {
		t.Fatal("an opened segment has no block bounds")
	}
	if int64(len(opened.bmax)) != numBlocks(int64(len(opened.postAll))) {
		t.Fatalf("%d bounds for %d postings", len(opened.bmax), len(opened.postAll))
	}
	avg := opened.BoundAvg()
	for b := range int64(len(opened.bmax)) {
		lo, hi := b*BoundBlock, min((b+1)*BoundBlock, int64(len(opened.postAll)))
		best := 0.0
		for _, p := range opened.postAll[lo:hi] {
			u := opened.units[p.Unit]
			f := BM25Factor(float64(p.TF), float64(u.Len), avg[u.View])
			if f > float64(opened.BlockMax(b)) {
				t.Fatalf("block %d: a posting's factor %v is above the bound %v", b, f, opened.BlockMax(b))
			}
			best = max(best, f)
		}
		if roundUp32(best) != opened.BlockMax(b) {
			t.Fatalf("block %d: bound %v, the best posting %v", b, opened.BlockMax(b), best)
		}
	}
	if opened.BlockMax(int64(len(opened.bmax))) != 0 || opened.BlockMax(-1) != 0 {
		t.Fatal("a block out of range has a bound")
	}
	// Each term's postings start where TermBlocks says.
	var at int64
	for tm := range int32(opened.NumTerms()) {
		pl, start := opened.TermBlocks(tm)
		if len(pl) > 0 && start != at {
			t.Fatalf("term %d starts at posting %d, TermBlocks says %d", tm, at, start)
		}
		at += int64(len(pl))
	}

	old := filepath.Join(dir, "seg5")
	writeFormat5(t, filepath.Join(dir, "seg"), old)
	o5, err := OpenSegment(old)
	if err != nil {
		t.Fatalf("a format 5 segment is refused: %v", err)
	}
	if err := o5.Verify(); err != nil {
		t.Fatal(err)
	}
	if o5.bmax != nil || !o5.HasBounds() {
		t.Fatal("a format 5 segment read bounds from its file, or gives none")
	}
	sameSegment(t, opened, o5)
	for b := range int64(len(opened.bmax)) {
		if got, want := o5.BlockMax(b), opened.BlockMax(b); got != want {
			t.Fatalf("block %d: counted %v, written %v", b, got, want)
		}
	}
	if got, want := o5.computeBounds(), opened.bmax; len(got) != len(want) {
		t.Fatalf("%d bounds counted at once, %d written", len(got), len(want))
	}

	// A bound holds under another average length, scaled by BoundScale.
	for _, ratio := range []float64{0.5, 1, 1.3, 4} {
		var other [NumViews]float64
		for w := range NumViews {
			other[w] = avg[w] * ratio
		}
		scale := BoundScale(avg, other)
		for b := range int64(len(opened.bmax)) {
			lo, hi := b*BoundBlock, min((b+1)*BoundBlock, int64(len(opened.postAll)))
			for _, p := range opened.postAll[lo:hi] {
				u := opened.units[p.Unit]
				if f := BM25Factor(float64(p.TF), float64(u.Len), other[u.View]); f > float64(opened.BlockMax(b))*scale*(1+1e-12) {
					t.Fatalf("averages ×%v: factor %v above the scaled bound %v", ratio, f, float64(opened.BlockMax(b))*scale)
				}
			}
		}
	}
}
