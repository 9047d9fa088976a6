package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/store"
)

// What a server keeps besides documents — saved reports, reviews, jobs —
// lives where every server of the store can read it. On an embedded store
// that is the store's directory (one server per store: servelock.go). On a
// cluster, several servers share the store, so that state lives in the
// cluster as records (store.SharedRecords), one per report, review, review
// table, decision, finished row of a review and job, and the servers' local
// directories keep only what one process needs: uploads being ingested and
// the review model's answer cache. A review's rows are records so that
// every server shows a running review's rows (?partial=1) and a review
// resumed through another server — after its own server died — reuses them.
//
// The two are implementations of one interface, serverState (dirState in
// state_dir.go, clusterState in state_cluster.go), chosen once when the
// server is made (newState): the handlers never ask which one they have,
// the way database/sql never asks which driver it was given.
//
// Record kinds carry the collection ("report/<c>"), and every route reads
// only the kinds of the collection the key allows, so isolation holds as
// it does for documents; deleting a collection deletes its records
// (forgetCollection). Each record has one writer or commuting writers: a
// report and a review's meta and table are written once, by the server
// that made them; a decision is one record per cell; a row is written by
// the server running the review (two, if a server thought dead resumes:
// both write the same row for the same contract, playbook and engine).

// Record kinds.
func reportKind(c string) string         { return "report/" + c }
func reviewKind(c string) string         { return "review/" + c }
func reviewTableKind(c string) string    { return "review-table/" + c }
func reviewSummaryKind(c string) string  { return "review-summary/" + c }
func decisionKind(c, rid string) string  { return "review-decision/" + c + "/" + rid }
func decisionID(doc, prov string) string { return hashID(doc + "\x00" + prov) }
func reviewRowKind(c, rid string) string { return "review-row/" + c + "/" + rid }

func hashID(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

// serverState keeps a server's reports, reviews and jobs: in the store's
// directory (dirState) or in the cluster's shared records (clusterState).
// A missing report, review, summary or table is an error wrapping
// os.ErrNotExist. Every method takes the request's context, so a cancelled
// request stops its cluster calls.
type serverState interface {
	// putReport keeps a report's JSON; it never creates the collection.
	putReport(ctx context.Context, c, id string, raw []byte) error
	report(ctx context.Context, c, id string) ([]byte, error)
	// reports returns the JSON of a collection's reports (unreadable ones
	// skipped).
	reports(ctx context.Context, c string) ([][]byte, error)

	// putReviewMeta stores a review's meta (and, when given, its uploaded
	// playbook: only when the review is created); it never creates the
	// collection.
	putReviewMeta(ctx context.Context, m reviewMeta, playbook []byte) error
	reviewMeta(ctx context.Context, c, id string) (reviewMeta, error)
	reviewPlaybook(ctx context.Context, c, id string) ([]byte, error)
	reviewMetas(ctx context.Context, c string) ([]reviewMeta, error)
	// putReviewResult stores a finished review's table, then its summary.
	putReviewResult(ctx context.Context, c, id string, table, summary []byte) error
	reviewSummary(ctx context.Context, c, id string) ([]byte, error)
	reviewTable(ctx context.Context, c, id string) ([]byte, error)
	// openReviewTable returns the table to copy to a client (a directory
	// store's file is read as it is sent).
	openReviewTable(ctx context.Context, c, id string) (io.ReadCloser, error)
	decisions(ctx context.Context, c, id string) (review.Decisions, error)
	// changeDecisions applies a change to a review's decisions (reviewsMu
	// held) and returns them.
	changeDecisions(ctx context.Context, c, id string, change func(review.Decisions) review.Decisions) (review.Decisions, error)
	// keepRows says where a review run keeps its finished rows.
	keepRows(run *review.Run, c, id string)
	// modelCache returns the directory of a collection's review model
	// answers, ready to be written in.
	modelCache(c string) (string, error)
	removeReview(ctx context.Context, c, id string) error
	// forgetCollection deletes what was kept about a deleted collection.
	forgetCollection(ctx context.Context, c string) error

	// shareJobs makes the server's job managers keep their jobs where every
	// server sees them.
	shareJobs(ingest, reviews *jobs.Options, lease time.Duration) error
	// jobFunc returns f as the server registers it.
	jobFunc(f jobs.Func) jobs.Func
	// start begins the state's upkeep in the background, until done is
	// closed (a cluster's garbage collection every gcEvery; none when
	// negative).
	start(ctx context.Context, done <-chan struct{}, gcEvery time.Duration)
}

// newState returns the state of a server on st: in the shared records of a
// cluster that keeps them, else in the store's directory. scrub takes the
// server's directories out of a message (Server.scrubPaths).
func newState(st *store.Store, log logger, scrub func(string) string) serverState {
	if rs := st.Shared(); rs != nil {
		return &clusterState{st: st, rs: rs, log: log, scrub: scrub}
	}
	return dirState{root: st.Dir()}
}

// logger is what the state logs with (a *slog.Logger).
type logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
}

// --- reports ---

