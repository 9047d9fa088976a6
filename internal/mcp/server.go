package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
	"github.com/pakton/pakton/internal/usecase"
)

// Limits on what a caller may ask for and on what one answer carries, so an
// assistant's context window (and the server) stay bounded.
const (
	// MaxK is the most passages search_contracts returns.
	MaxK = 50
	// DefaultK is the number of passages when k is not given.
	DefaultK = 8
	// MaxQuery is the longest query or question, in characters.
	MaxQuery = search.MaxQueryChars
	// MaxContext is the longest background context or instructions of ask.
	MaxContext = agent.MaxContextChars
	// MaxPassageText is the most characters of one passage returned; a longer
	// passage is cut and marked truncated (its span still covers it all).
	MaxPassageText = 6000
	// MaxClauseText is the most characters of a clause get_clause returns.
	MaxClauseText = 30000
	// MaxChildren is the most children get_clause summarises.
	MaxChildren = 200
	// MaxTurns is the most interrogation turns ask accepts.
	MaxTurns = 10
)

// Version is reported to clients in the initialize handshake.
var Version = "dev"

const instructions = `pakton answers questions about the legal contracts of one collection with exact, verifiable citations.
Start with list_documents to see the contracts. For a due-diligence table of provisions across the contracts, use review_collection. Use search_contracts to find the provisions that bear on a question (each passage comes with its document, clause path, pages and exact character span), get_clause to read a whole clause with its sub-clauses or to climb to its parent, compare_contracts to see how a contract departs from a template or another version, list_deadlines for the dates that fall due (expiry, renewal, notice of non-renewal), and ask for a structured, cited report when the user wants an answer rather than passages.
Quote contract text only from what these tools return; every span is [start, end) in Unicode code points of the document's canonical text, which is also readable as the resource pakton://<collection>/documents/<id>.`

// readOnly are the hints of a tool that reads the collection and nothing
// else.
var readOnly = &mcpsdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

