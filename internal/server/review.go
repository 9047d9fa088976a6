package server

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/export"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/usecase"
)

// On a directory store, reviews live inside their collection, so deleting
// the collection deletes them and a key for another collection never
// reaches them (on a cluster, see state.go: all of it in records):
//
//	collections/<c>/reviews/<id>/review.json     what was asked (reviewMeta)
//	collections/<c>/reviews/<id>/playbook.yaml   an uploaded playbook
//	collections/<c>/reviews/<id>/rows/           finished rows (review.Run)
//	collections/<c>/reviews/<id>/table.json      the finished table
//	collections/<c>/reviews/<id>/decisions.json  reviewers' decisions
//
// A review runs as a job of kind "review". The job is resumable: a restart
// runs it again and the rows already finished are reused.

// kindReview is the job kind that runs a review.
const kindReview = "review"

// reviewRequest is the body of POST …/reviews.
type reviewRequest struct {
	// Playbook names a built-in playbook ("builtin", the default, or
	// "merger") when PlaybookYAML is empty.
	Playbook     string   `json:"playbook"`
	PlaybookYAML string   `json:"playbook_yaml"`
	Provisions   []string `json:"provisions"`
	Docs         []string `json:"docs"`
	Title        string   `json:"title"`
	// Offline skips the model pass even when the server has a model.
	Offline bool `json:"offline"`
	// IncludeCorrespondence reviews cover e-mails, letters and indexes
	// too (left out as correspondence by default).
	IncludeCorrespondence bool `json:"include_correspondence"`
}

// reviewMeta is what a review was asked to do.
type reviewMeta struct {
	ID         string    `json:"id"`
	Collection string    `json:"collection"`
	Job        string    `json:"job"`
	Created    time.Time `json:"created"`
	Title      string    `json:"title,omitempty"`
	Playbook   string    `json:"playbook"`        // the playbook's name
	Source     string    `json:"playbook_source"` // a built-in playbook's name ("builtin", "merger") or "upload"
	Provisions []string  `json:"provisions"`      // the provisions reviewed, in playbook order
	Docs       []string  `json:"docs,omitempty"`  // document ids (all when empty)
	// Model names the model pass ("model=…;prompt=…"); empty for an
	// offline review.
	Model string `json:"model,omitempty"`
	// Offline was asked for: no model pass even with a model configured.
	Offline bool `json:"offline,omitempty"`
	// IncludeCorrespondence was asked for: cover e-mails, letters and
	// indexes reviewed too.
	IncludeCorrespondence bool `json:"include_correspondence,omitempty"`
}

// reviewSummary is what is known of a finished review without reading its
// table (state.go): summary.json.
type reviewSummary struct {
	Stats    review.RunStats `json:"stats"`
	Finished time.Time       `json:"finished"`
	// Rows are the documents whose rows have cells: decisions are taken on
	// them (a row that could not be reviewed has none).
	Rows []string `json:"rows"`
}

// reviewJSON is a review as the API shows it.
type reviewJSON struct {
	reviewMeta
	State    jobs.State       `json:"state"`
	Progress jobs.Progress    `json:"progress"`
	Error    string           `json:"error,omitempty"`
	Stats    *review.RunStats `json:"stats,omitempty"`
	Finished time.Time        `json:"finished,omitzero"`
}

type reviewParams struct {
	Review string `json:"review"`
}

// reviewsMu serialises changes to reviews' decisions files and jobs.
var reviewsMu sync.Mutex

// reviewDir is a review's directory on a directory store (state_dir.go).
func (s *Server) reviewDir(c, id string) string { return reviewPath(s.st.Dir(), c, id) }

// listPlaybooks lists the built-in playbooks with their provisions, the
// default first.
func (s *Server) listPlaybooks(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	type prov struct {
		Name       string                `json:"name"`
		Group      string                `json:"group,omitempty"`
		Definition string                `json:"definition"`
		Answer     playbook.AnswerFormat `json:"answer"`
	}
	var out []map[string]any
	for _, id := range review.BuiltinNames {
		pb, err := review.BuiltinPlaybook(id)
		if err != nil {
			s.internal(w, "list playbooks", err)
			return
		}
		var provs []prov
		for _, p := range pb.Provisions {
			provs = append(provs, prov{p.Name, p.Group, p.Definition, p.Answer})
		}
		out = append(out, map[string]any{"id": id, "name": pb.Name, "version": pb.Version, "description": pb.Description, "provisions": provs})
	}
	writeJSON(w, http.StatusOK, map[string]any{"playbooks": out})
}

// builtinID is the id of the built-in playbook a request names (the
// default when it names none).
func builtinID(name string) string {
	for _, id := range review.BuiltinNames {
		if strings.EqualFold(id, name) {
			return id
		}
	}
	return review.BuiltinName
}

