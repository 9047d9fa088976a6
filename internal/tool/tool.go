// Package tool defines the tools a Researcher agent may call — searching the
// contract, finding examples in other contracts, and optional external
// sources (web search, Wikipedia, a read-only SQL database, the tools of
// configured MCP servers) that stay off unless the user configures them.
package tool

import (
	"context"
	"encoding/json"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/llm"
)

// Tool is one capability offered to a model. The model chooses tools by
// their descriptions; Call runs one with the model's JSON arguments and
// returns text for the model to read.
type Tool interface {
	Spec() llm.ToolSpec
	Call(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is a tool's output: text for the model, and the evidence it found
// (passages of indexed contracts), which the report can cite.
type Result struct {
	Text     string     `json:"text"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// External is true when the text comes from outside the user's
	// contracts (web, Wikipedia, SQL, MCP): never cited as contract text.
	External bool `json:"external,omitempty"`
}

// Evidence is a passage of an indexed contract.
type Evidence struct {
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	Path    string `json:"path"`            // clause path, e.g. "Article 5 > 5.2 > (a)"
	Pages   []int  `json:"pages,omitempty"` // pages the span touches (paginated formats)
	Start   int    `json:"start"`           // code-point span of the passage
	End     int    `json:"end"`
	Text    string `json:"text"`
	// Support names the definitions of the terms the passage uses and the
	// clauses it refers to (never part of Start–End); define_term and
	// follow_reference read them.
	Support *docread.Support `json:"support,omitempty"`
	// Provision names the playbook provision the offline review detectors
	// found in this passage, when search put it first for a question about
	// that provision.
	Provision string `json:"provision,omitempty"`
}
