package review

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestDealRoomCached: a deal-room question lists the contracts that have
// the provision it asks about and counts the others; the second question
// about the same provision is answered from the cache, and a changed
// contract is reviewed again.
func TestDealRoomCached(t *testing.T) {
	var loads atomic.Int32
	f, err := NewBuiltinFinder(exampleLoader(t, &loads))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	docs := []DealRoomDoc{{ID: "master-services-agreement.txt", Name: "msa", Hash: "a"}, {ID: "mutual-nda.md", Name: "nda", Hash: "b"}}
	dr, err := f.DealRoom(ctx, "Which of our contracts can be terminated for convenience?", docs, DealRoomOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if dr == nil || dr.Provision != "Termination for Convenience" || len(dr.Rows) != 1 || dr.Rows[0].DocID != "master-services-agreement.txt" || dr.Lacking != 1 || dr.Cached != 0 {
		t.Fatalf("deal room %+v", dr)
	}
	if dr.Rows[0].Cell.Answer == nil || len(dr.Rows[0].Cell.Extracts) == 0 {
		t.Errorf("row without an answer or clause: %+v", dr.Rows[0])
	}
	again, err := f.DealRoom(ctx, "Can either party terminate for convenience?", docs, DealRoomOptions{CacheDir: dir})
	if err != nil || again.Cached != 2 || len(again.Rows) != 1 {
		t.Fatalf("second question: %+v, %v", again, err)
	}
	docs[1].Hash = "changed"
	third, err := f.DealRoom(ctx, "Can either party terminate for convenience?", docs, DealRoomOptions{CacheDir: dir})
	if err != nil || third.Cached != 1 {
		t.Fatalf("after a change: %+v, %v", third, err)
	}
	// Governing law with a condition: the NDA's English law does not meet it.
	gl, err := f.DealRoom(ctx, "Which contracts are governed by New York law?", docs, DealRoomOptions{})
	if err != nil || gl.Condition == nil || gl.Condition.Value != "New York" || len(gl.Rows) != 1 || gl.NotMatching != 1 {
		t.Fatalf("governing law: %+v, %v", gl, err)
	}
	// A question about no provision: nothing (the caller searches).
	if none, err := f.DealRoom(ctx, "What colour is the sky?", docs, DealRoomOptions{}); err != nil || none != nil {
		t.Errorf("no provision: %+v, %v", none, err)
	}
}
