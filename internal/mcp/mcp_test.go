package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
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
		shared, sharedErr = wvtest.OpenStore(filepath.Join(dir, "store"))
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
	rec, err := st.Get(t.Context(), collection, id)
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
	cs := connect(t, NewServer(NewStoreBackend(testService(t, st, collection.Models{}), "alpha")))
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
	// tools/list is the registry: every declared tool, nothing else, each
	// as declared.
	if len(tools.Tools) != len(Tools) {
		t.Errorf("tools/list has %d tools, the registry %d (%v)", len(tools.Tools), len(Tools), Tools.Names())
	}
	for _, e := range Tools {
		d := e.MCP()
		var got *mcpsdk.Tool
		for _, tl := range tools.Tools {
			if tl.Name == d.Name {
				got = tl
			}
		}
		if got == nil || got.Title != d.Title || got.Description != d.Description || !reflect.DeepEqual(got.Annotations, d.Annotations) {
			t.Errorf("tools/list gives %s as %+v, the registry declares %+v", d.Name, got, d)
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
	// Each contract is named as people name it, the file beside it.
	if d := byName["supply-agreement.docx"]; !strings.HasPrefix(d.Title, "Supply Agreement — ") || !strings.Contains(text(res), "- "+d.Title+" — supply-agreement.docx (id ") {
		t.Errorf("list_documents title %q, text: %s", d.Title, text(res))
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
	// A question naming a contract is routed, says so, and no_route switches it off.
	named := "Does a labour strike count as force majeure under the supply agreement?"
	res = call(t, cs, "search_contracts", map[string]any{"query": named, "k": 8}, &sr)
	if len(sr.RoutedTo) != 1 || sr.RoutedTo[0].Name != "supply-agreement.docx" || !strings.Contains(text(res), "no_route") {
		t.Errorf("routed search: routed_to %+v\n%s", sr.RoutedTo, text(res))
	}
	res = call(t, cs, "search_contracts", map[string]any{"query": named, "k": 8, "no_route": true}, &sr)
	others := 0
	for _, p := range sr.Passages {
		if p.DocName != "supply-agreement.docx" {
			others++
		}
	}
	if len(sr.RoutedTo) != 0 || others == 0 {
		t.Errorf("no_route search: routed_to %+v, %d passages from other documents", sr.RoutedTo, others)
	}
	// explain adds the plan and changes no passage; a stage's switch
	// shows in it as off.
	var plain, ex SearchOutput
	call(t, cs, "search_contracts", map[string]any{"query": named, "k": 8}, &plain)
	res = call(t, cs, "search_contracts", map[string]any{"query": named, "k": 8, "explain": true}, &ex)
	if ex.Explain == nil || len(ex.Explain.Hits) != len(ex.Passages) || !strings.Contains(text(res), "Plan for") || !strings.Contains(text(res), "words searched:") {
		t.Errorf("explain: %+v\n%s", ex.Explain, text(res))
	} else if plain.Explain != nil || len(plain.Passages) != len(ex.Passages) {
		t.Errorf("explain changed the result: %d passages, %d with explain (plan without explain: %v)", len(plain.Passages), len(ex.Passages), plain.Explain != nil)
	} else {
		for i := range ex.Passages {
			if ex.Passages[i].Span != plain.Passages[i].Span || ex.Passages[i].DocID != plain.Passages[i].DocID {
				t.Errorf("explain changed passage %d: %+v, without %+v", i+1, ex.Passages[i].Span, plain.Passages[i].Span)
			}
		}
	}
	res = call(t, cs, "search_contracts", map[string]any{"query": named, "k": 8, "explain": true, "no_headings": true, "no_framing": true}, &ex)
	if ex.Explain == nil || !strings.Contains(text(res), "switched off: framing, headings") {
		t.Errorf("explain with no_headings, no_framing:\n%s", text(res))
	}
	// A provision question: the detectors' clause first where a contract
	// has it, "not found" where it has not.
	res = call(t, cs, "search_contracts", map[string]any{"query": "Can the customer terminate for convenience?", "doc": "master-services-agreement.txt", "k": 3}, &sr)
	if len(sr.Passages) == 0 || sr.Passages[0].Provision != "Termination for Convenience" || !strings.Contains(text(res), "review detectors' Termination for Convenience passage") {
		t.Errorf("provision first: %+v\n%s", sr.Passages, text(res))
	}
	res = call(t, cs, "search_contracts", map[string]any{"query": "Can the customer terminate for convenience?", "doc": "mutual-nda.md", "k": 3}, &sr)
	if len(sr.NotFound) != 1 || sr.NotFound[0].DocName != "mutual-nda.md" || !strings.Contains(text(res), "Not found: the review detectors find no Termination for Convenience provision in mutual-nda.md") {
		t.Errorf("not found: %+v\n%s", sr.NotFound, text(res))
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
	if len(rl.Resources) != len(samples)+1 || rl.Resources[len(samples)].URI != "pakton://alpha/graph" {
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
	if err != nil || len(tl.ResourceTemplates) != 3 {
		t.Errorf("resources/templates/list: %v %+v", err, tl)
	}
	// The document's graph and the collection's.
	msa := byName["master-services-agreement.txt"]
	rr, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: msa.URI + "/graph"})
	if err != nil {
		t.Fatal(err)
	}
	var dg struct {
		Name        string
		Definitions []struct{ Term, Path string }
		References  []struct {
			Label      string
			Target     *int
			TargetPath string `json:"target_path"`
		}
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &dg); err != nil || rr.Contents[0].MIMEType != "application/json" ||
		dg.Name != "master-services-agreement.txt" || len(dg.Definitions) < 10 || len(dg.References) < 20 || dg.References[0].Target == nil || dg.References[0].TargetPath == "" {
		t.Errorf("document graph resource: %v %.300s", err, rr.Contents[0].Text)
	}
	rr, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "pakton://alpha/graph"})
	var cg struct{ Nodes, Edges []json.RawMessage }
	if err != nil || json.Unmarshal([]byte(rr.Contents[0].Text), &cg) != nil || len(cg.Nodes) < 100 || len(cg.Edges) < 100 {
		t.Errorf("collection graph resource: %v, %d nodes, %d edges", err, len(cg.Nodes), len(cg.Edges))
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "pakton://alpha/documents/0000000000000000"}); err == nil {
		t.Error("reading a missing document succeeded")
	}
}

