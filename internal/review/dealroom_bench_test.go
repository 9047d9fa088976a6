package review

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/store"
)

// BenchmarkStoreDealRoom asks a deal-room question ("Which of our contracts
// can be terminated for convenience?") of the first PAKTON_DEALROOM_DOCS
// contracts (default all) of an existing store, as the API answers it over
// the whole collection: first with an empty cell cache (every contract
// reviewed), then again (every cell from the cache). It reports the wall
// and processor seconds of each, and the processor milliseconds a contract
// costs the first time.
//
//	PAKTON_SCALE_STORE=$SCALE_DIR/x10all/store go test ./internal/review/ -run '^$' -bench StoreDealRoom -benchtime 1x
func BenchmarkStoreDealRoom(b *testing.B) {
	st := devset.ScaleStore(b)
	ctx := context.Background()
	infos, err := st.List(ctx, store.DefaultCollection)
	if err != nil {
		b.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("PAKTON_DEALROOM_DOCS")); err == nil && n > 0 && n < len(infos) {
		infos = infos[:n]
	}
	docs := make([]DealRoomDoc, len(infos))
	for i, in := range infos {
		docs[i] = DealRoomDoc{ID: in.ID, Name: in.Name, Hash: in.Source.SHA256}
	}
	const q = "Which of our contracts can be terminated for convenience?"
	for b.Loop() {
		f, err := NewBuiltinFinder(StoreLoader(st, store.DefaultCollection))
		if err != nil {
			b.Fatal(err)
		}
		opt := DealRoomOptions{CacheDir: b.TempDir()}
		t0, c0 := time.Now(), cpuTime()
		first, err := f.DealRoom(ctx, q, docs, opt)
		if err != nil || first == nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cpuTime()
		again, err := f.DealRoom(ctx, q, docs, opt)
		if err != nil || again.Cached != len(docs) || len(again.Rows) != len(first.Rows) {
			b.Fatalf("again: %v, %d cached of %d, %d rows (first %d)", err, again.Cached, len(docs), len(again.Rows), len(first.Rows))
		}
		t2, c2 := time.Now(), cpuTime()
		b.ReportMetric(float64(len(docs)), "docs")
		b.ReportMetric(t1.Sub(t0).Seconds(), "first-s")
		b.ReportMetric(float64(c1-c0)/1e9, "first-cpu-s")
		b.ReportMetric(float64(c1-c0)/1e6/float64(len(docs)), "cpu-ms/doc")
		b.ReportMetric(t2.Sub(t1).Seconds(), "cached-s")
		b.ReportMetric(float64(c2-c1)/1e9, "cached-cpu-s")
	}
}

// TestStoreDealRoomDump writes the answers (every cell, as JSON) of several
// deal-room questions over an existing store (its first
// PAKTON_DEALROOM_DOCS contracts, default all) to the file
// PAKTON_DEALROOM_DUMP, one line a question: run before and after a change
// to the review engine's speed, the two files must be byte-identical.
//
//	PAKTON_SCALE_STORE=STORE PAKTON_DEALROOM_DUMP=before.jsonl go test ./internal/review/ -run StoreDealRoomDump
func TestStoreDealRoomDump(t *testing.T) {
	out := os.Getenv("PAKTON_DEALROOM_DUMP")
	if out == "" {
		t.Skip("set PAKTON_DEALROOM_DUMP to the file to write")
	}
	st := devset.ScaleStore(t)
	ctx := context.Background()
	infos, err := st.List(ctx, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("PAKTON_DEALROOM_DOCS")); err == nil && n > 0 && n < len(infos) {
		infos = infos[:n]
	}
	docs := make([]DealRoomDoc, len(infos))
	for i, in := range infos {
		docs[i] = DealRoomDoc{ID: in.ID, Name: in.Name, Hash: in.Source.SHA256}
	}
	f, err := NewBuiltinFinder(StoreLoader(st, store.DefaultCollection))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, q := range []string{
		"Which of our contracts can be terminated for convenience?",
		"Which contracts are governed by New York law?",
		"Which contracts cap liability, and how much?",
		"Which contracts have a non-compete, and under which law?",
		"Which contracts can be terminated for convenience, and on what notice?",
		"Which of our contracts can be terminated for cause?",
		"Which contracts have uncapped liability?",
		"Which contracts have a non-compete?",
		"Which contracts renew automatically, and on what notice?",
		"Which contracts have an exclusivity clause?",
		"Which contracts have a change of control provision?",
	} {
		dr, err := f.DealRoom(ctx, q, docs, DealRoomOptions{})
		if err != nil {
			t.Fatal(err)
		}
		line, err := json.Marshal(struct {
			Q  string
			DR *DealRoom
		}{q, dr})
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
