package ingest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// TestCUADSegmentsAnswerLikeOne is the segments' acceptance test: the CUAD
// corpus indexed in many segments answers every CUAD development question
// (corpus-wide, K=64, routed; every 8th also unrouted) exactly as one
// segment holding the same documents in the same order — hits, spans,
// scores, routing — with the word associations learned per question and
// from the table learned ahead; after merges; and with documents deleted
// (tombstones), then merged away. It ingests the corpus (about a minute),
// so it runs only with PAKTON_SLOW=1:
//
//	PAKTON_SLOW=1 go test ./internal/ingest/ -run TestCUADSegmentsAnswerLikeOne -v -timeout 30m
func TestCUADSegmentsAnswerLikeOne(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to ingest the whole CUAD corpus")
	}
	dir := cuadDir(t)
	dev := devset.Questions(t)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, store.DefaultCollection, []string{dir}, Options{}); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { flushUnits = n }(flushUnits)
	flushUnits = 1 << 14 // segments of about 50 contracts

	hits := func(ix *search.Index) string {
		var b strings.Builder
		for i, q := range dev {
			for _, noRoute := range []bool{false, true} {
				if noRoute && i%8 != 0 {
					continue
				}
				res, err := ix.Search(t.Context(), search.Query{Text: q, K: 64, Stages: search.Stages{NoRoute: noRoute}})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%d %v routed %v\n", i, noRoute, res.RoutedTo)
				for _, h := range res.Hits {
					fmt.Fprintf(&b, "  %d %s %d %v %v\n", h.Rank, h.DocID, h.Node, h.Span, h.Score)
				}
			}
		}
		return b.String()
	}
	compare := func(what string, ix *search.Index, minSegs int) {
		t.Helper()
		segs := len(ix.Snapshot().Segments())
		if segs < minSegs {
			t.Fatalf("%s: %d segments, want at least %d", what, segs, minSegs)
		}
		one, err := inMemory(ctx, st, store.DefaultCollection, liveOrder(ix)...)
		if err != nil {
			t.Fatal(err)
		}
		got, want := hits(ix), hits(one)
		if got != want {
			g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("%s (%d segments): line %d differs from one segment:\n got %s\nwant %s", what, segs, i, g[i], w[i])
				}
			}
			t.Fatalf("%s: %d lines, one segment %d", what, len(g), len(w))
		}
		t.Logf("%s: %d segments, %d documents: every hit of %d questions identical to one segment", what, segs, ix.Docs(), len(dev))
	}
	noMerge := index.MergePolicy{Factor: 1000, MinUnits: 1, MaxUnits: 1, MaxDeleted: 2}

	ix, rep, err := Load(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	compare("many segments", ix, 8)
	if _, err := Maintain(ctx, st, store.DefaultCollection, MaintainOptions{Policy: noMerge, Learn: true}); err != nil {
		t.Fatal(err)
	}
	if ix, rep, err = Load(ctx, st, store.DefaultCollection); err != nil || !rep.Opened {
		t.Fatalf("load after learning: %+v, %v", rep, err)
	}
	compare("many segments, associations from the table", ix, 8)

	// Delete one contract in twenty, then merge them away.
	infos, err := st.List(t.Context(), store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range infos {
		if i%20 == 7 {
			if err := st.Delete(t.Context(), store.DefaultCollection, in.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ix, rep, err = Load(ctx, st, store.DefaultCollection); err != nil || rep.Deleted == 0 || rep.Added != 0 {
		t.Fatalf("load after deletions: %+v, %v", rep, err)
	}
	compare("with deleted documents", ix, 8)
	mrep, err := Maintain(ctx, st, store.DefaultCollection, MaintainOptions{Policy: index.MergePolicy{Factor: 4, MinUnits: 1 << 14, MaxUnits: 1 << 22, MaxDeleted: 0.01}})
	if err != nil || mrep.Merges == 0 {
		t.Fatalf("maintain: %+v, %v", mrep, err)
	}
	if ix, rep, err = Load(ctx, st, store.DefaultCollection); err != nil || !rep.Opened {
		t.Fatalf("load after merging: %+v, %v", rep, err)
	}
	compare(fmt.Sprintf("after %d merges", mrep.Merges), ix, 1)
}
