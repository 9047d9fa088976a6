package search

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
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
		in := DocInput{ID: fmt.Sprint("d", d), Name: fmt.Sprint("d", d)}
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
			in.Units = append(in.Units, UnitInput{Text: text, Spans: []document.Span{{Start: pos, End: pos + n}}, Node: -1, View: View(rng.Intn(int(numViews)))})
			pos += n + rng.Intn(50) - 25
			pos = max(pos, 0)
		}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix, words
}

// TestPrunedSearchRanksTheSame checks that a pruned corpus-wide search
// returns exactly what scoring every unit returns — the same units, scores
// and order, hence the same hits — on random queries over a random corpus,
// with and without expansion, in every view, for small and large k, on a
// built and on an opened index.
func TestPrunedSearchRanksTheSame(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	built, words := randomCorpus(t, rng, 40)
	opened, _ := persist(t, built, 3)
	pruned := 0
	for i := range 300 {
		var b strings.Builder
		for range 1 + rng.Intn(8) {
			b.WriteString(words[rng.Intn(len(words))] + " ")
		}
		q := Query{Text: b.String(), K: []int{1, 3, 10, 64}[rng.Intn(4)], NoRoute: true, NoExpand: i%3 == 0}
		if i%5 == 0 {
			q.Views = []View{View(rng.Intn(int(numViews)))}
		}
		for _, ix := range []*Index{built, opened} {
			want := q
			want.exhaustive = true
			w, g := ix.Search(want), ix.Search(q)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%+v: pruned search returned %+v, exhaustive %+v", q, g.Hits, w.Hits)
			}
		}
		// The ranking itself, at depths where pruning bites.
		for _, n := range []int{1, 5, 50} {
			acc := built.getAcc()
			terms, _, _ := analyzeQuery(q.Text)
			qt := built.weigh(terms, !q.NoExpand)
			sc := built.newScope(nil, q.Views)
			built.score(acc, qt, sc)
			want := acc.top(n)
			built.putAcc(acc)
			got, all, _ := built.topPruned(qt, sc, n)
			if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("%+v n=%d: pruned %v, exhaustive %v", q, n, got, want)
			}
			if all != (len(want) < n) {
				t.Fatalf("%q n=%d: all %v with %d units", q.Text, n, all, len(want))
			}
			if len(want) == n {
				pruned++
			}
		}
	}
	if pruned < 100 {
		t.Fatalf("only %d rankings were deep enough to prune; the test proves little", pruned)
	}
}

// TestPrunedSearchSkipsUnits checks that pruning does skip work: on a
// corpus where one rare word decides the ranking and is met early, a top-1
// search considers far fewer units than the common words match (units are
// visited in id order, so none before the rare word's can be skipped).
func TestPrunedSearchSkipsUnits(t *testing.T) {
	ix := NewIndex()
	for d := range 50 {
		in := DocInput{ID: fmt.Sprint("d", d), Name: fmt.Sprint("d", d)}
		for u := range 40 {
			text := "common words everywhere in every clause"
			if d == 2 && u == 3 {
				text += " zebra"
			}
			in.Units = append(in.Units, UnitInput{Text: text, Spans: []document.Span{{Start: 100 * u, End: 100*u + 50}}, Node: -1})
		}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	q := Query{Text: "zebra common clause", K: 1, NoRoute: true, NoExpand: true}
	terms, _, _ := analyzeQuery(q.Text)
	qt := ix.weigh(terms, false)
	got, _, visits := ix.topPruned(qt, ix.newScope(nil, nil), 1)
	if len(got) != 1 || ix.units[got[0].unit].Doc != 2 {
		t.Fatalf("top unit %v, want the one in d2", got)
	}
	if visits > 100 {
		t.Errorf("%d units visited of %d; pruning did not skip", visits, ix.Units())
	}
}

// TestPersistedBounds checks that an opened index carries the blocks the
// built one computes, and that each block bounds its postings.
func TestPersistedBounds(t *testing.T) {
	built, _ := randomCorpus(t, rand.New(rand.NewSource(2)), 10)
	opened, _ := persist(t, built, 1)
	avg := built.viewAvg()
	for tid := range built.terms {
		bl := built.blocks(int32(tid))
		if got := opened.blocks(int32(tid)); len(got)+len(bl) > 0 && !reflect.DeepEqual(got, bl) {
			t.Errorf("%q: opened blocks %v, built %v", built.terms[tid], got, bl)
		}
		pl := built.plist(int32(tid))
		if len(bl) != (len(pl)+blockSize-1)/blockSize {
			t.Fatalf("%q: %d blocks for %d postings", built.terms[tid], len(bl), len(pl))
		}
		for i, e := range pl {
			b := bl[i/blockSize]
			u := built.units[e.unit]
			tf := float64(e.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(u.Len)/avg[u.View])
			if f := tf * (bm25K1 + 1) / (tf + norm); f > float64(b.Max) {
				t.Fatalf("%q: posting %v scores %v above its block's bound %v", built.terms[tid], e, f, b.Max)
			}
			if e.unit > b.Last || (i%blockSize == blockSize-1 || i == len(pl)-1) && e.unit != b.Last {
				t.Fatalf("%q: posting %d (unit %d) in a block ending at unit %d", built.terms[tid], i, e.unit, b.Last)
			}
		}
	}
	// Adding a document changes the averages: bounds are computed again.
	before := built.blocks(0)[0]
	if err := built.Add(DocInput{ID: "long", Units: []UnitInput{{Text: strings.Repeat("w000x filler ", 500), Node: -1}}}); err != nil {
		t.Fatal(err)
	}
	if after := built.blocks(0)[0]; after == before {
		t.Errorf("bound of %q unchanged (%v) after an Add that changed the average length", built.terms[0], after)
	}
}
