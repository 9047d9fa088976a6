package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// contract is a small agreement with numbered clauses, as a text file.
func contract(party, term string) string {
	return fmt.Sprintf(`SERVICES AGREEMENT

This Services Agreement is made between %s ("Supplier") and Acme Corp ("Customer").

1. Definitions
1.1 "Services" means the services described in Schedule 1.

2. Term
2.1 This Agreement starts on the Effective Date and continues for %s.
2.2 Either party may terminate this Agreement on ninety days' written notice.

3. Assignment
3.1 Neither party may assign this Agreement without the prior written consent of the other party, except to an affiliate.

4. Limitation of Liability
4.1 The total liability of the Supplier shall not exceed the fees paid in the twelve months before the claim.
`, party, term)
}

// env is a running test server with keys.
type env struct {
	t      *testing.T
	st     *store.Store
	keys   *auth.Keyring
	srv    *Server
	ts     *httptest.Server
	admin  string
	logBuf *bytes.Buffer
}

func newEnv(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := wvtest.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir = st.Dir()
	keys, err := auth.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	admin, _, err := keys.Create(t.Context(), "", "test admin", true)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, keys: keys, admin: admin, logBuf: &bytes.Buffer{}}
	// Rate limiting is off: these tests send requests as fast as they can
	// to test other things; TestRateLimit turns it on.
	cfg := Config{Store: st, Keys: keys, Logger: slog.New(slog.NewJSONHandler(lockedWriter{w: e.logBuf}, nil)), IngestWorkers: 2, Rate: -1}
	if mod != nil {
		mod(&cfg)
	}
	e.start(t.Context(), cfg)
	return e
}

func (e *env) start(ctx context.Context, cfg Config) {
	srv, err := New(ctx, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv = srv
	e.ts = httptest.NewServer(srv.Handler())
	e.t.Cleanup(func() { e.ts.Close(); srv.Close() })
}

// lockedWriter serialises log writes from concurrent handlers.
type lockedWriter struct{ w *bytes.Buffer }

var logMu = make(chan struct{}, 1)

func (l lockedWriter) Write(p []byte) (int, error) {
	logMu <- struct{}{}
	defer func() { <-logMu }()
	return l.w.Write(p)
}

func (e *env) logs() string {
	logMu <- struct{}{}
	defer func() { <-logMu }()
	return e.logBuf.String()
}

// key creates a collection key.
func (e *env) key(collection string) string {
	e.t.Helper()
	k, _, err := e.keys.Create(e.t.Context(), collection, "", false)
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// do sends a request and returns status and body.
func (e *env) do(method, path, key string, body io.Reader, contentType string) (int, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (e *env) json(method, path, key string, v any) (int, []byte) {
	e.t.Helper()
	var body io.Reader
	if v != nil {
		b, _ := json.Marshal(v)
		body = bytes.NewReader(b)
	}
	return e.do(method, path, key, body, "application/json")
}

// file is one part of a multipart upload.
type file struct {
	name string
	data string
}

func multipartBody(t testing.TB, files []file) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range files {
		w, err := mw.CreateFormFile("file", f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.data))
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

func (e *env) upload(collection, key string, files ...file) (int, []byte) {
	e.t.Helper()
	body, ct := multipartBody(e.t, files)
	return e.do("POST", "/api/v1/collections/"+collection+"/documents", key, body, ct)
}

// ingest uploads files and waits for the job to finish.
func (e *env) ingest(collection, key string, files ...file) jobs.Job {
	e.t.Helper()
	code, body := e.upload(collection, key, files...)
	if code != http.StatusAccepted {
		e.t.Fatalf("upload: %d %s", code, body)
	}
	var resp struct{ Job jobs.Job }
	if err := json.Unmarshal(body, &resp); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := e.srv.Jobs().Wait(ctx, resp.Job.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Event string
	Data  string
}

// parseSSE splits a text/event-stream body into events (comments dropped).
func parseSSE(t testing.TB, body string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(body, "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.Data += strings.TrimPrefix(line, "data: ")
			}
		}
		if ev.Event != "" {
			out = append(out, ev)
		}
	}
	return out
}

// storedJob returns a job as a server persisted it: its file in the store's
// directory, or its record on a cluster (fs.ErrNotExist when there is none).
func storedJob(ctx context.Context, st *store.Store, id string) ([]byte, error) {
	if rs := st.Shared(); rs != nil {
		return rs.Record(ctx, "job", id)
	}
	return os.ReadFile(filepath.Join(st.Dir(), "jobs", id+".json"))
}

// seedJob persists an ingestion job as an earlier run of the server would
// have: a file, or on a cluster a record owned by the server that will
// start on this store's local directory.
func seedJob(ctx context.Context, t testing.TB, st *store.Store, j jobs.Job) {
	t.Helper()
	if rs := st.Shared(); rs != nil {
		owner, err := instanceName(st.Dir())
		if err != nil {
			t.Fatal(err)
		}
		j.Owner, j.Heartbeat = owner, j.Created
		raw, _ := json.Marshal(j)
		if err := rs.PutRecord(ctx, "job", j.ID, raw); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, _ := json.Marshal(j)
	os.MkdirAll(filepath.Join(st.Dir(), "jobs"), 0o700)
	if err := os.WriteFile(filepath.Join(st.Dir(), "jobs", j.ID+".json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
