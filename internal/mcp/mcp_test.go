package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/store"
)

// The sample contracts, ingested once into collection "alpha" of a shared
// store; collection "beta" holds one contract of its own with words no
// sample uses, for the isolation tests.
var samples = []string{
	"distribution-agreement.txt",
	"master-services-agreement.txt",
	"mutual-nda.md",
	"software-license-agreement.html",
	"supply-agreement.docx",
}

const betaContract = `HELICOPTER LEASE AGREEMENT

1. Lease
1.1 The Lessor leases the zeppelin-class helicopter to the Lessee for the Zanzibar expedition.

2. Rent
2.1 The Lessee shall pay rent of 4,000 marigolds per month.
`

var (
	shared     *store.Store
	sharedErr  error
	sharedOnce sync.Once
)

// testStore returns the shared store, ingesting it on first use.
func testStore(t *testing.T) *store.Store {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pakton-mcp-test-")
		if err != nil {
			sharedErr = err
			return
		}
		shared, sharedErr = store.Open(filepath.Join(dir, "store"))
		if sharedErr != nil {
			return
		}
		var paths []string
		for _, s := range samples {
			paths = append(paths, filepath.Join("..", "..", "examples", "contracts", s))
		}
		if sharedErr = ingestInto(shared, "alpha", paths); sharedErr != nil {
			return
		}
		beta := filepath.Join(dir, "helicopter-lease.txt")
		if sharedErr = os.WriteFile(beta, []byte(betaContract), 0o644); sharedErr != nil {
			return
		}
		sharedErr = ingestInto(shared, "beta", []string{beta})
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func ingestInto(st *store.Store, collection string, paths []string) error {
	sum, err := ingest.Ingest(context.Background(), st, collection, paths, ingest.Options{Workers: 2})
	if err != nil {
		return err
	}
	return sum.Err()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		dir := filepath.Dir(shared.Dir())
		shared.Close()
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// connect runs srv over the in-memory transport and returns a client
// session.
func connect(t *testing.T, srv *mcpsdk.Server) *mcpsdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcpsdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out (when
// non-nil). It fails the test on a protocol error; a tool error is
// returned as the result.
func call(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any, out any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content: %v\n%s", name, err, data)
		}
	}
	return res
}

func text(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// docText returns a stored document's canonical text.
func docText(t *testing.T, st *store.Store, collection, id string) string {
	t.Helper()
	rec, err := st.Get(collection, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Doc.Text
}

func slice(text string, sp document.Span) string {
	r := []rune(text)
	return string(r[sp.Start:sp.End])
}

// TestToolsInMemory drives every tool and the resources through the SDK's
// client over the in-memory transport, on the sample contracts.
func TestToolsInMemory(t *testing.T) {
	st := testStore(t)
	cs := connect(t, NewServer(NewStoreBackend(st, "alpha")))
	ctx := context.Background()

	init := cs.InitializeResult()
	if init.ServerInfo.Name != "pakton" || !strings.Contains(init.Instructions, "search_contracts") {
		t.Errorf("initialize: %+v", init)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
		if len(tl.Description) < 100 || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("tool %s: description %q, schemas %v %v", tl.Name, tl.Description, tl.InputSchema, tl.OutputSchema)
		}
	}
	for _, want := range []string{"search_contracts", "get_clause", "list_documents", "ask"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}

	// list_documents
	var list ListOutput
	res := call(t, cs, "list_documents", nil, &list)
	if res.IsError || list.Collection != "alpha" || len(list.Documents) != len(samples) {
		t.Fatalf("list_documents: %s %+v", text(res), list)
	}
	byName := map[string]DocumentInfo{}
	for _, d := range list.Documents {
		byName[d.Name] = d
		if d.Clauses == 0 || d.Chars == 0 || d.URI != "pakton://alpha/documents/"+d.ID {
			t.Errorf("document %+v", d)
		}
	}
	if !strings.Contains(text(res), "supply-agreement.docx") {
		t.Errorf("list_documents text: %s", text(res))
	}

	// search_contracts: every passage is the verbatim text of its span.
	var sr SearchOutput
	res = call(t, cs, "search_contracts", map[string]any{"query": "labour strike force majeure", "k": 3}, &sr)
	if res.IsError || len(sr.Passages) == 0 || len(sr.Passages) > 3 {
		t.Fatalf("search: %s %+v", text(res), sr)
	}
	for _, p := range sr.Passages {
		if got := slice(docText(t, st, "alpha", p.DocID), p.Span); got != p.Text {
			t.Errorf("passage %d text is not its span:\n%q\n%q", p.Rank, p.Text, got)
		}
	}
	top := sr.Passages[0]
	if top.DocName != "supply-agreement.docx" || top.Path == "" || !strings.Contains(text(res), top.Path) {
		t.Errorf("top passage %+v\n%s", top, text(res))
	}
	res = call(t, cs, "search_contracts", map[string]any{"query": "term", "doc": "mutual-nda.md", "k": 50}, &sr)
	for _, p := range sr.Passages {
		if p.DocName != "mutual-nda.md" {
			t.Errorf("doc-restricted search returned %s", p.DocName)
		}
	}

	// get_clause by path, node and span, and the outline.
	var cl ClauseOutput
	res = call(t, cs, "get_clause", map[string]any{"doc": top.DocID, "path": top.Path}, &cl)
	if res.IsError || cl.Path != top.Path || !cl.Span.Contains(top.Span) || cl.Text != slice(docText(t, st, "alpha", top.DocID), cl.Span) {
		t.Fatalf("get_clause path %q: %s %+v", top.Path, text(res), cl)
	}
	var bySpan ClauseOutput
	call(t, cs, "get_clause", map[string]any{"doc": top.DocName, "span": map[string]int{"start": top.Span.Start, "end": top.Span.End}}, &bySpan)
	if bySpan.Node != cl.Node {
		t.Errorf("get_clause by span: node %d, by path %d", bySpan.Node, cl.Node)
	}
	var outline ClauseOutput
	res = call(t, cs, "get_clause", map[string]any{"doc": top.DocID}, &outline)
	if outline.Node != 0 || outline.Parent != -1 || len(outline.Children) == 0 || !strings.Contains(text(res), "Sub-clauses") {
		t.Errorf("outline: %s", text(res))
	}
	var child ClauseOutput
	call(t, cs, "get_clause", map[string]any{"doc": top.DocID, "node": outline.Children[0].Node}, &child)
	if child.Parent != 0 || child.Span != outline.Children[0].Span {
		t.Errorf("get_clause node %d: %+v", outline.Children[0].Node, child)
	}
	var byLabel ClauseOutput
	call(t, cs, "get_clause", map[string]any{"doc": "supply-agreement.docx", "path": "15.2"}, &byLabel)
	if !strings.HasSuffix(byLabel.Path, "15.2") {
		t.Errorf("get_clause label 15.2: %q", byLabel.Path)
	}

	// Resources: listed per document, readable, and the template.
	rl, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Resources) != len(samples) {
		t.Fatalf("resources/list: %d resources", len(rl.Resources))
	}
	nda := byName["mutual-nda.md"]
	rr, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: nda.URI})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text != docText(t, st, "alpha", nda.ID) || rr.Contents[0].MIMEType != "text/plain" {
		t.Errorf("resources/read %s: %+v", nda.URI, rr.Contents)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "pakton://{collection}/documents/{id}" {
		t.Errorf("resources/templates/list: %v %+v", err, tl)
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "pakton://alpha/documents/0000000000000000"}); err == nil {
		t.Error("reading a missing document succeeded")
	}
}

