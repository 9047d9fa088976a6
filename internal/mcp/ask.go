package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/report"
)

// AskInput are the arguments of ask.
type AskInput struct {
	Question     string `json:"question" jsonschema:"the legal question, e.g. Can the supplier assign the agreement to an affiliate without consent?"`
	Context      string `json:"context,omitempty" jsonschema:"background the answer should take into account: who is asking, the deal, the facts"`
	Instructions string `json:"instructions,omitempty" jsonschema:"instructions for the report: audience, focus, form"`
	Doc          string `json:"doc,omitempty" jsonschema:"answer from this document only: its id or name from list_documents"`
	MaxTurns     int    `json:"max_turns,omitempty" jsonschema:"most follow-up questions the agents ask themselves, 1 to 10 (default 5); ignored for evidence reports"`
	NoRoute      bool   `json:"no_route,omitempty" jsonschema:"search every document even when the question seems to name a contract"`
}

// evidencePreamble opens the text of an evidence report, so an assistant
// cannot mistake quoted provisions for an answer.
const evidencePreamble = "EVIDENCE REPORT — no language model is configured on this pakton server, so nothing below has been interpreted: " +
	"these are the provisions whose wording best matches the question, quoted verbatim. Read them and reason about them yourself, " +
	"and tell the user the answer is yours, not pakton's.\n\n"

func (h *handlers) ask(ctx context.Context, req *mcpsdk.CallToolRequest, in AskInput) (*mcpsdk.CallToolResult, *report.Report, error) {
	q := strings.TrimSpace(in.Question)
	switch {
	case q == "":
		return nil, nil, errors.New("question is empty")
	case utf8.RuneCountInString(q) > MaxQuery:
		return nil, nil, fmt.Errorf("question is longer than %d characters", MaxQuery)
	case utf8.RuneCountInString(in.Context) > MaxContext:
		return nil, nil, fmt.Errorf("context is longer than %d characters", MaxContext)
	case utf8.RuneCountInString(in.Instructions) > MaxContext:
		return nil, nil, fmt.Errorf("instructions are longer than %d characters", MaxContext)
	case in.MaxTurns < 0 || in.MaxTurns > MaxTurns:
		return nil, nil, fmt.Errorf("max_turns = %d: want 1 to %d", in.MaxTurns, MaxTurns)
	}
	c, err := h.corpus(ctx)
	if err != nil {
		return nil, nil, err
	}
	if c.Index.Docs() == 0 {
		return nil, nil, fmt.Errorf("collection %q holds no documents yet", c.Collection)
	}
	areq := agent.Request{Question: q, Context: strings.TrimSpace(in.Context), Instructions: strings.TrimSpace(in.Instructions), NoRoute: in.NoRoute}
	if in.Doc != "" {
		info, err := findDoc(ctx, c, in.Doc)
		if err != nil {
			return nil, nil, err
		}
		areq.Docs = []string{info.ID}
	}
	rep, err := h.b.Ask(ctx, agent.NewLibrary(c), areq, AskOptions{MaxTurns: in.MaxTurns, Progress: progressFunc(ctx, req)})
	if rep == nil {
		if err == nil {
			err = errors.New("no report")
		}
		return nil, nil, fmt.Errorf("answering the question: %w", err)
	}
	var b strings.Builder
	if rep.Mode == report.ModeEvidence {
		b.WriteString(evidencePreamble)
	}
	if err != nil {
		fmt.Fprintf(&b, "The agents stopped early (%v); below is their best verified draft.\n\n", err)
	}
	if werr := report.WriteMarkdown(&b, rep); werr != nil {
		return nil, nil, fmt.Errorf("rendering the report: %w", werr)
	}
	return textResult(b.String()), rep, nil
}

// progressFunc forwards the agents' steps to the client as progress
// notifications when the client asked for them (a progress token), and
// discards them otherwise.
func progressFunc(ctx context.Context, req *mcpsdk.CallToolRequest) func(string) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	n := 0
	return func(msg string) {
		n++
		// A client that went away must not stop the agents.
		_ = req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
	}
}
