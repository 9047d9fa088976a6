package search

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/search/index"
)

// randomCorpus indexes docs documents of random clauses over a small
// vocabulary with a skewed word distribution (a few very common words, many
// rare ones), every view, repeated clauses across documents (so scores tie)
// and repeated words within a clause (tf > 1).
func randomCorpus(t testing.TB, rng *rand.Rand, docs int) (*Index, []string) {
	t.Helper()
	var words []string
	for i := range 120 {
		words = append(words, fmt.Sprintf("w%03dx", i))
	}
	pick := func() string {
		// Zipf-like: word i with probability ~ 1/(i+1).
		return words[int(float64(len(words))*rng.Float64()*rng.Float64()*rng.Float64())]
	}
	var shared []string // clauses copied into several documents
	for range 30 {
		var b strings.Builder
		for range 3 + rng.Intn(12) {
			b.WriteString(pick() + " ")
		}
		shared = append(shared, b.String())
	}
	ix := NewIndex()
	for d := range docs {
		in := index.DocInput{ID: fmt.Sprint("d", d), Name: fmt.Sprint("d", d)}
		pos := 0
		for range 20 + rng.Intn(60) {
			text := shared[rng.Intn(len(shared))]
			if rng.Intn(3) > 0 {
				var b strings.Builder
				for range 1 + rng.Intn(30) {
					b.WriteString(pick() + " ")
				}
				text = b.String()
			}
			n := 1 + rng.Intn(300)
			in.Units = append(in.Units, index.UnitInput{Text: text, Spans: []document.Span{{Start: pos, End: pos + n}}, Node: -1, View: index.View(rng.Intn(int(index.NumViews)))})
			pos += n + rng.Intn(50) - 25
			pos = max(pos, 0)
		}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix, words
}

// TestWindowedSearchRanksTheSame checks that a corpus-wide search scored
// window by window returns exactly what the accumulator returns — the same
// units, scores and order, hence the same hits — on random queries over a
// random corpus spanning several windows, with and without expansion, in
// every view, for small and large k, on a built and on an opened index.
func TestWindowedSearchRanksTheSame(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	built, words := randomCorpus(t, rng, 120)
	if built.Units() < 4*scoreWindow {
		t.Fatalf("%d units: too few windows", built.Units())
	}
	opened := persist(t, built)
	ties := 0
	for i := range 300 {
		var b strings.Builder
		for range 1 + rng.Intn(8) {
			b.WriteString(words[rng.Intn(len(words))] + " ")
		}
		q := Query{Text: b.String(), K: []int{1, 3, 10, 64}[rng.Intn(4)], Stages: Stages{NoRoute: true, NoAssociations: i%3 == 0, NoHeadings: i%3 == 0}}
		if i%5 == 0 {
			q.Views = []index.View{index.View(rng.Intn(int(index.NumViews)))}
		}
		for _, ix := range []*Index{built, opened} {
			want := q
			want.exhaustive = true
			w, g := searchT(t, ix, want), searchT(t, ix, q)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%+v: windowed search returned %+v, exhaustive %+v", q, g.Hits, w.Hits)
			}
		}
		// The ranking itself, at every depth.
		terms, _, _ := analyzeQuery(q.Text)
		bv := built.view()
		qt := built.weigh(bv, q.Text, terms, q.expand())
		sc := newScope(bv, nil, q.Views)
		acc := built.getAcc(allRangesOf(bv))
		built.score(bv, acc, qt, sc)
		for _, n := range []int{1, 5, 50, 400, acc.n, acc.n + 1} {
			if n <= 0 {
				continue
			}
			want := acc.top(n)
			got, all := built.topWindowed(bv, qt, sc, n, false)
			if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("%+v n=%d: windowed %v, exhaustive %v", q, n, got, want)
			}
			if all != (acc.n <= n) {
				t.Fatalf("%q n=%d: all %v with %d units touched", q.Text, n, all, acc.n)
			}
			for k := 1; k < len(want); k++ {
				if want[k].score == want[k-1].score {
					ties++
				}
			}
		}
		built.putAcc(acc)
	}
	if ties < 100 {
		t.Fatalf("only %d tied scores: the test does not check the order of ties", ties)
	}
}

