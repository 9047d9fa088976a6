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
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/tool"
)

// DefaultMaxTurns is the default number of questions the Interrogator may
// ask the Researcher.
const DefaultMaxTurns = 5

// Asker answers questions about a library's contracts with the three
// agents.
type Asker struct {
	Library *Library
	Models  Models
	// External are the external tools the user configured (web search,
	// Wikipedia, SQL, MCP); none by default.
	External []tool.Tool
	// MaxTurns bounds the Interrogator's questions (DefaultMaxTurns when 0).
	MaxTurns int
	// Clarifier asks the user clarifying questions; nil never asks.
	Clarifier Clarifier
	// Progress receives a line per step; nil discards them.
	Progress func(string)
}

// session is the state of one Ask.
type session struct {
	lib       *Library
	models    Models
	tools     []tool.Tool
	clarifier Clarifier
	progress  func(string)
	meter     *llm.Meter

	passages []*passage
	nextID   int
	flags    []string

	clarifications    int
	clarifyUnanswered string
	noDocs            bool
	noRoute           bool // the user switched routing off (Request.NoRoute)
}

// writerReply is the report as the writer model returns it.
type writerReply struct {
	Title     string `json:"title"`
	Summary   string `json:"summary"`
	Reasoning string `json:"reasoning"`
	Answer    string `json:"answer"`
	Gaps      string `json:"gaps"`
	Sources   []struct {
		N          int    `json:"n"`
		EvidenceID string `json:"evidence_id"`
		Quote      string `json:"quote"`
	} `json:"sources"`
}

type questionReply struct {
	Done     bool   `json:"done"`
	Question string `json:"question"`
	Reason   string `json:"reason"`
}

// Ask runs the Archivist, then the Interrogator's loop over the
// Researcher, and returns the verified report.
//
// When ctx is cancelled or a model call fails after the loop has started,
// Ask returns the best draft so far — verified, marked incomplete — together
// with the error; a nil report comes only with an error before any draft.
func (a *Asker) Ask(ctx context.Context, req Request) (*report.Report, error) {
	maxTurns := a.MaxTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	m := &llm.Meter{}
	models := Models{Archivist: m.Wrap(a.Models.Archivist), Researcher: m.Wrap(a.Models.Researcher),
		Interrogator: m.Wrap(a.Models.Interrogator), Writer: m.Wrap(a.Models.Writer)}
	s := &session{lib: a.Library, models: models, clarifier: a.Clarifier, progress: a.Progress, meter: m, noRoute: req.NoRoute}
	if s.progress == nil {
		s.progress = func(string) {}
	}
	rep := &report.Report{Mode: report.ModeAgents, Question: req.Question, Context: req.Context, Instructions: req.Instructions}
	finish := func(reason string, err error) (*report.Report, error) {
		s.finish(ctx, rep, reason, maxTurns)
		if ctx.Err() == nil {
			// A question about several contracts is also answered per
			// contract, offline (dealroom.go).
			route, err := a.Library.Corpus.Index.Route(ctx, search.Query{Text: req.Question, Docs: req.Docs, Stages: search.Stages{NoRoute: req.NoRoute}})
			if err != nil {
				rep.Flag("the per-contract answer failed: " + err.Error())
			} else {
				a.Library.attachPerContract(ctx, rep, req, &route, s.progress)
			}
		}
		return rep, err
	}

	b, err := s.archivist(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return finish("cancelled", ctx.Err())
		}
		return nil, err
	}
	rep.Documents = b.Docs
	if rep.Context == "" {
		rep.Context = b.Context
	}
	if rep.Instructions == "" {
		rep.Instructions = b.Instructions
	}
	ids := make([]string, len(b.Docs))
	for i, d := range b.Docs {
		ids[i] = d.ID
	}
	s.tools = append([]tool.Tool{
		&tool.SearchContract{Corpus: a.Library.Corpus, Docs: ids, NoRoute: s.noRoute},
		&tool.DefineTerm{Corpus: a.Library.Corpus, Docs: ids},
		&tool.FollowReference{Corpus: a.Library.Corpus, Docs: ids},
		&tool.FindExamples{Corpus: a.Library.Corpus, Exclude: ids},
	}, a.External...)

	var draft *writerReply
	var asked []string
	question := b.Query // the first question is the Archivist's query itself
	for turn := 1; ; turn++ {
		s.progress(fmt.Sprintf("question %d/%d: %s", turn, maxTurns, oneLine(question)))
		asked = append(asked, question)
		f, err := s.research(ctx, b, question)
		rep.Turns = append(rep.Turns, turnOf(turn, f))
		if err != nil {
			return finish(stopReason(ctx), err)
		}
		s.progress("Writer: refining the report")
		next, err := s.refine(ctx, b, draft, f)
		if err != nil {
			return finish(stopReason(ctx), err)
		}
		draft = next
		s.apply(rep, draft)
		if turn >= maxTurns {
			s.progress(fmt.Sprintf("Interrogator: %d of %d questions asked; stopping", turn, maxTurns))
			return finish("max_turns", nil)
		}
		q, err := s.nextQuestion(ctx, b, draft, asked, maxTurns-turn)
		if err != nil {
			return finish(stopReason(ctx), err)
		}
		if q.Done || strings.Contains(q.Question, StopPhrase) || strings.TrimSpace(q.Question) == "" {
			s.progress(fmt.Sprintf("Interrogator: confident after %d questions", turn))
			return finish("confident", nil)
		}
		question = strings.TrimSpace(q.Question)
	}
}

