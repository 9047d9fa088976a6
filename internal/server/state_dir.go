package server

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
)

// dirState keeps a server's state in the store's directory (one server per
// store: servelock.go), inside each collection's directory, so deleting a
// collection deletes its reports and reviews:
//
//	collections/<c>/reports/<id>.json
//	collections/<c>/reviews/<id>/review.json, playbook.yaml, table.json,
//	    summary.json, decisions.json, rows/
//
// Jobs are files under jobs/ and review-jobs/ (jobs.Open).
type dirState struct{ root string }

func reportsPath(root, c string) string    { return filepath.Join(root, "collections", c, "reports") }
func reviewsPath(root, c string) string    { return filepath.Join(root, "collections", c, "reviews") }
func reviewPath(root, c, id string) string { return filepath.Join(reviewsPath(root, c), id) }

func (d dirState) putReport(_ context.Context, c, id string, raw []byte) error {
	dir := reportsPath(d.root, c)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, id+".json"), raw, 0o600)
}

func (d dirState) report(_ context.Context, c, id string) ([]byte, error) {
	return os.ReadFile(filepath.Join(reportsPath(d.root, c), id+".json"))
}

func (d dirState) reports(ctx context.Context, c string) ([][]byte, error) {
	ents, err := os.ReadDir(reportsPath(d.root, c))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out [][]byte
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !jobs.ValidID(id) {
			continue
		}
		if raw, err := d.report(ctx, c, id); err == nil {
			out = append(out, raw)
		}
	}
	return out, nil
}

func (d dirState) putReviewMeta(_ context.Context, m reviewMeta, playbook []byte) error {
	// Inside the collection's directory, which must exist: a review never
	// brings back a collection deleted meanwhile.
	dir := reviewPath(d.root, m.Collection, m.ID)
	for _, d := range []string{reviewsPath(d.root, m.Collection), dir} {
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

func (d dirState) reviewMeta(_ context.Context, c, id string) (reviewMeta, error) {
	return readMeta(reviewPath(d.root, c, id))
}

func (d dirState) reviewPlaybook(_ context.Context, c, id string) ([]byte, error) {
	return os.ReadFile(filepath.Join(reviewPath(d.root, c, id), "playbook.yaml"))
}

func (d dirState) reviewMetas(_ context.Context, c string) ([]reviewMeta, error) {
	var out []reviewMeta
	ents, _ := os.ReadDir(reviewsPath(d.root, c))
	for _, e := range ents {
		if !e.IsDir() || !jobs.ValidID(e.Name()) {
			continue
		}
		if m, err := readMeta(filepath.Join(reviewsPath(d.root, c), e.Name())); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

func (d dirState) putReviewResult(_ context.Context, c, id string, table, summary []byte) error {
	dir := reviewPath(d.root, c, id)
	if err := atomicfile.Write(filepath.Join(dir, "table.json"), table, 0o600); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "summary.json"), summary, 0o600)
}

func (d dirState) reviewSummary(_ context.Context, c, id string) ([]byte, error) {
	return os.ReadFile(filepath.Join(reviewPath(d.root, c, id), "summary.json"))
}

func (d dirState) reviewTable(_ context.Context, c, id string) ([]byte, error) {
	return os.ReadFile(filepath.Join(reviewPath(d.root, c, id), "table.json"))
}

func (d dirState) openReviewTable(_ context.Context, c, id string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(reviewPath(d.root, c, id), "table.json"))
}

func (d dirState) decisions(_ context.Context, c, id string) (review.Decisions, error) {
	return review.LoadDecisions(filepath.Join(reviewPath(d.root, c, id), "decisions.json"))
}

func (d dirState) changeDecisions(_ context.Context, c, id string, change func(review.Decisions) review.Decisions) (review.Decisions, error) {
	return changeDecisionsFile(reviewPath(d.root, c, id), change)
}

// keepRows: the run keeps its rows in the review's directory (rows/).
func (d dirState) keepRows(run *review.Run, c, id string) { run.Dir = reviewPath(d.root, c, id) }

// modelCache: the collection's directory exists (the cache is not made in a
// collection deleted meanwhile).
func (d dirState) modelCache(c string) (string, error) {
	return filepath.Join(d.root, "collections", c, "review-model-cache"), nil
}

func (d dirState) removeReview(_ context.Context, c, id string) error {
	return os.RemoveAll(reviewPath(d.root, c, id))
}

// forgetCollection: nothing to do, the reports and reviews lived in the
// collection's directory.
func (d dirState) forgetCollection(context.Context, string) error { return nil }

// shareJobs: one server per store; its jobs stay files of its directory.
func (d dirState) shareJobs(_, _ *jobs.Options, _ time.Duration) error { return nil }

// jobFunc: a job's error is shown by this server only, which takes its
// directories out when it shows it.
func (d dirState) jobFunc(f jobs.Func) jobs.Func { return f }

// start: a directory store removes what its manifest does not name when
// it opens; no upkeep.
func (d dirState) start(context.Context, <-chan struct{}, time.Duration) {}
