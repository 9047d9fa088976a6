package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/parse/bombtest"
	"github.com/pakton/pakton/internal/procstat"
	"github.com/pakton/pakton/internal/store"
)

// servedProcess is a "pakton serve" child whose memory is watched.
type servedProcess struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	peak    atomic.Int64
	exited  chan struct{}
	errOut  lockedBuffer
	expired atomic.Bool // killed at the test's deadline
}

// lockedBuffer is a bytes.Buffer a child writes and the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// probe is the client of health checks: a server that does not answer
// one within its timeout counts as down.
var probe = &http.Client{Timeout: 30 * time.Second}

// startServe starts "pakton serve" on a free port over the store at dir,
// with extra flags, and waits until it is ready. At deadline the server
// is killed (and expired set), so that no request of the test can wait on
// it any longer and the test fails instead of hanging.
func startServe(t *testing.T, dir string, deadline time.Time, flags ...string) *servedProcess {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &servedProcess{base: "http://" + addr, exited: make(chan struct{})}
	args := append([]string{"serve", "--store", dir, "--addr", addr, "--rate", "0", "--log", "json"}, flags...)
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), envRunMain+"=1")
	p.cmd.Stderr = &p.errOut
	ownGroup(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.exited:
				return
			case <-tick.C:
				if hwm := procstat.BytesOf(p.cmd.Process.Pid, "VmHWM"); hwm > p.peak.Load() {
					p.peak.Store(hwm)
				}
			}
		}
	}()
	t.Cleanup(p.kill)
	timer := time.AfterFunc(time.Until(deadline), func() {
		p.expired.Store(true)
		p.kill()
	})
	t.Cleanup(func() { timer.Stop() })
	ready := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if resp, err := ready.Get(p.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-p.exited:
			if p.expired.Load() {
				t.Fatalf("pakton serve killed at the test's deadline before it was ready: %s", p.errOut.String())
			}
			t.Fatalf("pakton serve exited: %s", p.errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("pakton serve not ready: %s", p.errOut.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill stops the server with SIGKILL, as a crash or an OOM killer would.
func (p *servedProcess) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	killGroup(p.cmd)
	<-p.exited
}

// checkDeadline fails the test when the server was killed at its
// deadline.
func (p *servedProcess) checkDeadline(t *testing.T) {
	t.Helper()
	if p.expired.Load() {
		t.Fatalf("the test passed its deadline: the server was killed (stderr: %s)", lastLine(p.errOut.String()))
	}
}

// alive reports whether the server still runs and answers.
func (p *servedProcess) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
	}
	resp, err := probe.Get(p.base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// api calls the server with a key and decodes the JSON answer into out.
func api(c *http.Client, method, url, key string, body io.Reader, ct string, out any) (int, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, err
		}
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("status %d: %.300s", resp.StatusCode, bytes.TrimSpace(raw))
	}
	return resp.StatusCode, nil
}

// uploadFile uploads the file at path to a collection and returns its job,
// or the answer's error (a file refused on arrival, 413 for one too large).
func uploadFile(c *http.Client, base, collection, key, path string) (jobs.Job, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		w, err := mw.CreateFormFile("file", filepath.Base(path))
		if err == nil {
			var f *os.File
			if f, err = os.Open(path); err == nil {
				_, err = io.Copy(w, f)
				f.Close()
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	var out struct{ Job jobs.Job }
	_, err := api(c, "POST", base+"/api/v1/collections/"+collection+"/documents", key, pr, mw.FormDataContentType(), &out)
	return out.Job, err
}

// envUpload makes the test binary upload one file and exit, printing the
// job as JSON (or "error: …"): "BASE\tCOLLECTION\tKEY\tPATH". Tenant A's
// upload comes from a process of its own, as it would, so that sending a
// file does not take processor time from B's searches in the test process.
const envUpload = "PAKTON_TEST_UPLOAD"

func init() {
	v := os.Getenv(envUpload)
	if v == "" {
		return
	}
	f := strings.Split(v, "\t")
	if len(f) != 4 {
		fmt.Println("error: " + envUpload + " needs BASE, COLLECTION, KEY and PATH")
		os.Exit(0)
	}
	j, err := uploadFile(&http.Client{Timeout: 2 * time.Minute}, f[0], f[1], f[2], f[3])
	if err != nil {
		fmt.Println("error: " + err.Error())
		os.Exit(0)
	}
	json.NewEncoder(os.Stdout).Encode(j)
	os.Exit(0)
}

// uploadFrom uploads a file as uploadFile does, from a child process.
func uploadFrom(base, collection, key, path string) (jobs.Job, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), envUpload+"="+strings.Join([]string{base, collection, key, path}, "\t"))
	ownGroup(cmd)
	out, err := cmd.Output()
	if err != nil {
		return jobs.Job{}, fmt.Errorf("the uploading process: %v", err)
	}
	if msg, ok := strings.CutPrefix(string(out), "error: "); ok {
		return jobs.Job{}, errors.New(strings.TrimSpace(msg))
	}
	var j jobs.Job
	if err := json.Unmarshal(out, &j); err != nil {
		return jobs.Job{}, fmt.Errorf("the uploading process printed %.200q: %v", out, err)
	}
	return j, nil
}

