package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/mcp"
)

// mcpTransport is the transport "pakton mcp" serves on; tests replace it.
var mcpTransport = func() mcpsdk.Transport { return &mcpsdk.StdioTransport{} }

func runMCP(ctx context.Context, args []string) error {
	fs, g := newFlags("mcp", "mcp [flags]\n\n"+
		"Serves one collection to an assistant over the Model Context Protocol on stdin/stdout:\n"+
		"tools search_contracts, get_clause, list_documents and ask, and every document as a resource.\n"+
		"Logs go to stderr; stdout carries only the protocol. See docs/MCP.md.")
	evidence := fs.Bool("evidence", false, "answer ask with evidence reports even when a model is configured")
	mf := addModelFlags(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	// stdout is the protocol: anything else written there breaks the client.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))

	roles, err := mf.roles()
	if err != nil {
		return fmt.Errorf("%w for evidence reports", err)
	}
	st, err := g.openCollection(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	sm, err := envSearchModels()
	if err != nil {
		return err
	}
	m := collection.Models{Search: sm}
	if roles.Configured() && !*evidence {
		models, err := agent.ModelsFrom(roles)
		if err != nil {
			return err
		}
		ext, closeExt, err := externalTools(ctx, *mf.path)
		if err != nil {
			return err
		}
		defer closeExt()
		m.Agents, m.External = &models, ext
		slog.Info("mcp: ask uses the agents", "model", roles.Default.Model)
	} else {
		slog.Info("mcp: no language model configured; ask returns evidence reports")
	}
	slog.Info("mcp: serving on stdio", "store", st.Location(), "collection", g.collection)
	svc := collection.New(st, collection.Options{Models: m, Log: slog.Default(), WaitForReload: true})
	defer svc.Close()
	srv := mcp.NewServer(mcp.NewStoreBackend(svc, g.collection))
	err = srv.Run(ctx, mcpTransport())
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcpsdk.ErrConnectionClosed) {
		return nil
	}
	return err
}
