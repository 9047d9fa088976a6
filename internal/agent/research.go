package agent

import (
	"context"

	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/tool"
)

// Researcher runs PAKTON's Researcher on its own: one question answered
// with tools and numbered evidence, with no Archivist before it and no
// Interrogator after it. Benchmarks that pose a fixed question about a
// known document (ContractNLI) use it; "pakton ask" runs it inside Asker.
type Researcher struct {
	// Chat is the Researcher's model.
	Chat llm.Chat
	// Tools are offered to the model, typically a tool.SearchContract
	// restricted to the documents under review.
	Tools []tool.Tool
	// Progress receives a line per step; nil discards them.
	Progress func(string)
}

// ResearchResult is the Researcher's answer to one question.
type ResearchResult struct {
	Question string
	// Answer is the Researcher's answer, citing passage ids ("[E1]").
	Answer string
	// Tools names the tools called, in order.
	Tools []string
	// Errors are problems met along the way (a failing tool, a cited id no
	// tool returned); the research went on.
	Errors []string
	// Found are the contract passages the tools returned (external sources
	// excluded), whole, in the order first returned.
	Found []tool.Evidence
	// Cited are the passages the answer relies on, each narrowed to the
	// Researcher's excerpt when that excerpt is verbatim text of the
	// passage (Text is then the excerpt, Start and End its span).
	Cited []tool.Evidence
}

// Research answers question about docs (the documents under review, named
// in the prompt). On error the result holds what was found before it.
func (r *Researcher) Research(ctx context.Context, question string, docs []report.DocRef) (*ResearchResult, error) {
	s := &session{models: Models{Researcher: r.Chat}, tools: r.Tools, progress: r.Progress}
	if s.progress == nil {
		s.progress = func(string) {}
	}
	f, err := s.research(ctx, brief{Query: question, Docs: docs}, question)
	out := &ResearchResult{Question: question}
	if f == nil {
		return out, err
	}
	out.Answer, out.Tools, out.Errors = f.Answer, f.Tools, f.Errors
	for _, p := range f.Found {
		if !p.External {
			out.Found = append(out.Found, p.E)
		}
	}
	for _, c := range f.Cited {
		p := s.passageByID(c.ID)
		if p == nil || p.External {
			continue
		}
		e := p.E
		e.Text, e.Start, e.End = c.Quote, c.Span.Start, c.Span.End
		out.Cited = append(out.Cited, e)
	}
	return out, err
}
