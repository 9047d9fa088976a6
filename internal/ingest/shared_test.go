package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/storetest"
)

// TestSharedIndex: on a cluster (an in-memory Remote with blobs), the
// process that indexes a collection publishes its segments, and another
// process with its own local directory opens them without indexing
// anything; after a change, the next publisher's commit is taken up the
// same way. Two servers each scoring half of the segments (sharded) answer
// as one holding all.
func TestSharedIndex(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		writeFile(t, dir, fmt.Sprintf("src/c%d.txt", i), []byte(contractText(i+1, 4)))
	}
	remote := storetest.NewRemote()
	open := func(name string) *store.Store {
		st, err := store.OpenRemote(remote, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open("a"), open("b")
	ctx := context.Background()
	defer func(n int) { flushUnits = n }(flushUnits)
	flushUnits = 40 // several segments
	if _, err := Ingest(ctx, a, "deals", []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	ixA, rep, err := Load(ctx, a, "deals")
	if err != nil || rep.Added != 6 || rep.Segments < 2 {
		t.Fatalf("indexing on a: %+v, %v", rep, err)
	}
	if _, err := Maintain(ctx, a, "deals", MaintainOptions{Learn: true}); err != nil {
		t.Fatal(err)
	}
	ixA, _, err = Load(ctx, a, "deals")
	if err != nil {
		t.Fatal(err)
	}
	ixB, rep, err := Load(ctx, b, "deals")
	if err != nil || !rep.Opened || rep.Added != 0 || ixB.Docs() != 6 {
		t.Fatalf("b should open a's segments: %d docs, %+v, %v", ixB.Docs(), rep, err)
	}
	queries := []search.Query{{Text: "obligation 2-3-2 due care", K: 5}, {Text: "notice termination liability", K: 8, Stages: search.Stages{NoRoute: true}},
		{Text: "notice", K: 3, Docs: []string{store.DocID("c1.txt")}}}
	answers := func(ix *search.Index) []search.Result {
		var out []search.Result
		for _, q := range queries {
			res, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		return out
	}
	want := answers(ixA)
	if got := answers(ixB); !reflect.DeepEqual(got, want) {
		t.Fatalf("b answers %+v, a %+v", got, want)
	}
	// Sharded: two servers, each whole for half of the segments.
	shards := make([]*search.Index, 2)
	for k := range 2 {
		st := open(fmt.Sprint("shard", k))
		ix, rep, err := LoadWith(ctx, st, "deals", LoadOptions{Shard: &Shard{K: k, N: 2}})
		if err != nil || !rep.Opened {
			t.Fatalf("shard %d: %+v, %v", k, rep, err)
		}
		shards[k] = ix
		stats := 0
		for _, s := range ix.Snapshot().Segments() {
			if s.StatsOnly() {
				stats++
			}
		}
		if stats == 0 {
			t.Fatalf("shard %d holds every segment whole", k)
		}
	}
	for k := range 2 {
		peers := make([]search.Shard, 2)
		peers[1-k] = shardOf{shards[1-k]}
		shards[k].SetSharding(&search.Sharding{K: k, N: 2, Peers: peers})
		if got := answers(shards[k]); !reflect.DeepEqual(got, want) {
			t.Fatalf("shard %d answers %+v, one server %+v", k, got, want)
		}
	}
	// A change made through b: b indexes it and publishes; a takes it up.
	writeFile(t, dir, "src2/c9.txt", []byte(contractText(9, 4)))
	if _, err := Ingest(ctx, b, "deals", []string{filepath.Join(dir, "src2")}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, rep, err = Load(ctx, b, "deals"); err != nil || rep.Added != 1 {
		t.Fatalf("b after the change: %+v, %v", rep, err)
	}
	if ixA, rep, err = Load(ctx, a, "deals"); err != nil || !rep.Opened || rep.Added != 0 || ixA.Docs() != 7 {
		t.Fatalf("a after b's change: %d docs, %+v, %v", ixA.Docs(), rep, err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "a", "collections", "deals", "cache", IndexDir, "seg-*"))
	if len(segs) == 0 {
		t.Fatal("no segment files in a's directory")
	}
	_ = os.Remove
}

type shardOf struct{ ix *search.Index }

func (s shardOf) Rank(ctx context.Context, req *search.ShardRequest) (*search.ShardResponse, error) {
	return s.ix.ShardRank(ctx, req)
}
