package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/tool"
)

// TestResearcherFollowsReferences runs the Researcher against the scripted
// model server: it looks up a defined term and follows a cross-reference of
// the sample master services agreement, and cites both as evidence.
func TestResearcherFollowsReferences(t *testing.T) {
	lib := sharedLib(t)
	msa, err := lib.Find(t.Context(), "master-services-agreement.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Turn{Name: "look up and follow", Match: llmtest.All(researcherAsks, llmtest.HasTool("define_term"), llmtest.HasTool("follow_reference")),
			ToolCalls: []llmtest.ToolCall{
				{Name: "define_term", Arguments: `{"term":"Security Incident"}`},
				{Name: "follow_reference", Arguments: `{"reference":"Section 11.3(c)"}`},
				{Name: "follow_reference", Arguments: `{"reference":"Schedule 9"}`},
			}},
		llmtest.Turn{Name: "answer", Match: llmtest.All(researcherRead, llmtest.Contains("Security Incident"), llmtest.Contains("has no clause labelled so")),
			JSON: map[string]any{
				"answer": "A Security Incident is defined [E1]; Section 11.3(c) lets the Customer terminate [E2].",
				"evidence": []map[string]string{
					{"id": "E1", "quote": "\"Security Incident\" means"},
					{"id": "E2", "quote": "11.3"},
				}}},
	)
	rs := &Researcher{Chat: client(t, srv, 5*time.Second), Tools: []tool.Tool{
		&tool.SearchContract{Corpus: lib.Corpus, Docs: []string{msa.ID}},
		&tool.DefineTerm{Corpus: lib.Corpus, Docs: []string{msa.ID}},
		&tool.FollowReference{Corpus: lib.Corpus, Docs: []string{msa.ID}},
	}}
	res, err := rs.Research(context.Background(), "When can the Customer terminate after a security incident?", []report.DocRef{{ID: msa.ID, Name: msa.Name}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("errors: %v", res.Errors)
	}
	if strings.Join(res.Tools, ",") != "define_term,follow_reference,follow_reference" {
		t.Errorf("tools %v", res.Tools)
	}
	if len(res.Found) != 2 {
		t.Fatalf("found %d passages, want the definition and the clause: %+v", len(res.Found), res.Found)
	}
	def, clause := res.Found[0], res.Found[1]
	if !strings.HasPrefix(def.Text, "\"Security Incident\" means") || !strings.Contains(def.Path, "Security Incident") {
		t.Errorf("definition passage %q at %q", def.Text, def.Path)
	}
	if !strings.Contains(clause.Path, "11.3 > (c)") {
		t.Errorf("followed reference to %q: %q", clause.Path, clause.Text)
	}
	if len(res.Cited) != 2 {
		t.Errorf("cited %d passages, want 2", len(res.Cited))
	}
}