// saveReport keeps a report: a file in the collection's directory, or a
// record. It never creates the collection's directory: a collection deleted
// meanwhile takes its reports with it.
func (s *Server) saveReport(ctx context.Context, sr savedReport) error {
	raw, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	return s.state.putReport(ctx, sr.Collection, sr.ID, raw)
}

func (s *Server) readReport(ctx context.Context, c, id string) (savedReport, error) {
	var sr savedReport
	if !jobs.ValidID(id) {
		return sr, store.ErrNotFound
	}
	raw, err := s.state.report(ctx, c, id)
	if errors.Is(err, os.ErrNotExist) {
		return sr, store.ErrNotFound
	}
	if err != nil {
		return sr, err
	}
	if err := json.Unmarshal(raw, &sr); err != nil {
		return sr, fmt.Errorf("report %s: %w", id, err)
	}
	if sr.Collection != c {
		return savedReport{}, store.ErrNotFound
	}
	return sr, nil
}

// reports returns a collection's saved reports (unreadable ones skipped).
func (s *Server) reports(ctx context.Context, c string) ([]savedReport, error) {
	raws, err := s.state.reports(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []savedReport
	for _, raw := range raws {
		var sr savedReport
		if json.Unmarshal(raw, &sr) == nil && sr.Collection == c && sr.Report != nil {
			out = append(out, sr)
		}
	}
	return out, nil
}

// --- reviews ---

// putReviewMeta stores a review's meta (and, when given, its uploaded
// playbook: only when the review is created).
func (s *Server) putReviewMeta(ctx context.Context, m reviewMeta, playbook []byte) error {
	return s.state.putReviewMeta(ctx, m, playbook)
}

// readReviewMeta returns a review's meta; a missing review is an error
// wrapping os.ErrNotExist.
func (s *Server) readReviewMeta(ctx context.Context, c, id string) (reviewMeta, error) {
	return s.state.reviewMeta(ctx, c, id)
}

// reviewPlaybook returns an uploaded playbook's YAML.
func (s *Server) reviewPlaybook(ctx context.Context, c, id string) ([]byte, error) {
	return s.state.reviewPlaybook(ctx, c, id)
}

// reviewMetas lists a collection's reviews.
func (s *Server) reviewMetas(ctx context.Context, c string) []reviewMeta {
	ms, err := s.state.reviewMetas(ctx, c)
	if err != nil {
		s.log.Warn("server: list reviews", "collection", c, "err", err)
		return nil
	}
	return ms
}

// A finished review is kept as two things: its table (table.json, or a
// "review-table" record: the review.Table as JSON, tens of megabytes for a
// large deal room) and its summary (summary.json, or a "review-summary"
// record: the stats, when it finished and which rows have cells, a few
// kilobytes). Listings, progress streams and decisions read only the
// summary; the table is read to serve or export it, and served as stored,
// without decoding it. The table is written first: the summary marks the
// review finished. A review finished before summaries existed kept
// {"table", "stats", "finished"} in table.json; its summary is made from it
// once, on first read.

// putReviewResult stores a finished review's table, then its summary.
func (s *Server) putReviewResult(ctx context.Context, c, id string, table []byte, sum reviewSummary) error {
	raw, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	return s.state.putReviewResult(ctx, c, id, table, raw)
}

// reviewSummaryOf returns a finished review's summary; an unfinished
// review's is an error wrapping os.ErrNotExist.
func (s *Server) reviewSummaryOf(ctx context.Context, c, id string) (*reviewSummary, error) {
	raw, err := s.state.reviewSummary(ctx, c, id)
	if errors.Is(err, os.ErrNotExist) {
		return s.legacySummary(ctx, c, id)
	}
	if err != nil {
		return nil, err
	}
	var sum reviewSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		return nil, fmt.Errorf("review %s: damaged summary: %w", id, err)
	}
	return &sum, nil
}

