package server

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/mcp"
	"github.com/pakton/pakton/internal/store"
)

// routes builds the handler: the API, health checks, the MCP endpoint and
// the web app, behind the access log and the browser guard.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	const api = "/api/v1"
	mux.Handle("POST "+api+"/collections", s.admin(s.createCollection))
	mux.Handle("GET "+api+"/collections", s.authed(s.listCollections))
	mux.Handle("DELETE "+api+"/collections/{c}", s.admin(s.deleteCollection))

	mux.Handle("POST "+api+"/collections/{c}/documents", s.costly(uploadCost, s.upload))
	mux.Handle("GET "+api+"/collections/{c}/documents", s.authed(s.listDocuments))
	mux.Handle("GET "+api+"/collections/{c}/documents/{id}", s.authed(s.getDocument))
	mux.Handle("DELETE "+api+"/collections/{c}/documents/{id}", s.authed(s.deleteDocument))
	mux.Handle("GET "+api+"/collections/{c}/trash", s.authed(s.listTrash))
	mux.Handle("POST "+api+"/collections/{c}/trash/{id}/restore", s.authed(s.restoreDocument))
	mux.Handle("GET "+api+"/collections/{c}/documents/{id}/layout", s.authed(s.getLayout))
	mux.Handle("GET "+api+"/collections/{c}/documents/{id}/graph", s.authed(s.getDocGraph))
	mux.Handle("GET "+api+"/collections/{c}/graph", s.authed(s.getCollectionGraph))
	mux.Handle("GET "+api+"/collections/{c}/families", s.authed(s.listFamilies))
	mux.Handle("GET "+api+"/collections/{c}/deadlines", s.costly(deadlinesCost, s.getDeadlines))
	mux.Handle("GET "+api+"/collections/{c}/compare", s.authed(s.compareDocs))
	mux.Handle("GET "+api+"/collections/{c}/documents/{id}/pages/{page}", s.authed(s.getPage))

	mux.Handle("POST "+api+"/collections/{c}/search", s.authed(s.search))
	mux.Handle("POST "+api+"/collections/{c}/shard", s.admin(s.shard))
	mux.Handle("POST "+api+"/collections/{c}/ask", s.costly(askCost, s.ask))
	mux.Handle("GET "+api+"/collections/{c}/asks/{id}", s.authed(s.getAsk))
	mux.Handle("POST "+api+"/collections/{c}/asks/{id}/answer", s.authed(s.answerAsk))
	mux.Handle("GET "+api+"/collections/{c}/reports", s.authed(s.listReports))
	mux.Handle("GET "+api+"/collections/{c}/reports/{id}", s.authed(s.getReport))

	mux.Handle("GET "+api+"/playbooks", s.authed(s.listPlaybooks))
	mux.Handle("POST "+api+"/collections/{c}/reviews", s.costly(reviewCost, s.startReview))
	mux.Handle("GET "+api+"/collections/{c}/reviews", s.authed(s.listReviews))
	mux.Handle("GET "+api+"/collections/{c}/reviews/{rid}", s.authed(s.getReview))
	mux.Handle("DELETE "+api+"/collections/{c}/reviews/{rid}", s.authed(s.deleteReview))
	mux.Handle("GET "+api+"/collections/{c}/reviews/{rid}/events", s.authed(s.reviewEvents))
	mux.Handle("POST "+api+"/collections/{c}/reviews/{rid}/resume", s.costly(reviewCost, s.resumeReview))
	mux.Handle("GET "+api+"/collections/{c}/reviews/{rid}/export/{format}", s.authed(s.exportReview))
	mux.Handle("POST "+api+"/collections/{c}/reviews/{rid}/decisions", s.authed(s.decide))
	mux.Handle("DELETE "+api+"/collections/{c}/reviews/{rid}/decisions", s.authed(s.undecide))

	mux.Handle("GET "+api+"/collections/{c}/jobs", s.authed(s.listJobs))
	mux.Handle("GET "+api+"/jobs/{id}", s.authed(s.getJob))
	mux.Handle("POST "+api+"/jobs/{id}/cancel", s.authed(s.cancelJob))
	mux.Handle("DELETE "+api+"/jobs/{id}", s.authed(s.deleteJob))

	mux.Handle("GET "+api+"/whoami", s.authed(s.whoami))
	mux.Handle(api+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such API route")
	}))

	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := s.ready(r.Context()); err != nil {
			s.log.Warn("readyz: store not ready", "err", err)
			if errors.Is(err, errDiskFull) {
				fail(w, http.StatusServiceUnavailable, "store not ready: %v", err) // names no path
				return
			}
			fail(w, http.StatusServiceUnavailable, "store not ready")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	s.mountExtras(mux)
	return s.accessLog(s.guard(mux))
}

