package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/store"
	"gopkg.in/yaml.v3"
)

// TestFairnessLoad measures fairness between tenants: while key
// A runs the heaviest review the server allows (a playbook of twice the
// built-in provisions over every CUAD contract of LegalBench-RAG, close to
// the 50,000-cell limit) and a 100-file upload (the 30 CUAD PDFs and 70
// of A's CUAD contracts uploaded again as new documents), key B searches
// its own collection without pause for 10 s, then goes on searching and
// uploads one small contract every 3 s until A's upload ends (120 s in
// all at most). It reports how long B's uploads took and B's
// search latency percentiles in both phases (and those of B's searches
// with A idle, measured first), and fails when they miss the issue's
// targets: upload ≤ 10 s; search p99 < 200 ms in the first phase, judged
// when the machine gives B's searches with A idle a p99 under 100 ms.
//
//	PAKTON_LOAD=1 go test ./internal/server/ -run TestFairnessLoad -v -timeout 20m
//
// It uses only the HTTP API and the server's defaults, so it measures any
// version of the server the same way.
func TestFairnessLoad(t *testing.T) {
	if os.Getenv("PAKTON_LOAD") != "1" {
		t.Skip("set PAKTON_LOAD=1 to run the fairness load test")
	}
	data, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data"))
	cuad := filepath.Join(data, "legalbenchrag", "corpus", "cuad")
	pdfs := filepath.Join(data, "cuad", "pdf")
	for _, d := range []string{cuad, pdfs} {
		if _, err := os.Stat(d); err != nil {
			t.Skipf("shared data not found: %v", err)
		}
	}
	queries := loadQueries(t, filepath.Join(data, "legalbenchrag", "benchmarks", "cuad_dev.json"))
	cuadTxt, _ := filepath.Glob(filepath.Join(cuad, "*.txt"))
	pdfFiles, _ := filepath.Glob(filepath.Join(pdfs, "*.pdf"))
	if len(cuadTxt) < 100 || len(pdfFiles) < 30 {
		t.Skip("shared data incomplete")
	}

	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	start := time.Now()
	if _, err := ingest.Ingest(ctx, st, "heavy", cuadTxt, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, st, "light", cuadTxt[:20], ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	heavyDocs, _ := st.List(t.Context(), "heavy")
	t.Logf("seeded %d contracts for A and 20 for B in %.0fs", len(heavyDocs), time.Since(start).Seconds())

	keys, _ := auth.Open(t.Context(), dir)
	keyA, _, _ := keys.Create(t.Context(), "heavy", "tenant A", false)
	keyB, _, _ := keys.Create(t.Context(), "light", "tenant B", false)
	srv, err := New(t.Context(), Config{Store: st, Keys: keys, Addr: "127.0.0.1:0", Rate: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() { stop(); <-served }()
	api := "http://" + ln.Addr().String() + "/api/v1/collections/"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 5 * time.Minute}
	if _, err := post(client, api+"light/search", keyB, map[string]any{"query": "warm up", "k": 1}); err != nil {
		t.Fatal(err)
	}
	// B's searches with A idle first, for comparison: the machine's own load.
	var alone []time.Duration
	for i, end := 0, time.Now().Add(15*time.Second); time.Now().Before(end); i++ {
		t0 := time.Now()
		if _, err := post(client, api+"light/search", keyB, map[string]any{"query": queries[i%len(queries)], "k": 8}); err != nil {
			t.Fatal(err)
		}
		alone = append(alone, time.Since(t0))
	}
	slices.Sort(alone)
	t.Logf("B with A idle: %d searches in 15 s, p50 %.1f ms, p99 %.1f ms", len(alone), ms2(alone[len(alone)/2]), ms2(alone[min(len(alone)-1, len(alone)*99/100)]))

	// A: the heaviest review allowed, then the largest upload.
	pb := doubledBuiltin(t)
	parsed, err := playbook.ParsePlaybook("doubled.yaml", []byte(pb))
	if err != nil {
		t.Fatal(err)
	}
	cells := len(heavyDocs) * len(parsed.Provisions)
	body, err := postStatus(client, api+"heavy/reviews", keyA, map[string]any{"playbook_yaml": pb, "offline": true}, http.StatusAccepted)
	if err != nil {
		t.Fatal(err)
	}
	var rv struct{ Review reviewJSON }
	json.Unmarshal(body, &rv)
	var files []file
	// 30 PDFs and 70 of A's own contracts as new documents (a line added,
	// so each is parsed and indexed again): about a minute of work on an
	// idle 2-core machine.
	for i, p := range append(pdfFiles[:30], cuadTxt[20:90]...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name, text := filepath.Base(p), string(b)
		if i >= 30 {
			name, text = "again-"+name, text+"\n\nAnnex to the copy uploaded again.\n"
		}
		files = append(files, file{name, text})
	}
	upA, err := uploadFiles(client, api+"heavy", keyA, files)
	if err != nil {
		t.Fatal(err)
	}
	running := func(m *jobs.Manager, id string) bool { j, _ := m.Get(id); return j.State == jobs.Running }
	for !running(srv.Jobs(), upA) || !running(srv.ReviewJobs(), rv.Review.Job) {
		if j, _ := srv.Jobs().Get(upA); j.State.Final() {
			t.Fatalf("A's upload finished before the measurement: %+v", j)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// B, while both of A's jobs run: 10 s of searches alone, then up to
	// 110 s of searches and a small upload every 3 s. (On an idle machine
	// A's upload lasts well under a minute: the second phase must start
	// early enough to be measured.) (B's own uploads change B's
	// index, whose maintenance then competes with B's searches: the first
	// phase measures what A does to B's searches.)
	wstart := time.Now()
	window, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	phase2 := wstart.Add(10 * time.Second)
	go func() {
		for window.Err() == nil {
			if !running(srv.Jobs(), upA) || !running(srv.ReviewJobs(), rv.Review.Job) {
				cancel()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var mu sync.Mutex
	var lat, lat2, uploads []time.Duration
	var errs, waits []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; window.Err() == nil; i++ {
			t0 := time.Now()
			_, err := post(client, api+"light/search", keyB, map[string]any{"query": queries[i%len(queries)], "k": 8})
			d := time.Since(t0)
			if window.Err() != nil {
				break
			}
			mu.Lock()
			if err != nil {
				errs = append(errs, err.Error())
			}
			if t0.Before(phase2) {
				lat = append(lat, d)
			} else {
				lat2 = append(lat2, d)
			}
			mu.Unlock()
		}
	}()
	go func() {
		defer wg.Done()
		select {
		case <-window.Done():
			return
		case <-time.After(time.Until(phase2)):
		}
		for i := 0; window.Err() == nil; i++ {
			t0 := time.Now()
			id, err := uploadFiles(client, api+"light", keyB, []file{{fmt.Sprintf("b-%03d.txt", i), contract(fmt.Sprintf("Tenant B Party %d", i), "two years")}})
			if err == nil {
				var j jobs.Job
				if j, err = srv.Jobs().Wait(ctx, id); err == nil && j.State != jobs.Done {
					err = fmt.Errorf("job %s: %s", j.State, j.Error)
				}
				mu.Lock()
				waits = append(waits, fmt.Sprintf("%.1f+%.1f", j.Started.Sub(j.Created).Seconds(), j.Finished.Sub(j.Started).Seconds()))
				mu.Unlock()
			}
			d := time.Since(t0)
			mu.Lock()
			if err != nil {
				errs = append(errs, err.Error())
			} else {
				uploads = append(uploads, d)
			}
			mu.Unlock()
			select {
			case <-window.Done():
			case <-time.After(3 * time.Second):
			}
		}
	}()
	wg.Wait()
	measured := time.Since(wstart)
	ja, _ := srv.Jobs().Get(upA)
	jr, _ := srv.ReviewJobs().Get(rv.Review.Job)
	srv.Jobs().Cancel(upA)
	srv.ReviewJobs().Cancel(rv.Review.Job)

	for _, e := range errs[:min(len(errs), 10)] {
		t.Error(e)
	}
	slices.Sort(lat)
	slices.Sort(lat2)
	pctOf := func(l []time.Duration, p float64) time.Duration {
		if len(l) == 0 {
			return 0
		}
		return l[min(len(l)-1, int(p*float64(len(l))))]
	}
	pct := func(p float64) time.Duration { return pctOf(lat, p) }
	t.Logf("%d CPUs; A: review of %d cells (%d/%d contracts done in the window), upload of 100 files (%d done); measured for %.0f s while both ran",
		runtime.NumCPU(), cells, jr.Progress.Done, jr.Progress.Total, ja.Progress.Done, measured.Seconds())
	slices.Sort(uploads)
	t.Logf("B: %d small uploads, each from POST to done: %v (queued+running, s: %v)", len(uploads), uploads, waits)
	t.Logf("B, searches only: %d searches, p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms", len(lat), ms2(pct(0.5)), ms2(pct(0.95)), ms2(pct(0.99)), ms2(pct(1)))
	t.Logf("B, searches while B uploads: %d searches, p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms", len(lat2),
		ms2(pctOf(lat2, 0.5)), ms2(pctOf(lat2, 0.95)), ms2(pctOf(lat2, 0.99)), ms2(pctOf(lat2, 1)))
	if len(uploads) == 0 || len(lat) < 100 {
		t.Fatalf("too few samples: %d uploads, %d searches", len(uploads), len(lat))
	}
	if worst := uploads[len(uploads)-1]; worst > 10*time.Second {
		t.Errorf("B's slowest small upload took %v, over the 10 s target", worst)
	}
	// The search target is judged only where the machine itself allows it:
	// when B's searches alone already have p99 ≥ 100 ms (a machine shared
	// with other work), a p99 over 200 ms says nothing about pakton.
	aloneP99 := alone[min(len(alone)-1, len(alone)*99/100)]
	switch p99 := pct(0.99); {
	case p99 < 200*time.Millisecond:
	case aloneP99 < 100*time.Millisecond:
		t.Errorf("B's search p99 %v, over the 200 ms target (alone: %v)", p99, aloneP99)
	default:
		t.Logf("note: B's search p99 %v is over the 200 ms target, but this machine gives B's searches alone a p99 of %v: not judged", p99, aloneP99)
	}
}

// doubledBuiltin returns the built-in playbook with every provision twice
// (the copy zero-shot, under another name): 102 provisions.
func doubledBuiltin(t *testing.T) string {
	pb, _ := review.Builtin()
	out := *pb
	for _, p := range pb.Provisions {
		p.Name += " (again)"
		p.Detector = "none"
		out.Provisions = append(out.Provisions, p)
	}
	b, err := yaml.Marshal(struct {
		Name       string               `yaml:"name"`
		Provisions []playbook.Provision `yaml:"provisions"`
	}{"doubled", out.Provisions})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// postStatus posts JSON and wants a status.
func postStatus(c *http.Client, url, key string, v any, want int) ([]byte, error) {
	b, _ := json.Marshal(v)
	req, _ := http.NewRequest("POST", url, strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return body, fmt.Errorf("status %d: %.300s", resp.StatusCode, body)
	}
	return body, nil
}
