package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/store"
)

// clusterState keeps a server's state in a cluster's shared records, one
// record per report, review, review table and summary, decision, finished
// row of a review and job (state.go says why); the local directory keeps
// only what this process needs.
type clusterState struct {
	st    *store.Store
	rs    store.SharedRecords
	log   logger
	scrub func(string) string
}

// reviewRecord is a review's meta as a record, with its uploaded playbook.
type reviewRecord struct {
	Meta     reviewMeta `json:"meta"`
	Playbook string     `json:"playbook_yaml,omitempty"`
}

func (cs *clusterState) putReport(ctx context.Context, c, id string, raw []byte) error {
	return cs.rs.PutRecord(ctx, reportKind(c), id, raw)
}

func (cs *clusterState) report(ctx context.Context, c, id string) ([]byte, error) {
	return cs.rs.Record(ctx, reportKind(c), id)
}

func (cs *clusterState) reports(ctx context.Context, c string) ([][]byte, error) {
	recs, err := cs.rs.Records(ctx, reportKind(c))
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(recs))
	for _, raw := range recs {
		out = append(out, raw)
	}
	return out, nil
}

func (cs *clusterState) putReviewMeta(ctx context.Context, m reviewMeta, playbook []byte) error {
	rec := reviewRecord{Meta: m, Playbook: string(playbook)}
	if playbook == nil && m.Source == "upload" {
		old, err := cs.reviewPlaybook(ctx, m.Collection, m.ID)
		if err != nil {
			return err
		}
		rec.Playbook = string(old)
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return cs.rs.PutRecord(ctx, reviewKind(m.Collection), m.ID, raw)
}

func (cs *clusterState) reviewRecord(ctx context.Context, c, id string) (reviewRecord, error) {
	var rec reviewRecord
	raw, err := cs.rs.Record(ctx, reviewKind(c), id)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return rec, fmt.Errorf("review %s: damaged record: %w", id, err)
	}
	return rec, nil
}

func (cs *clusterState) reviewMeta(ctx context.Context, c, id string) (reviewMeta, error) {
	rec, err := cs.reviewRecord(ctx, c, id)
	if err == nil && rec.Meta.Collection != c {
		err = os.ErrNotExist
	}
	return rec.Meta, err
}

func (cs *clusterState) reviewPlaybook(ctx context.Context, c, id string) ([]byte, error) {
	rec, err := cs.reviewRecord(ctx, c, id)
	return []byte(rec.Playbook), err
}

func (cs *clusterState) reviewMetas(ctx context.Context, c string) ([]reviewMeta, error) {
	recs, err := cs.rs.Records(ctx, reviewKind(c))
	if err != nil {
		return nil, err
	}
	var out []reviewMeta
	for _, raw := range recs {
		var rec reviewRecord
		if json.Unmarshal(raw, &rec) == nil && rec.Meta.Collection == c {
			out = append(out, rec.Meta)
		}
	}
	return out, nil
}

func (cs *clusterState) putReviewResult(ctx context.Context, c, id string, table, summary []byte) error {
	if err := cs.rs.PutRecord(ctx, reviewTableKind(c), id, table); err != nil {
		return err
	}
	return cs.rs.PutRecord(ctx, reviewSummaryKind(c), id, summary)
}

func (cs *clusterState) reviewSummary(ctx context.Context, c, id string) ([]byte, error) {
	return cs.rs.Record(ctx, reviewSummaryKind(c), id)
}

func (cs *clusterState) reviewTable(ctx context.Context, c, id string) ([]byte, error) {
	return cs.rs.Record(ctx, reviewTableKind(c), id)
}

func (cs *clusterState) openReviewTable(ctx context.Context, c, id string) (io.ReadCloser, error) {
	raw, err := cs.reviewTable(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(raw)), nil
}

func (cs *clusterState) decisions(ctx context.Context, c, id string) (review.Decisions, error) {
	recs, err := cs.rs.Records(ctx, decisionKind(c, id))
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

// changeDecisions writes each changed cell's decision as its own record, so
// changes to different cells made through different servers never undo
// each other.
func (cs *clusterState) changeDecisions(ctx context.Context, c, id string, change func(review.Decisions) review.Decisions) (review.Decisions, error) {
	if _, err := cs.reviewMeta(ctx, c, id); err != nil {
		return nil, fmt.Errorf("review removed: %w", err)
	}
	old, err := cs.decisions(ctx, c, id)
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
		if err := cs.rs.PutRecord(ctx, decisionKind(c, id), key, raw); err != nil {
			return nil, err
		}
	}
	for key := range before {
		if !after[key] {
			if err := cs.rs.DeleteRecord(ctx, decisionKind(c, id), key); err != nil && !errors.Is(err, os.ErrNotExist) {
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

func (cs *clusterState) keepRows(run *review.Run, c, id string) {
	run.Dir, run.Rows = "", reviewRows{cs.rs, reviewRowKind(c, id)}
}

// modelCache: the local directory of a cluster's collection holds derived
// files only and may not exist yet.
func (cs *clusterState) modelCache(c string) (string, error) {
	cache := filepath.Join(cs.st.Dir(), "collections", c, "review-model-cache")
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		return "", err
	}
	return cache, nil
}

func (cs *clusterState) removeReview(ctx context.Context, c, id string) error {
	rs := cs.rs
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
	return os.RemoveAll(reviewPath(cs.st.Dir(), c, id))
}

// forgetCollection deletes a deleted collection's reports and reviews with
// their tables, decisions and rows.
func (cs *clusterState) forgetCollection(ctx context.Context, c string) error {
	rs := cs.rs
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

// shareJobs: every server sees every job, one record each, written by the
// server running it (jobs/shared.go).
func (cs *clusterState) shareJobs(ingest, reviews *jobs.Options, lease time.Duration) error {
	owner, err := instanceName(cs.st.Dir())
	if err != nil {
		return err
	}
	ingest.Shared, ingest.RecordKind, ingest.Owner, ingest.Lease = cs.rs, "job", owner, lease
	reviews.Shared, reviews.RecordKind, reviews.Owner, reviews.Lease = cs.rs, "review-job", owner, lease
	return nil
}

// jobFunc: a job's error is read by other servers, which cannot take this
// server's directories out of it when they show it (scrubPaths): so they
// are taken out here, before the error is stored.
func (cs *clusterState) jobFunc(f jobs.Func) jobs.Func {
	return func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		err := f(ctx, j, r)
		if err != nil && ctx.Err() == nil {
			return errors.New(cs.scrub(err.Error()))
		}
		return err
	}
}

// start collects, every gcEvery (none when negative), the file parts of
// commits cut short.
func (cs *clusterState) start(ctx context.Context, done <-chan struct{}, gcEvery time.Duration) {
	if gcEvery >= 0 {
		go collectGarbage(ctx, done, cs.st, cs.log, cmp.Or(gcEvery, DefaultGCEvery))
	}
}
