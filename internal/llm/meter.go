package llm

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Meter is a Chat that records every call of the Chat it wraps: the step
// (Request.Step), model, tokens, wall time and error. One Meter may wrap
// several Chats (one per role) by calling Wrap for each; it is safe for
// concurrent use.
type Meter struct {
	mu    sync.Mutex
	calls []Call
}

// Call is one recorded model call.
type Call struct {
	Step             string        `json:"step"`
	Model            string        `json:"model"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Duration         time.Duration `json:"duration_ns"`
	Err              string        `json:"error,omitempty"`
}

// Wrap returns a Chat that sends calls to c and records them in m.
func (m *Meter) Wrap(c Chat) Chat { return &metered{m: m, c: c} }

type metered struct {
	m *Meter
	c Chat
}

func (mc *metered) Model() string { return mc.c.Model() }

func (mc *metered) Complete(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	resp, err := mc.c.Complete(ctx, req)
	call := Call{Step: req.Step, Model: mc.c.Model(), Duration: time.Since(start)}
	if resp != nil {
		call.PromptTokens = resp.Usage.PromptTokens
		call.CompletionTokens = resp.Usage.CompletionTokens
	}
	if err != nil {
		call.Err = err.Error()
	}
	mc.m.mu.Lock()
	mc.m.calls = append(mc.m.calls, call)
	mc.m.mu.Unlock()
	return resp, err
}

// Calls returns the recorded calls in completion order.
func (m *Meter) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

// StepUsage totals the calls of one step (or of all steps).
type StepUsage struct {
	Step             string        `json:"step,omitempty"`
	Calls            int           `json:"calls"`
	Errors           int           `json:"errors"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Duration         time.Duration `json:"duration_ns"`
	Models           []string      `json:"models,omitempty"`
}

// Summary is the accounting section of a report.
type Summary struct {
	Steps []StepUsage `json:"steps"` // sorted by step name
	Total StepUsage   `json:"total"`
}

// Summary totals the recorded calls per step and overall. Duration sums
// the calls' wall times, so concurrent calls count in full.
func (m *Meter) Summary() Summary {
	byStep := map[string]*StepUsage{}
	var s Summary
	for _, c := range m.Calls() {
		u := byStep[c.Step]
		if u == nil {
			u = &StepUsage{Step: c.Step}
			byStep[c.Step] = u
		}
		for _, t := range []*StepUsage{u, &s.Total} {
			t.Calls++
			if c.Err != "" {
				t.Errors++
			}
			t.PromptTokens += c.PromptTokens
			t.CompletionTokens += c.CompletionTokens
			t.Duration += c.Duration
			if !contains(t.Models, c.Model) {
				t.Models = append(t.Models, c.Model)
			}
		}
	}
	for _, u := range byStep {
		sort.Strings(u.Models)
		s.Steps = append(s.Steps, *u)
	}
	sort.Strings(s.Total.Models)
	sort.Slice(s.Steps, func(i, j int) bool { return s.Steps[i].Step < s.Steps[j].Step })
	if s.Steps == nil {
		s.Steps = []StepUsage{}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PaperCost returns the number of model calls the PAKTON paper's cost model
// predicts for one report (appendix E.2, equation 4):
//
//	N = (N_turns + 1) + I[LLM parsing] + D_int × (2 + 1 + I[NL response])
//
// where
//   - turns (N_turns) is the number of Archivist conversation turns with the
//     user (clarifying questions); the +1 is the Archivist's final call that
//     extracts query, context and instructions;
//   - parsingCalls is I[LLM parsing]: 1 when the document was parsed by a
//     zero-shot LLM instead of the BERT parser, else 0 (pakton parses
//     without a model, so 0 — but a caller that spends model calls on
//     parsing or summaries passes their count);
//   - depth is D_int, the interrogation depth: the number of Interrogator
//     rounds (question, research, refine). It is not a document count,
//     although the paper writes it "D";
//   - nl is I[NL response]: 1 when the Researcher writes a natural-language
//     answer rather than returning raw spans, else 0.
//
// Per round the paper counts 2 (the Interrogator's question and the
// Researcher's query extraction) + 1 (the report refinement) + nl. The
// paper's equation 2 counts the report call once, outside the rounds; its
// total (equation 4), which this follows, counts it in every round, which
// matches a loop that rewrites the report after each answer.
func PaperCost(turns, parsingCalls, depth, nl int) int {
	return (turns + 1) + parsingCalls + depth*(2+1+nl)
}