// legacySummary makes and keeps the summary of a review finished before
// summaries existed, from its table, once; one at a time, so a burst of
// listings reads each old table once.
func (s *Server) legacySummary(ctx context.Context, c, id string) (*reviewSummary, error) {
	legacyMu.Lock()
	defer legacyMu.Unlock()
	tab, sum, err := s.storedTable(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if sum == nil { // a bare table whose summary was not written (a crash between the two)
		return nil, fmt.Errorf("review %s: table without a summary: %w", id, os.ErrNotExist)
	}
	sum.Rows = rowsWithCells(tab)
	table, err := json.Marshal(tab)
	if err != nil {
		return nil, err
	}
	if err := s.putReviewResult(ctx, c, id, table, *sum); err != nil {
		s.log.Warn("server: cannot keep a finished review's summary; made again on next read", "review", id, "err", err)
	}
	return sum, nil
}

var legacyMu sync.Mutex

// storedTable reads and decodes a finished review's table as stored, with
// its summary when one was written with it.
func (s *Server) storedTable(ctx context.Context, c, id string) (*review.Table, *reviewSummary, error) {
	raw, err := s.state.reviewTable(ctx, c, id)
	if err != nil {
		return nil, nil, err
	}
	tab, sum, err := decodeTable(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("review %s: %w", id, err)
	}
	return tab, sum, nil
}

// openReviewTable returns a finished review's table as JSON (review.Table),
// to copy to a client: on a directory store the file itself, read as it is
// sent.
func (s *Server) openReviewTable(ctx context.Context, c, id string) (io.ReadCloser, error) {
	if _, err := s.reviewSummaryOf(ctx, c, id); err != nil { // a legacy table is rewritten bare
		return nil, err
	}
	return s.state.openReviewTable(ctx, c, id)
}

// reviewTable returns a finished review's table, decoded (for exports).
func (s *Server) reviewTable(ctx context.Context, c, id string) (*review.Table, error) {
	if _, err := s.reviewSummaryOf(ctx, c, id); err != nil {
		return nil, err
	}
	tab, _, err := s.storedTable(ctx, c, id)
	return tab, err
}

// decodeTable reads a stored table: a review.Table, or the legacy
// {"table", "stats", "finished"} with its summary.
func decodeTable(raw []byte) (*review.Table, *reviewSummary, error) {
	var legacy struct {
		Table    *review.Table   `json:"table"`
		Stats    review.RunStats `json:"stats"`
		Finished time.Time       `json:"finished"`
	}
	if err := json.Unmarshal(raw, &legacy); err != nil {
		return nil, nil, fmt.Errorf("damaged table: %w", err)
	}
	if legacy.Table != nil {
		return legacy.Table, &reviewSummary{Stats: legacy.Stats, Finished: legacy.Finished}, nil
	}
	var tab review.Table
	if err := json.Unmarshal(raw, &tab); err != nil {
		return nil, nil, fmt.Errorf("damaged table: %w", err)
	}
	return &tab, nil, nil
}

// rowsWithCells returns the documents of a table's rows that have cells.
func rowsWithCells(t *review.Table) []string {
	out := []string{}
	for _, r := range t.Rows {
		if len(r.Cells) > 0 {
			out = append(out, r.DocID)
		}
	}
	return out
}

// reviewDecisions returns the decisions on a review.
func (s *Server) reviewDecisions(ctx context.Context, c, id string) (review.Decisions, error) {
	return s.state.decisions(ctx, c, id)
}

// changeDecisions applies a change to a review's decisions and returns
// them. On a cluster each cell's decision is its own record, so changes to
// different cells made through different servers never undo each other.
func (s *Server) changeDecisions(ctx context.Context, c, id string, change func(review.Decisions) review.Decisions) (review.Decisions, error) {
	reviewsMu.Lock()
	defer reviewsMu.Unlock()
	return s.state.changeDecisions(ctx, c, id, change)
}

// removeReview deletes a review with its table, decisions and rows.
func (s *Server) removeReview(ctx context.Context, c, id string) error {
	return s.state.removeReview(ctx, c, id)
}

// forgetCollection deletes the records of a deleted collection (reports,
// reviews, their tables and decisions). A directory store needs nothing:
// they lived in the collection's directory.
func (s *Server) forgetCollection(ctx context.Context, c string) error {
	return s.state.forgetCollection(ctx, c)
}

// ForgetCollection deletes what servers kept about a collection on a
// cluster — its saved reports and reviews — once the collection is
// deleted; "pakton docs rm-collection" calls it too. It does nothing on a
// directory store.
func ForgetCollection(ctx context.Context, st *store.Store, c string) error {
	return newState(st, nil, nil).forgetCollection(ctx, c)
}

// instanceName names this server process among those sharing a cluster:
// the host name and an id kept in the local directory, so the same server
// restarted resumes its own jobs.
func instanceName(localDir string) (string, error) {
	path := filepath.Join(localDir, "instance-id")
	b, err := os.ReadFile(path)
	id := strings.TrimSpace(string(b))
	if err != nil || !jobs.ValidID(id) {
		var r [8]byte
		rand.Read(r[:])
		id = hex.EncodeToString(r[:])
		if err := atomicfile.Write(path, []byte(id+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("server: %w", err)
		}
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "server"
	}
	return host + "-" + id, nil
}

// DefaultGCEvery is how often a server on a cluster collects the file parts
// of commits cut short (Config.GCEvery).
const DefaultGCEvery = time.Hour

// collectGarbage removes, every period until the server closes, the file
// parts that no document names and that are older than
// store.DefaultGCMinAge, in every collection. Several servers doing it at
// once is harmless: removals are idempotent.
func collectGarbage(ctx context.Context, done <-chan struct{}, st *store.Store, log logger, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		cols, err := st.Collections(ctx)
		if err != nil {
			log.Warn("server: gc: list collections", "err", err)
			continue
		}
		for _, c := range cols {
			gs, err := st.CollectGarbage(ctx, c.Name, store.DefaultGCMinAge)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				log.Warn("server: gc", "collection", c.Name, "err", err)
				continue
			}
			if gs.Removed > 0 {
				log.Info("server: gc: removed file parts of commits cut short", "collection", c.Name, "removed", gs.Removed)
			}
		}
	}
}
