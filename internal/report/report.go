// Package report is the answer pakton gives to a question: the structured
// legal report the agents write (Title; Summary of Topic; Legal Reasoning &
// Analysis; Preliminary Answer & Direction for Further Research; Gaps & Next
// Questions; Sources), or, with no language model, an evidence report of the
// provisions a question routed to. Every quotation is verified verbatim
// against the document it cites before the report is shown (Verify), and the
// report renders as Markdown for a terminal and as JSON with stable field
// names.
package report

import (
	"github.com/pakton/pakton/internal/document"
)

// Mode says who wrote a report.
type Mode string

// Report modes.
const (
	// ModeAgents is a report written by the Archivist, Researcher and
	// Interrogator with a language model.
	ModeAgents Mode = "agents"
	// ModeEvidence is a report assembled without any language model: the
	// provisions retrieval found, quoted verbatim, and nothing interpreted.
	ModeEvidence Mode = "evidence"
)

// Status is the outcome of checking one quotation against its document.
type Status string

// Quote statuses.
const (
	// StatusUnchecked: Verify has not run on the source yet.
	StatusUnchecked Status = "unchecked"
	// StatusVerified: the quote occurs verbatim (after whitespace, quote and
	// dash normalization) inside the span it cites; the span is narrowed to
	// exactly where it occurs.
	StatusVerified Status = "verified"
	// StatusRecited: the quote does not occur in the cited span but occurs
	// elsewhere in the same document; the source now cites that place.
	StatusRecited Status = "recited"
	// StatusRemoved: the quote occurs nowhere in the document. The source is
	// moved to Report.Removed and every [n] citing it is flagged.
	StatusRemoved Status = "removed"
	// StatusExternal: the source is not contract text (web, Wikipedia, SQL,
	// MCP); it is shown as such and never checked against a contract.
	StatusExternal Status = "external"
)

// Source is one numbered piece of evidence the report cites as [N].
type Source struct {
	N       int    `json:"n"`
	DocID   string `json:"doc_id,omitempty"`
	DocName string `json:"doc_name,omitempty"`
	// DocTitle is the contract as people name it: its title, parties and
	// date (names.Display); the file name stays DocName.
	DocTitle string `json:"doc_title,omitempty"`
	Path     string `json:"path,omitempty"` // clause path, e.g. "Article 5 > 5.2 > (a)"
	Pages    []int  `json:"pages"`          // pages the span touches; empty for unpaginated formats
	// PageLabels are the page numbers printed on those pages ("23", "iv"),
	// parallel to Pages, "" where a page shows none; absent when none does.
	PageLabels []string      `json:"page_labels,omitempty"`
	Span       document.Span `json:"span"`           // code points [start, end) of the document's canonical text
	Quote      string        `json:"quote"`          // verbatim text the report relies on
	Status     Status        `json:"status"`         // outcome of verification
	Note       string        `json:"note,omitempty"` // why the status is what it is, when not plain "verified"
	Tool       string        `json:"tool,omitempty"` // the tool that found it (external sources)
	URL        string        `json:"url,omitempty"`  // external sources with an address
	// Highlights are the sentences of the quote that best match the
	// question (evidence reports), each a span of the same document.
	Highlights []Highlight `json:"highlights,omitempty"`
	// LeansOn is what the quoted provision depends on (evidence reports):
	// the definitions of the defined terms it uses and the clauses it
	// refers to, each a span of the same document — never part of Span or
	// Quote, and not verified as quotations (they are the document's text
	// at those spans).
	LeansOn []Support `json:"leans_on,omitempty"`
}

// Support is one definition or cross-referenced clause a source leans on.
type Support struct {
	Kind  string `json:"kind"`  // "definition" or "reference"
	Label string `json:"label"` // the term, or the reference as written ("Section 7.3")
	Path  string `json:"path,omitempty"`
	// Span and Text are the definition or the clause referred to; absent
	// for a reference into another instrument or to nothing (Note says
	// which).
	Span *document.Span `json:"span,omitempty"`
	Text string         `json:"text,omitempty"`
	Note string         `json:"note,omitempty"`
}

// Highlight is a sentence of a quoted provision that matches the question.
type Highlight struct {
	Span  document.Span `json:"span"`
	Text  string        `json:"text"`
	Score float64       `json:"score"`
}

// DocRef names a document.
type DocRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Title is the contract as people name it (names.Display).
	Title string `json:"title,omitempty"`
}

