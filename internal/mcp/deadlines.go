package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/deadline"
	"github.com/pakton/pakton/internal/usecase"
)

// MaxDeadlines is the most deadlines one list_deadlines answer carries; a
// longer list is cut (dated ones first, by date) and says so, and within or
// docs narrow it.
const MaxDeadlines = 300

// DeadlinesInput are the arguments of list_deadlines.
type DeadlinesInput struct {
	Within                string   `json:"within,omitempty" jsonschema:"only deadlines from as_of to this far ahead: a number and a unit, 90d, 12w, 6m or 1y; every deadline when empty"`
	AsOf                  string   `json:"as_of,omitempty" jsonschema:"the day the list is made for, YYYY-MM-DD (default today, UTC); terms that renew by themselves are rolled forward to it"`
	Docs                  []string `json:"docs,omitempty" jsonschema:"only these documents: ids or names from list_documents; every contract when empty"`
	IncludeCorrespondence bool     `json:"include_correspondence,omitempty" jsonschema:"read cover e-mails, letters and indexes too (left out as correspondence by default)"`
}

// DeadlinesOutput is the structured result of list_deadlines: the
// collection's deadlines (usecase.DeadlineList), each with the clauses it
// was read from, and whether the list was cut at MaxDeadlines.
type DeadlinesOutput struct {
	usecase.DeadlineList
	Truncated bool `json:"truncated,omitempty" jsonschema:"the list was longer than the deadlines returned: narrow it with within or docs"`
}

func (h *handlers) deadlines(ctx context.Context, req *mcpsdk.CallToolRequest, in DeadlinesInput) (*mcpsdk.CallToolResult, DeadlinesOutput, error) {
	var out DeadlinesOutput
	asOf := time.Now().UTC()
	if v := strings.TrimSpace(in.AsOf); v != "" {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return nil, out, fmt.Errorf("as_of %q: want a day as YYYY-MM-DD", in.AsOf)
		}
		asOf = t
	}
	asOf = time.Date(asOf.Year(), asOf.Month(), asOf.Day(), 0, 0, 0, 0, time.UTC)
	var until time.Time
	within := strings.TrimSpace(in.Within)
	if within != "" {
		var err error
		if until, err = usecase.WithinDays(asOf, within); err != nil {
			return nil, out, fmt.Errorf("within: %w", err)
		}
	}
	c, err := h.corpus(ctx)
	if err != nil {
		return nil, out, err
	}
	uc := usecase.Deadlines{Store: c.Store, Collection: c.Collection, IncludeCorrespondence: in.IncludeCorrespondence}
	for _, ref := range in.Docs {
		info, err := findDoc(ctx, c, ref)
		if err != nil {
			return nil, out, err
		}
		uc.Docs = append(uc.Docs, info.ID)
	}
	if p := reviewProgress(ctx, req); p != nil {
		uc.Progress = func(done, total int) { p(review.RunProgress{Done: done, Total: total}) }
	}
	list, err := uc.List(ctx, asOf)
	if err != nil {
		return nil, out, fmt.Errorf("reading the deadlines: %w", err)
	}
	if list.Contracts == 0 {
		return nil, out, usecase.EmptyCollection(c.Collection)
	}
	if within != "" {
		list.Deadlines = deadline.Within(list.Deadlines, asOf, until)
		if list.Deadlines == nil {
			list.Deadlines = []deadline.Deadline{}
		}
	}
	out.DeadlineList = *list
	if len(out.Deadlines) > MaxDeadlines {
		out.Deadlines, out.Truncated = out.Deadlines[:MaxDeadlines], true
	}
	var b strings.Builder
	out.WriteText(&b, within)
	if out.Truncated {
		fmt.Fprintf(&b, "\nOnly the first %d deadlines are listed: narrow the list with within or docs.\n", MaxDeadlines)
	}
	return textResult(b.String()), out, nil
}