// TestBadInput checks that every invalid argument is a tool error that says
// what is wrong, not a protocol failure or a panic.
func TestBadInput(t *testing.T) {
	cs := connect(t, NewServer(NewStoreBackend(testStore(t), "alpha")))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_contracts", map[string]any{"query": "  "}, "query is empty"},
		{"search_contracts", map[string]any{}, "query"},
		{"search_contracts", map[string]any{"query": "notice", "k": 51}, "want 1 to 50"},
		{"search_contracts", map[string]any{"query": "notice", "k": -1}, "want 1 to 50"},
		{"search_contracts", map[string]any{"query": strings.Repeat("x", MaxQuery+1)}, "longer than"},
		{"search_contracts", map[string]any{"query": "notice", "doc": "no-such.pdf"}, "list_documents"},
		{"get_clause", map[string]any{"doc": "no-such.pdf"}, "no document"},
		{"get_clause", map[string]any{}, "doc"},
		{"get_clause", map[string]any{"doc": "mutual-nda.md", "node": 1, "path": "1"}, "at most one"},
		{"get_clause", map[string]any{"doc": "mutual-nda.md", "node": 100000}, "has nodes 0 to"},
		{"get_clause", map[string]any{"doc": "mutual-nda.md", "span": map[string]int{"start": 5, "end": 2}}, "want 0 ≤ start < end"},
		{"get_clause", map[string]any{"doc": "mutual-nda.md", "path": "Article 99 > 99.9"}, "no clause with path"},
		{"ask", map[string]any{"question": ""}, "question is empty"},
		{"ask", map[string]any{"question": "what is the term", "max_turns": 11}, "max_turns"},
		{"ask", map[string]any{"question": "what is the term", "doc": "nope"}, "no document"},
	} {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s %v: protocol error %v", tc.tool, tc.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: error %v, text %q, want %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
	}
}

