package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/search"
)

// Asking back. A question sometimes needs an answer from the user before it
// can be answered well: the Archivist's clarifying question (with a model),
// or — with or without one — a contract name that fits several contracts
// ("our contract with Acme", Acme being party to three). Every face asks:
// the CLI on the terminal, the API's ask as a question event that pauses it
// until the answer is posted, the web app in the conversation, MCP through
// the protocol's elicitation. A face that cannot ask (no terminal, a client
// without elicitation) gets the question said instead, with the way to
// choose (--doc, "docs", "doc"), and the answer covers every candidate.

// Choice is an answer a question to the user offers.
type Choice struct {
	ID    string `json:"id"`    // what choosing it answers: a document id, or ChooseAll
	Label string `json:"label"` // what the user reads
}

// ChooseAll is the choice of every candidate.
const ChooseAll = "all"

// A Chooser is a Clarifier that can offer the user choices. A Clarifier that
// is not one is asked the question with the choices listed in its text, and
// its answer is matched to them (MatchChoice).
type Chooser interface {
	Choose(ctx context.Context, question string, choices []Choice) (string, error)
}

// Ambiguity is the question an ambiguous contract name asks the user, or
// nil when the question names its contracts plainly.
func Ambiguity(ctx context.Context, lib *Library, req Request) (question string, choices []Choice, route *search.Route, err error) {
	if len(req.Docs) > 0 || req.NoRoute || lib.Corpus.Index == nil {
		return "", nil, nil, nil
	}
	rt, err := lib.Corpus.Index.Route(ctx, search.Query{Text: req.Question})
	if err != nil {
		return "", nil, nil, err
	}
	r := &rt
	if r.Decision == search.RouteUnknown && len(r.Nearest) > 0 {
		// A name near no contract's: the nearest offered, or every
		// contract searched.
		question = fmt.Sprintf("No contract in this collection is called %s. Did you mean one of these?", quoted(r.Unknown))
		for _, c := range r.Nearest {
			choices = append(choices, Choice{ID: c.DocID, Label: candidateLabel(c)})
		}
		choices = append(choices, Choice{ID: ChooseAll, Label: "none of them: search every contract"})
		return question, choices, r, nil
	}
	if r.Decision != search.RouteAmbiguous || len(r.Candidates) < 2 {
		return "", nil, r, nil
	}
	var said []string
	for _, m := range r.Matched {
		said = append(said, "“"+m.Text+"”")
	}
	name := strings.Join(said, " and ")
	if name == "" {
		name = "The question"
	}
	question = fmt.Sprintf("%s fits %d contracts. Which one do you mean?", name, len(r.Candidates))
	for _, c := range r.Candidates {
		choices = append(choices, Choice{ID: c.DocID, Label: candidateLabel(c)})
	}
	choices = append(choices, Choice{ID: ChooseAll, Label: fmt.Sprintf("all %d of them", len(r.Candidates))})
	return question, choices, r, nil
}

// quoted lists names in quotation marks: "“A”", "“A” or “B”".
func quoted(ns []string) string {
	var q []string
	for _, n := range ns {
		q = append(q, "“"+n+"”")
	}
	return strings.Join(q, " or ")
}

// candidateLabel is how a contract to choose is offered: as people name it
// (title, parties, date), its file after it.
func candidateLabel(c search.Candidate) string {
	if c.Display != "" && c.Display != c.Name {
		return c.Display + " — " + c.Name
	}
	label := c.Name
	if extra := strings.TrimSpace(c.Title + " " + paren(c.Date)); extra != "" {
		label += " — " + extra
	}
	return label
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// ResolveRoute asks the user, through c, which contract an ambiguous name
// in req's question means, and returns req restricted to the choice (every
// candidate for ChooseAll). With no Clarifier, no ambiguity, or no answer,
// req comes back as it is: the search covers every candidate and says so.
func ResolveRoute(ctx context.Context, lib *Library, req Request, c Clarifier, progress func(string)) (Request, error) {
	if c == nil {
		return req, nil
	}
	question, choices, route, err := Ambiguity(ctx, lib, req)
	if err != nil || question == "" {
		return req, err
	}
	if progress != nil {
		progress("asking the user which contract the question means")
	}
	answer, err := AskChoice(ctx, c, question, choices)
	if err != nil {
		if ctx.Err() != nil {
			return req, ctx.Err()
		}
		return req, nil // the question could not be asked: proceed with every candidate
	}
	switch answer {
	case "":
	case ChooseAll:
		req.Docs = route.Docs
		if route.Decision == search.RouteUnknown {
			req.NoRoute = true
		}
	default:
		req.Docs = []string{answer}
	}
	return req, nil
}

// AskChoice asks a question offering choices through c: its Choose when it
// has one, else Clarify with the choices numbered in the question's text.
// It returns the chosen choice's ID, or "" when the answer chooses none.
func AskChoice(ctx context.Context, c Clarifier, question string, choices []Choice) (string, error) {
	if ch, ok := c.(Chooser); ok {
		id, err := ch.Choose(ctx, question, choices)
		if err != nil {
			return "", err
		}
		return MatchChoice(id, choices), nil
	}
	var b strings.Builder
	b.WriteString(question)
	for i, ch := range choices {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, ch.Label)
	}
	b.WriteString("\nAnswer with a number (empty: all of them).")
	answer, err := c.Clarify(ctx, b.String())
	if err != nil {
		return "", err
	}
	return MatchChoice(answer, choices), nil
}

// MatchChoice matches what a user answered to the choices offered: a
// choice's ID, its number (from 1), or words of one choice's label alone;
// "all", "both", "every" choose ChooseAll when offered. "" when it matches
// none or several.
func MatchChoice(answer string, choices []Choice) string {
	a := strings.TrimSpace(answer)
	if a == "" {
		return ""
	}
	for _, c := range choices {
		if a == c.ID {
			return c.ID
		}
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(a, ".")); err == nil && n >= 1 && n <= len(choices) {
		return choices[n-1].ID
	}
	low := strings.ToLower(a)
	for _, w := range []string{"all", "both", "every", "each"} {
		if strings.HasPrefix(low, w) {
			for _, c := range choices {
				if c.ID == ChooseAll {
					return ChooseAll
				}
			}
		}
	}
	found := ""
	for _, c := range choices {
		if c.ID != ChooseAll && strings.Contains(strings.ToLower(c.Label), low) {
			if found != "" {
				return ""
			}
			found = c.ID
		}
	}
	return found
}
