package tool

import (
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/llm"
)

// Def declares one tool once, for every face that offers it: its name,
// title and description, and the Go types of its input (In) and output
// (Out). Both schemas are derived from those types, never written by hand:
// Spec gives the tool as the Researcher's model sees it (the schema of In,
// llm.DeriveSchema), MCP gives it as the MCP server lists it (the SDK
// derives the input and output schemas from In and Out when the tool is
// added with its handler, Serve).
type Def[In, Out any] struct {
	Name string
	// Title is the name an MCP client shows; the Researcher's model never
	// sees it.
	Title       string
	Description string
	// Adjust sets, on the properties of In's schema as the model sees it,
	// what a Go type cannot say (bounds); nil for none.
	Adjust func(props map[string]*jsonschema.Schema)
	// Annotations are the hints an MCP client reads (read-only,
	// idempotent, closed world).
	Annotations *mcpsdk.ToolAnnotations

	params func() json.RawMessage
}

// Declare returns d ready to be read by the faces, its input schema derived
// once, on first use.
func Declare[In, Out any](d Def[In, Out]) *Def[In, Out] {
	adjust := d.Adjust
	d.params = sync.OnceValue(func() json.RawMessage { return paramsOf[In](adjust) })
	return &d
}

// Spec is the tool as a model is offered it: name, description and the
// JSON schema of In.
func (d *Def[In, Out]) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.params()}
}

// MCP is the tool as the MCP server lists it, before the SDK adds the
// schemas it derives from In and Out.
func (d *Def[In, Out]) MCP() *mcpsdk.Tool {
	return &mcpsdk.Tool{Name: d.Name, Title: d.Title, Description: d.Description, Annotations: d.Annotations}
}

// Serve adds the tool to an MCP server with its handler; the SDK validates
// each call's arguments against In's schema and the handler's result
// against Out's.
func (d *Def[In, Out]) Serve(s *mcpsdk.Server, h mcpsdk.ToolHandlerFor[In, Out]) {
	mcpsdk.AddTool(s, d.MCP(), h)
}

// Entry is a declared tool whatever its types: what a face lists.
type Entry interface {
	Spec() llm.ToolSpec
	MCP() *mcpsdk.Tool
}

// Registry is a list of declared tools, in the order a face offers them.
type Registry []Entry

// Names are the tools' names, in order.
func (r Registry) Names() []string {
	out := make([]string, len(r))
	for i, e := range r {
		out[i] = e.Spec().Name
	}
	return out
}

// The Researcher's contract tools, declared once. Their handlers are the
// Call methods of SearchContract, DefineTerm, FollowReference and
// FindExamples, bound to the documents under review by the agents.
var (
	SearchContractTool = Declare(Def[searchArgs, Result]{
		Name: "search_contract",
		Description: "Search the contract under review for the provisions that bear on a query. " +
			"Returns verbatim passages, each with its clause path, pages and character span. " +
			"Phrase the query in the contract's own vocabulary (e.g. \"terminate for convenience notice\") rather than as a question. " +
			"Call it again with a different query to look for exceptions, definitions or cross-referenced clauses.",
		Adjust: kBounds,
	})
	DefineTermTool = Declare(Def[defineArgs, Result]{
		Name: "define_term",
		Description: "Look up how the contract defines a capitalised term (e.g. \"Confidential Information\", \"Change of Control\"). " +
			"Returns the verbatim definition with its clause path and span, or says the term is not defined. " +
			"Use it whenever a provision's meaning turns on a defined term.",
	})
	FollowReferenceTool = Declare(Def[followArgs, Result]{
		Name: "follow_reference",
		Description: "Read the clause a cross-reference points to, such as \"Section 7.3\", \"Article IV\", \"Exhibit B\" or \"Sections 4.1 through 4.3\". " +
			"Returns each referred-to clause verbatim with its clause path and span, or says the reference points to another agreement or to nothing in this one. " +
			"Use it when a provision says \"subject to\", \"except as provided in\" or \"as defined in\" another clause.",
	})
	FindExamplesTool = Declare(Def[searchArgs, Result]{
		Name: "find_examples",
		Description: "Find how OTHER contracts in the collection word a comparable provision (e.g. another agreement's limitation of liability), " +
			"as exemplars for interpreting or benchmarking the contract under review. " +
			"The passages come from different agreements: never cite them as terms of the contract under review.",
		Adjust: kBounds,
	})
)

// Researcher lists the contract tools a Researcher is given, in the order
// it is offered them (external tools come after).
var Researcher = Registry{SearchContractTool, DefineTermTool, FollowReferenceTool, FindExamplesTool}

// kBounds: k is 1 to 10.
func kBounds(p map[string]*jsonschema.Schema) { bounds(p["k"], 1, 10) }