// The MCP server's tools, declared once (tool.Def): name, title,
// description, hints, and the Go types their schemas are derived from.
var (
	searchTool = tool.Declare(tool.Def[SearchInput, SearchOutput]{
		Name:  "search_contracts",
		Title: "Search the contracts",
		Description: "Find the provisions of the collection's contracts that bear on a question or topic " +
			"(e.g. \"who may terminate for convenience\", \"cap on liability\", \"assignment without consent\"). " +
			"Returns passages best first, each with its document, clause path, pages, exact code-point span and verbatim text. " +
			"Use it before answering anything about what a contract says, and quote only the text it returns. " +
			"A question that names a contract is routed to that contract; pass doc to search one document only. " +
			"Use get_clause to read the surrounding clause, and ask for a full written report.",
		Annotations: readOnly,
	})
	clauseTool = tool.Declare(tool.Def[ClauseInput, ClauseOutput]{
		Name:  "get_clause",
		Title: "Read a clause",
		Description: "Read one clause of a contract in full: its text, clause path, span, pages and a summary of its sub-clauses. " +
			"Identify the clause by path (as search_contracts returns it, e.g. \"Article 5 > 5.2 > (a)\", or just a label like \"5.2\" when unique), " +
			"by node id (from an earlier get_clause), or by span (the clause that contains it, e.g. a search passage's span). " +
			"Give only doc to get the document's top-level outline. Use it to read definitions, exceptions and provisos around a search hit.",
		Annotations: readOnly,
	})
	listTool = tool.Declare(tool.Def[ListInput, ListOutput]{
		Name:  "list_documents",
		Title: "List the contracts",
		Description: "List the contracts of the collection: id, name, format, pages, number of clauses and resource URI. " +
			"Use it first to learn what is available and to find the id or name other tools take as doc.",
		Annotations: readOnly,
	})
	askTool = tool.Declare(tool.Def[AskInput, *report.Report]{
		Name:  "ask",
		Title: "Ask for a cited report",
		Description: "Answer a legal question about the contracts with a structured report (Title, Summary of Topic, Legal Reasoning & Analysis, " +
			"Preliminary Answer, Gaps & Next Questions, Sources), every source a verbatim quote verified against its document with clause path, pages and span. " +
			"With a language model configured on the pakton server, its agents research and write the report (this takes a while); without one it returns an " +
			"evidence report that quotes the best-matching provisions and interprets nothing — the text says which. " +
			"Prefer search_contracts for quick look-ups; use ask when the user wants a reasoned, cited answer. " +
			"Pass background in context (who the user is, the deal) and the desired form in instructions.",
		// With a model, the Researcher may use external tools (web search,
		// MCP servers) the operator configured, so the world is not closed.
		Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true},
	})
	reviewTool = tool.Declare(tool.Def[ReviewInput, ReviewOutput]{
		Name:  "review_collection",
		Title: "Review the contracts against a playbook",
		Description: "Review every contract of the collection against a playbook of provisions (governing law, term, assignment, change of control, " +
			"cap on liability, exclusivity, …): for each contract, the provisions found with their value, clause path, page, exact span and verbatim extract, " +
			"and the provisions not found. Use the built-in playbook (playbook \"builtin\", the default), the built-in merger-agreement playbook (playbook \"merger\": " +
			"consideration, Material Adverse Effect and its carve-outs, no-shop, termination fees, closing conditions, specific performance, …) " +
			"or pass your own as playbook_yaml; narrow it with " +
			"provisions and docs. It runs offline and reports progress per contract. Use it for due-diligence tables across many contracts; " +
			"use search_contracts or get_clause to read around a finding.",
		Annotations: readOnly,
	})
	compareTool = tool.Declare(tool.Def[CompareInput, CompareOutput]{
		Name:  "compare_contracts",
		Title: "Compare a contract with a template or another version",
		Description: "Compare a contract with the firm's standard form or with another version of it (a draft and the executed copy, " +
			"an amended and restated version), clause by clause: the template's clauses missing from the contract, the clauses changed " +
			"(with the words removed and inserted), and the clauses the contract adds, each with its clause path and heading on both sides. " +
			"Renumbering, re-flowed lines and page furniture are no change. Name both documents by id or name from list_documents; " +
			"use get_clause with a path to read a clause in full.",
		Annotations: readOnly,
	})
	deadlinesTool = tool.Declare(tool.Def[DeadlinesInput, DeadlinesOutput]{
		Name:  "list_deadlines",
		Title: "List the contracts' deadlines",
		Description: "List the deadlines of the collection's contracts: when each term ends or renews, the last day to give notice of non-renewal, " +
			"option and notice windows — each dated (YYYY-MM-DD) with how it was computed and the clause (path, pages, span, verbatim sentence) it was read from, " +
			"and those that cannot be computed with why (a term that runs from an undated event). Pass within (\"90d\", \"6m\") for what falls due soon, " +
			"docs to list some contracts only. It runs offline, reads each contract once (cached after) and reports progress per contract.",
		Annotations: readOnly,
	})
)

// Tools lists the MCP server's tools, in the order NewServer adds them
// (tools/list gives them sorted by name).
var Tools = tool.Registry{searchTool, clauseTool, listTool, askTool, reviewTool, compareTool, deadlinesTool}

// NewServer returns an MCP server with pakton's tools and document
// resources. Every request works on the collection b.Collection returns for
// its context.
func NewServer(b Backend) *mcpsdk.Server {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "pakton", Title: "pakton contract search", Version: Version},
		&mcpsdk.ServerOptions{Instructions: instructions, Capabilities: &mcpsdk.ServerCapabilities{}})
	h := &handlers{b: b}
	searchTool.Serve(s, h.search)
	clauseTool.Serve(s, h.getClause)
	listTool.Serve(s, h.listDocuments)
	askTool.Serve(s, h.ask)
	reviewTool.Serve(s, h.review)
	compareTool.Serve(s, h.compare)
	deadlinesTool.Serve(s, h.deadlines)

	addResources(s, b)
	return s
}

// handlers holds the tool handlers of one server.
type handlers struct {
	b Backend
}

// snapshot resolves the request's collection, ready to answer.
func (h *handlers) snapshot(ctx context.Context) (*collection.Snapshot, error) {
	name, err := h.b.Collection(ctx)
	if err != nil {
		return nil, err
	}
	return h.b.Snapshot(ctx, name)
}

// corpus resolves the request's collection as the contract tools see it.
func (h *handlers) corpus(ctx context.Context) (*tool.Corpus, error) {
	sn, err := h.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return sn.Corpus(), nil
}