// Turn is one question the Interrogator asked the Researcher.
type Turn struct {
	N        int      `json:"n"`
	Question string   `json:"question"`
	Tools    []string `json:"tools"`            // tools the Researcher called, in order
	Found    int      `json:"found"`            // contract passages found
	Answer   string   `json:"answer"`           // the Researcher's answer, as the Interrogator read it
	Errors   []string `json:"errors,omitempty"` // tool errors the loop continued past
}

// StepCost is the model use of one pipeline step.
type StepCost struct {
	Step             string `json:"step"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	WallMS           int64  `json:"wall_ms"`
}

// Accounting is the model use behind one report, with the number of calls
// the PAKTON paper's cost model predicts for the same run (appendix E).
type Accounting struct {
	Models           []string   `json:"models"`
	Calls            int        `json:"calls"`
	PromptTokens     int        `json:"prompt_tokens"`
	CompletionTokens int        `json:"completion_tokens"`
	WallMS           int64      `json:"wall_ms"`
	Steps            []StepCost `json:"steps"`
	PaperCalls       int        `json:"paper_calls"` // the paper's N for the same turns
}

// Verification counts the outcome of checking a report's quotations.
type Verification struct {
	Quotes   int `json:"quotes"`   // contract quotations checked
	Verified int `json:"verified"` // found in the span they cite
	Recited  int `json:"recited"`  // found elsewhere in the same document, re-cited
	Removed  int `json:"removed"`  // found nowhere: removed and their claims flagged
	Dangling int `json:"dangling"` // [n] markers naming no source
	// Rate is (Verified+Recited)/Quotes: the share of quotations that are
	// verbatim text of the document they name (1 when there are none).
	Rate float64 `json:"rate"`
	// ExactRate is Verified/Quotes: the share found where first cited.
	ExactRate float64 `json:"exact_rate"`
}

// Report is pakton's answer to one question.
type Report struct {
	Mode         Mode   `json:"mode"`
	Question     string `json:"question"`
	Context      string `json:"context,omitempty"`
	Instructions string `json:"instructions,omitempty"`

	Title     string `json:"title"`
	Summary   string `json:"summary"`   // Summary of Topic
	Reasoning string `json:"reasoning"` // Legal Reasoning & Analysis
	Answer    string `json:"answer"`    // Preliminary Answer & Direction for Further Research
	Gaps      string `json:"gaps"`      // Gaps & Next Questions

	Sources []Source `json:"sources"`
	// Removed are quotations that occur nowhere in the document they name.
	Removed []Source `json:"removed"`

	// Documents are the documents the question was answered from (routed to
	// or selected).
	Documents []DocRef `json:"documents"`
	// Notice is a plain statement about how the report was made, e.g. that
	// no language model interpreted the provisions.
	Notice string `json:"notice,omitempty"`

	Turns        []Turn       `json:"turns"`
	Accounting   *Accounting  `json:"accounting,omitempty"`
	Verification Verification `json:"verification"`
	// Complete is false for a report cut short (cancelled, or a model call
	// that failed mid-loop): the best draft so far.
	Complete   bool   `json:"complete"`
	StopReason string `json:"stop_reason,omitempty"` // "confident", "max_turns", "cancelled", "error", "evidence"
	// Flags are warnings a reader must see: unverified quotes, dangling
	// citations, tool errors, an unresolved ambiguity.
	Flags []string `json:"flags"`
	// Checks are the playbook provisions the question asks about, looked
	// for in each searched contract by the offline reviewer: found (and
	// where) or not found, with its confidence.
	Checks []Check `json:"checks,omitempty"`
	// Contracts answer a question about several contracts (a deal-room
	// question: "Which of our contracts can be terminated for
	// convenience?") one contract at a time: the contracts that have what
	// it asks about, each with its answer and the clauses it was read from.
	// DealRoom says how, and counts the contracts not listed.
	Contracts []ContractAnswer `json:"contracts,omitempty"`
	DealRoom  *DealRoom        `json:"deal_room,omitempty"`
	// QuestionForUser is a question the answer needed the user's answer
	// to that the face could not ask (a contract name that fits several
	// contracts, asked of a client that cannot be asked): the report then
	// covers every choice, and asking again with one chosen narrows it.
	QuestionForUser *UserQuestion `json:"question_for_user,omitempty"`
}

// UserQuestion is a question for the user with the answers it offers.
type UserQuestion struct {
	Question string       `json:"question"`
	Choices  []UserChoice `json:"choices,omitempty"`
	// How says how to answer it with the face that returned the report.
	How string `json:"how,omitempty"`
}

// UserChoice is one answer a UserQuestion offers.
type UserChoice struct {
	ID    string `json:"id"` // a document id, or "all"
	Label string `json:"label"`
}

// ContractAnswer is one contract's answer to a deal-room question.
type ContractAnswer struct {
	Name  string `json:"name"`
	DocID string `json:"doc_id"`
	// DocTitle is the contract as people name it (names.Display).
	DocTitle string `json:"doc_title,omitempty"`
	// Answer is the short answer the review reads ("Yes", "Conditional",
	// "New York", "90 days"); empty when the contract was only searched
	// (DealRoom.Method "search": the citation matches the question's words).
	Answer string `json:"answer"`
	Kind   string `json:"kind,omitempty"` // value, yes, conditional (the review cell's answer kind)
	// Value is the value the question's condition was checked on, else
	// the cell's value.
	Value string `json:"value,omitempty"`
	// Condition is, for a conditional answer, the condition in the
	// contract's words.
	Condition string `json:"condition,omitempty"`
	// Asked is the value the question asks for beside the provision
	// (DealRoom.Ask: "on what notice" → "60 days", or per party
	// "Customer: 60 days; Provider: 180 days"), as read from the contract;
	// AskedFrom is the clause it was read from when that is not the
	// answer's (a governing-law clause, a cap read from another clause).
	Asked      string     `json:"asked,omitempty"`
	AskedFrom  string     `json:"asked_from,omitempty"`
	Confidence float64    `json:"confidence,omitempty"`
	Citations  []Citation `json:"citations"`
}

// Citation is a clause an answer was read from.
type Citation struct {
	Path  string        `json:"path,omitempty"`
	Pages []int         `json:"pages,omitempty"`
	Span  document.Span `json:"span"`
	Text  string        `json:"text"`
}

// DealRoom says how a deal-room question was answered per contract.
type DealRoom struct {
	// Method is "review" (the review engine looked for Provision in every
	// contract) or "search" (no playbook provision matched the question:
	// the best passage of each contract).
	Method    string `json:"method"`
	Provision string `json:"provision,omitempty"`
	// Condition is the value condition the question put on the provision
	// ("New York", "more than 60 days").
	Condition string `json:"condition,omitempty"`
	// Ask is the kind of value the question asks for beside the provision
	// ("notice", "period", "amount", "jurisdiction", "date"), read into
	// each contract's Asked; AskText is the question's words ("on what
	// notice").
	Ask     string `json:"ask,omitempty"`
	AskText string `json:"ask_text,omitempty"`
	// Checked contracts; With: listed in Contracts; Lacking: found to lack
	// it (or, searched, no passage matched); NotMatching: have it but not
	// as the condition asks; Undecided: could not be decided.
	Checked     int `json:"checked"`
	With        int `json:"with"`
	Lacking     int `json:"lacking"`
	NotMatching int `json:"not_matching"`
	Undecided   int `json:"undecided"`
	// Cached is how many contracts' answers came from the collection's
	// cache of review cells.
	Cached int `json:"cached"`
	// Others are the contracts not listed and why.
	Others []ContractStatus `json:"others,omitempty"`
}

// ContractStatus is a contract a deal-room question did not list.
type ContractStatus struct {
	Name     string `json:"name"`
	DocID    string `json:"doc_id"`
	DocTitle string `json:"doc_title,omitempty"` // the contract as people name it
	Status   string `json:"status"`              // lacks, not_matching, undecided
	Value    string `json:"value,omitempty"`
	Why      string `json:"why,omitempty"`
}

// Check is one contract × provision looked for by the offline reviewer.
type Check struct {
	Provision  string  `json:"provision"`
	DocID      string  `json:"doc_id"`
	DocName    string  `json:"doc_name"`
	DocTitle   string  `json:"doc_title,omitempty"` // the contract as people name it
	Found      bool    `json:"found"`
	Confidence float64 `json:"confidence"`
	// Path and Span locate the best passage when found.
	Path   string         `json:"path,omitempty"`
	Span   *document.Span `json:"span,omitempty"`
	Method string         `json:"method"` // "detector" or "zero-shot"
}

// Flag adds a warning to the report once.
func (r *Report) Flag(msg string) {
	for _, f := range r.Flags {
		if f == msg {
			return
		}
	}
	r.Flags = append(r.Flags, msg)
}

// Source returns the kept source numbered n, or nil.
func (r *Report) Source(n int) *Source {
	for i := range r.Sources {
		if r.Sources[i].N == n {
			return &r.Sources[i]
		}
	}
	return nil
}
