package weaviate_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store/weaviate"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateRecords: a kind of records is listed whole and alone however
// many records of other kinds exist (the keys' once-a-second reload does
// not grow with saved reports), a deleted record is never listed, and the
// costs are logged: listing 10 keys beside 1,000 reports, listing the
// 1,000 reports, reading one record.
func TestWeaviateRecords(t *testing.T) {
	_, r := openCluster(t)
	const reports = 1000
	payload := strings.Repeat("x", 2000) // a small report's size order
	var wg sync.WaitGroup
	errs := make(chan error, reports)
	sem := make(chan struct{}, 8)
	for i := range reports {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := r.PutRecord(t.Context(), "report/deals", fmt.Sprintf("r%04d", i), []byte(payload)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := r.PutRecord(t.Context(), "api-key", fmt.Sprintf("k%d", i), []byte(`{"id":"k`+fmt.Sprint(i)+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteRecord(t.Context(), "api-key", "k3"); err != nil {
		t.Fatal(err)
	}
	timed := func(kind string, want int) time.Duration {
		var ds []time.Duration
		for range 5 {
			at := time.Now()
			recs, err := r.Records(t.Context(), kind)
			ds = append(ds, time.Since(at))
			if err != nil || len(recs) != want {
				t.Fatalf("Records(%s): %d records, %v; want %d", kind, len(recs), err, want)
			}
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	keys := timed("api-key", 9)
	all := timed("report/deals", reports)
	var ds []time.Duration
	for i := range 50 {
		at := time.Now()
		if _, err := r.Record(t.Context(), "report/deals", fmt.Sprintf("r%04d", i)); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(at))
	}
	slices.Sort(ds)
	t.Logf("3 nodes, replication 3: list 9 keys beside %d reports %s (median of 5); list %d reports %s; read one record p50 %s",
		reports, keys.Round(100*time.Microsecond), reports, all.Round(100*time.Microsecond), ds[len(ds)/2].Round(100*time.Microsecond))
}

// TestWeaviateRecordsMany: a kind with more records than one Weaviate query
// answers (QUERY_MAXIMUM_RESULTS, 10,000) is listed whole — a review's
// decisions are one record per contract and provision — with the exact
// data of each, deleted records left out and an update seen; and with a
// node down, when every record is read back at QUORUM, still whole.
// PAKTON_WEAVIATE_RECORDS sets the count (default 12,000).
func TestWeaviateRecordsMany(t *testing.T) {
	n := 12000
	if v := os.Getenv("PAKTON_WEAVIATE_RECORDS"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			t.Fatal(err)
		}
	}
	c, r := openCluster(t)
	ctx := context.Background()
	const kind = "review-decision/deals/r1"
	want := map[string]string{}
	at := time.Now()
	for start := 0; start < n; start += 1000 {
		recs := map[string][]byte{}
		for i := start; i < min(n, start+1000); i++ {
			id := fmt.Sprintf("d%06d", i)
			data := fmt.Sprintf(`{"doc_id":"contract-%d.pdf","provision":"p%d","status":"accepted","note":%q}`, i/50, i%50, strings.Repeat("n", i%200))
			recs[id] = []byte(data)
			want[id] = data
		}
		if err := r.PutRecords(ctx, kind, recs); err != nil {
			t.Fatal(err)
		}
	}
	write := time.Since(at)
	if err := r.PutRecords(ctx, "review-decision/deals/r2", map[string][]byte{"x": []byte("other review")}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += n / 7 {
		id := fmt.Sprintf("d%06d", i)
		if err := r.DeleteRecord(t.Context(), kind, id); err != nil {
			t.Fatal(err)
		}
		delete(want, id)
	}
	upd := fmt.Sprintf("d%06d", n-1)
	want[upd] = `{"status":"rejected"}`
	if err := r.PutRecord(t.Context(), kind, upd, []byte(want[upd])); err != nil {
		t.Fatal(err)
	}
	check := func(what string) time.Duration {
		t.Helper()
		at := time.Now()
		got, err := r.Records(t.Context(), kind)
		d := time.Since(at)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d records listed, want %d", what, len(got), len(want))
		}
		for id, data := range want {
			if string(got[id]) != data {
				t.Fatalf("%s: record %s = %.60q, want %.60q", what, id, got[id], data)
			}
		}
		return d
	}
	var ds []time.Duration
	for range 3 {
		ds = append(ds, check("all nodes"))
	}
	slices.Sort(ds)
	c.Kill(3)
	down := check("node 3 down")
	t.Logf("3 nodes, replication 3: %d records of one kind written in %s; listed whole in %s (median of 3); with a node down (every record read back at QUORUM) %s",
		n, write.Round(time.Millisecond), ds[1].Round(time.Millisecond), down.Round(time.Millisecond))
}

// openCluster starts a 3-node cluster (the test is skipped unless
// PAKTON_WEAVIATE=1) and opens a Remote on it with 3 replicas, closed when
// the test ends.
func openCluster(t *testing.T) (*wvtest.Cluster, *weaviate.Remote) {
	t.Helper()
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite")
	}
	c := wvtest.Require(t, 3)
	r, _, err := weaviate.Open(context.Background(), c.URL("replicas=3"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return c, r
}
