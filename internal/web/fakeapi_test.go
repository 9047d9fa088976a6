package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

// fakeAPI stands in for internal/server's /api/v1 routes in the browser test
// until that server exists: the same paths and JSON shapes, backed by a real
// store, real ingestion and the real evidence report.
type fakeAPI struct {
	t   *testing.T
	st  *store.Store
	key string
	dir string // uploaded files

	mu      sync.Mutex
	jobs    map[string]*fakeJob
	n       int
	reports map[string]*report.Report
}

type fakeJob struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	State    string `json:"state"`
	Progress struct {
		Done    int    `json:"done"`
		Total   int    `json:"total"`
		Current string `json:"current,omitempty"`
	} `json:"progress"`
	Results []fakeResult `json:"results"`
	Error   string       `json:"error,omitempty"`
}

type fakeResult struct {
	Name   string `json:"name"`
	ID     string `json:"id,omitempty"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func newFakeAPI(t *testing.T, key string) *fakeAPI {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &fakeAPI{t: t, st: st, key: key, dir: t.TempDir(), jobs: map[string]*fakeJob{}, reports: map[string]*report.Report{}}
}

// handler mounts the fake API and the web app as internal/server will.
func (f *fakeAPI) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/collections", f.collections)
	mux.HandleFunc("POST /api/v1/collections", f.createCollection)
	mux.HandleFunc("POST /api/v1/collections/{c}/documents", f.upload)
	mux.HandleFunc("GET /api/v1/collections/{c}/documents", f.documents)
	mux.HandleFunc("GET /api/v1/collections/{c}/documents/{id}", f.document)
	mux.HandleFunc("POST /api/v1/collections/{c}/search", f.search)
	mux.HandleFunc("POST /api/v1/collections/{c}/ask", f.ask)
	mux.HandleFunc("GET /api/v1/collections/{c}/reports/{id}", f.report)
	mux.HandleFunc("GET /api/v1/jobs/{id}", f.job)
	mux.HandleFunc("GET /api/v1/whoami", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"admin": true})
	})
	mux.Handle("/", Handler())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") && r.Header.Get("Authorization") != "Bearer "+f.key {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong API key"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) fail(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

func (f *fakeAPI) collections(w http.ResponseWriter, r *http.Request) {
	cs, err := f.st.Collections()
	if err != nil {
		f.fail(w, 500, err)
		return
	}
	writeJSON(w, 200, map[string]any{"collections": cs})
}

func (f *fakeAPI) createCollection(w http.ResponseWriter, r *http.Request) {
	var req struct{ Name string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.fail(w, 400, err)
		return
	}
	if err := f.st.CreateCollection(req.Name); err != nil {
		f.fail(w, 400, err)
		return
	}
	writeJSON(w, 201, map[string]string{"name": req.Name})
}

func (f *fakeAPI) upload(w http.ResponseWriter, r *http.Request) {
	c := r.PathValue("c")
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		f.fail(w, 400, err)
		return
	}
	f.mu.Lock()
	f.n++
	id := fmt.Sprintf("job%d", f.n)
	j := &fakeJob{ID: id, Kind: "ingest", State: "queued"}
	f.jobs[id] = j
	f.mu.Unlock()
	dir := filepath.Join(f.dir, id)
	os.MkdirAll(dir, 0o755)
	var paths []string
	for _, fh := range r.MultipartForm.File["files"] {
		src, err := fh.Open()
		if err != nil {
			f.fail(w, 400, err)
			return
		}
		p := filepath.Join(dir, filepath.Base(fh.Filename))
		dst, err := os.Create(p)
		if err == nil {
			_, err = io.Copy(dst, src)
			dst.Close()
		}
		src.Close()
		if err != nil {
			f.fail(w, 500, err)
			return
		}
		paths = append(paths, p)
	}
	go func() {
		f.mu.Lock()
		j.State = "running"
		f.mu.Unlock()
		_, err := ingest.Ingest(context.Background(), f.st, c, paths, ingest.Options{Progress: func(p ingest.Progress) {
			f.mu.Lock()
			defer f.mu.Unlock()
			j.Progress.Done, j.Progress.Total, j.Progress.Current = p.Done, p.Total, p.File
			if p.File != "" {
				j.Results = append(j.Results, fakeResult{Name: p.File, Status: string(p.Status), Reason: p.Reason})
			}
		}})
		f.mu.Lock()
		defer f.mu.Unlock()
		j.State = "done"
		if err != nil {
			j.State, j.Error = "failed", err.Error()
		}
	}()
	f.mu.Lock()
	defer f.mu.Unlock()
	writeJSON(w, http.StatusAccepted, map[string]any{"job": j})
}

func (f *fakeAPI) job(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[r.PathValue("id")]
	if !ok {
		f.fail(w, 404, fmt.Errorf("no job %q", r.PathValue("id")))
		return
	}
	writeJSON(w, 200, map[string]any{"job": j})
}

func (f *fakeAPI) documents(w http.ResponseWriter, r *http.Request) {
	infos, err := f.st.List(r.PathValue("c"))
	if err != nil {
		f.fail(w, 404, err)
		return
	}
	writeJSON(w, 200, map[string]any{"documents": infos})
}

func (f *fakeAPI) document(w http.ResponseWriter, r *http.Request) {
	rec, err := f.st.Get(r.PathValue("c"), r.PathValue("id"))
	if err != nil {
		f.fail(w, 404, err)
		return
	}
	info, err := f.st.Info(r.PathValue("c"), r.PathValue("id"))
	if err != nil {
		f.fail(w, 404, err)
		return
	}
	writeJSON(w, 200, map[string]any{"document": info, "text": rec.Doc.Text, "pages": rec.Doc.Pages, "tree": ingest.Tree(rec)})
}

func (f *fakeAPI) corpus(ctx context.Context, c string) (*tool.Corpus, error) {
	ix, err := ingest.LoadIndex(ctx, f.st, c)
	if err != nil {
		return nil, err
	}
	return &tool.Corpus{Store: f.st, Collection: c, Index: ix}, nil
}

func (f *fakeAPI) search(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query string   `json:"query"`
		K     int      `json:"k"`
		Docs  []string `json:"docs"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.fail(w, 400, err)
		return
	}
	c, err := f.corpus(r.Context(), r.PathValue("c"))
	if err != nil {
		f.fail(w, 500, err)
		return
	}
	res := c.Index.Search(search.Query{Text: req.Query, K: req.K, Docs: req.Docs})
	ps, err := ingest.Passages(f.st, r.PathValue("c"), res.Hits)
	if err != nil {
		f.fail(w, 500, err)
		return
	}
	writeJSON(w, 200, map[string]any{"hits": ps})
}

