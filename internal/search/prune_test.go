package search

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/search/index"
)

// TestPrunedRankingIsExact: a corpus-wide ranking that skips the windows
// whose block bounds cannot reach the n best returns exactly the units,
// scores and order (ties included) of the exhaustive accumulator, for every
// n from 1 to 64 and deeper, on a collection of several segments (from
// files, one in memory without bounds) with deleted documents and
// averages that differ from the segments' own, with and without
// expansion, in every view, on one goroutine and on several; and a search
// returns the exhaustive search's hits. It fails when nothing was skipped
// (the test would not test skipping).
func TestPrunedRankingIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	inputs, words := randomInputs(rng, 300)
	dir := t.TempDir()
	cuts := []int{0, 110, 111, 170, 180, 260, 300}
	var segs []*index.Segment
	var deleted [][]int32
	for k := range len(cuts) - 1 {
		b := index.NewBuilder()
		var del []int32
		for i, in := range inputs[cuts[k]:cuts[k+1]] {
			if err := b.Add(index.AnalyzeDoc(in), ""); err != nil {
				t.Fatal(err)
			}
			if rng.Intn(5) == 0 {
				del = append(del, int32(i))
			}
		}
		if k != 3 { // one segment stays in memory: it has no bounds
			path := filepath.Join(dir, fmt.Sprint("seg", k))
			if _, err := index.WriteSegmentFile(path, b); err != nil {
				t.Fatal(err)
			}
			var err error
			if b, err = index.OpenSegment(path); err != nil {
				t.Fatal(err)
			}
		}
		segs = append(segs, b)
		deleted = append(deleted, del)
	}
	snap, err := index.NewSnapshot(segs, deleted)
	if err != nil {
		t.Fatal(err)
	}
	ix := Open(snap, nil)
	v := ix.view()
	if v.LiveUnits() < 4*scoreWindow {
		t.Fatalf("%d units: too few windows", v.LiveUnits())
	}
	minUnits := parallelMinUnits
	defer func() { parallelMinUnits = minUnits }()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	defer func(w int32) { boundWindow = w }(boundWindow)
	skipped0, filtered0 := windowsSkipped.Load(), windowsFiltered.Load()
	ties, compared := 0, 0
	for i := range 300 {
		boundWindow = []int32{scoreWindow, 256, 64}[i%3]
		parallelMinUnits = minUnits
		if i%2 == 1 {
			parallelMinUnits = 0 // several workers, sharing the bar
		}
		var b strings.Builder
		for range 1 + rng.Intn(12) {
			if rng.Intn(3) == 0 {
				b.WriteString(words[rng.Intn(len(words))] + " ") // rarer words too
			} else {
				b.WriteString(words[int(float64(len(words))*rng.Float64()*rng.Float64())] + " ")
			}
		}
		q := Query{Text: b.String(), Stages: Stages{NoRoute: true, NoAssociations: i%3 == 0, NoHeadings: i%3 == 0}}
		if i%5 == 0 {
			q.Views = []index.View{index.View(rng.Intn(int(index.NumViews)))}
		}
		terms, _, _ := analyzeQuery(q.Text)
		qt := ix.weigh(v, q.Text, terms, q.expand())
		sc := newScope(v, nil, q.Views)
		acc := ix.getAcc(allRanges(v))
		ix.score(v, acc, qt, sc)
		for _, n := range []int{1 + rng.Intn(64), 1 + rng.Intn(64), rankDepth} {
			if n <= 0 {
				continue
			}
			want := acc.top(n)
			got, all := ix.topWindowed(v, qt, sc, n, true)
			if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("%q n=%d: pruned %v, exhaustive %v", q.Text, n, got, want)
			}
			if all && acc.n > n {
				t.Fatalf("%q n=%d: all, with %d units touched", q.Text, n, acc.n)
			}
			compared++
			for k := 1; k < len(want); k++ {
				if want[k].score == want[k-1].score {
					ties++
				}
			}
		}
		ix.putAcc(acc)
		if i%4 == 0 {
			q.K = 1 + rng.Intn(64)
			want := q
			want.exhaustive = true
			if g, w := searchT(t, ix, q), searchT(t, ix, want); !reflect.DeepEqual(g, w) {
				t.Fatalf("%+v: pruned search returned %+v, exhaustive %+v", q, g.Hits, w.Hits)
			}
		}
	}
	skipped, filtered := windowsSkipped.Load()-skipped0, windowsFiltered.Load()-filtered0
	t.Logf("%d rankings compared, %d ties, %d windows skipped, %d filtered", compared, ties, skipped, filtered)
	if ties < 100 {
		t.Fatalf("only %d tied scores: the test does not check the order of ties", ties)
	}
	if skipped < 100 || filtered < 100 {
		t.Fatalf("only %d windows skipped, %d filtered: the test does not test skipping", skipped, filtered)
	}
}

// TestBlockBoundsUseTheScorersBM25: the index computes its block bounds
// with the scorer's BM25 parameters, and its factor is the scorer's.
func TestBlockBoundsUseTheScorersBM25(t *testing.T) {
	if index.BM25K1 != bm25K1 || index.BM25B != bm25B {
		t.Fatalf("bounds computed with k1 %v, b %v; the scorer's are %v, %v", index.BM25K1, index.BM25B, bm25K1, bm25B)
	}
	for _, c := range [][3]float64{{1, 10, 12.5}, {3, 2, 40}, {1, 300, 7}} {
		tf, l, avg := c[0], c[1], c[2]
		norm := bm25K1 * (1 - bm25B + bm25B*l/avg)
		if got, want := index.BM25Factor(tf, l, avg), tf*(bm25K1+1)/(tf+norm); got != want {
			t.Fatalf("factor %v, the scorer's %v", got, want)
		}
	}
}
