package tool

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newTestMCPServer is a real MCP server built with the SDK: a lookup tool,
// a tool whose handler fails, a tool that reports IsError itself, and a
// tool whose name needs sanitizing.
func newTestMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm-test", Version: "1"}, nil)
	type lookupIn struct {
		Name string `json:"name" jsonschema:"the party's name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup_party", Description: "Look up a contract party in the CRM."},
		func(_ context.Context, _ *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Party: " + in.Name},
				&mcp.TextContent{Text: "Jurisdiction: Delaware"},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("CRM database is offline")
		})
	s.AddTool(&mcp.Tool{Name: "reject", Description: "Reports an error result.",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "permission denied for party X"}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "get.notes", Description: "Notes."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no notes"}}}, nil, nil
		})
	return s
}

// mcpToolsByName indexes tools by their pakton name.
func mcpToolsByName(t *testing.T, tools []Tool) map[string]Tool {
	t.Helper()
	m := map[string]Tool{}
	for _, tl := range tools {
		sp := tl.Spec()
		if !json.Valid(sp.Parameters) {
			t.Errorf("%s: parameters are not JSON: %s", sp.Name, sp.Parameters)
		}
		m[sp.Name] = tl
	}
	return m
}

// checkMCPTools runs the common list/call/error checks on crm's tools.
func checkMCPTools(t *testing.T, tools []Tool) {
	t.Helper()
	ctx := context.Background()
	m := mcpToolsByName(t, tools)
	for _, want := range []string{"mcp_crm_lookup_party", "mcp_crm_fail", "mcp_crm_reject", "mcp_crm_get_notes"} {
		if m[want] == nil {
			t.Fatalf("tool %s missing; have %v", want, keys(m))
		}
	}
	lookup := m["mcp_crm_lookup_party"]
	sp := lookup.Spec()
	if !strings.Contains(sp.Description, "Look up a contract party") {
		t.Errorf("description = %q", sp.Description)
	}
	if !strings.Contains(string(sp.Parameters), `"name"`) {
		t.Errorf("input schema lost: %s", sp.Parameters)
	}
	res, err := lookup.Call(ctx, json.RawMessage(`{"name":"Acme Corp"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Party: Acme Corp\nJurisdiction: Delaware" || !res.External {
		t.Errorf("result = %+v", res)
	}
	if res, err := m["mcp_crm_get_notes"].Call(ctx, nil); err != nil || res.Text != "no notes" {
		t.Errorf("no-argument call: %+v, %v", res, err)
	}
	if _, err := m["mcp_crm_fail"].Call(ctx, json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "CRM database is offline") {
		t.Errorf("failing handler: err = %v", err)
	}
	if _, err := m["mcp_crm_reject"].Call(ctx, json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "permission denied for party X") {
		t.Errorf("IsError result: err = %v", err)
	}
	if _, err := lookup.Call(ctx, json.RawMessage(`{"name":`)); err == nil {
		t.Error("invalid JSON arguments accepted")
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestMCPInMemory(t *testing.T) {
	ctx := context.Background()
	srv := newTestMCPServer()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	session, tools, err := connectMCP(ctx, MCPServer{Name: "crm"}, ct, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	checkMCPTools(t, tools)
}

func TestMCPStreamableHTTPThroughExternal(t *testing.T) {
	const token = "s3cret-mcp-token-123"
	t.Setenv("PAKTON_TEST_MCP_TOKEN", token)
	srv := newTestMCPServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	tools, closeFn, err := External(context.Background(), ExternalConfig{MCP: []MCPServer{{
		Name: "crm", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${PAKTON_TEST_MCP_TOKEN}"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	checkMCPTools(t, tools)
	if err := closeFn(); err != nil {
		t.Errorf("close: %v", err)
	}

	// A wrong token: the error names the server and never shows the token.
	t.Setenv("PAKTON_TEST_MCP_TOKEN", "wrong-token-456789")
	_, _, err = External(context.Background(), ExternalConfig{MCP: []MCPServer{{
		Name: "crm", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${PAKTON_TEST_MCP_TOKEN}"},
	}}})
	if err == nil || !strings.Contains(err.Error(), `"crm"`) {
		t.Fatalf("wrong token: err = %v", err)
	}
	if strings.Contains(err.Error(), "wrong-token-456789") {
		t.Errorf("error leaks the token: %v", err)
	}
}

// TestMCPHelperProcess is not a test: TestMCPStdio runs the test binary
// with this test selected to get a real stdio MCP server process.
func TestMCPHelperProcess(t *testing.T) {
	if os.Getenv("PAKTON_TEST_MCP_HELPER") != "1" {
		t.Skip("helper process for TestMCPStdio")
	}
	err := newTestMCPServer().Run(context.Background(), &mcp.StdioTransport{})
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func TestMCPStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	tools, closeFn, err := ConnectMCP(context.Background(), []MCPServer{{
		Name:    "crm",
		Command: exe,
		Args:    []string{"-test.run=^TestMCPHelperProcess$"},
		Env:     map[string]string{"PAKTON_TEST_MCP_HELPER": "1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkMCPTools(t, tools)
	start := time.Now()
	if err := closeFn(); err != nil {
		t.Errorf("close: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("close took %s: the server process did not exit on stdin close", d)
	}
	if err := closeFn(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestMCPServerFailures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		srv  MCPServer
		want []string
	}{
		{"missing command", MCPServer{Name: "ghost", Command: "/nonexistent/pakton-mcp-server"}, []string{`"ghost"`}},
		{"crashing command", MCPServer{Name: "crash", Command: "sh", Args: []string{"-c", "echo boom: no config >&2; exit 3"}}, []string{`"crash"`, "boom: no config"}},
		{"neither", MCPServer{Name: "empty"}, []string{`"empty"`, "command", "url"}},
		{"both", MCPServer{Name: "two", Command: "x", URL: "http://localhost"}, []string{`"two"`, "not both"}},
		{"no name", MCPServer{Command: "x"}, []string{"no name"}},
		{"bad url", MCPServer{Name: "u", URL: "ftp://x"}, []string{"http"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, closeFn, err := ConnectMCP(ctx, []MCPServer{tc.srv})
			if err == nil {
				closeFn()
				t.Fatalf("got %d tools, want an error", len(tools))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if closeFn == nil || closeFn() != nil {
				t.Error("close after failure must be a no-op")
			}
		})
	}
}

func TestMCPToolName(t *testing.T) {
	taken := map[string]bool{}
	if got := mcpToolName("my server", "read.file/v2", taken); got != "mcp_my_server_read_file_v2" {
		t.Errorf("sanitized = %q", got)
	}
	// Same sanitized name from different originals: the second gets a hash.
	second := mcpToolName("my.server", "read file/v2", taken)
	if second == "mcp_my_server_read_file_v2" || !strings.HasPrefix(second, "mcp_my_server_read_file_v2_") {
		t.Errorf("collision = %q", second)
	}
	long := mcpToolName("server", strings.Repeat("x", 100), taken)
	if len(long) > 64 || !strings.HasPrefix(long, "mcp_server_xxx") {
		t.Errorf("long = %q (%d)", long, len(long))
	}
	if other := mcpToolName("server", strings.Repeat("x", 99)+"y", taken); other == long || len(other) > 64 {
		t.Errorf("long names must differ: %q %q", long, other)
	}
	for name := range taken {
		for _, r := range name {
			if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				t.Errorf("%q has %q", name, r)
			}
		}
	}
}
