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
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite")
	}
	c := wvtest.Require(t, 3)
	r, _, err := weaviate.Open(context.Background(), c.URL("replicas=3"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
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
			if err := r.PutRecord("report/deals", fmt.Sprintf("r%04d", i), []byte(payload)); err != nil {
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
		if err := r.PutRecord("api-key", fmt.Sprintf("k%d", i), []byte(`{"id":"k`+fmt.Sprint(i)+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.DeleteRecord("api-key", "k3"); err != nil {
		t.Fatal(err)
	}
	timed := func(kind string, want int) time.Duration {
		var ds []time.Duration
		for range 5 {
			at := time.Now()
			recs, err := r.Records(kind)
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
		if _, err := r.Record("report/deals", fmt.Sprintf("r%04d", i)); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(at))
	}
	slices.Sort(ds)
	t.Logf("3 nodes, replication 3: list 9 keys beside %d reports %s (median of 5); list %d reports %s; read one record p50 %s",
		reports, keys.Round(100*time.Microsecond), reports, all.Round(100*time.Microsecond), ds[len(ds)/2].Round(100*time.Microsecond))
}
