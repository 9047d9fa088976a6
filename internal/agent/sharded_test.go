package agent

import (
	"slices"
	"testing"

	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/tool"
)

// TestShardedSearchFailure: on a sharded collection whose searches fail
// (here its word associations are not learned yet, as after an ingest
// before the index's maintenance; an unreachable peer fails the same way),
// the Archivist still finds the contract a question names, since routing
// reads only names every server holds, and the per-contract answer reports
// the failure instead of "no passage matches" for every contract.
func TestShardedSearchFailure(t *testing.T) {
	lib := sharedLib(t)
	ix := search.Open(lib.Corpus.Index.Snapshot(), nil)
	ix.SetSharding(&search.Sharding{K: 0, N: 2, Peers: make([]search.Shard, 2)})
	sharded := NewLibrary(&tool.Corpus{Store: lib.Corpus.Store, Collection: lib.Corpus.Collection, Index: ix})
	ctx := t.Context()

	const question = "What law governs the Master Services Agreement?"
	want, err := lib.Corpus.Index.Route(ctx, search.Query{Text: question})
	if err != nil || !want.Decision.Narrowed() {
		t.Fatalf("unsharded route %+v, %v: want the question to name a contract", want, err)
	}
	if _, err := ix.Search(ctx, search.Query{Text: question}); err == nil {
		t.Fatal("the sharded search did not fail: the test needs one that does")
	}
	s := &session{lib: sharded, progress: func(string) {}}
	docs, err := s.resolveDocs(ctx, Request{}, nil, question)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID)
	}
	if !slices.Equal(got, want.Docs) {
		t.Errorf("the Archivist resolved %v on the sharded collection, want %v", got, want.Docs)
	}

	// A question no playbook provision matches is answered per contract by
	// searching each.
	all := &search.Route{Decision: search.RouteAll}
	perContract := Request{Question: "Which contracts mention the colour of the delivery trucks?"}
	if _, dr, err := lib.PerContract(ctx, perContract, all, nil); err != nil || dr == nil || dr.Method != "search" {
		t.Fatalf("unsharded per-contract answer %+v, %v: want one by search", dr, err)
	}
	answers, dr, err := sharded.PerContract(ctx, perContract, all, nil)
	if err == nil {
		t.Errorf("per-contract answer on a failing sharded search: no error, %d answers, summary %+v", len(answers), dr)
	}
}