func stopReason(ctx context.Context) string {
	if ctx.Err() != nil {
		return "cancelled"
	}
	return "error"
}

func turnOf(n int, f *finding) report.Turn {
	t := report.Turn{N: n, Question: f.Question, Tools: f.Tools, Answer: f.Answer, Errors: f.Errors}
	for _, p := range f.Found {
		if !p.External {
			t.Found++
		}
	}
	if t.Tools == nil {
		t.Tools = []string{}
	}
	return t
}

// nextQuestion asks the Interrogator for the next question, or whether it
// is done.
func (s *session) nextQuestion(ctx context.Context, b brief, draft *writerReply, asked []string, remaining int) (questionReply, error) {
	var q questionReply
	var prev strings.Builder
	for i, a := range asked {
		fmt.Fprintf(&prev, "%d. %s\n", i+1, a)
	}
	user := s.briefText(b) +
		"<draft_report>\n" + draftText(draft) + "\n</draft_report>\n" +
		"<questions_asked>\n" + prev.String() + "</questions_asked>\n" +
		fmt.Sprintf("You may ask %d more question(s). Ask the next question, or stop if the report can now answer with confidence.", remaining)
	err := s.callJSON(ctx, s.models.Interrogator, llm.Request{
		Step:     "interrogator",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: questionSystem}, {Role: llm.RoleUser, Content: user}},
		Schema:   questionSchema,
	}, &q, nil)
	return q, err
}