// TestAskEvidence asks without a model: an evidence report, said so in the
// text, with the report as structured content.
func TestAskEvidence(t *testing.T) {
	st := testStore(t)
	cs := connect(t, NewServer(NewStoreBackend(st, "alpha")))
	var rep report.Report
	res := call(t, cs, "ask", map[string]any{"question": "Does a labour strike at the supplier's own plant count as force majeure?", "doc": "supply-agreement.docx"}, &rep)
	if res.IsError {
		t.Fatal(text(res))
	}
	out := text(res)
	if !strings.HasPrefix(out, "EVIDENCE REPORT — no language model") || !strings.Contains(out, "a strike, lockout or other labour dispute") {
		t.Errorf("ask text:\n%s", out)
	}
	if rep.Mode != report.ModeEvidence || len(rep.Sources) == 0 || rep.Sources[0].Status != report.StatusVerified || rep.Notice == "" {
		t.Errorf("ask report: %+v", rep)
	}
	for _, s := range rep.Sources {
		if got := slice(docText(t, st, "alpha", s.DocID), s.Span); got != s.Quote {
			t.Errorf("source %d quote is not its span", s.N)
		}
	}
}

// TestIndexFollowsGeneration adds a document to a collection the server has
// already searched: the next search finds it.
func TestIndexFollowsGeneration(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := ingestInto(st, "default", []string{filepath.Join("..", "..", "examples", "contracts", "mutual-nda.md")}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, NewServer(NewStoreBackend(st, "default")))
	var sr SearchOutput
	call(t, cs, "search_contracts", map[string]any{"query": "zanzibar helicopter marigolds"}, &sr)
	for _, p := range sr.Passages {
		if strings.Contains(p.Text, "marigolds") {
			t.Fatal("found text not yet ingested")
		}
	}
	lease := filepath.Join(dir, "lease.txt")
	if err := os.WriteFile(lease, []byte(betaContract), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ingestInto(st, "default", []string{lease}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "search_contracts", map[string]any{"query": "rent marigolds"}, &sr)
	if len(sr.Passages) == 0 || !strings.Contains(sr.Passages[0].Text, "marigolds") {
		t.Errorf("after ingest: %+v", sr.Passages)
	}
}
