package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/modelpass"
	"github.com/pakton/pakton/internal/usecase"
)

// runReviewJob is the job that runs a review; a restart runs it again and
// the finished rows are reused.
func (s *Server) runReviewJob(ctx context.Context, j jobs.Job, rep jobs.Reporter) error {
	var p reviewParams
	if err := json.Unmarshal(j.Params, &p); err != nil || !jobs.ValidID(p.Review) {
		return fmt.Errorf("bad review job parameters")
	}
	meta, err := s.readReviewMeta(ctx, j.Collection, p.Review)
	if err != nil {
		return fmt.Errorf("review %s: %w", p.Review, err)
	}
	run, err := s.reviewRun(ctx, meta)
	if err != nil {
		return err
	}
	var progMu sync.Mutex // the model pass reports cells from its own goroutines
	var last jobs.Progress
	run.Progress = func(pr review.RunProgress) {
		progMu.Lock()
		defer progMu.Unlock()
		last = jobs.Progress{Done: pr.Done, Total: pr.Total, Current: pr.Current}
		rep.Progress(last)
	}
	if pass, ok := run.Refiner.(*modelpass.Pass); ok {
		// A contract takes a few model calls per provision: name the cell.
		pass.Progress = func(c modelpass.CellProgress) {
			progMu.Lock()
			defer progMu.Unlock()
			pr := last
			pr.Current = fmt.Sprintf("%s: %s (%d/%d)", c.Doc, c.Provision, c.Done, c.Total)
			rep.Progress(pr)
		}
	}
	tab, stats, err := run.Table(ctx)
	if err != nil {
		return err
	}
	for i := range tab.Rows {
		row := &tab.Rows[i]
		if row.Error != "" {
			// Server paths are no business of API clients.
			row.Error = strings.ReplaceAll(row.Error, s.st.Dir()+string(filepath.Separator), "")
			rep.Result(jobs.Result{Name: row.DocName, ID: row.DocID, Status: "failed", Reason: row.Error})
		}
	}
	raw, err := json.Marshal(tab)
	if err != nil {
		return err
	}
	return s.putReviewResult(ctx, j.Collection, p.Review, raw, reviewSummary{Stats: stats, Finished: time.Now().UTC(), Rows: rowsWithCells(tab)})
}

// reviewRun rebuilds the run a review's meta describes (its playbook,
// provisions and documents, its rows in the review's local directory).
func (s *Server) reviewRun(ctx context.Context, meta reviewMeta) (*review.Run, error) {
	var yamlText []byte
	if meta.Source == "upload" {
		var err error
		if yamlText, err = s.reviewPlaybook(ctx, meta.Collection, meta.ID); err != nil {
			return nil, fmt.Errorf("review %s: %w", meta.ID, err)
		}
	}
	return s.reviewRunWith(meta, yamlText)
}

// reviewRunWith is reviewRun with the uploaded playbook given.
func (s *Server) reviewRunWith(meta reviewMeta, yamlText []byte) (*review.Run, error) {
	name := review.BuiltinName
	if meta.Source != "upload" {
		name = builtinID(meta.Source)
	}
	pb, det, err := review.Choose(name, "uploaded playbook", yamlText, meta.Provisions)
	if err != nil {
		return nil, err
	}
	rv := usecase.Reviewing{Store: s.st, Collection: meta.Collection, Playbook: pb, Detectors: det, Docs: meta.Docs}
	if s.cfg.Models.Configured() && !meta.Offline {
		// One answer cache per collection: it is keyed by document content,
		// provision, model and prompt, so every review of the collection
		// shares it.
		if rv.Chat, err = s.cfg.Models.Chat(llm.RoleReviewer); err != nil {
			return nil, err
		}
		if rv.ModelCache, err = s.state.modelCache(meta.Collection); err != nil {
			return nil, err
		}
	}
	run, err := rv.Run()
	if err != nil {
		return nil, err
	}
	run.Logger, run.Yield, run.Acquire = s.log, jobs.Yield, s.acquireCPU
	run.IncludeCorrespondence = meta.IncludeCorrespondence
	if pass, ok := run.Refiner.(*modelpass.Pass); ok {
		pass.Logger = s.log
	}
	s.state.keepRows(run, meta.Collection, meta.ID)
	return run, nil
}
