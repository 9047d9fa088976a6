package server

import (
	"bytes"
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
	"slices"
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

// shared returns the store's shared records on a cluster, or nil.
func (s *Server) shared() store.SharedRecords { return s.st.Shared() }

// --- reports ---

// saveReport keeps a report: a file in the collection's directory, or a
// record. It never creates the collection's directory: a collection deleted
// meanwhile takes its reports with it.
func (s *Server) saveReport(ctx context.Context, sr savedReport) error {
	raw, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	if rs := s.shared(); rs != nil {
		return rs.PutRecord(ctx, reportKind(sr.Collection), sr.ID, raw)
	}
	dir := s.reportsDir(sr.Collection)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, sr.ID+".json"), raw, 0o600)
}

func (s *Server) readReport(ctx context.Context, c, id string) (savedReport, error) {
	var sr savedReport
	if !jobs.ValidID(id) {
		return sr, store.ErrNotFound
	}
	var raw []byte
	var err error
	if rs := s.shared(); rs != nil {
		raw, err = rs.Record(ctx, reportKind(c), id)
	} else {
		raw, err = os.ReadFile(filepath.Join(s.reportsDir(c), id+".json"))
	}
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
	var out []savedReport
	if rs := s.shared(); rs != nil {
		recs, err := rs.Records(ctx, reportKind(c))
		if err != nil {
			return nil, err
		}
		for _, raw := range recs {
			var sr savedReport
			if json.Unmarshal(raw, &sr) == nil && sr.Collection == c && sr.Report != nil {
				out = append(out, sr)
			}
		}
		return out, nil
	}
	ents, err := os.ReadDir(s.reportsDir(c))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if sr, err := s.readReport(ctx, c, id); err == nil && sr.Report != nil {
			out = append(out, sr)
		}
	}
	return out, nil
}

// --- reviews ---

// reviewRecord is a review's meta as a record, with its uploaded playbook.
type reviewRecord struct {
	Meta     reviewMeta `json:"meta"`
	Playbook string     `json:"playbook_yaml,omitempty"`
}

// putReviewMeta stores a review's meta (and, when given, its uploaded
// playbook: only when the review is created).
func (s *Server) putReviewMeta(ctx context.Context, m reviewMeta, playbook []byte) error {
	if rs := s.shared(); rs != nil {
		rec := reviewRecord{Meta: m, Playbook: string(playbook)}
		if playbook == nil && m.Source == "upload" {
			old, err := s.reviewPlaybook(ctx, m.Collection, m.ID)
			if err != nil {
				return err
			}
			rec.Playbook = string(old)
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return rs.PutRecord(ctx, reviewKind(m.Collection), m.ID, raw)
	}
	// Inside the collection's directory, which must exist: a review never
	// brings back a collection deleted meanwhile.
	dir := s.reviewDir(m.Collection, m.ID)
	for _, d := range []string{s.reviewsDir(m.Collection), dir} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	if playbook != nil {
		if err := atomicfile.Write(filepath.Join(dir, "playbook.yaml"), playbook, 0o600); err != nil {
			return err
		}
	}
	return writeMeta(dir, m)
}

func (s *Server) reviewRecord(ctx context.Context, c, id string) (reviewRecord, error) {
	var rec reviewRecord
	raw, err := s.shared().Record(ctx, reviewKind(c), id)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return rec, fmt.Errorf("review %s: damaged record: %w", id, err)
	}
	return rec, nil
}

// readReviewMeta returns a review's meta; a missing review is an error
// wrapping os.ErrNotExist.
func (s *Server) readReviewMeta(ctx context.Context, c, id string) (reviewMeta, error) {
	if s.shared() != nil {
		rec, err := s.reviewRecord(ctx, c, id)
		if err == nil && rec.Meta.Collection != c {
			err = os.ErrNotExist
		}
		return rec.Meta, err
	}
	return readMeta(s.reviewDir(c, id))
}

// reviewPlaybook returns an uploaded playbook's YAML.
func (s *Server) reviewPlaybook(ctx context.Context, c, id string) ([]byte, error) {
	if s.shared() != nil {
		rec, err := s.reviewRecord(ctx, c, id)
		return []byte(rec.Playbook), err
	}
	return os.ReadFile(filepath.Join(s.reviewDir(c, id), "playbook.yaml"))
}

