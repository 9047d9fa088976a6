package tool

import (
	"bytes"
	"testing"

	"github.com/pakton/pakton/internal/llm"
)

// The Researcher's tools are the registry's: each bound tool describes
// itself as its declaration does, in the registry's order, and every input
// schema is derived from the Go type its Call decodes.
func TestResearcherRegistry(t *testing.T) {
	bound := []Tool{&SearchContract{}, &DefineTerm{}, &FollowReference{}, &FindExamples{}}
	if len(bound) != len(Researcher) {
		t.Fatalf("%d bound tools, %d declared", len(bound), len(Researcher))
	}
	seen := map[string]bool{}
	for i, e := range Researcher {
		want, got := e.Spec(), bound[i].Spec()
		if got.Name != want.Name || got.Description != want.Description || !bytes.Equal(got.Parameters, want.Parameters) {
			t.Errorf("tool %d: bound %+v, declared %+v", i, got, want)
		}
		if seen[want.Name] || want.Name != e.MCP().Name || want.Description != e.MCP().Description {
			t.Errorf("tool %s: duplicate or its faces disagree", want.Name)
		}
		seen[want.Name] = true
	}
	if got, want := string(SearchContractTool.Spec().Parameters), string(llm.DeriveSchema[searchArgs](nil)); got == want {
		t.Errorf("search_contract's k has no bounds: %s", got)
	}
	if got, want := string(DefineTermTool.Spec().Parameters), string(llm.DeriveSchema[defineArgs](nil)); got != want {
		t.Errorf("define_term's schema is not derived from its arguments:\n%s\n%s", got, want)
	}
}
