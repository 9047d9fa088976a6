package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/tool"
)

// maxToolRounds bounds the tool-calling rounds of one research question;
// the round after the last must answer.
const maxToolRounds = 3

// passage is one piece of evidence found during a session, with the id the
// models cite it by ("E1", "E2", …; external sources "X1", …).
type passage struct {
	ID       string
	Tool     string
	Exemplar bool // from another contract (find_examples)
	External bool // not contract text
	E        tool.Evidence
	// Quote and Span narrow the passage to the excerpt the Researcher
	// last relied on: always a verbatim substring of the passage (checked),
	// or the whole passage.
	Quote string
	Span  document.Span
}

// excerpt is a narrowed passage the Researcher relied on in one answer.
type excerpt struct {
	ID    string
	Quote string
	Span  document.Span
}

// finding is the Researcher's answer to one question.
type finding struct {
	Question string
	Answer   string
	Tools    []string
	Errors   []string
	Found    []*passage // every passage the tools returned
	Cited    []excerpt  // the excerpts the answer relies on
}

type researcherReply struct {
	Answer   string `json:"answer"`
	Evidence []struct {
		ID    string `json:"id"`
		Quote string `json:"quote"`
	} `json:"evidence"`
}

// research answers one question with tools and numbered evidence.
func (s *session) research(ctx context.Context, b brief, question string) (*finding, error) {
	f := &finding{Question: question}
	var specs []llm.ToolSpec
	for _, t := range s.tools {
		specs = append(specs, t.Spec())
	}
	user := "<question>\n" + question + "\n</question>\n"
	if b.Context != "" {
		user += "<context>\n" + b.Context + "\n</context>\n"
	}
	user += "Contract under review: " + docsLabel(b.Docs) + "."
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: researcherSystem}, {Role: llm.RoleUser, Content: user}}
	var reply researcherReply
	for round := 0; ; round++ {
		req := llm.Request{Step: "researcher", Messages: msgs, Schema: researcherSchema}
		if round < maxToolRounds && len(specs) > 0 {
			req.Tools = specs
		}
		resp, err := s.call(ctx, s.models.Researcher, req)
		if err != nil {
			return f, err
		}
		if calls := resp.Message.ToolCalls; len(calls) > 0 && req.Tools != nil {
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Message.Content, ToolCalls: calls})
			for _, tc := range calls {
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: s.runTool(ctx, f, tc)})
				if ctx.Err() != nil {
					return f, ctx.Err()
				}
			}
			continue
		}
		check := func() error {
			if strings.TrimSpace(reply.Answer) == "" {
				return errors.New(`"answer" is empty`)
			}
			return nil
		}
		if perr := decodeJSON(resp.Message.Content, &reply, check); perr != nil {
			req.Tools = nil
			req.Messages = msgs
			if err := s.repair(ctx, s.models.Researcher, req, resp.Message.Content, perr, &reply, check); err != nil {
				return f, err
			}
		}
		break
	}
	f.Answer = strings.TrimSpace(reply.Answer)
	for _, e := range reply.Evidence {
		p := s.passageByID(strings.Trim(strings.TrimSpace(e.ID), "[]"))
		if p == nil {
			f.Errors = append(f.Errors, fmt.Sprintf("the answer cites passage %q, which no tool returned", e.ID))
			continue
		}
		s.narrow(p, e.Quote)
		f.Cited = append(f.Cited, excerpt{p.ID, p.Quote, p.Span})
	}
	s.progress(fmt.Sprintf("Researcher: %d passages found, %d relied on", len(f.Found), len(f.Cited)))
	return f, nil
}

