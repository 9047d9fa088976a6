package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/tool"
)

// Clarifier asks the user a clarifying question and returns the answer: a
// terminal prompt in the CLI, a round trip through the API later. An error
// (or an empty answer) means "no clarification": the Archivist proceeds
// with the request as given and flags the ambiguity.
type Clarifier interface {
	Clarify(ctx context.Context, question string) (string, error)
}

// brief is the Archivist's output: the Interrogator's inputs and the
// documents to answer from.
type brief struct {
	Query        string
	Context      string
	Instructions string
	Docs         []report.DocRef
}

// archivistReply is the Archivist's structured output.
type archivistReply struct {
	Query              string   `json:"query"`
	Context            string   `json:"context"`
	Instructions       string   `json:"instructions"`
	Documents          []string `json:"documents"`
	ClarifyingQuestion string   `json:"clarifying_question"`
}

// maxListed caps the documents the Archivist sees listed.
const maxListed = 60

// archivist turns the user's request into a brief. It asks the user one
// clarifying question, through the Clarifier, when the model finds the
// request ambiguous or when the request names no document it can find in
// a collection of several.
func (s *session) archivist(ctx context.Context, req Request) (brief, error) {
	s.progress("Archivist: reading the request")
	all, err := s.lib.List(ctx)
	if err != nil {
		return brief{}, err
	}
	var coll strings.Builder
	for i, d := range all {
		if i == maxListed {
			fmt.Fprintf(&coll, "(and %d more)\n", len(all)-maxListed)
			break
		}
		// Names, titles and parties come from the documents: defused, so
		// a contract cannot close <collection> or open <instructions>.
		fmt.Fprintf(&coll, "- %s: %s\n", tool.DefuseDelimiters(oneLine(d.Name)), tool.DefuseDelimiters(oneLine(s.docSummary(ctx, d.ID))))
	}
	user := "<request>\n" + req.Question + "\n</request>\n"
	if req.Context != "" {
		user += "<context>\n" + req.Context + "\n</context>\n"
	}
	if req.Instructions != "" {
		user += "<instructions>\n" + req.Instructions + "\n</instructions>\n"
	}
	if len(req.Docs) > 0 {
		user += "The user selected these documents: " + tool.DefuseDelimiters(names(s.lib.docRefs(req.Docs))) + "\n"
	}
	user += "<collection>\n" + coll.String() + "</collection>"
	var rep archivistReply
	err = s.callJSON(ctx, s.models.Archivist, llm.Request{
		Step:     "archivist",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: archivistSystem}, {Role: llm.RoleUser, Content: user}},
		Schema:   archivistSchema,
	}, &rep, func() error {
		if strings.TrimSpace(rep.Query) == "" {
			return errors.New(`"query" is empty`)
		}
		return nil
	})
	if err != nil {
		return brief{}, err
	}
	b := brief{Query: strings.TrimSpace(rep.Query), Context: joinNonEmpty(req.Context, rep.Context), Instructions: joinNonEmpty(req.Instructions, rep.Instructions)}
	if b.Docs, err = s.resolveDocs(ctx, req, rep.Documents, b.Query); err != nil {
		return brief{}, err
	}

	ask := strings.TrimSpace(rep.ClarifyingQuestion)
	if ask == "" && len(b.Docs) == 0 && len(all) > 1 {
		ask = "Which contract is the question about? The collection holds: " + names(all) + "."
	}
	if ask != "" {
		answer := ""
		if s.clarifier != nil {
			s.progress("Archivist: asking the user a clarifying question")
			a, err := s.clarifier.Clarify(ctx, ask)
			if ctx.Err() != nil {
				return brief{}, ctx.Err()
			}
			if err == nil {
				answer = strings.TrimSpace(a)
			}
		}
		if answer == "" {
			s.clarifyUnanswered = ask
		} else {
			s.clarifications++
			b.Context = joinNonEmpty(b.Context, "Asked \""+ask+"\", the user answered: "+answer)
			if len(b.Docs) == 0 {
				if b.Docs, err = s.resolveDocs(ctx, Request{}, []string{answer}, answer); err != nil {
					return brief{}, err
				}
			}
		}
	}
	if len(b.Docs) == 0 {
		s.noDocs = true
	}
	s.progress(fmt.Sprintf("Archivist: question %q; documents: %s", oneLine(b.Query), docsLabel(b.Docs)))
	return b, nil
}