// findDoc resolves what the caller typed to name a document.
func findDoc(ctx context.Context, c *tool.Corpus, ref string) (store.DocInfo, error) {
	ref = strings.TrimSpace(ref)
	if u, ok := parseURI(ref); ok {
		if u.collection != c.Collection {
			return store.DocInfo{}, fmt.Errorf("no document %q in this collection; call list_documents for the ids", ref)
		}
		ref = u.id
	}
	info, err := docread.FindDoc(ctx, c.Store, c.Collection, ref)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return info, fmt.Errorf("no document with id or name %q in this collection; call list_documents for the ids", ref)
		}
		return info, err
	}
	return info, nil
}

// cut returns text limited to n code points and whether it was cut.
func cut(text string, n int) (string, bool) {
	if utf8.RuneCountInString(text) <= n {
		return text, false
	}
	i := 0
	for j := range text {
		if i == n {
			return text[:j], true
		}
		i++
	}
	return text, false
}

// DocRef names a document.
type DocRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Display is how the contract is shown: title, parties and date.
	Display string `json:"display,omitempty"`
}

// SearchInput are the arguments of search_contracts.
type SearchInput struct {
	Query string `json:"query" jsonschema:"the question or topic to look for, in plain words"`
	K     int    `json:"k,omitempty" jsonschema:"number of passages, 1 to 50 (default 8)"`
	Doc   string `json:"doc,omitempty" jsonschema:"search only this document: its id or name from list_documents"`
	// Stages switch the search's tuned stages off: no_route, no_provisions,
	// no_framing, no_associations, no_headings, no_learnt, no_fill, no_spread.
	search.Stages
	// Explain adds the plan of the search as it ran.
	Explain bool `json:"explain,omitempty" jsonschema:"add the plan of the search as it ran: the documents searched and why, the words dropped and added, the provision asked about, how each passage's score was made, and every stage with the switch that turns it off"`
}

// Passage is one search result.
type Passage struct {
	Rank    int    `json:"rank"`
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	// DocTitle is the contract as people name it: title, parties, date.
	DocTitle string        `json:"doc_title,omitempty" jsonschema:"the contract as people name it: its title, parties and date"`
	URI      string        `json:"uri" jsonschema:"resource URI of the document's full text"`
	Path     string        `json:"path" jsonschema:"clause path, e.g. Article 5 > 5.2 > (a)"`
	Pages    []int         `json:"pages" jsonschema:"1-based pages the passage touches; empty for unpaginated formats"`
	Span     document.Span `json:"span" jsonschema:"[start, end) in Unicode code points of the document's canonical text"`
	Score    float64       `json:"score"`
	Text     string        `json:"text" jsonschema:"the verbatim text of span"`
	// Truncated is true when text holds only the start of the span.
	Truncated bool `json:"truncated,omitempty"`
	// Support: the definitions of the terms the passage uses and the
	// clauses it refers to; never part of span.
	Support *docread.Support `json:"support,omitempty" jsonschema:"definitions of the defined terms the passage uses and the clauses it refers to (supporting evidence, not part of span)"`
	// Provision names the playbook provision the review detectors found
	// in this passage (score is then their confidence).
	Provision string `json:"provision,omitempty" jsonschema:"the playbook provision the review detectors found in this passage, when they put it first (score is then their confidence, 0 to 1)"`
}

// SearchOutput is the structured result of search_contracts.
type SearchOutput struct {
	Collection string   `json:"collection"`
	Query      string   `json:"query"`
	RoutedTo   []DocRef `json:"routed_to" jsonschema:"documents the question named, to which the search was restricted"`
	// Route says which documents were searched and why.
	Route    *search.Route `json:"route,omitempty" jsonschema:"the routing decision: all, named, several, ambiguous (a name fits several contracts: pass one of the candidates' doc_id as doc to search it alone), unknown (a name fits no contract), chosen or off; the names matched and why"`
	Passages []Passage     `json:"passages"`
	// NotFound: provisions the query asks about that the review detectors
	// looked for and did not find.
	NotFound []NotFound `json:"not_found,omitempty" jsonschema:"provisions the query asks about that the offline review detectors looked for in a document and did not find: that document's passages only match the query's words"`
	// Explain is the plan as it ran, when explain asked for it.
	Explain *search.Explain `json:"explain,omitempty" jsonschema:"the plan of the search as it ran (docs/SEARCH.md#explain-what-a-question-became), when explain was set"`
}

// NotFound is a provision the review detectors did not find in a document.
type NotFound struct {
	DocID      string  `json:"doc_id"`
	DocName    string  `json:"doc_name"`
	Provision  string  `json:"provision"`
	Confidence float64 `json:"confidence" jsonschema:"the detectors' probability that the provision is there after all"`
}

