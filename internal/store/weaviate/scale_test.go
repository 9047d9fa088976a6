package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/eval"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateScaleBench measures the same work on the embedded store, on
// one Weaviate node and on three (replication 3): ingest of the CUAD corpus
// (468 contracts) through ingest.Ingest, the search index built from the
// store with no local index file, and per-question latency of what a
// server does for a search — rank in process, then read the hits'
// documents from the store (docread.Passages, no cache) — over the CUAD dev
// questions. Run it alone on a quiet machine:
//
//	PAKTON_WEAVIATE_BENCH=1 go test ./internal/store/weaviate/ -run WeaviateScaleBench -v -timeout 60m
//
// WEAVIATE_BENCH_SETUPS picks setups (default "embedded,1,3").
func TestWeaviateScaleBench(t *testing.T) {
	if os.Getenv("PAKTON_WEAVIATE_BENCH") != "1" {
		t.Skip("set PAKTON_WEAVIATE_BENCH=1 to measure embedded vs 1 vs 3 Weaviate nodes on the CUAD corpus")
	}
	data := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag")
	corpus := filepath.Join(data, "corpus", "cuad")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	b, err := eval.LoadBenchmark(filepath.Join(data, "benchmarks", "cuad_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	seen := map[string]bool{}
	for _, tc := range b.Tests {
		if !seen[tc.Query] {
			seen[tc.Query] = true
			qs = append(qs, tc.Query)
		}
	}
	qs = qs[:min(len(qs), 400)]
	setups := strings.Split(envOr("WEAVIATE_BENCH_SETUPS", "embedded,1,3"), ",")
	for _, setup := range setups {
		t.Run(setup, func(t *testing.T) {
			ctx := context.Background()
			var st *store.Store
			var err error
			switch setup {
			case "embedded":
				st, err = store.Open(t.TempDir())
			default:
				n := map[string]int{"1": 1, "3": 3}[setup]
				c := wvtest.Require(t, n)
				st, err = weaviate.OpenStore(ctx, c.URL("replicas="+setup+"&local="+t.TempDir()))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			const coll = "cuad"
			if err := st.CreateCollection(t.Context(), coll); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			sum, err := ingest.Ingest(ctx, st, coll, []string{corpus}, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ingestWall := time.Since(t0)
			docs := len(sum.Files)
			t1 := time.Now()
			ix, rep, err := ingest.Load(ctx, st, coll)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Opened {
				t.Fatal("index opened, not built")
			}
			build := time.Since(t1)
			t2 := time.Now()
			if _, rep2, err := ingest.Load(ctx, st, coll); err != nil || !rep2.Opened {
				t.Fatalf("second load: opened=%v err=%v", rep2.Opened, err)
			}
			open := time.Since(t2)
			var rank, full []time.Duration
			for _, q := range qs {
				s := time.Now()
				res, err := ix.Search(t.Context(), search.Query{Text: q, K: 8})
				if err != nil {
					t.Fatal(err)
				}
				r := time.Since(s)
				if _, err := docread.Passages(t.Context(), st, coll, res.Hits); err != nil {
					t.Fatal(err)
				}
				rank = append(rank, r)
				full = append(full, time.Since(s))
			}
			t.Logf("RESULT setup=%s docs=%d bytes=%d ingest=%.1fs (%.1f docs/s, %.2f MB/s) index-build-from-store=%.2fs index-open=%.0fms "+
				"rank p50/p99=%.2f/%.2fms search+passages p50/p99=%.1f/%.1fms (%d questions)",
				setup, docs, sum.Bytes, ingestWall.Seconds(), float64(docs)/ingestWall.Seconds(), float64(sum.Bytes)/1e6/ingestWall.Seconds(),
				build.Seconds(), ms(open), pct(rank, 50), pct(rank, 99), pct(full, 50), pct(full, 99), len(qs))
		})
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return ms(s[min(len(s)-1, len(s)*p/100)])
}

// TestWeaviateServeQPSBench measures search throughput through `pakton
// serve` (HTTP API, no auth) with one and two app processes on a 3-node
// cluster, and with one process on an embedded store: the CUAD corpus
// ingested, then 8 concurrent clients send the CUAD dev questions for
// WEAVIATE_BENCH_SECONDS (default 20) to the processes in turn. Everything
// (nodes, app processes, clients) shares this machine's cores.
//
//	PAKTON_WEAVIATE_BENCH=1 go test ./internal/store/weaviate/ -run WeaviateServeQPSBench -v -timeout 60m
func TestWeaviateServeQPSBench(t *testing.T) {
	if os.Getenv("PAKTON_WEAVIATE_BENCH") != "1" {
		t.Skip("set PAKTON_WEAVIATE_BENCH=1")
	}
	data := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag")
	corpus, _ := filepath.Abs(filepath.Join(data, "corpus", "cuad"))
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	b, err := eval.LoadBenchmark(filepath.Join(data, "benchmarks", "cuad_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, tc := range b.Tests {
		qs = append(qs, tc.Query)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pakton")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/pakton").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	secs, _ := strconv.Atoi(envOr("WEAVIATE_BENCH_SECONDS", "20"))
	c := wvtest.Require(t, 3)
	stores := map[string]string{
		"embedded": filepath.Join(dir, "store"),
		"cluster":  c.URL("replicas=3&local=" + filepath.Join(dir, "local0")),
	}
	for _, name := range []string{"embedded", "cluster"} {
		out, err := exec.Command(bin, "ingest", "-q", "--store", stores[name], "--collection", "cuad", corpus).CombinedOutput()
		if err != nil {
			t.Fatalf("ingest %s: %v\n%s", name, err, out)
		}
	}
	run := func(label string, urls []string) {
		var bases []string
		for i, u := range urls {
			port := freePort(t)
			if strings.HasPrefix(u, "weaviate://") && i > 0 {
				u = strings.Replace(u, "local0", "local"+strconv.Itoa(i), 1)
			}
			cmd := exec.Command(bin, "serve", "--no-auth", "--store", u, "--addr", "127.0.0.1:"+port, "--max-conns-per-client", "-1", "--rate", "0")
			cmd.Env = append(os.Environ(), "PAKTON_LLM_URL=", "PAKTON_LLM_MODEL=", "PAKTON_EMBED_URL=")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			bases = append(bases, "http://127.0.0.1:"+port)
		}
		for _, base := range bases { // warm: load the index
			waitOK(t, base+"/readyz")
			post(t, base+"/api/v1/collections/cuad/search", qs[0])
		}
		load := func(d time.Duration) (lat []time.Duration, errs int) {
			var mu sync.Mutex
			stop := time.Now().Add(d)
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; time.Now().Before(stop); i += 8 {
						s := time.Now()
						err := post(t, bases[i%len(bases)]+"/api/v1/collections/cuad/search", qs[i%len(qs)])
						d := time.Since(s)
						mu.Lock()
						if err != nil {
							errs++
						} else {
							lat = append(lat, d)
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			return lat, errs
		}
		cold, _ := load(time.Duration(secs) * time.Second / 2)
		lat, errs := load(time.Duration(secs) * time.Second)
		t.Logf("RESULT serve %s: %d app process(es), warm-up %.1f QPS (first reads of documents), then %d searches in %ds = %.1f QPS, p50 %.1f ms, p99 %.1f ms, %d errors",
			label, len(bases), float64(len(cold))/(float64(secs)/2), len(lat), secs, float64(len(lat))/float64(secs), pct(lat, 50), pct(lat, 99), errs)
	}
	run("embedded", []string{stores["embedded"]})
	run("cluster", []string{stores["cluster"]})
	run("cluster", []string{stores["cluster"], stores["cluster"]})
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func waitOK(t *testing.T, url string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s not ready", url)
}

func post(t *testing.T, url, q string) error {
	body, _ := json.Marshal(map[string]any{"query": q, "k": 8})
	res, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("HTTP %d", res.StatusCode)
	}
	return nil
}
