package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/review"
)

// decide records a reviewer's decision on one cell (accepted, rejected, or
// corrected with text and/or value) and returns all the review's decisions.
func (s *Server) decide(w http.ResponseWriter, r *http.Request, k auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	var d review.Decision
	if !s.readJSON(w, r, &d) {
		return
	}
	sum, err := s.reviewSummaryOf(r.Context(), m.Collection, m.ID)
	if err != nil {
		fail(w, http.StatusConflict, "review %q has not finished; decisions are taken on a finished table", m.ID)
		return
	}
	if err := d.Check(nil); err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if !slices.Contains(sum.Rows, d.DocID) || !slices.Contains(m.Provisions, d.Provision) {
		fail(w, http.StatusBadRequest, "decision: the review has no cell for document %q and provision %q: %v", d.DocID, d.Provision, review.ErrDecision)
		return
	}
	d.By, d.At = k.Name, time.Now().UTC()
	ds, err := s.changeDecisions(r.Context(), m.Collection, m.ID, func(ds review.Decisions) review.Decisions { return ds.Set(d) })
	if err != nil {
		s.internal(w, "save decision", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"decision": d, "decisions": ds})
}

// undecide removes the decision on a cell (?doc_id=…&provision=…).
func (s *Server) undecide(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	m, ok := s.lookupReview(w, r)
	if !ok {
		return
	}
	doc, prov := r.URL.Query().Get("doc_id"), r.URL.Query().Get("provision")
	found := false
	ds, err := s.changeDecisions(r.Context(), m.Collection, m.ID, func(ds review.Decisions) review.Decisions {
		ds, found = ds.Remove(doc, prov)
		return ds
	})
	if err != nil {
		s.internal(w, "save decision", err)
		return
	}
	if !found {
		fail(w, http.StatusNotFound, "no decision on document %q, provision %q", doc, prov)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"decisions": ds})
}

// changeDecisionsFile is changeDecisions on a directory store (with
// reviewsMu held).
func changeDecisionsFile(dir string, change func(review.Decisions) review.Decisions) (review.Decisions, error) {
	path := filepath.Join(dir, "decisions.json")
	ds, err := review.LoadDecisions(path)
	if err != nil {
		return nil, err
	}
	ds = change(ds)
	if ds == nil {
		ds = review.Decisions{}
	}
	raw, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("review removed: %w", err)
	}
	return ds, atomicfile.Write(path, raw, 0o600)
}