// runTool runs one tool call and returns the text the model reads. A tool
// error is reported to the model and recorded; the research continues.
func (s *session) runTool(ctx context.Context, f *finding, tc llm.ToolCall) string {
	f.Tools = append(f.Tools, tc.Name)
	var t tool.Tool
	for _, x := range s.tools {
		if x.Spec().Name == tc.Name {
			t = x
		}
	}
	if t == nil {
		msg := fmt.Sprintf("%s: no such tool", tc.Name)
		f.Errors = append(f.Errors, msg)
		return "ERROR: " + msg + ". Available tools: " + strings.Join(s.toolNames(), ", ") + "."
	}
	s.progress(fmt.Sprintf("Researcher: %s %s", tc.Name, argsLabel(tc.Arguments)))
	res, err := t.Call(ctx, json.RawMessage(tc.Arguments))
	if err != nil {
		msg := fmt.Sprintf("%s: %v", tc.Name, err)
		f.Errors = append(f.Errors, msg)
		s.progress("Researcher: tool error: " + msg)
		return "ERROR: the tool failed: " + err.Error() + ". Continue with the other tools or the evidence you have."
	}
	if res.External || len(res.Evidence) == 0 && !isContractTool(tc.Name) {
		p := s.register(tool.Evidence{Text: res.Text}, tc.Name, false, true)
		f.Found = append(f.Found, p)
		return fmt.Sprintf("<external_source id=%q tool=%q>\n%s\n</external_source>", p.ID, tc.Name, tool.DefuseDelimiters(res.Text))
	}
	if len(res.Evidence) == 0 {
		return res.Text
	}
	ids := make([]string, len(res.Evidence))
	for i, e := range res.Evidence {
		p := s.register(e, tc.Name, tc.Name == "find_examples", false)
		f.Found = append(f.Found, p)
		ids[i] = p.ID
	}
	text := tool.FormatEvidence(res.Evidence, ids)
	if tc.Name == "find_examples" {
		text = "Passages from OTHER contracts (exemplars only, not terms of the contract under review):\n" + text
	}
	return text
}

func isContractTool(name string) bool {
	switch name {
	case "search_contract", "find_examples", "define_term", "follow_reference":
		return true
	}
	return false
}

func (s *session) toolNames() []string {
	var out []string
	for _, t := range s.tools {
		out = append(out, t.Spec().Name)
	}
	return out
}

// register records a passage once per session and returns it.
func (s *session) register(e tool.Evidence, toolName string, exemplar, external bool) *passage {
	if !external {
		for _, p := range s.passages {
			if !p.External && p.E.DocID == e.DocID && p.E.Start == e.Start && p.E.End == e.End {
				return p
			}
		}
	}
	s.nextID++
	prefix := "E"
	if external {
		prefix = "X"
	}
	p := &passage{ID: fmt.Sprintf("%s%d", prefix, s.nextID), Tool: toolName, Exemplar: exemplar, External: external, E: e,
		Quote: e.Text, Span: document.Span{Start: e.Start, End: e.End}}
	s.passages = append(s.passages, p)
	return p
}

func (s *session) passageByID(id string) *passage {
	for _, p := range s.passages {
		if strings.EqualFold(p.ID, id) {
			return p
		}
	}
	return nil
}

// narrow sets a passage's quote to the Researcher's excerpt when that is a
// verbatim substring of the passage; otherwise the whole passage stays.
func (s *session) narrow(p *passage, quote string) {
	p.Quote, p.Span = p.E.Text, document.Span{Start: p.E.Start, End: p.E.End}
	if p.External || strings.TrimSpace(quote) == "" {
		return
	}
	sp, ok := report.Locate(p.E.Text, quote)
	if !ok {
		s.flags = append(s.flags, fmt.Sprintf("the Researcher's excerpt of %s is not verbatim text of the passage; the whole passage is kept", p.ID))
		return
	}
	rs := []rune(p.E.Text)
	p.Quote = string(rs[sp.Start:sp.End])
	p.Span = document.Span{Start: p.E.Start + sp.Start, End: p.E.Start + sp.End}
}

func argsLabel(args string) string {
	var a struct {
		Query string `json:"query"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Query != "" {
		return fmt.Sprintf("%q", a.Query)
	}
	if r := []rune(oneLine(args)); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return oneLine(args)
}
