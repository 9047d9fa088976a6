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
// training from labels) are internal/review/detect; the model pass is
// internal/review/modelpass. What stays here is what turns scores into a
// review: the cell (which passages, found or not), the answer readers, the
// run over a collection with its kept rows, the table, decisions and what
// they teach (DecisionTraining), the provision finder search asks, and the
// deal room. The answer readers (answer*.go, value*.go, parties.go,
// party_names.go, polarity.go, condition.go) stay with the cell rather than
// going down with detection: they read a value from passages the detectors
// already chose, need nothing the scorer computes but the prepared contract
// (detect.Prepared, through the local prepared type whose methods they are),
// and change with the answer formats of the table, not with training — a
// reader can change without a retrain, and detect stays free of what a cell
// shows.
package review

import (
	"github.com/pakton/pakton/internal/document"
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
	Answer *Answer `json:"answer,omitempty"`
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

// AnswerKind says what kind of answer a cell gives.
type AnswerKind string

// The kinds of answer a cell gives.
const (
	// KindValue: a value read in the provision's answer format — a date, a
	// duration, an amount, a jurisdiction, the parties, a title.
	KindValue AnswerKind = "value"
	// KindYes: the right or obligation exists (a yes/no provision).
	KindYes AnswerKind = "yes"
	// KindNo: the evidence excludes the provision ("Neither party may
	// terminate this Agreement for convenience"). The cell is not found:
	// the excluding clause is shown as evidence (Answer.Excludes).
	KindNo AnswerKind = "no"
	// KindConditional: the right or obligation exists only under a
	// condition (Answer.Condition): consent not unreasonably withheld, only
	// after the initial term, only for cause.
	KindConditional AnswerKind = "conditional"
	// KindNotFound: the provision was not found.
	KindNotFound AnswerKind = "not_found"
)

// Answer is a cell's short answer, read offline from the cell's extracts
// (or given by the model pass and verified), with the exact spans it was
// read from so that every face can highlight them inside the extract.
//
//	{"kind": "value", "text": "1 year", "spans": [{"extract": 0, "span": {"start": 812, "end": 830}, "role": "value"}]}
//	{"kind": "conditional", "text": "Conditional", "condition": "with the prior written consent of the other party, not to be unreasonably withheld", "spans": [...]}
//	{"kind": "no", "text": "No", "excludes": true, "spans": [{"extract": 0, "span": {...}, "role": "exclusion"}]}
//	{"kind": "value", "text": "Acme Inc. (Acme); Beta LLC (Beta)", "parties": [{"name": "Acme Inc.", "role": "Acme", "name_span": {...}, "role_span": {...}}, ...]}
type Answer struct {
	Kind AnswerKind `json:"kind"`
	// Text is the one-line answer a grid shows: the value ("1 year",
	// "Delaware", "2019-03-01", "3 times the fees paid in the 12 months
	// before the claim", "Acme Inc. (Acme); Beta LLC (Beta)"), or "Yes",
	// "No", "Conditional", "Not found". A found cell of a value format whose
	// value could not be read has kind "value" and an empty Text: the
	// extract is the answer.
	Text string `json:"text"`
	// Condition is, for kind "conditional", the condition under which the
	// right or obligation exists, in the contract's words (shortened).
	Condition string `json:"condition,omitempty"`
	// Excludes is true when the evidence is a clause that excludes the
	// provision (kind "no"); the cell is then not found.
	Excludes bool `json:"excludes,omitempty"`
	// Spans are where the answer was read: each lies inside one of the
	// cell's extracts. Roles: "value", "condition", "exclusion", "party",
	// "party_role".
	Spans []AnswerSpan `json:"spans,omitempty"`
	// Parties are, for the party format, every party with its defined
	// role or short name, from the preamble and the signature block.
	Parties []Party `json:"parties,omitempty"`
}

// AnswerSpan is one place an answer was read from.
type AnswerSpan struct {
	// Extract is the index in Cell.Extracts of the extract that holds Span.
	Extract int `json:"extract"`
	// Span is in code points of the contract's canonical text (like
	// Extract.Span), inside that extract.
	Span document.Span `json:"span"`
	Role string        `json:"role"`
}

// Party is one party to a contract.
type Party struct {
	Name string `json:"name"`           // "Acme Holdings, Inc."
	Role string `json:"role,omitempty"` // its defined short name or role: "Acme", "Licensor"
	// NameSpan and RoleSpan are where the name and the role were read.
	NameSpan AnswerSpan  `json:"name_span"`
	RoleSpan *AnswerSpan `json:"role_span,omitempty"`
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
	Cells   []Cell `json:"cells"`
	Error   string `json:"error,omitempty"` // the document could not be reviewed
	// light marks a row a light run holds without its extracts (Run.Light).
	light bool
}

// Table is a whole review: one row per contract, one column per provision.
type Table struct {
	Playbook   string   `json:"playbook"`
	Version    string   `json:"playbook_version,omitempty"`
	Provisions []string `json:"provisions"`
	Rows       []Row    `json:"rows"`
}