func (h *handlers) search(ctx context.Context, _ *mcpsdk.CallToolRequest, in SearchInput) (*mcpsdk.CallToolResult, SearchOutput, error) {
	var out SearchOutput
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
		return nil, out, errors.New("query is empty: say what to look for, e.g. \"termination for convenience\"")
	case utf8.RuneCountInString(q) > MaxQuery:
		return nil, out, fmt.Errorf("query is longer than %d characters", MaxQuery)
	case in.K < 0 || in.K > MaxK:
		return nil, out, fmt.Errorf("k = %d: want 1 to %d", in.K, MaxK)
	}
	k := in.K
	if k == 0 {
		k = DefaultK
	}
	sn, err := h.snapshot(ctx)
	if err != nil {
		return nil, out, err
	}
	c := sn.Corpus()
	query := search.Query{Text: q, K: k, Stages: in.Stages, Explain: in.Explain}
	if in.Doc != "" {
		info, err := findDoc(ctx, c, in.Doc)
		if err != nil {
			return nil, out, err
		}
		query.Docs = []string{info.ID}
	}
	if sn.Index.Docs() == 0 {
		return nil, out, usecase.EmptyCollection(sn.Collection)
	}
	res, err := sn.Search(ctx, query)
	if err != nil {
		return nil, out, err
	}
	resp, err := sn.Respond(ctx, q, res)
	if err != nil {
		return nil, out, fmt.Errorf("reading the passages: %w", err)
	}
	out = SearchOutput{Collection: sn.Collection, Query: q, RoutedTo: []DocRef{}, Passages: []Passage{}, Route: resp.Route, Explain: resp.Explain}
	for _, d := range resp.RoutedTo {
		out.RoutedTo = append(out.RoutedTo, DocRef(d))
	}
	for _, a := range resp.NotFound {
		out.NotFound = append(out.NotFound, NotFound(a))
	}
	for _, p := range resp.Hits {
		text, truncated := cut(p.Text, MaxPassageText)
		out.Passages = append(out.Passages, Passage{
			Rank: p.Rank, DocID: p.DocID, DocName: p.DocName, DocTitle: p.DocTitle, URI: docURI(sn.Collection, p.DocID),
			Path: p.Path, Pages: p.Pages, Span: p.Span, Score: p.Score, Text: text, Truncated: truncated, Support: p.Support, Provision: p.Provision,
		})
	}
	return textResult(searchText(out, sn.Index.DocName)), out, nil
}

