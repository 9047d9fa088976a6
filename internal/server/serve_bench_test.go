package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/eval/devset"
	"github.com/pakton/pakton/internal/store"
)

// BenchmarkServeSearch measures search over HTTP as a client of `pakton
// serve` sees it: a server on a stored collection (the
// default collection of PAKTON_SCALE_STORE, e.g. scripts/scale-bench.sh's
// $SCALE_DIR/x1all/store; the server may merge or relearn in it, so give it
// a copy), one client on loopback asking the CUAD dev questions one after
// another, K=8, no API keys. A first pass warms the server (index pages,
// the document cache); the second is measured: p50/p99 in ms. The first
// pass's are reported too (cold-p50-ms, cold-p99-ms).
//
//	cp -r $SCALE_DIR/x1all/store COPY && PAKTON_SCALE_STORE=COPY \
//	  go test ./internal/server/ -run '^$' -bench ServeSearch -benchtime 1x
func BenchmarkServeSearch(b *testing.B) {
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		b.Skip("set PAKTON_SCALE_STORE to a store directory")
	}
	questions := devset.Questions(b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	st, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	srv, err := New(ctx, Config{Store: st, NoAuth: true, Rate: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() {
		stop()
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			b.Error("the server did not stop within 30 s")
		}
	}()
	url := "http://" + ln.Addr().String() + "/api/v1/collections/default/search"
	client := &http.Client{Timeout: time.Minute}
	ask := func(q string) time.Duration {
		body, _ := json.Marshal(map[string]any{"query": q, "k": 8})
		req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("search %q: %d %v", q, resp.StatusCode, err)
		}
		return d
	}
	b.ResetTimer()
	for range b.N {
		var cold, took []time.Duration
		for _, q := range questions {
			cold = append(cold, ask(q))
		}
		for _, q := range questions {
			took = append(took, ask(q))
		}
		ms := func(took []time.Duration, p float64) float64 {
			slices.Sort(took)
			return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
		}
		b.ReportMetric(ms(took, 0.50), "p50-ms")
		b.ReportMetric(ms(took, 0.99), "p99-ms")
		// the first pass, each contract's first questions included, as a
		// server started afresh answers them
		b.ReportMetric(ms(cold, 0.50), "cold-p50-ms")
		b.ReportMetric(ms(cold, 0.99), "cold-p99-ms")
		b.ReportMetric(float64(len(took)), "questions")
	}
}