// mountExtras mounts the MCP endpoint and the web app. The MCP endpoint is
// behind the API's authentication: each request is bound (mcp.WithCollection)
// to its key's collection, or for an admin key to the collection named by
// the X-Pakton-Collection header or ?collection= ("default" when neither).
// cmd/pakton/serve.go wires Config.MCP and Config.UI from packages mcp and
// web.
func (s *Server) mountExtras(mux *http.ServeMux) {
	if s.cfg.MCP != nil {
		h := s.authed(func(w http.ResponseWriter, r *http.Request, k auth.Key) {
			c := k.Collection
			if k.Admin {
				// An admin key names the collection it works on.
				c = cmpOr(r.Header.Get("X-Pakton-Collection"), r.URL.Query().Get("collection"), store.DefaultCollection)
			}
			s.cfg.MCP.ServeHTTP(w, r.WithContext(mcp.WithCollection(r.Context(), c)))
		})
		mux.Handle("/mcp", h)
		mux.Handle("/mcp/", h)
	}
	if s.cfg.UI != nil {
		mux.Handle("/", s.cfg.UI)
	} else {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte("pakton API server. See docs/API.md; the API is under /api/v1.\n"))
		})
	}
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request, k auth.Key) {
	writeJSON(w, http.StatusOK, map[string]any{"id": k.ID, "name": k.Name, "admin": k.Admin, "collection": k.Collection})
}

// --- collections ---

type collectionJSON struct {
	Name    string `json:"name"`
	Docs    int    `json:"docs"`
	Created string `json:"created,omitempty"`
	// Opening is the collection's opening at start while it runs
	// (opening.go): what the server is reading and how far it is.
	Opening *opening `json:"opening,omitempty"`
}

func toCollectionJSON(c store.CollectionInfo) collectionJSON {
	out := collectionJSON{Name: c.Name, Docs: c.Docs}
	if !c.Created.IsZero() {
		out.Created = c.Created.UTC().Format("2006-01-02T15:04:05Z")
	}
	return out
}

func (s *Server) createCollection(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	var req struct {
		Name string `json:"name"`
	}
	if !s.readJSON(w, r, &req) {
		return
	}
	if !auth.ValidCollection(req.Name) {
		fail(w, http.StatusBadRequest, "collection name %q: want 1-64 characters of [a-z0-9._-], not starting with '.'", req.Name)
		return
	}
	if _, err := s.st.Generation(r.Context(), req.Name); err == nil && req.Name != store.DefaultCollection {
		fail(w, http.StatusConflict, "collection %q already exists", req.Name)
		return
	}
	if err := s.st.CreateCollection(r.Context(), req.Name); err != nil {
		s.internal(w, "create collection", err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"collection": collectionJSON{Name: req.Name}})
}

