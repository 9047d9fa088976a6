package agent

import (
	"context"
	"strings"
	"testing"
)

// A contract called by a name near none asks back with the nearest, each
// offered as people name it with its file after; "none of them" searches
// every contract.
func TestAmbiguityNearestNames(t *testing.T) {
	lib := sharedLib(t)
	req := Request{Question: "What law governs the Quillfeathr Dada agreement?"}
	question, choices, route, err := Ambiguity(context.Background(), lib, req)
	if err != nil {
		t.Fatal(err)
	}
	if route == nil || route.Decision != "named" || !strings.Contains(route.Why, "nearest name") {
		t.Fatalf("a misspelt name: %+v", route)
	}
	if question != "" {
		t.Errorf("a name read as the nearest asks nothing: %q", question)
	}
	req = Request{Question: "What law governs the Quilfether Holdings agreement?"}
	question, choices, route, err = Ambiguity(context.Background(), lib, req)
	if err != nil {
		t.Fatal(err)
	}
	if route == nil || route.Decision != "unknown" || !strings.Contains(question, "Did you mean") || len(choices) < 2 {
		t.Fatalf("a name near none: %q %+v (%+v)", question, choices, route)
	}
	if !strings.Contains(choices[0].Label, "Master Services Agreement — Quillfeather Data Services") || !strings.Contains(choices[0].Label, "master-services-agreement.txt") {
		t.Errorf("first choice %q", choices[0].Label)
	}
	if last := choices[len(choices)-1]; last.ID != ChooseAll {
		t.Errorf("last choice %+v", last)
	}
	got, err := ResolveRoute(context.Background(), lib, req, fixedChooser(ChooseAll), nil)
	if err != nil || !got.NoRoute {
		t.Errorf("none of them: %+v %v", got, err)
	}
}

type fixedChooser string

func (f fixedChooser) Clarify(context.Context, string) (string, error) { return string(f), nil }
func (f fixedChooser) Choose(context.Context, string, []Choice) (string, error) {
	return string(f), nil
}
