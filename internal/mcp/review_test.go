package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

func TestReviewCollection(t *testing.T) {
	st := testStore(t)
	cs, progress := connectWithProgress(t, st)

	docs, err := st.List(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	params := &mcpsdk.CallToolParams{Name: "review_collection", Arguments: map[string]any{
		"playbook_yaml": string(reviewtest.PlaybookYAML), "provisions": []string{"Governing Law", "Source Code Escrow"}}}
	params.SetProgressToken("review-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("review_collection: %v %s", err, text(res))
	}
	var out ReviewOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.Contracts != len(docs) || len(out.Rows) != len(docs) || strings.Join(out.Provisions, ",") != "Governing Law,Source Code Escrow" {
		t.Fatalf("review: %+v", out)
	}
	found, answered := 0, 0
	for _, r := range out.Rows {
		if len(r.Found)+len(r.NotFound) != 2 {
			t.Errorf("%s: %d found + %d not found, want 2 cells", r.DocName, len(r.Found), len(r.NotFound))
		}
		for _, c := range r.Found {
			found++
			// Every extract is verbatim at its span (cut at MaxReviewExtract).
			// The first extract's text is the span's (the others follow
			// after " […] ").
			exact := strings.TrimSpace(slice(docText(t, st, "alpha", r.DocID), c.Span))
			first, _, _ := strings.Cut(c.Text, " […] ")
			if !strings.HasPrefix(exact, first) || (!c.Truncated && first != exact) {
				t.Errorf("%s %s: text %q is not the span's %q", r.DocName, c.Provision, c.Text, exact)
			}
			if c.Path == "" || c.Confidence <= 0 || c.Confidence > 1 {
				t.Errorf("%s %s: path %q confidence %v", r.DocName, c.Provision, c.Path, c.Confidence)
			}
			// The answer, and where it was read: inside the document, and
			// its words are the answer's (a jurisdiction's name).
			if c.Provision == "Governing Law" && c.Kind == "value" && c.Answer != "" {
				answered++
				if len(c.AnswerSpans) == 0 {
					t.Errorf("%s: answer %q without its span", r.DocName, c.Answer)
				}
				for _, sp := range c.AnswerSpans {
					if got := slice(docText(t, st, "alpha", r.DocID), sp); !strings.Contains(strings.ToLower(c.Answer), strings.ToLower(strings.Fields(got)[0])) {
						t.Errorf("%s: answer %q read at %v, which says %q", r.DocName, c.Answer, sp, got)
					}
				}
				if !strings.Contains(text(res), "Governing Law: "+c.Answer) {
					t.Errorf("the text result does not give %s's answer %q", r.DocName, c.Answer)
				}
			}
		}
	}
	if answered == 0 {
		t.Error("no contract's Governing Law has an answer")
	}
	if found != out.FoundCells || found == 0 {
		t.Errorf("found cells %d, counted %d", out.FoundCells, found)
	}
	txt := text(res)
	if !strings.Contains(txt, "Governing Law") || !strings.Contains(txt, "Not found: ") {
		t.Errorf("text result:\n%s", txt)
	}
	if steps, last, total := progress.settled(); len(steps) == 0 || int(last) != len(docs) || int(total) != len(docs) || !strings.Contains(steps[len(steps)-1], "reviewed") {
		t.Errorf("progress: %q (last %v of %v)", steps, last, total)
	}

	// One document by name; the built-in playbook by default.
	res = call(t, cs, "review_collection", map[string]any{"docs": []string{docs[0].Name}, "provisions": []string{"Governing Law"}}, &out)
	if res.IsError || len(out.Rows) != 1 || out.Rows[0].DocID != docs[0].ID {
		t.Errorf("one document: %s %+v", text(res), out)
	}

	// The merger-agreement playbook by name.
	res = call(t, cs, "review_collection", map[string]any{"playbook": "merger", "docs": []string{docs[0].Name}, "provisions": []string{"Type of Consideration", "Termination Fee"}}, &out)
	if res.IsError || out.Playbook != "pakton merger agreement" || strings.Join(out.Provisions, ",") != "Type of Consideration,Termination Fee" || len(out.Rows) != 1 {
		t.Errorf("merger playbook: %s %+v", text(res), out)
	}

	// Errors name what is wrong.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"playbook_yaml": "provisions:\n  - name: A\n    definiton: x\n"}, "line 3"},
		{map[string]any{"playbook": "mine"}, `unknown playbook "mine"`},
		{map[string]any{"provisions": []string{"Nope"}}, `no provision "Nope"`},
		{map[string]any{"docs": []string{"nope.pdf"}}, "nope.pdf"},
		{map[string]any{"playbook_yaml": bigPlaybook(playbook.MaxProvisions + 1)}, "provisions, more than the"},
	} {
		res := call(t, cs, "review_collection", c.args, nil)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%v: %s, want an error with %q", c.args, text(res), c.want)
		}
	}
}

// bigPlaybook is a playbook of n provisions.
func bigPlaybook(n int) string {
	var b strings.Builder
	b.WriteString("provisions:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: P%d\n    definition: provision number %d\n", i, i)
	}
	return b.String()
}