// TestWindowedSearchSkipsEmptyWindows checks a term whose postings lie far
// apart: windows between them are skipped, and both ends are found.
func TestWindowedSearchSkipsEmptyWindows(t *testing.T) {
	ix := NewIndex()
	for d := range 60 {
		in := index.DocInput{ID: fmt.Sprint("d", d), Name: fmt.Sprint("d", d)}
		for u := range 100 {
			text := "filler words"
			if (d == 0 && u == 5) || (d == 59 && u == 99) {
				text += " zebra"
			}
			in.Units = append(in.Units, index.UnitInput{Text: text, Spans: []document.Span{{Start: 100 * u, End: 100*u + 50}}, Node: -1})
		}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	res := searchT(t, ix, Query{Text: "zebra", K: 5, Stages: Stages{NoRoute: true, NoAssociations: true, NoHeadings: true}})
	if len(res.Hits) != 2 || res.Hits[0].DocID != "d0" || res.Hits[1].DocID != "d59" {
		t.Fatalf("hits %+v, want d0 then d59", res.Hits)
	}
}

// BenchmarkCorpusWideRanking opens a collection's index (its segment
// directory, e.g. made by scripts/scale-bench.sh) and ranks every
// PAKTON_EVERY-th (default 8) CUAD development question corpus-wide,
// unrouted, to the depth a K=5 search ranks (rankDepth units): skipping
// the windows that cannot reach them (block-max) and scoring every window,
// alternately, so both see the same machine load; it fails if the two
// rankings differ. It reports each one's p50, p90 and p99 in ms and the
// share of the windows tested that were skipped, and the process CPU each
// took per question (wall latencies wait for a core on a busy machine).
//
//	PAKTON_INDEX_DIR=$SCALE_DIR/x10all/store/collections/default/cache/index \
//	  go test ./internal/search -run '^$' -bench CorpusWideRanking -benchtime 1x
func BenchmarkCorpusWideRanking(b *testing.B) {
	path := os.Getenv("PAKTON_INDEX_DIR")
	if path == "" {
		b.Skip("set PAKTON_INDEX_DIR to a collection's cache/index directory")
	}
	every := 8
	if e, err := strconv.Atoi(os.Getenv("PAKTON_EVERY")); err == nil && e > 0 {
		every = e
	}
	if w, err := strconv.Atoi(os.Getenv("PAKTON_BOUND_WINDOW")); err == nil && w > 0 && w <= scoreWindow {
		defer func(w int32) { boundWindow = w }(boundWindow)
		boundWindow = int32(w)
	}
	depth := rankDepth
	if d, err := strconv.Atoi(os.Getenv("PAKTON_DEPTH")); err == nil && d > 0 {
		depth = d
	}
	dev := devset.Questions(b)
	d, err := index.OpenDir(path)
	if err != nil {
		b.Fatal(err)
	}
	snap, _, err := d.Open()
	if err != nil {
		b.Fatal(err)
	}
	ix := Open(snap, nil)
	v := ix.view()
	// A segment written without bounds counts them on first use: count
	// them all first, as a segment file with bounds has them.
	for _, seg := range v.Segments() {
		if seg.HasBounds() {
			for k := range seg.NumBlocks() {
				seg.BlockMax(k)
			}
		}
	}
	pct := func(x []float64, p int) float64 { return x[min(len(x)-1, len(x)*p/100)] }
	for b.Loop() {
		var pruned, full []float64
		var prunedCPU, fullCPU time.Duration
		s0, f0, t0 := windowsSkipped.Load(), windowsFiltered.Load(), windowsTested.Load()
		for i, q := range dev {
			if i%every != 0 {
				continue
			}
			terms, _, _ := analyzeQuery(q)
			qt := ix.weigh(v, q, terms, os.Getenv("PAKTON_EXPAND") != "0")
			sc := newScope(v, nil, nil)
			// Each goes first every other question: the first pays for
			// mapping the pages both read.
			run := func(prune bool) ([]scored, time.Duration, time.Duration) {
				t0, c0 := time.Now(), devset.ProcessCPU()
				r, _ := ix.topWindowed(v, qt, sc, depth, prune)
				return r, time.Since(t0), devset.ProcessCPU() - c0
			}
			var got, want []scored
			var tp, tf, cp, cf time.Duration
			if i/every%2 == 0 {
				got, tp, cp = run(true)
				want, tf, cf = run(false)
			} else {
				want, tf, cf = run(false)
				got, tp, cp = run(true)
			}
			if !reflect.DeepEqual(got, want) {
				b.Fatalf("%q: the pruned ranking differs from the full one", q)
			}
			pruned = append(pruned, float64(tp)/1e6)
			full = append(full, float64(tf)/1e6)
			prunedCPU += cp
			fullCPU += cf
		}
		b.ReportMetric(float64(prunedCPU)/1e6/float64(len(pruned)), "pruned-cpu-ms/q")
		b.ReportMetric(float64(fullCPU)/1e6/float64(len(full)), "full-cpu-ms/q")
		sort.Float64s(pruned)
		sort.Float64s(full)
		b.ReportMetric(pct(pruned, 50), "pruned-p50-ms")
		b.ReportMetric(pct(pruned, 90), "pruned-p90-ms")
		b.ReportMetric(pct(pruned, 99), "pruned-p99-ms")
		b.ReportMetric(pct(full, 50), "full-p50-ms")
		b.ReportMetric(pct(full, 90), "full-p90-ms")
		b.ReportMetric(pct(full, 99), "full-p99-ms")
		if tested := windowsTested.Load() - t0; tested > 0 {
			b.ReportMetric(float64(windowsSkipped.Load()-s0)/float64(tested), "skipped-share")
			b.ReportMetric(float64(windowsFiltered.Load()-f0)/float64(tested), "filtered-share")
			b.ReportMetric(float64(postingsPassed.Load())/float64(postingsPassed.Load()+postingsScored.Load()), "passed-share")
		}
	}
}
