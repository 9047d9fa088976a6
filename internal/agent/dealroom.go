package agent

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/pakton/pakton/internal/docread"
	learnt "github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// A question about several contracts — the whole deal room ("Which of our
// contracts can be terminated for convenience?"), the contracts it names,
// or the ones the user selected — is answered per contract as well as by
// the passages that best match it: five loose passages from three
// contracts say nothing about which contracts do and which do not. When the
// question asks about a provision the playbook knows, the review engine
// looks for it in every contract (review.Finder.DealRoom: cells cached with
// the collection, so a second question is answered from the cache) and the
// report lists the contracts that have it, with their answers and clauses,
// and counts the rest; otherwise each contract's best passage is listed.

// dealRoomFinder answers deal-room questions (review.Finder, the built-in
// finder of review.BuiltinProvisions).
type dealRoomFinder interface {
	DealRoom(ctx context.Context, question string, docs []review.DealRoomDoc, opt review.DealRoomOptions) (*review.DealRoom, error)
}

// DealRoomCache is the name of the collection's cache directory of
// deal-room review cells (store.CachePath).
const DealRoomCache = "deal-room"

// perContractScope returns the documents a question is about when it is
// about several: the user's selection (two or more), the contracts it names
// (two or more), or, when it names none, the whole collection, with the
// collection's documents as listed then (nil when not listed). Nil when it
// is about one contract.
func (l *Library) perContractScope(ctx context.Context, req Request, route *search.Route) ([]string, []store.DocInfo, error) {
	switch {
	case len(req.Docs) >= 2:
		return req.Docs, nil, nil
	case len(req.Docs) == 1:
		return nil, nil, nil
	case route != nil && route.Decision.Narrowed():
		if len(route.Docs) >= 2 {
			return route.Docs, nil, nil
		}
		return nil, nil, nil
	}
	infos, err := l.Corpus.Store.List(ctx, l.Corpus.Collection)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for _, in := range infos {
		// Correspondence (cover e-mails, letters, indexes) is no contract
		// of the deal room, unless asked for.
		// The index holds every document's names: a collection of 46,800
		// contracts is not read document by document for them.
		if !req.IncludeCorrespondence {
			nm, ok := learnt.Names{}, false
			if l.Corpus.Index != nil {
				nm, ok = l.Corpus.Index.DocNames(in.ID)
			}
			if !ok {
				var err error
				if nm, err = docread.DocNames(ctx, l.Corpus.Store, l.Corpus.Collection, in.ID); err != nil {
					nm = learnt.Names{}
				}
			}
			if nm.Correspondence != "" {
				continue
			}
		}
		ids = append(ids, in.ID)
	}
	if len(ids) < 2 {
		return nil, nil, nil
	}
	return ids, infos, nil
}

// PerContract answers req per contract when it is about several contracts
// (see perContractScope); route is how its search was routed. It returns
// nothing for a question about one contract.
func (l *Library) PerContract(ctx context.Context, req Request, route *search.Route, progress func(string)) ([]report.ContractAnswer, *report.DealRoom, error) {
	ids, infos, err := l.perContractScope(ctx, req, route)
	if err != nil || len(ids) == 0 {
		return nil, nil, err
	}
	if infos == nil {
		// the documents named or selected: listed here (a question
		// about the whole collection listed them already)
		if infos, err = l.Corpus.Store.List(ctx, l.Corpus.Collection); err != nil {
			return nil, nil, err
		}
	}
	byID := map[string]review.DealRoomDoc{}
	for _, in := range infos {
		byID[in.ID] = review.DealRoomDoc{ID: in.ID, Name: in.Name, Hash: in.Source.SHA256}
	}
	docs := make([]review.DealRoomDoc, 0, len(ids))
	for _, id := range ids {
		if d, ok := byID[id]; ok {
			docs = append(docs, d)
		}
	}
	question := req.Question
	if route != nil && route.Decision.Narrowed() && l.Corpus.Index != nil {
		question = l.Corpus.Index.Topic(question, route.Docs)
	}
	if f, ok := l.Corpus.Models.Provisions.(dealRoomFinder); ok {
		// One contract per core at a time.
		opt := review.DealRoomOptions{Workers: runtime.GOMAXPROCS(0)}
		if dir, err := l.Corpus.Store.CachePath(l.Corpus.Collection, DealRoomCache); err == nil {
			opt.CacheDir = dir
		}
		if progress != nil {
			opt.Progress = func(done, total int) {
				if done == total || done%25 == 0 {
					progress(fmt.Sprintf("reviewed %d of %d contracts for the provision asked about", done, total))
				}
			}
		}
		dr, err := f.DealRoom(ctx, question, docs, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("answering per contract: %w", err)
		}
		if dr != nil {
			answers, summary := fromDealRoom(dr)
			return answers, summary, nil
		}
	}
	return l.perContractSearch(ctx, req.Question, docs)
}

