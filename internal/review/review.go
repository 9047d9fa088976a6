// Package review runs a provision playbook over a deal room: for every
// contract and every provision of the playbook, either the verbatim passages
// that hold the provision (with their clause paths, pages and exact spans) or
// a confident "Not found", each with a calibrated confidence and, where the
// provision's answer format allows, a value read from the found text (a date,
// a duration, a jurisdiction, party names, an amount).
//
// Finding works with no model server. Each provision is found by a detector:
// a logistic model over the words of a contract's passages, trained from a
// labels file (see Train), or — for a provision nobody has labelled — a
// zero-shot scorer built from the provision's definition, keywords and
// example clauses, calibrated on the labelled provisions. A model server, when
// configured, refines the offline candidates (internal/review/modelpass: the
// model quotes the passages that hold each provision or answers "Not
// found", every quotation verified against the contract); the offline table
// is always the starting point, and a cell the model cannot answer keeps it.
//
// Abstention is part of the design: a detector's confidence is the estimated
// probability that the best passage it found really holds the provision, and a
// cell is "Not found" when that probability is below the provision's
// threshold, chosen on cross-validated predictions to maximise F1.
//
// The package is split by concern. The playbook format is
// internal/review/playbook; detection and training (preparing a contract
// into passages, the features, the detectors and the zero-shot scorer,
// training from labels) are internal/review/detect; the answer readers
// (a cell's value, parties, title, Yes / No / Conditional, and the value
// conditions of deal-room questions) are internal/review/answer; the model
// pass is internal/review/modelpass. What stays here is what turns scores
// into a review: the cell (which passages, found or not, and the answer
// read from them), the run over a collection with its kept rows, the
// table, decisions and what they teach (DecisionTraining), the provision
// finder search asks, and the deal room.
package review

import (
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// Cell is the review of one provision in one contract.
type Cell struct {
	DocID     string `json:"doc_id"`
	DocName   string `json:"doc_name"`
	Provision string `json:"provision"`
	// Found is false for "Not found". Extracts then still hold the best
	// candidate (useful to a reviewer checking an abstention), and
	// Confidence is the probability that the provision is there after all.
	Found      bool             `json:"found"`
	Confidence float64          `json:"confidence"` // in [0, 1]
	Extracts   []detect.Extract `json:"extracts,omitempty"`
	// Value is the answer read from the found text in the provision's answer
	// format ("Yes", "2019-03-01", "3 years", "New York", "Acme Inc.; Beta
	// LLC"), empty when none could be read. It is Answer.Text for a found
	// cell (kept for older readers of the table).
	Value string `json:"value,omitempty"`
	// Answer is the cell's short answer and the exact span it was read from
	// (see Answer). Every cell the engine makes has one; tables written
	// before it existed do not.
	Answer *answer.Answer `json:"answer,omitempty"`
	// Method says what produced the cell: "detector" (trained), "zero-shot"
	// (definition, keywords and examples only) or "model" (a model server
	// refined it).
	Method string `json:"method"`
	// Risks holds the answers to the provision's risk questions (model pass
	// only; empty offline).
	Risks []RiskAnswer `json:"risks,omitempty"`
	// Notes tell a reviewer how the cell was made when it matters: a
	// quotation the model gave that was re-located or dropped because it is
	// not where it said, or not in the contract at all; a second look that
	// added passages; a model pass that failed (the offline answer shown).
	Notes []string `json:"notes,omitempty"`
	// Error is set when the document could not be reviewed (unreadable);
	// the rest of the table is unaffected.
	Error string `json:"error,omitempty"`
}

// shown is the answer a cell shows: its answer's text, else its Value
// (tables written before answers existed).
func (c Cell) shown() string {
	if c.Answer != nil && c.Answer.Text != "" {
		return c.Answer.Text
	}
	return c.Value
}

// RiskAnswer is a model's answer to one of a provision's risk questions.
type RiskAnswer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Quotes are the verified passages the answer relies on.
	Quotes []detect.Extract `json:"quotes,omitempty"`
}

// Row is one contract's cells, in playbook order.
type Row struct {
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	// DocTitle is the contract as people name it: its title, parties and
	// date (names.Display), what the grid's contract column and the
	// exports show first; DocName stays its file.
	DocTitle string `json:"doc_title,omitempty"`
	Cells    []Cell `json:"cells"`
	Error    string `json:"error,omitempty"` // the document could not be reviewed
	// light marks a row a light run holds without its extracts (Run.Light).
	light bool
}

// Table is a whole review: one row per contract, one column per provision.
type Table struct {
	Playbook   string   `json:"playbook"`
	Version    string   `json:"playbook_version,omitempty"`
	Provisions []string `json:"provisions"`
	Rows       []Row    `json:"rows"`
	// Correspondence names the documents left out as correspondence, not
	// contracts (cover e-mails, letters, indexes; Run.IncludeCorrespondence).
	Correspondence []string `json:"correspondence,omitempty"`
}