// reviewMetas lists a collection's reviews.
func (s *Server) reviewMetas(ctx context.Context, c string) []reviewMeta {
	var out []reviewMeta
	if rs := s.shared(); rs != nil {
		recs, err := rs.Records(ctx, reviewKind(c))
		if err != nil {
			s.log.Warn("server: list reviews", "collection", c, "err", err)
			return nil
		}
		for _, raw := range recs {
			var rec reviewRecord
			if json.Unmarshal(raw, &rec) == nil && rec.Meta.Collection == c {
				out = append(out, rec.Meta)
			}
		}
		return out
	}
	ents, _ := os.ReadDir(s.reviewsDir(c))
	for _, e := range ents {
		if !e.IsDir() || !jobs.ValidID(e.Name()) {
			continue
		}
		if m, err := readMeta(filepath.Join(s.reviewsDir(c), e.Name())); err == nil {
			out = append(out, m)
		}
	}
	return out
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
	if rs := s.shared(); rs != nil {
		if err := rs.PutRecord(ctx, reviewTableKind(c), id, table); err != nil {
			return err
		}
		return rs.PutRecord(ctx, reviewSummaryKind(c), id, raw)
	}
	dir := s.reviewDir(c, id)
	if err := atomicfile.Write(filepath.Join(dir, "table.json"), table, 0o600); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "summary.json"), raw, 0o600)
}

// reviewSummaryOf returns a finished review's summary; an unfinished
// review's is an error wrapping os.ErrNotExist.
func (s *Server) reviewSummaryOf(ctx context.Context, c, id string) (*reviewSummary, error) {
	var raw []byte
	var err error
	if rs := s.shared(); rs != nil {
		raw, err = rs.Record(ctx, reviewSummaryKind(c), id)
	} else {
		raw, err = os.ReadFile(filepath.Join(s.reviewDir(c, id), "summary.json"))
	}
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
	raw, err := s.reviewTableBytes(ctx, c, id)
	if err != nil {
		return nil, err
	}
	tab, sum, err := decodeTable(raw)
	if err != nil {
		return nil, fmt.Errorf("review %s: %w", id, err)
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

// reviewTableBytes returns a finished review's table as stored.
func (s *Server) reviewTableBytes(ctx context.Context, c, id string) ([]byte, error) {
	if rs := s.shared(); rs != nil {
		return rs.Record(ctx, reviewTableKind(c), id)
	}
	return os.ReadFile(filepath.Join(s.reviewDir(c, id), "table.json"))
}

// openReviewTable returns a finished review's table as JSON (review.Table),
// to copy to a client: on a directory store the file itself, read as it is
// sent.
func (s *Server) openReviewTable(ctx context.Context, c, id string) (io.ReadCloser, error) {
	if _, err := s.reviewSummaryOf(ctx, c, id); err != nil { // a legacy table is rewritten bare
		return nil, err
	}
	if s.shared() != nil {
		raw, err := s.reviewTableBytes(ctx, c, id)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(raw)), nil
	}
	return os.Open(filepath.Join(s.reviewDir(c, id), "table.json"))
}

// reviewTable returns a finished review's table, decoded (for exports).
func (s *Server) reviewTable(ctx context.Context, c, id string) (*review.Table, error) {
	if _, err := s.reviewSummaryOf(ctx, c, id); err != nil {
		return nil, err
	}
	raw, err := s.reviewTableBytes(ctx, c, id)
	if err != nil {
		return nil, err
	}
	tab, _, err := decodeTable(raw)
	if err != nil {
		return nil, fmt.Errorf("review %s: %w", id, err)
	}
	return tab, nil
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
	if rs := s.shared(); rs != nil {
		recs, err := rs.Records(ctx, decisionKind(c, id))
		if err != nil {
			return nil, err
		}
		var ds review.Decisions
		for _, raw := range recs {
			var d review.Decision
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("review %s: damaged decision: %w", id, err)
			}
			ds = append(ds, d)
		}
		slices.SortFunc(ds, func(a, b review.Decision) int {
			if c := a.At.Compare(b.At); c != 0 {
				return c
			}
			return strings.Compare(a.DocID+"\x00"+a.Provision, b.DocID+"\x00"+b.Provision)
		})
		return ds, nil
	}
	return review.LoadDecisions(filepath.Join(s.reviewDir(c, id), "decisions.json"))
}

