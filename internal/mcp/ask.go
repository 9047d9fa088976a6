package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/usecase"
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

// askInputError words a refused input of ask for an assistant.
func askInputError(e *usecase.InputError) error {
	switch {
	case e.Empty:
		return errors.New("question is empty")
	case e.Field == "max_turns":
		return fmt.Errorf("max_turns = %d: want 1 to %d", e.Got, e.Limit)
	case e.Field == "instructions":
		return fmt.Errorf("instructions are longer than %d characters", e.Limit)
	}
	return fmt.Errorf("%s is longer than %d characters", e.Field, e.Limit)
}

// evidencePreamble opens the text of an evidence report, so an assistant
// cannot mistake quoted provisions for an answer.
const evidencePreamble = "EVIDENCE REPORT — no language model is configured on this pakton server, so nothing below has been interpreted: " +
	"these are the provisions whose wording best matches the question, quoted verbatim. Read them and reason about them yourself, " +
	"and tell the user the answer is yours, not pakton's.\n\n"

func (h *handlers) ask(ctx context.Context, req *mcpsdk.CallToolRequest, in AskInput) (*mcpsdk.CallToolResult, *report.Report, error) {
	q := strings.TrimSpace(in.Question)
	if ierr := usecase.CheckAsk(q, in.Context, in.Instructions, in.MaxTurns, MaxTurns); ierr != nil {
		return nil, nil, askInputError(ierr)
	}
	c, err := h.corpus(ctx)
	if err != nil {
		return nil, nil, err
	}
	if c.Index.Docs() == 0 {
		return nil, nil, usecase.EmptyCollection(c.Collection)
	}
	areq := agent.Request{Question: q, Context: strings.TrimSpace(in.Context), Instructions: strings.TrimSpace(in.Instructions), NoRoute: in.NoRoute}
	if in.Doc != "" {
		info, err := findDoc(ctx, c, in.Doc)
		if err != nil {
			return nil, nil, err
		}
		areq.Docs = []string{info.ID}
	}
	lib := agent.NewLibrary(c)
	// Asking back which contract an ambiguous name means: through the
	// protocol's elicitation, as an input request the client fulfils and
	// calls again with (older clients are asked directly by the SDK), when
	// the client supports elicitation; otherwise the question goes back
	// with the report, which covers every contract the name fits.
	var pending *report.UserQuestion
	answer, answered := chosenContract(req)
	question, choices := "", []agent.Choice(nil)
	if !answered {
		var err error
		if question, choices, _, err = agent.Ambiguity(ctx, lib, areq); err != nil {
			return nil, nil, fmt.Errorf("routing the question: %w", err)
		}
	}
	if answered {
		if answer != "" && answer != agent.ChooseAll {
			areq.Docs = []string{answer}
		}
		if answer == agent.ChooseAll {
			// "none of them" for a name near no contract's: every
			// contract is searched.
			if _, _, r, err := agent.Ambiguity(ctx, lib, areq); err == nil && r != nil && r.Decision == search.RouteUnknown {
				areq.NoRoute = true
			}
		}
	} else if question != "" {
		if canElicit(req) {
			return &mcpsdk.CallToolResult{InputRequests: mcpsdk.InputRequestMap{
				contractInput: &mcpsdk.ElicitParams{Message: question, RequestedSchema: choiceSchema(choices)},
			}}, nil, nil
		}
		pending = &report.UserQuestion{Question: question, How: "call ask again with doc set to the id of the contract meant (list_documents names them)"}
		for _, ch := range choices {
			if ch.ID != agent.ChooseAll {
				pending.Choices = append(pending.Choices, report.UserChoice{ID: ch.ID, Label: ch.Label})
			}
		}
	}
	opt := AskOptions{MaxTurns: in.MaxTurns, Progress: progressFunc(ctx, req), Clarifier: elicitor(req)}
	rep, err := h.b.Ask(ctx, lib, areq, opt)
	if rep == nil {
		if err == nil {
			err = errors.New("no report")
		}
		return nil, nil, fmt.Errorf("answering the question: %w", err)
	}
	var b strings.Builder
	if pending != nil {
		rep.QuestionForUser = pending
		fmt.Fprintf(&b, "QUESTION FOR THE USER — %s\n", pending.Question)
		for _, ch := range pending.Choices {
			fmt.Fprintf(&b, "- %s (doc %s)\n", ch.Label, ch.ID)
		}
		fmt.Fprintf(&b, "Ask the user which one they mean, then %s. Until then, the report below covers all of them.\n\n", pending.How)
	}
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

// contractInput names the input request that asks which contract.
const contractInput = "contract"

// canElicit reports whether the client supports elicitation.
func canElicit(req *mcpsdk.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

// chosenContract returns the contract the user chose in answer to the
// contract input request, and whether the call carries such an answer (""
// for a decline: every candidate).
func chosenContract(req *mcpsdk.CallToolRequest) (string, bool) {
	if req == nil || req.Params == nil || req.Params.InputResponses == nil {
		return "", false
	}
	r, ok := req.Params.InputResponses[contractInput].(*mcpsdk.ElicitResult)
	if !ok {
		return "", false
	}
	if r.Action != "accept" {
		return "", true
	}
	v, _ := r.Content[contractInput].(string)
	return v, true
}

// choiceSchema is the elicitation form of a choice among contracts.
func choiceSchema(choices []agent.Choice) map[string]any {
	ids := make([]string, len(choices))
	labels := make([]string, len(choices))
	for i, c := range choices {
		ids[i], labels[i] = c.ID, c.Label
	}
	return map[string]any{"type": "object", "required": []string{contractInput}, "properties": map[string]any{
		contractInput: map[string]any{"type": "string", "title": "Contract", "enum": ids, "enumNames": labels},
	}}
}

// elicitor returns a Clarifier that asks the user through elicitation in
// the middle of a call — for the Archivist's clarifying question — when
// the client supports elicitation on a protocol version that allows it
// (from 2026-07-28 a server asks only by input requests); nil otherwise.
func elicitor(req *mcpsdk.CallToolRequest) agent.Clarifier {
	if !canElicit(req) || req.Session.InitializeParams().ProtocolVersion >= "2026-07-28" {
		return nil
	}
	return &elicitClarifier{s: req.Session}
}

// elicitClarifier asks through elicitation/create.
type elicitClarifier struct{ s *mcpsdk.ServerSession }

// Clarify implements agent.Clarifier: a free-text answer.
func (e *elicitClarifier) Clarify(ctx context.Context, question string) (string, error) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"answer": map[string]any{"type": "string", "description": "your answer"},
	}}
	return e.elicit(ctx, question, schema, "answer")
}

// elicit sends one form and returns the field answered; "" when the user
// declined or cancelled.
func (e *elicitClarifier) elicit(ctx context.Context, message string, schema map[string]any, field string) (string, error) {
	res, err := e.s.Elicit(ctx, &mcpsdk.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return "", err
	}
	if res == nil || res.Action != "accept" {
		return "", nil
	}
	v, _ := res.Content[field].(string)
	return v, nil
}
