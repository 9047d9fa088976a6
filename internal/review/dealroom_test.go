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

// TestDealRoomKindOfRight: a deal-room question about a right is matched to
// that right, not to its neighbour that shares its words — "terminated for
// cause" is Termination for Cause, not Termination for Convenience (whose
// definition says "without … cause") — and a value asked beside the
// provision ("and how much?") leaves the provision to the rest of the
// question and is read per contract.
func TestDealRoomKindOfRight(t *testing.T) {
	var loads atomic.Int32
	f, err := NewBuiltinFinder(exampleLoader(t, &loads))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	docs := []DealRoomDoc{{ID: "master-services-agreement.txt", Name: "msa"}, {ID: "mutual-nda.md", Name: "nda"}}
	for _, tc := range []struct{ question, provision string }{
		{"Which of our contracts can be terminated for cause?", "Termination for Cause"},
		{"Which contracts can be terminated without cause?", "Termination for Convenience"},
		{"Which contracts cap liability, and how much?", "Cap on Liability"},
		{"Which contracts have uncapped liability?", "Uncapped Liability"},
	} {
		dr, err := f.DealRoom(ctx, tc.question, docs, DealRoomOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if dr == nil || dr.Provision != tc.provision {
			t.Errorf("%q: matched %+v, want %s", tc.question, dr, tc.provision)
			continue
		}
		if len(dr.Rows) == 0 || dr.Rows[0].DocID != "master-services-agreement.txt" {
			t.Errorf("%q: rows %+v, want the services agreement", tc.question, dr.Rows)
		}
	}
	dr, err := f.DealRoom(ctx, "Which contracts cap liability, and how much?", docs, DealRoomOptions{})
	if err != nil || dr == nil {
		t.Fatal(err)
	}
	if dr.Ask == nil || dr.Ask.Kind != "amount" {
		t.Errorf("the amount asked beside the cap: %+v", dr.Ask)
	}
	// the general cap (10.2), written as the fees paid, not the service
	// credits' 15% nor the exclusion of indirect damages
	for _, row := range dr.Rows {
		if row.DocID == "master-services-agreement.txt" {
			if want := "the total Fees paid and payable by Customer under this Agreement in the twelve (12) months immediately preceding the event giving rise to the liability"; row.Asked != want {
				t.Errorf("the cap asked: %q (from %q), want %q", row.Asked, row.AskedFrom, want)
			}
		}
	}
}

// A deal-room cache whose file is unchanged is used as kept in memory (not
// decoded again); one whose file another process rewrote is read again.
func TestDealRoomCacheKept(t *testing.T) {
	dir := t.TempDir()
	d := DealRoomDoc{ID: "a", Name: "a.txt", Hash: "h1"}
	c := openDealCache(dir, "Governing Law", "fp")
	c.put(d, Cell{Provision: "Governing Law", Found: true, Value: "New York"})
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	if again := openDealCache(dir, "Governing Law", "fp"); again != c {
		t.Error("an unchanged cache file was decoded again")
	}
	if other := openDealCache(dir, "Governing Law", "another fingerprint"); other == c || len(other.Cells) != 0 {
		t.Errorf("another reviewer's cache: %+v", other.Cells)
	}
	// Another process writes the file: it is read again, with its cells.
	w := &dealCache{path: c.path, Provision: "Governing Law", Fingerprint: "fp", Cells: map[string]dealCacheCell{}}
	w.put(DealRoomDoc{ID: "b", Name: "b.txt", Hash: "h2"}, Cell{Provision: "Governing Law", Found: true, Value: "Delaware"})
	w.put(d, Cell{Provision: "Governing Law", Found: true, Value: "New York"})
	if _, err := w.write(); err != nil {
		t.Fatal(err)
	}
	read := openDealCache(dir, "Governing Law", "fp")
	if read == c {
		t.Fatal("a cache file rewritten since was not read again")
	}
	if cell, ok := read.get(DealRoomDoc{ID: "b", Name: "b.txt", Hash: "h2"}); !ok || cell.Value != "Delaware" {
		t.Errorf("the rewritten file's cell: %+v %v", cell, ok)
	}
}