// TestBadInput checks that every invalid argument is a tool error that says
// what is wrong, not a protocol failure or a panic.
func TestBadInput(t *testing.T) {
	cs := connect(t, NewServer(NewStoreBackend(testService(t, testStore(t), collection.Models{}), "alpha")))
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
	cs := connect(t, NewServer(NewStoreBackend(testService(t, st, collection.Models{}), "alpha")))
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
	st, err := wvtest.OpenStore(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := ingestInto(st, "default", []string{filepath.Join("..", "..", "examples", "contracts", "mutual-nda.md")}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, NewServer(NewStoreBackend(testService(t, st, collection.Models{}), "default")))
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

// keyAuth stands in for the API server's authorization: a bearer key maps
// to one collection, bound to the request with WithCollection; a request
// without a known key never reaches the MCP handler.
func keyAuth(keys map[string]string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := keys[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if !ok {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithCollection(r.Context(), name)))
	})
}

// bearer adds an Authorization header to every request.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

func connectHTTP(t *testing.T, url, key string) *mcpsdk.ClientSession {
	t.Helper()
	tr := &mcpsdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}}}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPIsolation serves two collections through one HTTPHandler behind
// per-collection keys: a session bound to one collection sees only its
// documents, resources, search hits and reports, and cannot use a session
// opened under the other key.
func TestHTTPIsolation(t *testing.T) {
	st := testStore(t)
	h := keyAuth(map[string]string{"key-a": "alpha", "key-b": "beta"}, HTTPHandler(NewStoreBackend(testService(t, st, collection.Models{}), "")))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // after the sessions' cleanups, which end their streams
	ctx := context.Background()
	a := connectHTTP(t, ts.URL, "key-a")
	b := connectHTTP(t, ts.URL, "key-b")

	var la, lb ListOutput
	call(t, a, "list_documents", nil, &la)
	call(t, b, "list_documents", nil, &lb)
	if la.Collection != "alpha" || len(la.Documents) != len(samples) || lb.Collection != "beta" || len(lb.Documents) != 1 {
		t.Fatalf("list_documents: A %+v, B %+v", la, lb)
	}
	betaDoc := lb.Documents[0]

	// A cannot read B's resource, even by its exact URI, nor name B's
	// document to a tool.
	if _, err := a.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: betaDoc.URI}); err == nil {
		t.Error("A read B's document resource")
	}
	if _, err := a.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "pakton://alpha/documents/" + betaDoc.ID}); err == nil {
		t.Error("A read B's document under its own collection's URI")
	}
	for _, uri := range []string{betaDoc.URI + "/graph", "pakton://beta/graph", "pakton://alpha/documents/" + betaDoc.ID + "/graph"} {
		if _, err := a.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("A read %s", uri)
		}
	}
	if rr, err := b.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: betaDoc.URI}); err != nil || !strings.Contains(rr.Contents[0].Text, "marigolds") {
		t.Errorf("B reading its own document: %v", err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_clause", map[string]any{"doc": betaDoc.ID}},
		{"get_clause", map[string]any{"doc": betaDoc.URI}},
		{"search_contracts", map[string]any{"query": "rent", "doc": betaDoc.Name}},
		{"ask", map[string]any{"question": "what is the rent", "doc": betaDoc.ID}},
		{"review_collection", map[string]any{"docs": []string{betaDoc.ID}, "provisions": []string{"Governing Law"}}},
	} {
		if res := call(t, a, tc.tool, tc.args, nil); !res.IsError || strings.Contains(text(res), "marigolds") {
			t.Errorf("A %s %v: %s", tc.tool, tc.args, text(res))
		}
	}
	// A review of A's collection holds only A's contracts.
	var rv ReviewOutput
	if res := call(t, a, "review_collection", map[string]any{"provisions": []string{"Governing Law"}}, &rv); res.IsError || rv.Collection != "alpha" || len(rv.Rows) != len(samples) {
		t.Errorf("A review_collection: %s %+v", text(res), rv)
	}
	for _, r := range rv.Rows {
		if r.DocID == betaDoc.ID || !strings.HasPrefix(r.URI, "pakton://alpha/") {
			t.Errorf("A's review holds %s (%s)", r.DocName, r.URI)
		}
	}
	rl, err := a.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rl.Resources {
		if !strings.HasPrefix(r.URI, "pakton://alpha/") {
			t.Errorf("A lists %s", r.URI)
		}
	}

	// Searches and reports stay within the bound collection, concurrently.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, name, other := a, "alpha", betaDoc.ID
			if i%2 == 1 {
				cs, name, other = b, "beta", la.Documents[0].ID
			}
			var sr SearchOutput
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "search_contracts", Arguments: map[string]any{"query": "zanzibar helicopter rent marigolds termination", "k": 50}})
			if err != nil || res.IsError {
				t.Errorf("%s search: %v %v", name, err, res)
				return
			}
			data, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(data, &sr)
			if sr.Collection != name || len(sr.Passages) == 0 {
				t.Errorf("%s search: %+v", name, sr)
			}
			for _, p := range sr.Passages {
				if p.DocID == other || !strings.HasPrefix(p.URI, "pakton://"+name+"/") {
					t.Errorf("%s search returned %s (%s)", name, p.DocName, p.URI)
				}
			}
		}()
	}
	wg.Wait()
	var rep report.Report
	call(t, a, "ask", map[string]any{"question": "what rent is payable for the zanzibar helicopter in marigolds?"}, &rep)
	for _, s := range rep.Sources {
		if s.DocID == betaDoc.ID || strings.Contains(s.Quote, "marigolds") {
			t.Errorf("A's report cites B: %+v", s)
		}
	}

	// A session opened under key A is unknown when presented with key B.
	if sid := a.ID(); sid != "" {
		body := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"list_documents","arguments":{}}}`
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer key-b")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", a.InitializeResult().ProtocolVersion)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || strings.Contains(string(data), "supply-agreement") {
			t.Errorf("A's session with B's key: %d %s", resp.StatusCode, data)
		}
	} else {
		t.Log("sessionless protocol: no session id to replay")
	}

	// A request the server did not bind to a collection sees nothing.
	unbound := httptest.NewServer(HTTPHandler(NewStoreBackend(testService(t, st, collection.Models{}), "")))
	defer unbound.Close()
	resp, err := http.Post(unbound.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("unbound request: %d", resp.StatusCode)
	}
	// A collection that does not exist is 404.
	missing := httptest.NewServer(keyAuth(map[string]string{"k": "gamma"}, HTTPHandler(NewStoreBackend(testService(t, st, collection.Models{}), ""))))
	defer missing.Close()
	req, _ := http.NewRequest("POST", missing.URL, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("missing collection: %d", resp.StatusCode)
	}
}

// TestAskAgents asks through the scripted model server: the agents' report
// comes back as Markdown and JSON, and their steps as progress
// notifications to a client that asked for them.
func TestAskAgents(t *testing.T) {
	st := testStore(t)
	sys := llmtest.SystemContains
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "archivist", Match: sys("You are the Archivist"), JSON: map[string]any{"query": "Can the customer terminate the master services agreement for convenience?", "context": "", "instructions": "", "documents": []string{"master-services-agreement.txt"}, "clarifying_question": ""}},
		llmtest.Turn{Name: "search", Match: llmtest.All(sys("You are the Researcher"), func(r *llmtest.Request) bool { return !llmtest.LastIsTool()(r) }), ToolCalls: []llmtest.ToolCall{{Name: "search_contract", Arguments: `{"query":"terminate for convenience"}`}}},
		llmtest.Turn{Name: "answer", Match: llmtest.All(sys("You are the Researcher"), llmtest.LastIsTool()), JSON: map[string]any{"answer": "Yes, on sixty days' notice.", "evidence": []any{}}},
		llmtest.Turn{Name: "writer", Match: sys("You are the legal writer"), JSON: map[string]any{"title": "Termination for convenience", "summary": "s", "reasoning": "The Customer may terminate for convenience [1].", "answer": "Yes [1].", "gaps": "-",
			"sources": []map[string]any{{"n": 1, "evidence_id": "E1", "quote": "not less than sixty (60) days' prior written notice"}}}},
	)
	models, err := agent.ModelsFrom(llm.Roles{Default: llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"}})
	if err != nil {
		t.Fatal(err)
	}
	server := NewServer(NewStoreBackend(testService(t, st, collection.Models{Agents: &models}), "alpha"))
	ct, stt := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var mu sync.Mutex
	var steps []string
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, &mcpsdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
			mu.Lock()
			steps = append(steps, req.Params.Message)
			mu.Unlock()
		},
	})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcpsdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "can the customer terminate for convenience?", "max_turns": 1}}
	params.SetProgressToken("ask-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %s", err, text(res))
	}
	out := text(res)
	for _, want := range []string{"# Termination for convenience", "not less than sixty (60) days' prior written notice"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "EVIDENCE REPORT") {
		t.Error("an agents' report is labelled an evidence report")
	}
	var rep report.Report
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &rep); err != nil || rep.Mode != report.ModeAgents || len(rep.Sources) != 1 || rep.Sources[0].Status != report.StatusVerified {
		t.Errorf("structured report: %v %+v", err, rep)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(steps) == 0 || !strings.Contains(strings.Join(steps, "\n"), "Archivist") {
		t.Errorf("progress notifications: %q", steps)
	}
}

// testService is a collection service over st for one test, closed with it.
func testService(t testing.TB, st *store.Store, m collection.Models) *collection.Service {
	svc := collection.New(st, collection.Options{Models: m, WaitForReload: true})
	t.Cleanup(svc.Close)
	return svc
}

// progressLog records the progress notifications a client receives.
type progressLog struct {
	mu          sync.Mutex
	steps       []string
	last, total float64
}

func (p *progressLog) handle(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, req.Params.Message)
	p.last, p.total = req.Params.Progress, req.Params.Total
}

// settled returns the messages and the last progress of total once the
// progress has reached its total, or after 10 s: notifications reach the
// client's handler on their own goroutine, so the last may land just after
// the call's result.
func (p *progressLog) settled() (steps []string, last, total float64) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		p.mu.Lock()
		done := len(p.steps) > 0 && p.last == p.total
		steps, last, total = slices.Clone(p.steps), p.last, p.total
		p.mu.Unlock()
		if done || time.Now().After(deadline) {
			return steps, last, total
		}
	}
}

// connectWithProgress connects a client that records progress
// notifications to a server over the store's "alpha" collection, both
// closed when the test ends.
func connectWithProgress(t *testing.T, st *store.Store) (*mcpsdk.ClientSession, *progressLog) {
	t.Helper()
	server := NewServer(NewStoreBackend(testService(t, st, collection.Models{}), "alpha"))
	ct, stt := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	progress := &progressLog{}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, &mcpsdk.ClientOptions{ProgressNotificationHandler: progress.handle})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, progress
}