// fromDealRoom turns the review engine's per-contract answer into the
// report's.
func fromDealRoom(dr *review.DealRoom) ([]report.ContractAnswer, *report.DealRoom) {
	sum := &report.DealRoom{Method: "review", Provision: dr.Provision, Checked: dr.Checked, With: len(dr.Rows),
		Lacking: dr.Lacking, NotMatching: dr.NotMatching, Undecided: dr.Undecided, Cached: dr.Cached}
	if dr.Condition != nil {
		sum.Condition = dr.Condition.Text
	}
	if dr.Ask != nil {
		sum.Ask, sum.AskText = dr.Ask.Kind, dr.Ask.Text
	}
	answers := make([]report.ContractAnswer, 0, len(dr.Rows))
	for _, row := range dr.Rows {
		c := row.Cell
		a := report.ContractAnswer{Name: row.DocName, DocID: row.DocID, Value: row.Value, Asked: row.Asked, AskedFrom: row.AskedFrom,
			Confidence: c.Confidence, Citations: []report.Citation{}}
		if c.Answer != nil {
			a.Answer, a.Kind, a.Condition = c.Answer.Text, string(c.Answer.Kind), c.Answer.Condition
			if c.Answer.Summary != "" {
				// who holds it, on what terms: the condition is in it
				a.Answer, a.Condition = c.Answer.Summary, ""
			}
		}
		if a.Answer == "" {
			a.Answer = c.Value
		}
		if a.Answer == "" {
			a.Answer = "Yes" // found; its clause is the answer
		}
		if a.Value == "" {
			a.Value = c.Value
		}
		for _, e := range c.Extracts {
			a.Citations = append(a.Citations, report.Citation{Path: e.Path, Pages: e.Pages, Span: e.Span, Text: e.Text})
		}
		answers = append(answers, a)
	}
	for _, row := range dr.Others {
		why := row.Why
		if why == "" {
			why = excludedBy(row.Cell)
		}
		sum.Others = append(sum.Others, report.ContractStatus{Name: row.DocName, DocID: row.DocID, Status: row.Status, Value: row.Value, Why: why})
	}
	return answers, sum
}

// perContractSearch answers a question no playbook provision matches per
// contract: each contract's best passage for the question's words (none for
// a contract no passage of which matches them).
func (l *Library) perContractSearch(ctx context.Context, question string, docs []review.DealRoomDoc) ([]report.ContractAnswer, *report.DealRoom, error) {
	sum := &report.DealRoom{Method: "search", Checked: len(docs)}
	var hits []search.Hit
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		res, err := l.Corpus.Index.Search(ctx, search.Query{Text: question, Docs: []string{d.ID}, K: 1, Stages: search.Stages{NoFill: true}})
		if err != nil {
			return nil, nil, fmt.Errorf("searching %s: %w", d.Name, err)
		}
		if len(res.Hits) == 0 {
			sum.Lacking++
			sum.Others = append(sum.Others, report.ContractStatus{Name: d.Name, DocID: d.ID, Status: review.StatusLacks, Why: "no passage matches the question's words"})
			continue
		}
		hits = append(hits, res.Hits[0])
	}
	slices.SortStableFunc(hits, search.ByScore)
	ps, err := docread.Passages(ctx, l.Corpus.Store, l.Corpus.Collection, hits)
	if err != nil {
		return nil, nil, err
	}
	answers := make([]report.ContractAnswer, 0, len(ps))
	for _, p := range ps {
		answers = append(answers, report.ContractAnswer{Name: p.DocName, DocID: p.DocID,
			Citations: []report.Citation{{Path: p.Path, Pages: p.Pages, Span: p.Span, Text: p.Text}}})
	}
	sum.With = len(answers)
	return answers, sum, nil
}