// refine writes the report again with a new finding.
func (s *session) refine(ctx context.Context, b brief, draft *writerReply, f *finding) (*writerReply, error) {
	var ex strings.Builder
	fmt.Fprintf(&ex, "Question: %s\nAnswer: %s\n", f.Question, f.Answer)
	for _, c := range f.Cited {
		q := c.Quote
		if r := []rune(q); len(r) > 400 {
			q = string(r[:400]) + " …"
		}
		fmt.Fprintf(&ex, "Relied on <contract_excerpt of=%q>%s</contract_excerpt>\n", c.ID, tool.DefuseDelimiters(q))
	}
	if len(f.Errors) > 0 {
		fmt.Fprintf(&ex, "Problems during the research: %s\n", strings.Join(f.Errors, "; "))
	}
	user := s.briefText(b) +
		"<draft_report>\n" + draftText(draft) + "\n</draft_report>\n" +
		"<new_research>\n" + ex.String() + "</new_research>\n" +
		"<evidence>\n" + s.evidenceText() + "</evidence>\n" +
		"Rewrite the report so that it integrates the new research."
	var out writerReply
	err := s.callJSON(ctx, s.models.Writer, llm.Request{
		Step:     "writer",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: writerSystem}, {Role: llm.RoleUser, Content: user}},
		Schema:   writerSchema,
	}, &out, func() error {
		if strings.TrimSpace(out.Answer) == "" && strings.TrimSpace(out.Reasoning) == "" {
			return errors.New(`"answer" and "reasoning" are both empty`)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func (s *session) briefText(b brief) string {
	t := "<question>\n" + b.Query + "\n</question>\n"
	if b.Context != "" {
		t += "<context>\n" + b.Context + "\n</context>\n"
	}
	if b.Instructions != "" {
		t += "<instructions>\n" + b.Instructions + "\n</instructions>\n"
	}
	return t + "Contract under review: " + docsLabel(b.Docs) + "\n"
}

// maxEvidenceRunes caps each passage shown to the writer.
const maxEvidenceRunes = 1500

// evidenceText lists the passages of the session the writer may cite, each
// whole (up to maxEvidenceRunes), so a quotation can be taken from any part.
func (s *session) evidenceText() string {
	var b strings.Builder
	for _, p := range s.passages {
		text := p.E.Text
		if r := []rune(text); len(r) > maxEvidenceRunes {
			text = string(r[:maxEvidenceRunes]) + " …"
		}
		if p.External {
			fmt.Fprintf(&b, "<external_source id=%q tool=%q>\n%s\n</external_source>\n", p.ID, p.Tool, tool.DefuseDelimiters(text))
			continue
		}
		e := p.E
		e.Text = text
		if p.Exemplar {
			b.WriteString("(exemplar from another contract, not a term of the contract under review)\n")
		}
		b.WriteString(tool.FormatEvidence([]tool.Evidence{e}, []string{p.ID}))
	}
	if b.Len() == 0 {
		return "No passages were found.\n"
	}
	return b.String()
}

func draftText(d *writerReply) string {
	if d == nil {
		return "No draft yet: write the preliminary report."
	}
	data, _ := json.MarshalIndent(d, "", "  ")
	return string(data)
}

// apply copies a draft into the report and maps its sources to evidence.
func (s *session) apply(rep *report.Report, d *writerReply) {
	rep.Title, rep.Summary, rep.Reasoning, rep.Answer, rep.Gaps = d.Title, d.Summary, d.Reasoning, d.Answer, d.Gaps
	rep.Sources, rep.Removed = nil, nil
	for _, src := range d.Sources {
		out := report.Source{N: src.N, Quote: src.Quote}
		p := s.passageByID(strings.Trim(strings.TrimSpace(src.EvidenceID), "[]"))
		switch {
		case p == nil && len(rep.Documents) == 1:
			// An unknown id: check the quote against the one document
			// under review; Verify re-cites it if it is there.
			out.DocID, out.DocName = rep.Documents[0].ID, rep.Documents[0].Name
			out.Note = fmt.Sprintf("cites unknown passage %q", src.EvidenceID)
		case p == nil:
			out.Note = fmt.Sprintf("cites unknown passage %q", src.EvidenceID)
		case p.External:
			out.Status, out.Tool = report.StatusExternal, p.Tool
			if out.Quote == "" {
				out.Quote = p.Quote
			}
		default:
			out.DocID, out.DocName, out.Path, out.Pages = p.E.DocID, p.E.DocName, p.E.Path, p.E.Pages
			// The cited span is the whole passage: Verify narrows it to
			// where the quotation occurs.
			out.Span = document.Span{Start: p.E.Start, End: p.E.End}
			if out.Quote == "" {
				out.Quote = p.Quote
			}
			if p.Exemplar {
				out.Note = "exemplar from another contract"
			}
		}
		rep.Sources = append(rep.Sources, out)
	}
}

// finish verifies the report and fills in the run's accounting and flags.
func (s *session) finish(ctx context.Context, rep *report.Report, reason string, maxTurns int) {
	rep.StopReason = reason
	rep.Complete = reason == "confident" || reason == "max_turns"
	switch reason {
	case "cancelled":
		rep.Flag("cancelled: this is the best draft so far")
	case "error":
		rep.Flag("a model call failed: this is the best draft so far")
	case "max_turns":
		rep.Flag(fmt.Sprintf("the Interrogator used all %d questions without declaring itself confident", maxTurns))
	}
	if rep.Title == "" && len(rep.Turns) > 0 {
		rep.Title = "Incomplete: " + oneLine(rep.Question)
		rep.Gaps = "The run ended before a draft report was written."
	}
	if s.clarifyUnanswered != "" {
		rep.Flag("unresolved ambiguity: " + s.clarifyUnanswered)
	}
	if s.noDocs {
		rep.Flag("the question names no document found in the collection: the whole collection was searched")
	}
	for _, f := range s.flags {
		rep.Flag(f)
	}
	for _, t := range rep.Turns {
		for _, e := range t.Errors {
			rep.Flag(fmt.Sprintf("question %d: %s", t.N, e))
		}
	}
	report.Verify(ctx, rep, s.lib)
	report.NameDocuments(rep, s.lib)
	acc := accounting(s.meter)
	acc.PaperCalls = PaperCalls(s.clarifications, len(rep.Turns))
	rep.Accounting = acc
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