func (s *Server) listCollections(w http.ResponseWriter, r *http.Request, k auth.Key) {
	all, err := s.st.Collections(r.Context())
	if err != nil {
		s.internal(w, "list collections", err)
		return
	}
	out := []collectionJSON{}
	for _, c := range all {
		if k.Allows(c.Name) {
			cj := toCollectionJSON(c)
			cj.Opening = s.opening.of(c.Name)
			out = append(out, cj)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"collections": out})
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	if !auth.ValidCollection(c) {
		collectionNotFound(w, c)
		return
	}
	// Jobs of the collection are stopped before anything is deleted, and
	// none starts meanwhile: a job still running after the deletion would
	// write its rows, extracts or documents into a collection re-created
	// under the same name.
	if !s.beginDeleting(c) {
		fail(w, http.StatusConflict, "collection %q is being deleted", c)
		return
	}
	defer s.endDeleting(c)
	if err := s.stopCollectionJobs(r.Context(), c); err != nil {
		fail(w, http.StatusConflict, "collection %q: its jobs are still stopping; try again", c)
		return
	}
	err := s.st.DeleteCollection(r.Context(), c)
	s.coll.Drop(c)
	if errors.Is(err, store.ErrNotFound) {
		collectionNotFound(w, c)
		return
	}
	if err != nil {
		s.internal(w, "delete collection", err)
		return
	}
	// The old collection's jobs go too: a new collection of the same name
	// shows none of them.
	for _, m := range []*jobs.Manager{s.jobs, s.reviewJobs} {
		for _, j := range m.List(c) {
			if err := m.Remove(j.ID); err != nil && !errors.Is(err, jobs.ErrNotFound) {
				s.log.Warn("server: delete collection: a job of it was not removed", "collection", c, "job", j.ID, "err", err)
			}
		}
	}
	if err := s.forgetCollection(r.Context(), c); err != nil {
		s.log.Warn("server: delete collection: its reports and reviews were not all removed", "collection", c, "err", err)
	}
	w.WriteHeader(http.StatusNoContent)
}

// collectionStopWait bounds how long deleting a collection waits for its
// jobs to stop.
const collectionStopWait = 30 * time.Second