// attachPerContract answers req per contract into r when it is about
// several contracts, and says so in r's summary; a failure is flagged,
// never fatal (the report stands without it).
func (l *Library) attachPerContract(ctx context.Context, r *report.Report, req Request, route *search.Route, progress func(string)) {
	answers, dr, err := l.PerContract(ctx, req, route, progress)
	if err != nil {
		if ctx.Err() == nil {
			r.Flag("the per-contract answer failed: " + err.Error())
		}
		return
	}
	if dr == nil {
		return
	}
	r.Contracts, r.DealRoom = answers, dr
	line := PerContractLine(dr)
	if r.Summary == "" {
		r.Summary = line
	} else {
		r.Summary = line + " " + r.Summary
	}
}

// PerContractLine says in one sentence what a per-contract answer found.
func PerContractLine(dr *report.DealRoom) string {
	var b strings.Builder
	switch dr.Method {
	case "review":
		what := article(dr.Provision) + " " + dr.Provision + " provision"
		if dr.Condition != "" {
			what += " (" + dr.Condition + ")"
		}
		fmt.Fprintf(&b, "Asked of %s: %s %s %s", plural(dr.Checked, "contract", "contracts"), countWord(dr.With), haveVerb(dr.With), what)
		var rest []string
		if dr.NotMatching > 0 {
			rest = append(rest, fmt.Sprintf("%d %s it but not as the question asks (%s)", dr.NotMatching, haveVerb(dr.NotMatching), dr.Condition))
		}
		if dr.Lacking > 0 {
			rest = append(rest, fmt.Sprintf("%d %s checked and found to lack it", dr.Lacking, wasVerb(dr.Lacking)))
		}
		if dr.Undecided > 0 {
			rest = append(rest, fmt.Sprintf("%d could not be decided", dr.Undecided))
		}
		if len(rest) > 0 {
			b.WriteString("; " + strings.Join(rest, "; "))
		}
		if dr.Ask != "" && dr.With > 0 {
			// the value asked for is listed only where the provision is
			fmt.Fprintf(&b, "; for each that has it, the %s it states", askWord(dr.Ask))
		}
		b.WriteString(" (the offline review engine read each contract; listed below with the clause each answer was read from).")
	default:
		fmt.Fprintf(&b, "Asked of %s: no playbook provision matches the question, so each contract's best passage for its words is listed (%d have one, %d have none); nothing was interpreted.",
			plural(dr.Checked, "contract", "contracts"), dr.With, dr.Lacking)
	}
	return b.String()
}

// askWord names the value a deal-room question asks for in a sentence.
func askWord(kind string) string {
	switch kind {
	case "notice":
		return "notice period"
	case "jurisdiction":
		return "governing law"
	}
	return kind
}

func countWord(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

func haveVerb(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

func wasVerb(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// excludedBy says which clause of a cell excludes its provision ("excluded
// by Section 12 > Section 12.1"), or "" when none does.
func excludedBy(c review.Cell) string {
	if c.Answer == nil || !c.Answer.Excludes {
		return ""
	}
	for _, sp := range c.Answer.Spans {
		if sp.Role == "exclusion" && sp.Extract >= 0 && sp.Extract < len(c.Extracts) {
			if p := c.Extracts[sp.Extract].Path; p != "" {
				return "excluded by " + p
			}
		}
	}
	return "a clause excludes it"
}
