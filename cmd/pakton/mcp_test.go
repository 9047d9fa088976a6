package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/mcp"
)

// The test binary doubles as the pakton command when this variable is set,
// so TestMCPStdio can run "pakton mcp" as a real child process.
const envRunMain = "PAKTON_TEST_RUN_MAIN"

func init() {
	if os.Getenv(envRunMain) == "1" {
		main()
		os.Exit(0)
	}
}

// mcpStore ingests the sample contracts into a fresh store and returns its
// directory.
func mcpStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "deals")
	noModel(t)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "store")
}

// TestMCPCommand runs "pakton mcp" in process over the in-memory transport:
// the command's wiring (store, collection, no model) and a clean exit when
// the client goes away, with nothing written to stdout.
func TestMCPCommand(t *testing.T) {
	mcpStore(t)
	ct, stt := mcpsdk.NewInMemoryTransports()
	mcpTransport = func() mcpsdk.Transport { return stt }
	defer func() { mcpTransport = func() mcpsdk.Transport { return &mcpsdk.StdioTransport{} } }()
	var out, errOut bytes.Buffer
	stdout, stderr = &out, &errOut
	defer func() { stdout, stderr = os.Stdout, os.Stderr }()

	done := make(chan error, 1)
	go func() { done <- runMCP(context.Background(), nil) }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "how long does confidentiality survive", "doc": "mutual-nda.md"}})
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %+v", err, res)
	}
	if txt := res.Content[0].(*mcpsdk.TextContent).Text; !strings.HasPrefix(txt, "EVIDENCE REPORT") {
		t.Errorf("ask without a model:\n%s", txt)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("pakton mcp: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("pakton mcp wrote to stdout: %q", out.String())
	}
	for _, want := range []string{"ask returns evidence reports", "collection=deals"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, errOut.String())
		}
	}

	if _, _, err := capture(t, runMCP, "--collection", "no-such"); err == nil || !strings.Contains(err.Error(), "no-such") {
		t.Errorf("missing collection: %v", err)
	}
}

// TestMCPStdio starts "pakton mcp" as a child process and talks to it over
// its stdin and stdout with the SDK's command transport, as a desktop chat
// client does.
func TestMCPStdio(t *testing.T) {
	dir := mcpStore(t)
	cmd := exec.Command(os.Args[0], "mcp", "--store", dir, "--collection", "deals")
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	ctx := context.Background()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, nil).Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, errOut.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(mcp.Tools) {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "search_contracts", Arguments: map[string]any{"query": "terminate for convenience", "k": 2}})
	if err != nil || res.IsError {
		t.Fatalf("search_contracts: %v %+v", err, res)
	}
	if txt := res.Content[0].(*mcpsdk.TextContent).Text; !strings.Contains(txt, "master-services-agreement.txt") {
		t.Errorf("search_contracts:\n%s", txt)
	}
	rl, err := cs.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) != 6 || !strings.HasPrefix(rl.Resources[0].URI, "pakton://deals/documents/") || rl.Resources[5].URI != "pakton://deals/graph" {
		t.Fatalf("resources/list: %v %+v", err, rl)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !strings.Contains(errOut.String(), "serving on stdio") {
		t.Errorf("stderr: %s", errOut.String())
	}
}