// stopCollectionJobs cancels the unfinished jobs of a collection and waits
// for them to stop.
func (s *Server) stopCollectionJobs(ctx context.Context, c string) error {
	ctx, cancel := context.WithTimeout(ctx, collectionStopWait)
	defer cancel()
	for _, m := range []*jobs.Manager{s.jobs, s.reviewJobs} {
		m.CancelCollection(c)
		for _, j := range m.List(c) {
			if j.State.Final() {
				continue
			}
			if _, err := m.Wait(ctx, j.ID); err != nil && !errors.Is(err, jobs.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// beginDeleting marks a collection as being deleted, so that no upload or
// review starts in it meanwhile; false when it already is.
func (s *Server) beginDeleting(c string) bool {
	jobLimitMu.Lock() // a submission in progress ends first (submitJob)
	defer jobLimitMu.Unlock()
	s.deletingMu.Lock()
	defer s.deletingMu.Unlock()
	if s.deleting[c] {
		return false
	}
	if s.deleting == nil {
		s.deleting = map[string]bool{}
	}
	s.deleting[c] = true
	return true
}

func (s *Server) endDeleting(c string) {
	s.deletingMu.Lock()
	defer s.deletingMu.Unlock()
	delete(s.deleting, c)
}

// beingDeleted answers 409 for a collection being deleted.
func (s *Server) beingDeleted(w http.ResponseWriter, c string) bool {
	s.deletingMu.Lock()
	defer s.deletingMu.Unlock()
	if s.deleting[c] {
		fail(w, http.StatusConflict, "collection %q is being deleted", c)
		return true
	}
	return false
}

// internal logs an unexpected error (without request data) and answers 500.
func (s *Server) internal(w http.ResponseWriter, what string, err error) {
	if errors.Is(err, store.ErrClosed) {
		fail(w, http.StatusServiceUnavailable, "server shutting down")
		return
	}
	s.log.Error("server: "+what, "err", err)
	if errors.Is(err, syscall.ENOSPC) {
		fail(w, http.StatusInternalServerError, "internal error: %s failed: the server's disk is full", what)
		return
	}
	fail(w, http.StatusInternalServerError, "internal error: %s failed", what)
}

// --- jobs ---

// jobJSON is a job as the API shows it: without its internal parameters,
// and with the server's paths taken out of its failure reasons (a reason
// may quote an error from the file system or a parser).
func (s *Server) jobJSON(j jobs.Job) jobs.Job {
	j.Params, j.Submitter = nil, ""
	j.Error = s.scrubPaths(j.Error)
	if len(j.Results) > 0 {
		j.Results = slices.Clone(j.Results)
		for i := range j.Results {
			j.Results[i].Reason = s.scrubPaths(j.Results[i].Reason)
		}
	}
	return j
}

// scrubPaths removes the server's directories from a message shown to a
// client: an upload's directory goes (leaving the file's own name), the
// store's and the temporary directory become placeholders.
func (s *Server) scrubPaths(msg string) string {
	if msg == "" {
		return msg
	}
	sep := string(filepath.Separator)
	up := s.uploadsDir() + sep
	for {
		i := strings.Index(msg, up)
		if i < 0 {
			break
		}
		rest := msg[i+len(up):]
		// Drop "<uploads>/<job>/" and keep what follows.
		if j := strings.Index(rest, sep); j >= 0 {
			rest = rest[j+1:]
		}
		msg = msg[:i] + rest
	}
	msg = strings.ReplaceAll(msg, s.st.Dir(), "<store>")
	if tmp := os.TempDir(); len(tmp) > 1 {
		msg = strings.ReplaceAll(msg, tmp+sep, "<tmp>"+sep)
	}
	return msg
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	pq, ok := parsePage(w, r)
	if !ok {
		return
	}
	list := append(s.jobs.List(c), s.reviewJobs.List(c)...)
	key := func(j jobs.Job) string { return timeKey(j.Created, j.ID) }
	slices.SortFunc(list, func(a, b jobs.Job) int { return strings.Compare(key(b), key(a)) })
	list, next := pageOf(list, key, true, pq)
	if _, err := s.st.Generation(r.Context(), c); err != nil && len(list) == 0 {
		s.storeErr(w, r, "list jobs", err)
		return
	}
	out := make([]jobs.Job, len(list))
	for i, j := range list {
		out[i] = s.jobJSON(j)
	}
	writeJSON(w, http.StatusOK, pageResponse("jobs", out, next))
}

// visibleJob returns a job the key may see, with the manager that holds
// it; any other answers 404 exactly as a missing job does.
func (s *Server) visibleJob(w http.ResponseWriter, r *http.Request, k auth.Key) (jobs.Job, *jobs.Manager, bool) {
	id := r.PathValue("id")
	for _, m := range []*jobs.Manager{s.jobs, s.reviewJobs} {
		if j, err := m.Get(id); err == nil && k.Allows(j.Collection) {
			return j, m, true
		}
	}
	fail(w, http.StatusNotFound, "job %q not found", id)
	return jobs.Job{}, nil, false
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request, k auth.Key) {
	if j, _, ok := s.visibleJob(w, r, k); ok {
		writeJSON(w, http.StatusOK, map[string]any{"job": s.jobJSON(j)})
	}
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request, k auth.Key) {
	j, m, ok := s.visibleJob(w, r, k)
	if !ok {
		return
	}
	j, err := m.Cancel(j.ID)
	if err != nil {
		s.internal(w, "cancel job", err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"job": s.jobJSON(j)})
}

// deleteJob removes a finished job (and any uploaded files of it left);
// a queued or running job must be cancelled first (409).
func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request, k auth.Key) {
	j, m, ok := s.visibleJob(w, r, k)
	if !ok {
		return
	}
	err := m.Remove(j.ID)
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, jobs.ErrUnfinished):
		fail(w, http.StatusConflict, "job %q is %s; cancel it and wait for it to stop first", j.ID, j.State)
	case errors.Is(err, jobs.ErrNotFound):
		fail(w, http.StatusNotFound, "job %q not found", j.ID)
	default:
		s.internal(w, "delete job", err)
	}
}

// docRefs normalises a request's document list: trimmed, deduplicated.
func docRefs(in []string) []string {
	var out []string
	seen := map[string]bool{} // not slices.Contains: a 1 MB list would take minutes
	for _, d := range in {
		if d = strings.TrimSpace(d); d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