// startReview validates a playbook and starts a review job (202).
func (s *Server) startReview(w http.ResponseWriter, r *http.Request, k auth.Key) {
	c := r.PathValue("c")
	if s.beingDeleted(w, c) || s.jobLimitReached(w, k) {
		return
	}
	var req reviewRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	if _, err := s.st.Generation(r.Context(), c); err != nil {
		s.storeErr(w, r, "start review", err)
		return
	}
	pb, _, err := review.Choose(req.Playbook, "uploaded playbook", []byte(req.PlaybookYAML), req.Provisions)
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	infos, err := s.st.List(r.Context(), c)
	if err != nil {
		s.storeErr(w, r, "start review", err)
		return
	}
	if len(infos) == 0 {
		s.caseErr(w, r, "start review", usecase.EmptyCollection(c))
		return
	}
	docs := docRefs(req.Docs)
	ids := make(map[string]bool, len(infos))
	for _, in := range infos {
		ids[in.ID] = true
	}
	for _, id := range docs {
		if !ids[id] {
			fail(w, http.StatusBadRequest, "document %q is not in collection %q", id, c)
			return
		}
	}
	contracts := len(infos)
	if len(docs) > 0 {
		contracts = len(docs)
	}
	if cells := contracts * len(pb.Provisions); cells > s.cfg.MaxReviewCells {
		fail(w, http.StatusBadRequest, "this review would be %d contracts × %d provisions = %d cells, more than the %d a review may have: narrow it with \"provisions\" or \"docs\"",
			contracts, len(pb.Provisions), cells, s.cfg.MaxReviewCells)
		return
	}
	meta := reviewMeta{ID: jobs.NewID(), Collection: c, Created: time.Now().UTC(), Title: strings.TrimSpace(req.Title),
		Playbook: pb.Name, Source: builtinID(req.Playbook), Provisions: pb.Names(), Docs: docs, Offline: req.Offline, IncludeCorrespondence: req.IncludeCorrespondence}
	var playbook []byte
	if strings.TrimSpace(req.PlaybookYAML) != "" {
		meta.Source = "upload"
		playbook = []byte(req.PlaybookYAML)
	}
	if run, err := s.reviewRunWith(meta, playbook); err != nil {
		s.internal(w, "start review", err)
		return
	} else if run.Refiner != nil {
		meta.Model = run.Refiner.Version()
	}
	if err := s.putReviewMeta(r.Context(), meta, playbook); err != nil {
		s.removeReview(r.Context(), c, meta.ID)
		s.internal(w, "start review", err)
		return
	}
	s.queueReview(w, r, "start review", k, meta, func() { s.removeReview(r.Context(), c, meta.ID) })
}

// queueReview submits the job that runs meta's review, records the job in
// the review's meta and answers 202 with both. When the job cannot be
// submitted, undo (if any) runs before the error is answered.
func (s *Server) queueReview(w http.ResponseWriter, r *http.Request, op string, k auth.Key, meta reviewMeta, undo func()) {
	j, err := s.submitJob(s.reviewJobs, kindReview, meta.Collection, k, reviewParams{Review: meta.ID})
	if err != nil {
		if undo != nil {
			undo()
		}
		s.submitFailed(w, op, k, err)
		return
	}
	meta.Job = j.ID
	if err := s.putReviewMeta(r.Context(), meta, nil); err != nil {
		s.internal(w, op, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"review": s.reviewView(r.Context(), meta), "job": s.jobJSON(j)})
}

func writeMeta(dir string, m reviewMeta) error {
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "review.json"), raw, 0o600)
}

func readMeta(dir string) (reviewMeta, error) {
	var m reviewMeta
	raw, err := os.ReadFile(filepath.Join(dir, "review.json"))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(raw, &m)
}

// reviewView is a review's meta with its job's state.
func (s *Server) reviewView(ctx context.Context, m reviewMeta) reviewJSON {
	v := reviewJSON{reviewMeta: m, State: jobs.Queued}
	if res, err := s.reviewSummaryOf(ctx, m.Collection, m.ID); err == nil {
		v.State, v.Stats, v.Finished = jobs.Done, &res.Stats, res.Finished
		v.Progress = jobs.Progress{Done: res.Stats.Contracts, Total: res.Stats.Contracts}
		return v
	}
	j, err := s.reviewJobs.Get(m.Job)
	if err != nil {
		if m.Job != "" {
			v.State, v.Error = jobs.Failed, "the review's job is gone (server data removed); start the review again"
		}
		return v
	}
	v.State, v.Progress, v.Error = j.State, j.Progress, j.Error
	if j.State == jobs.Done {
		// The job finished but wrote no table: only if the disk failed.
		v.State, v.Error = jobs.Failed, "the review finished without a table"
	}
	return v
}