// changeDecisions applies a change to a review's decisions and returns
// them. On a cluster each cell's decision is its own record, so changes to
// different cells made through different servers never undo each other.
func (s *Server) changeDecisions(ctx context.Context, c, id string, change func(review.Decisions) review.Decisions) (review.Decisions, error) {
	reviewsMu.Lock()
	defer reviewsMu.Unlock()
	rs := s.shared()
	if rs == nil {
		return s.changeDecisionsFile(s.reviewDir(c, id), change)
	}
	if _, err := s.readReviewMeta(ctx, c, id); err != nil {
		return nil, fmt.Errorf("review removed: %w", err)
	}
	old, err := s.reviewDecisions(ctx, c, id)
	if err != nil {
		return nil, err
	}
	before := map[string]review.Decision{}
	for _, d := range old {
		before[decisionID(d.DocID, d.Provision)] = d
	}
	ds := change(slices.Clone(old))
	if ds == nil {
		ds = review.Decisions{}
	}
	after := map[string]bool{}
	for _, d := range ds {
		key := decisionID(d.DocID, d.Provision)
		after[key] = true
		if prev, ok := before[key]; ok && prev == d {
			continue
		}
		raw, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		if err := rs.PutRecord(ctx, decisionKind(c, id), key, raw); err != nil {
			return nil, err
		}
	}
	for key := range before {
		if !after[key] {
			if err := rs.DeleteRecord(ctx, decisionKind(c, id), key); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	return ds, nil
}

// reviewRows keeps a review's finished rows as records (review.RowKeeper).
type reviewRows struct {
	rs   store.SharedRecords
	kind string
}

func (r reviewRows) KeptRows(ctx context.Context) (map[string][]byte, error) {
	return r.rs.Records(ctx, r.kind)
}
func (r reviewRows) KeepRow(ctx context.Context, docID string, raw []byte) error {
	return r.rs.PutRecord(ctx, r.kind, docID, raw)
}

// removeReview deletes a review with its table, decisions and rows.
func (s *Server) removeReview(ctx context.Context, c, id string) error {
	if rs := s.shared(); rs != nil {
		for _, kind := range []string{decisionKind(c, id), reviewRowKind(c, id)} {
			recs, err := rs.Records(ctx, kind)
			if err != nil {
				return err
			}
			for key := range recs {
				if err := rs.DeleteRecord(ctx, kind, key); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
		for _, kind := range []string{reviewSummaryKind(c), reviewTableKind(c), reviewKind(c)} {
			if err := rs.DeleteRecord(ctx, kind, id); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return os.RemoveAll(s.reviewDir(c, id))
}

// forgetCollection deletes the records of a deleted collection (reports,
// reviews, their tables and decisions). A directory store needs nothing:
// they lived in the collection's directory.
func (s *Server) forgetCollection(ctx context.Context, c string) error {
	return ForgetCollection(ctx, s.st, c)
}

// ForgetCollection deletes what servers kept about a collection on a
// cluster — its saved reports and reviews — once the collection is
// deleted; "pakton docs rm-collection" calls it too. It does nothing on a
// directory store.
func ForgetCollection(ctx context.Context, st *store.Store, c string) error {
	rs := st.Shared()
	if rs == nil {
		return nil
	}
	var errs []error
	del := func(kind string) {
		recs, err := rs.Records(ctx, kind)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for id := range recs {
			if err := rs.DeleteRecord(ctx, kind, id); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if revs, err := rs.Records(ctx, reviewKind(c)); err == nil {
		for id := range revs {
			del(decisionKind(c, id))
			del(reviewRowKind(c, id))
			// A table is big: removed by id rather than listed.
			for _, kind := range []string{reviewSummaryKind(c), reviewTableKind(c)} {
				if err := rs.DeleteRecord(ctx, kind, id); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	} else {
		errs = append(errs, err)
	}
	del(reviewKind(c))
	del(reportKind(c))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("server: forget collection %q: %w", c, err)
	}
	return nil
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
func (s *Server) collectGarbage(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.streams.Done():
			return
		case <-t.C:
		}
		cols, err := s.st.Collections(ctx)
		if err != nil {
			s.log.Warn("server: gc: list collections", "err", err)
			continue
		}
		for _, c := range cols {
			gs, err := s.st.CollectGarbage(ctx, c.Name, store.DefaultGCMinAge)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				s.log.Warn("server: gc", "collection", c.Name, "err", err)
				continue
			}
			if gs.Removed > 0 {
				s.log.Info("server: gc: removed file parts of commits cut short", "collection", c.Name, "removed", gs.Removed)
			}
		}
	}
}

// jobFunc returns f as the server registers it. On a cluster a job's error
// is read by other servers, which cannot take this server's directories out
// of it when they show it (scrubPaths): so they are taken out here, before
// the error is stored.
func (s *Server) jobFunc(f jobs.Func) jobs.Func {
	if s.shared() == nil {
		return f
	}
	return func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		err := f(ctx, j, r)
		if err != nil && ctx.Err() == nil {
			return errors.New(s.scrubPaths(err.Error()))
		}
		return err
	}
}