// waitJob polls a job until it is final (GET /api/v1/jobs/{id} answers
// {"job": …}).
func waitJob(c *http.Client, base, key, id string, limit time.Duration) (jobs.Job, error) {
	if id == "" {
		return jobs.Job{}, fmt.Errorf("no job to wait for")
	}
	deadline := time.Now().Add(limit)
	for {
		var out struct{ Job jobs.Job }
		if _, err := api(c, "GET", base+"/api/v1/jobs/"+id, key, nil, "", &out); err != nil {
			return out.Job, err
		}
		j := out.Job
		if j.ID != id {
			return j, fmt.Errorf("asked for job %s, got %q", id, j.ID)
		}
		if j.State.Final() {
			return j, nil
		}
		if time.Now().After(deadline) {
			return j, fmt.Errorf("job %s still %s after %s", id, j.State, limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// jobOutcome summarises a finished upload job: its documents' statuses,
// and the first reason one failed.
func jobOutcome(j jobs.Job) string {
	counts := map[string]int{}
	reason := ""
	for _, r := range j.Results {
		counts[r.Status]++
		if r.Status == "failed" && reason == "" {
			reason = r.Reason
		}
	}
	var parts []string
	for _, st := range []string{"added", "replaced", "unchanged", "skipped", "failed"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	out := fmt.Sprintf("%s (%s)", j.State, strings.Join(parts, ", "))
	if reason != "" {
		out += ": " + reason
	}
	return out
}

// searcher runs key B's searches without pause and keeps their latencies.
type searcher struct {
	mu     sync.Mutex
	lat    []time.Duration
	errs   int
	stop   chan struct{}
	done   chan struct{}
	client *http.Client
}

func startSearches(c *http.Client, base, key, collection string, queries []string) *searcher {
	s := &searcher{stop: make(chan struct{}), done: make(chan struct{}), client: c}
	go func() {
		defer close(s.done)
		for i := 0; ; i++ {
			select {
			case <-s.stop:
				return
			default:
			}
			body, _ := json.Marshal(map[string]any{"query": queries[i%len(queries)], "k": 8})
			t0 := time.Now()
			_, err := api(c, "POST", base+"/api/v1/collections/"+collection+"/search", key, bytes.NewReader(body), "application/json", nil)
			d := time.Since(t0)
			s.mu.Lock()
			if err != nil {
				s.errs++
			} else {
				s.lat = append(s.lat, d)
			}
			s.mu.Unlock()
			if err != nil {
				time.Sleep(50 * time.Millisecond) // a server gone must not spin this loop
			}
		}
	}()
	return s
}

// take returns the latencies so far and starts a new series.
func (s *searcher) take() (lat []time.Duration, errs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lat, errs = s.lat, s.errs
	s.lat, s.errs = nil, 0
	return lat, errs
}

func (s *searcher) end() { close(s.stop); <-s.done }

// percentile returns the p-th percentile of ds (sorted in place).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}

// serveBombStore makes a store with key B's collection of CUAD contracts
// and keys for A (the hostile uploads) and B, or skips without the data.
func serveBombStore(t *testing.T) (dir, keyA, keyB string, queries []string) {
	t.Helper()
	data, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag"))
	cuad, _ := filepath.Glob(filepath.Join(data, "corpus", "cuad", "*.txt"))
	if len(cuad) < 20 {
		t.Skip("shared data not found (../shared/data/legalbenchrag)")
	}
	raw, err := os.ReadFile(filepath.Join(data, "benchmarks", "cuad_dev.json"))
	if err != nil {
		t.Skip(err)
	}
	var bench struct {
		Tests []struct {
			Query string `json:"query"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &bench); err != nil {
		t.Fatal(err)
	}
	for _, q := range bench.Tests {
		queries = append(queries, q.Query)
	}
	dir = filepath.Join(t.TempDir(), "store")
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := ingest.Ingest(ctx, st, "light", cuad[:20], ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateCollection(ctx, "heavy"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	keys, err := auth.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	keyA, _, _ = keys.Create(ctx, "heavy", "tenant A", false)
	keyB, _, _ = keys.Create(ctx, "light", "tenant B", false)
	return dir, keyA, keyB, queries
}

// The cases uploaded to a server: the ones that cost most in TestBombKit
// (heavyServe, with PAKTON_BOMBS=1), three of them in the slow suite
// (quickServe), or those PAKTON_BOMB selects.
const (
	heavyServe = `^(txt-definitions-20mb|rtf-hex-body|odt-two-parts|eml-nested|eml-many-attachments|html-paragraphs|docx-paragraph-60mb)$`
	quickServe = `^(txt-definitions-20mb|rtf-hex-body|eml-nested)$`
)

func serveCases() []bombtest.Case { return kitCases(quickServe, heavyServe) }

// TestBombKitServe uploads the heaviest cases of the bomb kit to "pakton
// serve" (a child process) with key A while key B searches its own
// collection of 20 CUAD contracts without pause, and fails when the server
// does not stay up, when an upload is not reported as stored or refused
// with a reason within two minutes, or when B's search p99 while the upload
// runs is more than twice (5× in the slow suite) B's p99 with A idle in the 5 s before and the 5 s
// after it (the machine's other load drifts: idle is measured beside each
// case, not once), twice in a row. It
// reports per case the job's outcome and time, the server's peak memory
// and B's latencies. The slow suite uploads three cases (about a minute);
// PAKTON_BOMBS=1 seven; PAKTON_BOMB selects them. Every request has a
// timeout, and the server is killed (failing the test) 8 minutes in.
//
//	PAKTON_LOAD=1 PAKTON_BOMBS=1 go test ./cmd/pakton/ -run 'TestBombKitServe$' -v -timeout 30m
func TestBombKitServe(t *testing.T) {
	if os.Getenv("PAKTON_LOAD") != "1" {
		t.Skip("set PAKTON_LOAD=1 to upload the bomb kit to a server under search load")
	}
	deadline := testDeadline(t, 8*time.Minute)
	dir, keyA, keyB, queries := serveBombStore(t)
	srv := startServe(t, dir, deadline)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 2 * time.Minute}
	b := startSearches(client, srv.base, keyB, "light", queries)
	defer b.end()
	time.Sleep(2 * time.Second) // warm up
	b.take()
	time.Sleep(15 * time.Second)
	idle, idleErrs := b.take()
	srv.checkDeadline(t)
	if idleErrs > 0 || len(idle) == 0 {
		t.Fatalf("B with A idle: %d searches, %d failed: %s", len(idle), idleErrs, lastLine(srv.errOut.String()))
	}
	idleP50, idleP99 := percentile(idle, 50), percentile(idle, 99)
	t.Logf("B with A idle: %d searches, p50 %.1f ms, p99 %.1f ms; server %d MiB", len(idle), ms(idleP50), ms(idleP99), srv.peak.Load()>>20)
	// The bound, 2× idle, is what the measurement run
	// (PAKTON_BOMBS=1, on an otherwise idle machine) holds the server to.
	// The slow suite runs beside every other package's slow tests, whose
	// load alone moves B's p99 by more than 2×; there it catches a server
	// that makes other tenants wait for the upload (10× and more), at 5×.
	slowdown := 5.0
	if os.Getenv("PAKTON_BOMBS") == "1" {
		slowdown = 2
	}
	files := t.TempDir()
	var table []string
	for _, c := range serveCases() {
		path, err := c.WriteFile(files)
		if err != nil {
			t.Fatal(err)
		}
		// A p99 past the bound is measured again once (the documents the
		// first upload stored removed first, so the work is the same):
		// the machine's other load can make one window slow, a server
		// that slows B down does it both times.
		for attempt := 1; attempt <= 2; attempt++ {
			b.take()
			time.Sleep(5 * time.Second)
			idle, _ := b.take()
			before := srv.peak.Load()
			start := time.Now()
			j, err := uploadFrom(srv.base, "heavy", keyA, path)
			outcome := ""
			if err == nil {
				j, err = waitJob(client, srv.base, keyA, j.ID, 2*time.Minute)
				outcome = jobOutcome(j)
			}
			if err != nil {
				outcome = "upload answered: " + err.Error()
			}
			took := time.Since(start)
			srv.checkDeadline(t)
			during, errs := b.take()
			time.Sleep(5 * time.Second)
			after, _ := b.take()
			idleP99 := percentile(append(idle, after...), 99)
			p50, p99 := percentile(during, 50), percentile(during, 99)
			line := fmt.Sprintf("| %s | %s | %.1f s | %d MiB | %d | %.1f / %.1f ms | %.1f ms | %.2f× |", c.Name, outcome, took.Seconds(), srv.peak.Load()>>20, len(during), ms(p50), ms(p99), ms(idleP99), float64(p99)/float64(max(idleP99, 1)))
			table = append(table, line)
			t.Log(line)
			if before > srv.peak.Load() {
				t.Errorf("peak went down")
			}
			if !srv.alive() {
				t.Fatalf("%s: the server is down or does not answer /healthz within %s: %s", c.Name, probe.Timeout, lastLine(srv.errOut.String()))
			}
			if errs > 0 {
				t.Errorf("%s: %d of B's searches failed", c.Name, errs)
			}
			if !strings.HasPrefix(outcome, "done") && !strings.HasPrefix(outcome, "failed") && !strings.Contains(outcome, "status 413") {
				t.Errorf("%s: %s", c.Name, outcome)
			}
			if len(during) == 0 || float64(p99) <= slowdown*float64(idleP99) {
				break
			}
			if attempt == 2 {
				t.Errorf("%s: B's search p99 %.1f ms while it ran, more than %g× %.1f ms with A idle (twice in a row)", c.Name, ms(p99), slowdown, ms(idleP99))
				break
			}
			for _, r := range j.Results {
				if r.Status == "added" || r.Status == "replaced" {
					if _, err := api(client, "DELETE", srv.base+"/api/v1/collections/heavy/documents/"+r.ID, keyA, nil, "", nil); err != nil {
						t.Fatalf("remove %s before measuring again: %v", r.Name, err)
					}
				}
			}
		}
	}
	t.Logf("server peak resident memory: %d MiB\n| case | job | time | server peak | B's searches | B p50 / p99 | idle p99 | p99 ÷ idle p99 |\n|---|---|---|---|---|---|---|---|\n%s", srv.peak.Load()>>20, strings.Join(table, "\n"))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TestBombKitServeKilled uploads heavy cases to "pakton serve", kills the
// server with SIGKILL while the job runs, checks that the store holds only
// whole documents, starts the server again and waits (two minutes at
// most) for the job, which resumes, to finish with the case stored or
// refused. The slow suite kills three uploads, PAKTON_BOMBS=1 seven; servers
// still running 8 minutes in are killed and the test fails.
//
//	PAKTON_SLOW=1 PAKTON_BOMBS=1 go test ./cmd/pakton/ -run TestBombKitServeKilled -v -timeout 30m
func TestBombKitServeKilled(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to kill a server mid-upload of the bomb kit")
	}
	deadline := testDeadline(t, 8*time.Minute)
	dir, keyA, _, _ := serveBombStore(t)
	client := &http.Client{Timeout: 2 * time.Minute}
	files := t.TempDir()
	for i, c := range serveCases() {
		t.Run(c.Name, func(t *testing.T) {
			path, err := c.WriteFile(files)
			if err != nil {
				t.Fatal(err)
			}
			srv := startServe(t, dir, deadline)
			j, err := uploadFile(client, srv.base, "heavy", keyA, path)
			srv.checkDeadline(t)
			if err != nil {
				t.Logf("refused on arrival: %v", err)
				srv.kill()
				return
			}
			time.Sleep(time.Duration(500+700*i) * time.Millisecond)
			srv.kill()
			checkStoreAfterKill(t, dir, "")
			srv = startServe(t, dir, deadline)
			j, err = waitJob(client, srv.base, keyA, j.ID, 2*time.Minute)
			srv.checkDeadline(t)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("after the restart: %s (attempts %d)", jobOutcome(j), j.Attempts)
			if !j.State.Final() {
				t.Errorf("job %s", j.State)
			}
			srv.kill()
			checkStoreAfterKill(t, dir, "")
		})
	}
}