// searchText renders search results for a reader; docName names a
// document in the plan (explain).
func searchText(out SearchOutput, docName func(id string) string) string {
	var b strings.Builder
	if out.Explain != nil {
		out.Explain.WriteText(&b, docName)
		b.WriteString("\n")
	}
	if r := out.Route; r != nil && r.Why != "" {
		fmt.Fprintf(&b, "Routing: %s", r.Why)
		switch {
		case r.Decision == search.RouteAmbiguous:
			b.WriteString(" To search one alone, pass its doc_id as doc:\n")
			for _, c := range r.Candidates {
				fmt.Fprintf(&b, "- %s — %s (doc %s)\n", c.Display, c.Name, c.DocID)
			}
		case r.Decision == search.RouteUnknown && len(r.Nearest) > 0:
			b.WriteString(" To search one of the nearest, pass its doc_id as doc; to search every contract, pass no_route:\n")
			for _, c := range r.Nearest {
				fmt.Fprintf(&b, "- %s — %s (doc %s)\n", c.Display, c.Name, c.DocID)
			}
		case r.Decision.Narrowed():
			b.WriteString(" (pass no_route to search every document)\n")
		default:
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	for _, a := range out.NotFound {
		fmt.Fprintf(&b, "Not found: the review detectors find no %s provision in %s (their confidence that it is there: %.2f); the passages below from it only match the query's words.\n\n", a.Provision, a.DocName, a.Confidence)
	}
	if len(out.Passages) == 0 {
		b.WriteString("No passages found.\n")
		return b.String()
	}
	for _, p := range out.Passages {
		if p.DocTitle != "" {
			fmt.Fprintf(&b, "[%d] %s — %s (doc %s)", p.Rank, p.DocTitle, p.DocName, p.DocID)
		} else {
			fmt.Fprintf(&b, "[%d] %s (doc %s)", p.Rank, p.DocName, p.DocID)
		}
		if p.Path != "" {
			fmt.Fprintf(&b, " — %s", p.Path)
		}
		fmt.Fprintf(&b, "\n%sspan %d–%d", pagesText(p.Pages), p.Span.Start, p.Span.End)
		if p.Provision != "" {
			fmt.Fprintf(&b, "; the review detectors' %s passage (confidence %.2f; pass no_provisions to rank by words only)", p.Provision, p.Score)
		}
		b.WriteString("\n")
		b.WriteString(quote(p.Text))
		if p.Truncated {
			b.WriteString("> […] (cut; read the rest with get_clause or the document resource)\n")
		}
		if s := p.Support; s != nil {
			for _, d := range s.Definitions {
				fmt.Fprintf(&b, "Defined: %q in %s\n", d.Term, d.Path)
			}
			for _, r := range s.References {
				switch {
				case r.Path != "":
					fmt.Fprintf(&b, "Refers to: %s → %s\n", r.Text, r.Path)
				case r.External != "":
					fmt.Fprintf(&b, "Refers to: %s of %s (another instrument)\n", r.Text, r.External)
				default:
					fmt.Fprintf(&b, "Refers to: %s (not in this document)\n", r.Text)
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// quote prefixes every line of text with "> ".
func quote(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n "), "\n") {
		b.WriteString(strings.TrimRight("> "+line, " "))
		b.WriteString("\n")
	}
	return b.String()
}

func pagesText(pages []int) string {
	switch len(pages) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("p. %d, ", pages[0])
	}
	return fmt.Sprintf("pp. %d–%d, ", pages[0], pages[len(pages)-1])
}

func textResult(text string) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: text}}}
}

// ListInput are the (no) arguments of list_documents.
type ListInput struct{}

// DocumentInfo describes one document of the collection.
type DocumentInfo struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Title   string `json:"title,omitempty" jsonschema:"the contract as people name it: its title, parties and date"`
	Format  string `json:"format"`
	Pages   int    `json:"pages" jsonschema:"0 for unpaginated formats"`
	Clauses int    `json:"clauses" jsonschema:"number of nodes of the clause tree"`
	Chars   int    `json:"chars" jsonschema:"length of the canonical text in code points"`
	URI     string `json:"uri" jsonschema:"resource URI of the full text"`
}

// ListOutput is the structured result of list_documents.
type ListOutput struct {
	Collection string         `json:"collection"`
	Documents  []DocumentInfo `json:"documents"`
}

// maxListText is the most documents list_documents names in its text (the
// structured result lists them all).
const maxListText = 300

func (h *handlers) listDocuments(ctx context.Context, _ *mcpsdk.CallToolRequest, _ ListInput) (*mcpsdk.CallToolResult, ListOutput, error) {
	var out ListOutput
	name, err := h.b.Collection(ctx)
	if err != nil {
		return nil, out, err
	}
	sn, err := h.b.Snapshot(ctx, name)
	if err != nil {
		return nil, out, err
	}
	c := sn.Corpus()
	infos, err := c.Store.List(ctx, c.Collection)
	if err != nil {
		return nil, out, fmt.Errorf("listing collection %q: %w", c.Collection, err)
	}
	out = ListOutput{Collection: c.Collection, Documents: make([]DocumentInfo, 0, len(infos))}
	for _, in := range infos {
		out.Documents = append(out.Documents, DocumentInfo{ID: in.ID, Name: in.Name, Title: c.Index.DocDisplay(in.ID), Format: in.Format, Pages: in.Pages, Clauses: in.Nodes, Chars: in.Runes, URI: docURI(c.Collection, in.ID)})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Collection %q holds %d documents.\n", c.Collection, len(out.Documents))
	for i, d := range out.Documents {
		if i == maxListText {
			fmt.Fprintf(&b, "… and %d more (see the structured result)\n", len(out.Documents)-i)
			break
		}
		if d.Title != "" && d.Title != d.Name {
			fmt.Fprintf(&b, "- %s — %s (id %s, %s", d.Title, d.Name, d.ID, d.Format)
		} else {
			fmt.Fprintf(&b, "- %s (id %s, %s", d.Name, d.ID, d.Format)
		}
		if d.Pages > 0 {
			fmt.Fprintf(&b, ", %d pages", d.Pages)
		}
		fmt.Fprintf(&b, ", %d clauses)\n", d.Clauses)
	}
	return textResult(b.String()), out, nil
}