// lookupReview finds a review of the request's collection; it answers 404
// itself (for a missing collection exactly as the authentication does).
func (s *Server) lookupReview(w http.ResponseWriter, r *http.Request) (reviewMeta, bool) {
	c, id := r.PathValue("c"), r.PathValue("rid")
	if _, err := s.st.Generation(r.Context(), c); err != nil {
		collectionNotFound(w, c)
		return reviewMeta{}, false
	}
	if !jobs.ValidID(id) {
		fail(w, http.StatusNotFound, "review %q not found", id)
		return reviewMeta{}, false
	}
	m, err := s.readReviewMeta(r.Context(), c, id)
	if err != nil {
		fail(w, http.StatusNotFound, "review %q not found", id)
		return reviewMeta{}, false
	}
	return m, true
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	pq, ok := parsePage(w, r)
	if !ok {
		return
	}
	if _, err := s.st.Generation(r.Context(), c); err != nil {
		collectionNotFound(w, c)
		return
	}
	out := []reviewJSON{}
	for _, m := range s.reviewMetas(r.Context(), c) {
		out = append(out, s.reviewView(r.Context(), m))
	}
	key := func(r reviewJSON) string { return timeKey(r.Created, r.ID) }
	slices.SortFunc(out, func(a, b reviewJSON) int { return strings.Compare(key(b), key(a)) })
	page, next := pageOf(out, key, true, pq)
	writeJSON(w, http.StatusOK, pageResponse("reviews", page, next))
}

// getReview returns a review's state and, once finished, its table and the
// decisions on it. Before then, ?partial=1 adds the rows finished so far
// ("partial": a table of those rows).
func (s *Server) getReview(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	view := s.reviewView(r.Context(), m)
	if view.State == jobs.Done {
		s.serveReviewTable(r.Context(), w, m, view)
		return
	}
	out := map[string]any{"review": view}
	if r.URL.Query().Get("partial") == "1" {
		run, err := s.reviewRun(r.Context(), m)
		if err != nil {
			s.internal(w, "read review", err)
			return
		}
		rows, err := run.Kept(r.Context())
		if err != nil {
			s.storeErr(w, r, "read review", err)
			return
		}
		if rows == nil {
			rows = []review.Row{}
		}
		out["partial"] = review.Table{Playbook: m.Playbook, Provisions: m.Provisions, Rows: rows}
		out["families"] = s.reviewFamilies(r.Context(), m.Collection)
	}
	writeJSON(w, http.StatusOK, out)
}

// reviewFamilies are the collection's families (the same contract in
// several files), so a review's faces can show one row per family with its
// other copies one click away. The table itself keeps a row per document.
func (s *Server) reviewFamilies(ctx context.Context, collection string) []usecase.Family {
	fams, err := s.families(ctx, collection, nil)
	if err != nil || fams.Families == nil {
		return []usecase.Family{}
	}
	return fams.Families
}

