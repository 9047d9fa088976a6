// Command pakton answers questions about legal agreements with exact, cited
// evidence. Run "pakton help" for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"demo", "ingest the bundled sample contracts into a temporary store and answer sample questions", runDemo},
		{"ingest", "add contracts (files or directories) to a collection", runIngest},
		{"search", "find the provisions that answer a question", runSearch},
		{"ask", "answer a question with a cited, verified report (agents with a model server; evidence without)", runAsk},
		{"review", "review every contract of a collection against a playbook of provisions (CSV, XLSX, JSON, HTML)", runReview},
		{"deadlines", "list the deal room's deadlines: expiry, renewal, last day for notice of non-renewal, options (--within 90d, --ics FILE)", runDeadlines},
		{"docs", "list, show or remove documents and collections; docs show NAME prints what was extracted", runDocs},
		{"compare", "compare a contract with a template or another version clause by clause", runCompare},
		{"tree", "print the clause tree of a file", runTree},
		{"graph", "print the defined terms and cross-references of a collection or a document", runGraph},
		{"mcp", "serve a collection to assistants over the Model Context Protocol (stdio)", runMCP},
		{"serve", "serve the HTTP API, web app and MCP endpoint (docs/API.md)", runServe},
		{"keys", "create, list or revoke API keys for serve", runKeys},
		{"migrate", "copy collections between stores (e.g. to a Weaviate cluster) without re-parsing, and verify them", runMigrate},
		{"eval", "measure pakton on benchmarks: eval legalbench (retrieval), eval contractnli (NLI labels, needs a model)", runEval},
	}
}

func usage() {
	fmt.Fprintf(os.Stderr, "pakton — question answering and review over legal agreements\n\nUsage: pakton COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(os.Stderr, "\nRun \"pakton COMMAND -h\" for a command's flags.\n")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 || os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	name := os.Args[1]
	for _, c := range commands {
		if c.name == name {
			err := c.run(ctx, os.Args[2:])
			if err == nil {
				return
			}
			if errors.Is(err, flag.ErrHelp) {
				os.Exit(2)
			}
			fmt.Fprintf(os.Stderr, "pakton %s: %v\n", name, err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "pakton: unknown command %q\n\n", name)
	usage()
	os.Exit(2)
}