func (f *fakeAPI) ask(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Question string   `json:"question"`
		Docs     []string `json:"docs"`
		Evidence bool     `json:"evidence"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.fail(w, 400, err)
		return
	}
	c, err := f.corpus(r.Context(), r.PathValue("c"))
	if err != nil {
		f.fail(w, 500, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(event string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		w.(http.Flusher).Flush()
	}
	send("progress", map[string]string{"message": "no language model configured: building an evidence report"})
	rep, err := agent.Evidence(r.Context(), agent.NewLibrary(c), agent.Request{Question: req.Question, Docs: req.Docs}, 0)
	if err != nil {
		send("error", map[string]string{"error": err.Error()})
		return
	}
	f.mu.Lock()
	f.n++
	id := fmt.Sprintf("rep%d", f.n)
	f.reports[id] = rep
	f.mu.Unlock()
	for _, s := range rep.Sources {
		send("source", s)
	}
	send("report", map[string]any{"id": id, "report": rep})
}

func (f *fakeAPI) report(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rep, ok := f.reports[r.PathValue("id")]
	if !ok {
		f.fail(w, 404, fmt.Errorf("no report %q", r.PathValue("id")))
		return
	}
	writeJSON(w, 200, map[string]any{"id": r.PathValue("id"), "report": rep})
}