// serveReviewTable answers GET …/reviews/{rid} for a finished review:
// {"review", "table", "decisions"}, the table copied as stored rather than
// decoded and encoded again (a large one is tens of megabytes).
func (s *Server) serveReviewTable(ctx context.Context, w http.ResponseWriter, m reviewMeta, view reviewJSON) {
	ds, err := s.reviewDecisions(ctx, m.Collection, m.ID)
	if err != nil {
		s.internal(w, "read decisions", err)
		return
	}
	if ds == nil {
		ds = review.Decisions{}
	}
	tab, err := s.openReviewTable(ctx, m.Collection, m.ID)
	if err != nil {
		s.internal(w, "read review", err)
		return
	}
	defer tab.Close()
	head, err := json.Marshal(view)
	if err != nil {
		s.internal(w, "read review", err)
		return
	}
	tail, err := json.Marshal(ds)
	if err != nil {
		s.internal(w, "read review", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, `{"review":`)
	w.Write(head)
	io.WriteString(w, `,"table":`)
	if _, err := io.Copy(w, tab); err != nil {
		s.log.Warn("server: send review table", "review", m.ID, "err", err)
		return
	}
	io.WriteString(w, `,"decisions":`)
	w.Write(tail)
	if fams, err := json.Marshal(s.reviewFamilies(ctx, m.Collection)); err == nil {
		io.WriteString(w, `,"families":`)
		w.Write(fams)
	}
	io.WriteString(w, "}\n")
}

// resumeReview runs a review that stopped before finishing (cancelled,
// failed, or its job lost) again; the contracts it finished are not
// reviewed again.
func (s *Server) resumeReview(w http.ResponseWriter, r *http.Request, k auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	reviewsMu.Lock()
	defer reviewsMu.Unlock()
	m, err := s.readReviewMeta(r.Context(), m.Collection, m.ID) // again, under the lock
	if err != nil {
		fail(w, http.StatusNotFound, "review %q not found", r.PathValue("rid"))
		return
	}
	switch v := s.reviewView(r.Context(), m); {
	case v.State == jobs.Done:
		fail(w, http.StatusConflict, "review %q has finished; start a new review to review changed contracts", m.ID)
		return
	case !v.State.Final():
		fail(w, http.StatusConflict, "review %q is %s", m.ID, v.State)
		return
	}
	s.queueReview(w, r, "resume review", k, m, nil)
}

// deleteReview cancels a running review and removes it with its decisions.
func (s *Server) deleteReview(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	if j, err := s.reviewJobs.Get(m.Job); err == nil && !j.State.Final() {
		s.reviewJobs.Cancel(j.ID)
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		_, err := s.reviewJobs.Wait(ctx, j.ID)
		cancel()
		if err != nil {
			fail(w, http.StatusConflict, "review %q is still stopping; try again", m.ID)
			return
		}
	}
	if err := s.removeReview(r.Context(), m.Collection, m.ID); err != nil {
		s.internal(w, "delete review", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// reviewEvents streams a review's progress as server-sent events:
// "progress" ({done, total, current}) whenever it changes, then "done" with
// the review, or "error" with the reason it failed or was cancelled.
func (s *Server) reviewEvents(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	ev, ok := openStream(w, "pakton review "+m.ID)
	if !ok {
		return
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last jobs.Progress
	lastSent := time.Now()
	first := true
	for {
		v := s.reviewView(r.Context(), m)
		if first || v.Progress != last {
			if ev.send("progress", v.Progress) != nil {
				return
			}
			last, first, lastSent = v.Progress, false, time.Now()
		}
		switch {
		case v.State == jobs.Done:
			ev.send("done", map[string]any{"review": v})
			return
		case v.State.Final():
			ev.send("error", map[string]any{"state": v.State, "error": cmpOr(v.Error, string(v.State))})
			return
		}
		if time.Since(lastSent) > 15*time.Second {
			if ev.comment("working") != nil {
				return
			}
			lastSent = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.streams.Done():
			return
		case <-tick.C:
		}
	}
}

// exportReview downloads a finished review as csv, xlsx, json or html, with
// the decisions on it.
func (s *Server) exportReview(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	format := r.PathValue("format")
	if !slices.Contains(export.Formats, format) {
		fail(w, http.StatusBadRequest, "unknown export format %q (want %s)", format, strings.Join(export.Formats, ", "))
		return
	}
	if v := s.reviewView(r.Context(), m); v.State != jobs.Done {
		fail(w, http.StatusConflict, "review %q has not finished (state %s)", m.ID, v.State)
		return
	}
	// An export decodes the whole table: a few at a time, so that parallel
	// exports of large reviews cannot exhaust the server's memory.
	if !s.acquireTable(w, r) {
		return
	}
	defer s.releaseTable()
	tab, err := s.reviewTable(r.Context(), m.Collection, m.ID)
	if err != nil {
		s.internal(w, "read review", err)
		return
	}
	ds, err := s.reviewDecisions(r.Context(), m.Collection, m.ID)
	if err != nil {
		s.internal(w, "read decisions", err)
		return
	}
	rv := &export.Review{Table: tab, Decisions: ds, Title: m.Title, Collection: m.Collection, Created: m.Created,
		Text: func(id string) (string, error) {
			rec, err := s.st.Document(r.Context(), m.Collection, id)
			if err != nil {
				return "", err
			}
			return rec.Doc.Text, nil
		}}
	w.Header().Set("Content-Type", export.ContentType(format))
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": rv.FileName(format)}))
	w.Header().Set("Cache-Control", "no-store")
	if err := export.Write(w, format, rv); err != nil {
		s.log.Warn("server: export review", "review", m.ID, "format", format, "err", err)
	}
}

// maxTableReads bounds the review tables decoded at once (exports); more
// wait for a slot up to tableWait, then get a 503.
const (
	maxTableReads = 2
	tableWait     = 30 * time.Second
)

// acquireTable takes a table-read slot, or answers 503 (Retry-After) when
// none frees up in time.
func (s *Server) acquireTable(w http.ResponseWriter, r *http.Request) bool {
	t := time.NewTimer(tableWait)
	defer t.Stop()
	select {
	case s.tables <- struct{}{}:
		return true
	case <-r.Context().Done():
		return false
	case <-t.C:
		w.Header().Set("Retry-After", "30")
		fail(w, http.StatusServiceUnavailable, "the server is busy exporting other reviews; try again in a minute")
		return false
	}
}

func (s *Server) releaseTable() { <-s.tables }
