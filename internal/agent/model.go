package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/report"
)

// Models are the chat models of the agents; one model may play every role.
type Models struct {
	Archivist    llm.Chat
	Researcher   llm.Chat
	Interrogator llm.Chat // asks the questions
	Writer       llm.Chat // writes and refines the report
}

// ModelsFrom opens a client for every role of a model configuration.
func ModelsFrom(r llm.Roles) (Models, error) {
	var m Models
	for _, x := range []struct {
		role string
		dst  *llm.Chat
	}{{llm.RoleArchivist, &m.Archivist}, {llm.RoleResearcher, &m.Researcher}, {llm.RoleInterrogator, &m.Interrogator}, {llm.RoleWriter, &m.Writer}} {
		c, err := r.Chat(x.role)
		if err != nil {
			return Models{}, err
		}
		*x.dst = c
	}
	return m, nil
}

// accounting converts a meter's summary into the report's accounting.
func accounting(m *llm.Meter) *report.Accounting {
	sum := m.Summary()
	a := &report.Accounting{Models: sum.Total.Models, Calls: sum.Total.Calls, PromptTokens: sum.Total.PromptTokens,
		CompletionTokens: sum.Total.CompletionTokens, WallMS: sum.Total.Duration.Milliseconds()}
	if a.Models == nil {
		a.Models = []string{}
	}
	for _, st := range sum.Steps {
		a.Steps = append(a.Steps, report.StepCost{Step: st.Step, Calls: st.Calls, PromptTokens: st.PromptTokens,
			CompletionTokens: st.CompletionTokens, WallMS: st.Duration.Milliseconds()})
	}
	return a
}

// PaperCalls is the number of model calls the PAKTON paper's cost model
// (appendix E, equation 4; llm.PaperCost) predicts for a run with the given
// number of clarifying exchanges with the user and interrogation turns:
// no model-based parsing, natural-language Researcher answers.
func PaperCalls(clarifications, turns int) int { return llm.PaperCost(clarifications, 0, turns, 1) }

// call sends one request; the session's models are metered.
func (s *session) call(ctx context.Context, chat llm.Chat, req llm.Request) (*llm.Response, error) {
	resp, err := chat.Complete(ctx, req)
	if err != nil {
		return resp, fmt.Errorf("%s: %w", req.Step, err)
	}
	return resp, nil
}

// callJSON sends a request for structured output and decodes the reply into
// out. A reply that is not valid JSON, or lacks a required field, gets one
// repair request quoting the problem; a second failure is an error.
func (s *session) callJSON(ctx context.Context, chat llm.Chat, req llm.Request, out any, check func() error) error {
	resp, err := s.call(ctx, chat, req)
	if err != nil {
		return err
	}
	perr := decodeJSON(resp.Message.Content, out, check)
	if perr == nil {
		return nil
	}
	return s.repair(ctx, chat, req, resp.Message.Content, perr, out, check)
}

// repair asks once for a corrected reply after content failed to decode.
func (s *session) repair(ctx context.Context, chat llm.Chat, req llm.Request, content string, perr error, out any, check func() error) error {
	s.progress(fmt.Sprintf("%s: the reply was not valid JSON (%v); asking once for a repair", req.Step, perr))
	repair := req
	repair.Tools = nil
	repair.Messages = append(append([]llm.Message{}, req.Messages...),
		llm.Message{Role: llm.RoleAssistant, Content: content},
		llm.Message{Role: llm.RoleUser, Content: "That reply could not be used: " + perr.Error() +
			". Reply again with only the JSON object the schema describes, and nothing else."})
	resp, err := s.call(ctx, chat, repair)
	if err != nil {
		return err
	}
	if err := decodeJSON(resp.Message.Content, out, check); err != nil {
		return fmt.Errorf("%s: the model's reply is not valid JSON even after a repair request: %w", req.Step, err)
	}
	return nil
}

// decodeJSON reads a JSON object from a model's reply, tolerating a code
// fence or text around it.
func decodeJSON(content string, out any, check func() error) error {
	t := strings.TrimSpace(content)
	if i := strings.Index(t, "{"); i > 0 {
		t = t[i:]
	}
	if j := strings.LastIndex(t, "}"); j >= 0 && j < len(t)-1 {
		t = t[:j+1]
	}
	if t == "" {
		return errors.New("the reply is empty")
	}
	dec := json.NewDecoder(strings.NewReader(t))
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if check != nil {
		return check()
	}
	return nil
}

// The structured outputs the agents ask for, derived from the replies they
// are decoded into (llm.SchemaOf); a minimum length is what a type cannot
// say.
var (
	archivistSchema  = llm.SchemaOf[archivistReply]("archivist_brief", minLength("query"))
	researcherSchema = llm.SchemaOf[researcherReply]("research_answer", minLength("answer"))
	questionSchema   = llm.SchemaOf[questionReply]("next_question", nil)
	writerSchema     = llm.SchemaOf[writerReply]("legal_report", minLength("answer"))
)

// minLength makes the string property prop of a schema non-empty.
func minLength(prop string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		one := 1
		s.Properties[prop].MinLength = &one
	}
}
