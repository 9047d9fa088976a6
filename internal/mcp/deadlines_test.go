package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// list_deadlines dates the sample contracts' deadlines as of a day, each
// with the clause it was read from (a verbatim sentence inside the clause's
// span), narrows them to a window and to one document, reports progress,
// and refuses a bad window or day with a clear error.
func TestListDeadlines(t *testing.T) {
	st := testStore(t)
	cs, progress := connectWithProgress(t, st)

	params := &mcpsdk.CallToolParams{Name: "list_deadlines", Arguments: map[string]any{"as_of": "2026-12-07"}}
	params.SetProgressToken("deadlines-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("list_deadlines: %v %s", err, text(res))
	}
	var out DeadlinesOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.AsOf != "2026-12-07" || out.Contracts == 0 || len(out.Deadlines) == 0 || out.Truncated {
		t.Fatalf("list: %+v", out)
	}
	dates := map[string]string{}
	for _, d := range out.Deadlines {
		dates[d.DocName+" "+string(d.Kind)] = d.Date
		if d.Date == "" && d.Why == "" {
			t.Errorf("%s %s: neither a date nor why", d.DocName, d.Label)
		}
		for _, c := range d.Clauses {
			clause := slice(docText(t, st, "alpha", d.DocID), c.Span)
			// The quote is the clause's sentence with its spaces collapsed.
			quote := strings.TrimSpace(strings.TrimSuffix(c.Quote, "…"))
			if quote == "" || !strings.Contains(strings.Join(strings.Fields(clause), " "), quote) {
				t.Errorf("%s %s: quote %q is not in its clause %s %q", d.DocName, d.Label, c.Quote, c.Path, clause)
			}
		}
	}
	if dates["master-services-agreement.txt non_renewal_notice"] != "2027-12-04" || dates["distribution-agreement.txt option"] != "2030-01-02" {
		t.Errorf("dates %v", dates)
	}
	if s := text(res); !strings.Contains(s, "2027-12-04") || !strings.Contains(s, "2030-01-02") {
		t.Errorf("text: %s", s)
	}
	if steps, last, total := progress.settled(); len(steps) == 0 || last != total || !strings.Contains(steps[len(steps)-1], "of") {
		t.Errorf("progress: %q (last %v of %v)", steps, last, total)
	}

	var soon DeadlinesOutput
	if res := call(t, cs, "list_deadlines", map[string]any{"as_of": "2026-12-07", "within": "1y"}, &soon); res.IsError {
		t.Fatalf("within 1y: %s", text(res))
	}
	for _, d := range soon.Deadlines {
		if d.Date < "2026-12-07" || d.Date > "2027-12-07" {
			t.Errorf("within 1y lists %s %s", d.Date, d.Label)
		}
	}
	if len(soon.Deadlines) == 0 || len(soon.Deadlines) >= len(out.Deadlines) {
		t.Errorf("within 1y: %d of %d deadlines", len(soon.Deadlines), len(out.Deadlines))
	}
	var one DeadlinesOutput
	if res := call(t, cs, "list_deadlines", map[string]any{"as_of": "2026-12-07", "docs": []string{"distribution-agreement.txt"}}, &one); res.IsError {
		t.Fatalf("one document: %s", text(res))
	}
	if one.Contracts != 1 {
		t.Errorf("one document: %d contracts", one.Contracts)
	}
	for _, d := range one.Deadlines {
		if d.DocName != "distribution-agreement.txt" {
			t.Errorf("one document lists %s", d.DocName)
		}
	}
	for _, args := range []map[string]any{{"within": "soon"}, {"as_of": "7/12/2026"}, {"docs": []string{"nope.txt"}}} {
		if res := call(t, cs, "list_deadlines", args, nil); !res.IsError {
			t.Errorf("list_deadlines %v: no error", args)
		}
	}
}
