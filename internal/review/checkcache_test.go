package review

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/search"
)

// TestFinderCacheFollowsTheContract: a Finder answers a question again from
// its cache only while the loader returns the same contract (the same
// document, or one equal to it: a loader that read it again); a contract
// changed since is checked again, and every answer is the one a Finder
// with nothing cached gives.
func TestFinderCacheFollowsTheContract(t *testing.T) {
	ctx := context.Background()
	msa, err := parse.File(ctx, filepath.Join("..", "..", "examples", "contracts", "master-services-agreement.txt"), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "msa"
	cur := msa
	reread := func() *document.Document { // what a loader reading the store again returns
		d, err := parse.Bytes(ctx, "master-services-agreement.txt", []byte(cur.Text), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var give *document.Document
	load := func(context.Context, string) (detect.Doc, error) { return detect.Doc{ID: id, Name: id, Doc: give}, nil }
	cached, err := NewBuiltinFinder(load)
	if err != nil {
		t.Fatal(err)
	}
	questions := []string{"Which law governs?", "Can the customer terminate for convenience?", "Is there a cap on liability?"}
	same := func(step string) {
		t.Helper()
		fresh, err := NewBuiltinFinder(load)
		if err != nil {
			t.Fatal(err)
		}
		fresh.checked = newCheckCache(0)
		for _, q := range questions {
			h1, a1, err1 := cached.FindProvisions(ctx, search.ProvisionRequest{Question: q, Docs: []string{id}})
			h2, a2, err2 := fresh.FindProvisions(ctx, search.ProvisionRequest{Question: q, Docs: []string{id}})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !reflect.DeepEqual(h1, h2) || !reflect.DeepEqual(a1, a2) {
				t.Errorf("%s: %q: cached %+v %+v, fresh %+v %+v", step, q, h1, a1, h2, a2)
			}
		}
	}
	give = cur
	same("first")
	if cached.checked.ll.Len() == 0 {
		t.Fatal("nothing cached")
	}
	give = reread()
	same("read again")
	if _, ok := cached.checked.get(strings.Join(cached.Asked(questions[0]), "\x00"), id, detect.Doc{ID: id, Name: id, Doc: reread()}); !ok {
		t.Error("the same contract read again is not found in the cache")
	}
	// The contract changed (every clause moved): the cached cells no longer
	// apply.
	changed := "AMENDED AND RESTATED.\n\n" + msa.Text
	cur = &document.Document{ID: msa.ID, Name: msa.Name, Format: msa.Format, Text: changed}
	give = reread()
	same("changed")
	if _, ok := cached.checked.get(strings.Join(cached.Asked(questions[0]), "\x00"), id, detect.Doc{ID: id, Name: id, Doc: msa}); ok {
		t.Error("the old contract is still found after a change")
	}
}
