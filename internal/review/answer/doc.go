// Package answer reads a review cell's short answer from the passages the
// detectors chose for it: a value in the provision's answer format (a date,
// an end date, a period, an amount, a jurisdiction, the parties, a title),
// or Yes / No / Conditional for a right, an obligation or a restriction —
// each with the exact spans it was read from, inside the cell's extracts,
// so that every face can highlight them. It also reads the value condition
// of a deal-room question ("… on more than 60 days' notice") and checks a
// cell against it (Condition).
//
// One entry point, Read, takes what a cell has once its passages are
// chosen — the prepared contract, the provision, the chosen extracts with
// every passage's score, and whether the provision was found — and returns
// the answer and the extracts it was read from. Most answers are read from
// the extracts alone; a few look at the whole contract, which is why Read
// takes it: the parties are read where a contract introduces them (its
// preamble and signature block), a title from its opening, an end date
// from the definition a term clause points to, and values written in page
// furniture or a running line are not answers. What a reader finds in a
// whole contract once is kept with the prepared contract
// (detect.Prepared.Memo). Without a contract, Read reads the extracts
// alone, as the model pass does for its verified quotations; FromModel
// reconciles a model's value with that reading. The value parsers the
// model pass normalizes a model's value with (FirstDate, FirstDuration,
// Jurisdiction, Perpetual) are exported too.
//
// The readers sit below the review run and beside detection, not inside
// either: they need nothing of the scorer but the chosen passages and
// their scores, and they change with the answer formats of the table, not with training
// — a reader can change without a retrain, detection stays free of what a
// cell shows, and the run, the table and the deal room above ask one
// function. Imports run one way: internal/review imports answer; answer
// imports detect (the prepared contract, the extract, the analyzer whose
// words the detectors were trained on, so a cue word means the same to
// both), the playbook format and the document, nothing of runs, stores or
// models.
package answer

import "github.com/pakton/pakton/internal/document"

// Kind says what kind of answer a cell gives.
type Kind string

// The kinds of answer a cell gives.
const (
	// KindValue: a value read in the provision's answer format — a date, a
	// duration, an amount, a jurisdiction, the parties, a title.
	KindValue Kind = "value"
	// KindYes: the right or obligation exists (a yes/no provision).
	KindYes Kind = "yes"
	// KindNo: the evidence excludes the provision ("Neither party may
	// terminate this Agreement for convenience"). The cell is not found:
	// the excluding clause is shown as evidence (Answer.Excludes).
	KindNo Kind = "no"
	// KindConditional: the right or obligation exists only under a
	// condition (Answer.Condition): consent not unreasonably withheld, only
	// after the initial term, only for cause.
	KindConditional Kind = "conditional"
	// KindNotFound: the provision was not found.
	KindNotFound Kind = "not_found"
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
	Kind Kind `json:"kind"`
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
	// Reason says, for kind "not_found" on a found cell's evidence, why
	// the evidence does not answer: the clause does not operate ("a
	// definition", "a recital or the preamble", …) or grants a
	// neighbouring right ("the clause allows it only on stated causes,
	// not without cause"). The cell is then not found.
	Reason string `json:"reason,omitempty"`
	// Spans are where the answer was read: each lies inside one of the
	// cell's extracts. Roles: "value", "condition", "exclusion", "party",
	// "party_role".
	Spans []Span `json:"spans,omitempty"`
	// Parties are, for the party format, every party with its defined
	// role or short name, from the preamble and the signature block.
	Parties []Party `json:"parties,omitempty"`
	// Holders are, for a yes/no provision, who holds the right (or is
	// bound by the restriction) and on what terms, when the extracts say
	// so (holders.go); Summary says it in one line ("Customer: Yes, 60
	// days' notice; Provider: only during any Renewal Term, 180 days'
	// notice"), and is what a face shows for the cell when it is set.
	Holders []Holder `json:"holders,omitempty"`
	Summary string   `json:"summary,omitempty"`
}

// Span is one place an answer was read from.
type Span struct {
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
	NameSpan Span  `json:"name_span"`
	RoleSpan *Span `json:"role_span,omitempty"`
}
