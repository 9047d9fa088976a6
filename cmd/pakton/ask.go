package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/tool"
	"github.com/pakton/pakton/internal/usecase"
)

// stdin is a variable so tests can answer clarifying questions.
var stdin io.Reader = os.Stdin

// stdinIsTerminal reports whether clarifying questions can be asked.
var stdinIsTerminal = func() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func runAsk(ctx context.Context, args []string) error {
	fs, g := newFlags("ask", "ask [flags] QUESTION\n\n"+
		"Answers a question about the contracts of a collection with a cited, verified report.\n"+
		"With a model server configured, the Archivist, Researcher and Interrogator agents write it;\n"+
		"without one, the report quotes the provisions that best match the question and interprets nothing.")
	var docs stringList
	fs.Var(&docs, "doc", "answer from this document: id or name (repeatable)")
	maxTurns := fs.Int("max-turns", agent.DefaultMaxTurns, "most questions the Interrogator asks the Researcher")
	bg := fs.String("context", "", "background the answer should take into account")
	instr := fs.String("instructions", "", "instructions for the report (audience, focus, form)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	noClarify := fs.Bool("no-clarify", false, "never ask a clarifying question; proceed with the question as given")
	evidence := fs.Bool("evidence", false, "print the evidence report even when a model is configured")
	k := fs.Int("k", agent.EvidenceK, "provisions quoted by an evidence report")
	noRoute := fs.Bool("no-route", false, "search every document even when the question seems to name a contract")
	withCorr := fs.Bool("include-correspondence", false, "count cover e-mails, letters and indexes among the contracts a deal-room question is answered for")
	explain := fs.Bool("explain", false, "print on stderr the plan of the search for the question (routing, words dropped and added, the provision asked about, how each passage was scored)")
	mf := addModelFlags(fs)
	question, err := textArg(fs, args, "QUESTION")
	if err != nil {
		return err
	}
	if *maxTurns <= 0 {
		return fmt.Errorf("--max-turns %d: want a positive number", *maxTurns)
	}
	roles, err := mf.roles()
	if err != nil && !*evidence {
		return fmt.Errorf("%w for an evidence report", err)
	}
	useModel := roles.Configured() && !*evidence

	st, err := g.openCollection(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	req := agent.Request{Question: question, Context: *bg, Instructions: *instr, NoRoute: *noRoute, IncludeCorrespondence: *withCorr}
	if req.Docs, err = docIDs(ctx, st, g.collection, docs); err != nil {
		return err
	}
	svc, sn, err := openSnapshot(ctx, st, g.collection, collection.Models{})
	if err != nil {
		return err
	}
	defer svc.Close()
	lib := sn.Library()
	if *explain {
		res, err := sn.Search(ctx, search.Query{Text: question, K: *k, Docs: req.Docs, Explain: true, Stages: search.Stages{NoRoute: req.NoRoute}})
		if err != nil {
			return err
		}
		res.Explain.WriteText(stderr, sn.Index.DocName)
		fmt.Fprintln(stderr)
	}
	progress := func(msg string) { fmt.Fprintf(stderr, "ask: %s\n", msg) }
	lib.Progress = progress

	var clarifier agent.Clarifier
	if !*noClarify && stdinIsTerminal() {
		clarifier = &termClarifier{in: bufio.NewReader(stdin), out: stderr}
	}
	var asking usecase.Asking
	if useModel {
		ext, closeExt, err := externalTools(ctx, *mf.path)
		if err != nil {
			return err
		}
		defer closeExt()
		models, err := agent.ModelsFrom(roles)
		if err != nil {
			return err
		}
		asking = usecase.Asking{Models: &models, External: ext}
	}
	// A contract name that fits several contracts is asked back on a
	// terminal; elsewhere every candidate is searched and the report says
	// how to choose (--doc).
	rep, runErr := asking.Answer(ctx, lib, usecase.Question{Request: req, Route: true, K: *k, MaxTurns: *maxTurns,
		Progress: progress, Announce: progress, Clarifier: clarifier})
	if rep == nil {
		return runErr
	}
	if *asJSON {
		err = report.WriteJSON(stdout, rep)
	} else {
		err = report.WriteMarkdown(stdout, rep)
	}
	if err != nil {
		return err
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("interrupted: the partial report above is the best draft so far")
		}
		return fmt.Errorf("stopped early (the partial report above is the best draft so far): %w", runErr)
	}
	return nil
}

// externalTools opens the external tools the user configured (none by
// default), from the "tools" section of the same config file the models
// come from.
func externalTools(ctx context.Context, path string) ([]tool.Tool, func() error, error) {
	if path == "" {
		path = tool.ConfigPath()
	}
	cfg, err := tool.LoadExternalConfig(path, os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	return tool.External(ctx, cfg)
}

// termClarifier asks the user a clarifying question on the terminal.
type termClarifier struct {
	in  *bufio.Reader
	out io.Writer
}

// Choose implements agent.Chooser: the choices numbered, the answer a
// number (or words of one choice; empty: none in particular).
func (c *termClarifier) Choose(ctx context.Context, question string, choices []agent.Choice) (string, error) {
	fmt.Fprintf(c.out, "\n%s\n", question)
	for i, ch := range choices {
		fmt.Fprintf(c.out, "  %d. %s\n", i+1, ch.Label)
	}
	fmt.Fprint(c.out, "> ")
	line, err := c.in.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimSpace(line), ctx.Err()
}

// Clarify implements agent.Clarifier.
func (c *termClarifier) Clarify(ctx context.Context, question string) (string, error) {
	fmt.Fprintf(c.out, "\n%s\n> ", question)
	line, err := c.in.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimSpace(line), ctx.Err()
}