// resolveDocs finds the documents a request is about: those the user
// selected, else those the Archivist named (by name, base name or a name
// the search router recognizes), else those the question routes to.
func (s *session) resolveDocs(ctx context.Context, req Request, named []string, query string) ([]report.DocRef, error) {
	if len(req.Docs) > 0 {
		return s.lib.docRefs(req.Docs), nil
	}
	noRoute := req.NoRoute || s.noRoute
	// Documents the Archivist names by file name are found either way; only
	// the router's guesses are switched off.
	var out []report.DocRef
	seen := map[string]bool{}
	add := func(d report.DocRef) {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	for _, n := range named {
		if d, err := s.lib.Find(ctx, strings.TrimSpace(n)); err == nil {
			add(d)
			continue
		}
		if noRoute {
			continue
		}
		r, err := s.lib.Corpus.Index.Route(ctx, search.Query{Text: n})
		if err != nil {
			return nil, err
		}
		if r.Decision.Narrowed() {
			for _, d := range s.lib.docRefs(r.Docs) {
				add(d)
			}
		}
	}
	if len(out) == 0 && !noRoute {
		r, err := s.lib.Corpus.Index.Route(ctx, search.Query{Text: query})
		if err != nil {
			return nil, err
		}
		if r.Decision.Narrowed() {
			for _, d := range s.lib.docRefs(r.Docs) {
				add(d)
			}
		}
	}
	return out, nil
}

// docSummary is the stored deterministic summary of a document.
func (s *session) docSummary(ctx context.Context, id string) string {
	data, err := s.lib.Corpus.Store.Artifact(ctx, s.lib.Corpus.Collection, id, docread.ArtifactSummary)
	if err != nil {
		return ""
	}
	var sum chunk.DocSummary
	if err := jsonUnmarshal(data, &sum); err != nil {
		return ""
	}
	return sum.String()
}

// SummaryLimit is the length of a model-written document summary.
const SummaryLimit = 150

// Summarize writes the short generic description of a contract used for
// summary augmentation and routing. With no model (chat nil) it returns the
// deterministic summary (chunk.Summary).
func Summarize(ctx context.Context, chat llm.Chat, doc *document.Document) (string, error) {
	if chat == nil {
		return chunk.Summary(doc).String(), nil
	}
	resp, err := chat.Complete(ctx, llm.Request{
		Step: "archivist-summary",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: summarySystem},
			{Role: llm.RoleUser, Content: "<contract_passage document=" + tool.DefuseAttr(doc.Name) + ">\n" + tool.DefuseDelimiters(chunk.Opening(doc, 3000)) + "\n</contract_passage>"}},
	})
	if err != nil {
		return "", fmt.Errorf("summarize %s: %w", doc.Name, err)
	}
	out := oneLine(resp.Message.Content)
	out = strings.Trim(out, "\"'")
	if r := []rune(out); len(r) > SummaryLimit {
		out = string(r[:SummaryLimit-1]) + "…"
	}
	if out == "" {
		return chunk.Summary(doc).String(), nil
	}
	return out, nil
}

func joinNonEmpty(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "" || a == b:
		return b
	case b == "" || strings.Contains(a, b):
		return a
	}
	return a + "\n" + b
}

func docsLabel(ds []report.DocRef) string {
	if len(ds) == 0 {
		return "none named (whole collection)"
	}
	return names(ds)
}
