package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/mcp"
	"github.com/pakton/pakton/internal/report"
)

// exampleFiles returns the bundled sample contracts (text, Markdown, HTML,
// DOCX), which also exercises upload sniffing of every text format.
func exampleFiles(t *testing.T) []file {
	t.Helper()
	ents, err := examples.FS.ReadDir("contracts")
	if err != nil {
		t.Fatal(err)
	}
	var out []file
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := examples.FS.ReadFile("contracts/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, file{e.Name(), string(b)})
	}
	return out
}

// TestAskAgentsSSE answers a question with the agents through the scripted
// model server and checks the event stream: progress lines naming the
// agents' steps, a source event per verified source, then the report.
func TestAskAgentsSSE(t *testing.T) {
	sys := llmtest.SystemContains
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "archivist", Match: sys("You are the Archivist"), JSON: map[string]any{"query": "Can the customer terminate the master services agreement for convenience?", "context": "", "instructions": "", "documents": []string{"master-services-agreement.txt"}, "clarifying_question": ""}},
		llmtest.Turn{Name: "search", Match: llmtest.All(sys("You are the Researcher"), func(r *llmtest.Request) bool { return !llmtest.LastIsTool()(r) }), ToolCalls: []llmtest.ToolCall{{Name: "search_contract", Arguments: `{"query":"terminate for convenience"}`}}},
		llmtest.Turn{Name: "answer", Match: llmtest.All(sys("You are the Researcher"), llmtest.LastIsTool()), JSON: map[string]any{"answer": "Yes, on sixty days' notice.", "evidence": []any{}}},
		llmtest.Turn{Name: "writer", Match: sys("You are the legal writer"), JSON: map[string]any{"title": "Termination for convenience", "summary": "s", "reasoning": "The Customer may terminate for convenience [1].", "answer": "Yes [1].", "gaps": "-",
			"sources": []map[string]any{{"n": 1, "evidence_id": "E1", "quote": "not less than sixty (60) days' prior written notice"}}}},
	)
	e := newEnv(t, func(c *Config) {
		c.Models = llm.Roles{Default: llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"}}
	})
	j := e.ingest("msa", e.admin, exampleFiles(t)...)
	if len(j.Results) != 5 {
		t.Fatalf("job %+v", j)
	}
	for _, r := range j.Results {
		if r.Status != "added" {
			t.Errorf("%+v", r)
		}
	}
	code, body := e.json("POST", "/api/v1/collections/msa/ask", e.admin, map[string]any{"question": "can the customer terminate for convenience?", "max_turns": 1})
	if code != 200 {
		t.Fatalf("ask %d %s", code, body)
	}
	var progress []string
	var rep report.Report
	var sources int
	for _, ev := range parseSSE(t, string(body)) {
		switch ev.Event {
		case "progress":
			progress = append(progress, decode[progressEvent](t, []byte(ev.Data)).Message)
		case "source":
			sources++
		case "report":
			rep = decode[struct{ Report report.Report }](t, []byte(ev.Data)).Report
		case "error":
			t.Errorf("error event %s", ev.Data)
		}
	}
	all := strings.Join(progress, "\n")
	for _, want := range []string{"Archivist: reading the request", "question 1/1", "Researcher: search_contract", "Writer: refining"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
	if rep.Mode != report.ModeAgents || rep.Title != "Termination for convenience" || sources != 1 || rep.Verification.Verified != 1 {
		t.Errorf("report %+v (%d source events)", rep, sources)
	}
	// A question for evidence only never calls the model (the script has no
	// turns left).
	code, body = e.json("POST", "/api/v1/collections/msa/ask", e.admin, map[string]any{"question": "termination for convenience notice", "evidence": true})
	if code != 200 || !strings.Contains(string(body), `"mode":"evidence"`) {
		t.Errorf("evidence ask: %d %.300s", code, body)
	}
	if code, _ = e.json("POST", "/api/v1/collections/msa/ask", e.admin, map[string]any{"question": " "}); code != 400 {
		t.Errorf("empty question: %d", code)
	}
	if code, _ = e.json("POST", "/api/v1/collections/msa/ask", e.admin, map[string]any{"question": "x", "bogus": 1}); code != 400 {
		t.Errorf("unknown field: %d", code)
	}
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

// TestMCPBehindAuth: the MCP endpoint needs a key, and a collection key's
// session sees only its own collection.
func TestMCPBehindAuth(t *testing.T) {
	var e *env
	e = newEnv(t, func(c *Config) {
		// One collection service for the API and /mcp, as pakton serve has.
		c.Collections = collection.New(c.Store, collection.Options{})
		t.Cleanup(c.Collections.Close)
		c.MCP = mcp.HTTPHandler(mcp.NewStoreBackend(c.Collections, ""))
	})
	keyA, keyB := e.key("alpha"), e.key("bravo")
	e.ingest("alpha", keyA, file{"a.txt", contract("Alpha Ltd", "three years")})
	e.ingest("bravo", keyB, file{"b.txt", contract("Bravo Inc", "one year")})
	if code, _ := e.do("POST", "/mcp", "", strings.NewReader("{}"), "application/json"); code != 401 {
		t.Errorf("MCP without a key: %d", code)
	}
	tr := &mcpsdk.StreamableClientTransport{Endpoint: e.ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{keyB, http.DefaultTransport}}}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "list_documents", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res)
	if !strings.Contains(string(out), "b.txt") || strings.Contains(string(out), "a.txt") {
		t.Errorf("bravo's MCP session lists %s", out)
	}
}

// TestSearchProvisions: a question about a playbook provision puts the
// review detectors' clause first where a contract has it (hit.provision),
// says "not found" where it has not (not_found), and no_provisions ranks by
// words only.
func TestSearchProvisions(t *testing.T) {
	e := newEnv(t, nil)
	e.ingest("ex", e.admin, exampleFiles(t)...)
	q := "Can the customer terminate for convenience?"
	code, body := e.json("POST", "/api/v1/collections/ex/search", e.admin, map[string]any{"query": q, "k": 3, "docs": []string{"master-services-agreement.txt", "mutual-nda.md"}})
	res := decode[collection.Response](t, body)
	if code != 200 || len(res.Hits) == 0 || res.Hits[0].Provision != "Termination for Convenience" || res.Hits[0].DocName != "master-services-agreement.txt" || res.Hits[0].Score > 1 {
		t.Fatalf("provision first: %d %s", code, body)
	}
	if len(res.NotFound) != 1 || res.NotFound[0].DocName != "mutual-nda.md" || res.NotFound[0].Provision != "Termination for Convenience" {
		t.Errorf("not found: %+v", res.NotFound)
	}
	code, body = e.json("POST", "/api/v1/collections/ex/search", e.admin, map[string]any{"query": q, "k": 3, "docs": []string{"master-services-agreement.txt", "mutual-nda.md"}, "no_provisions": true})
	res = decode[collection.Response](t, body)
	if code != 200 || len(res.Hits) == 0 || len(res.NotFound) != 0 {
		t.Fatalf("no_provisions: %d %s", code, body)
	}
	for _, h := range res.Hits {
		if h.Provision != "" {
			t.Errorf("no_provisions returned a detectors' passage: %+v", h)
		}
	}
}
