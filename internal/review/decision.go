package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Verdict is a reviewer's judgement of one cell.
type Verdict string

// Verdicts a reviewer may give a cell.
const (
	Accepted  Verdict = "accepted"  // the cell is right as it is
	Rejected  Verdict = "rejected"  // the cell is wrong (a found extract that is not the provision, or a "Not found" that is)
	Corrected Verdict = "corrected" // the reviewer gives the right text and/or value
)

// Decision is a reviewer's judgement of one cell (contract × provision),
// kept beside the review and included in every export.
type Decision struct {
	DocID     string  `json:"doc_id"`
	Provision string  `json:"provision"`
	Verdict   Verdict `json:"verdict"`
	// Text and Value are the corrected extract and value (Corrected only).
	Text  string    `json:"text,omitempty"`
	Value string    `json:"value,omitempty"`
	Note  string    `json:"note,omitempty"`
	By    string    `json:"by,omitempty"` // who decided (e.g. the API key's name)
	At    time.Time `json:"at"`
}

// ErrDecision marks an invalid decision.
var ErrDecision = errors.New("invalid decision")

// Check validates a decision against a table: the contract and provision
// must be in it, the verdict known, and a correction must say what is right.
func (d *Decision) Check(t *Table) error {
	d.Text, d.Value, d.Note = strings.TrimSpace(d.Text), strings.TrimSpace(d.Value), strings.TrimSpace(d.Note)
	switch d.Verdict {
	case Accepted, Rejected:
		if d.Text != "" || d.Value != "" {
			return fmt.Errorf("decision %s: text and value are only given with verdict %q: %w", d.Verdict, Corrected, ErrDecision)
		}
	case Corrected:
		if d.Text == "" && d.Value == "" {
			return fmt.Errorf("decision corrected: give the corrected text or value: %w", ErrDecision)
		}
	default:
		return fmt.Errorf("decision: unknown verdict %q (want accepted, rejected or corrected): %w", d.Verdict, ErrDecision)
	}
	if t == nil {
		return nil
	}
	if t.Cell(d.DocID, d.Provision) == nil {
		return fmt.Errorf("decision: the review has no cell for document %q and provision %q: %w", d.DocID, d.Provision, ErrDecision)
	}
	return nil
}

// Cell returns the cell of a contract and provision, or nil.
func (t *Table) Cell(docID, provision string) *Cell {
	for i := range t.Rows {
		if t.Rows[i].DocID != docID {
			continue
		}
		for j := range t.Rows[i].Cells {
			if t.Rows[i].Cells[j].Provision == provision {
				return &t.Rows[i].Cells[j]
			}
		}
	}
	return nil
}

// Decisions are the decisions of one review, at most one per cell.
type Decisions []Decision

// Find returns the decision on a cell, or nil.
func (ds Decisions) Find(docID, provision string) *Decision {
	for i := range ds {
		if ds[i].DocID == docID && ds[i].Provision == provision {
			return &ds[i]
		}
	}
	return nil
}

// Set replaces the decision on d's cell, or adds it.
func (ds Decisions) Set(d Decision) Decisions {
	if old := ds.Find(d.DocID, d.Provision); old != nil {
		*old = d
		return ds
	}
	return append(ds, d)
}

// Remove drops the decision on a cell, reporting whether there was one.
func (ds Decisions) Remove(docID, provision string) (Decisions, bool) {
	for i := range ds {
		if ds[i].DocID == docID && ds[i].Provision == provision {
			return append(ds[:i], ds[i+1:]...), true
		}
	}
	return ds, false
}

// LoadDecisions reads a decisions file; a missing file holds none.
func LoadDecisions(path string) (Decisions, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("decisions %s: %w", path, err)
	}
	var ds Decisions
	if err := json.Unmarshal(raw, &ds); err != nil {
		return nil, fmt.Errorf("decisions %s: %w", path, err)
	}
	return ds, nil
}
