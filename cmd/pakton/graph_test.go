package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
)

// TestCLIGraph ingests the sample contracts and prints the collection
// graph, one document's definitions and references, a term, JSON and DOT.
func TestCLIGraph(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := capture(t, runGraph)
	if err != nil || errOut != "" {
		t.Fatalf("graph: %v %s", err, errOut)
	}
	for _, want := range []string{"master-services-agreement.txt", "DEFINITIONS", "German Civil Code", "5 documents"} {
		if !strings.Contains(out, want) {
			t.Errorf("graph lacks %q:\n%s", want, out)
		}
	}
	out, _, err = capture(t, runGraph, "master-services-agreement.txt")
	if err != nil || !strings.Contains(out, "Confidential Information") || !strings.Contains(out, "\"Section 11.3(c)\"") {
		t.Errorf("graph DOC: %v\n%s", err, out)
	}
	out, _, err = capture(t, runGraph, "--term", "affiliate", "master-services-agreement.txt")
	if err != nil || !strings.Contains(out, "\"Affiliate\" means") || !strings.Contains(out, "Used in") {
		t.Errorf("graph --term: %v\n%s", err, out)
	}
	if _, _, err := capture(t, runGraph, "--term", "Unicorn", "master-services-agreement.txt"); err == nil || !strings.Contains(err.Error(), "no definition of \"Unicorn\"") {
		t.Errorf("graph --term of an undefined term: %v", err)
	}
	out, _, err = capture(t, runGraph, "--json", "supply-agreement.docx")
	var g struct {
		Nodes []struct{ ID, Kind string } `json:"nodes"`
		Edges []struct{ From, To, Kind string }
	}
	if err != nil || json.Unmarshal([]byte(out), &g) != nil || len(g.Nodes) < 50 || len(g.Edges) < 100 {
		t.Fatalf("graph --json: %v, %d nodes, %d edges", err, len(g.Nodes), len(g.Edges))
	}
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		ids[n.ID] = true
	}
	for _, e := range g.Edges {
		if !ids[e.From] || !ids[e.To] {
			t.Fatalf("edge %+v names a node not in the graph", e)
		}
	}
	out, _, err = capture(t, runGraph, "--dot")
	if err != nil || !strings.HasPrefix(out, "digraph pakton {") || !strings.Contains(out, "refers-to") {
		t.Errorf("graph --dot: %v\n%.300s", err, out)
	}
	if _, _, err := capture(t, runGraph, "no-such-doc"); err == nil {
		t.Error("graph of a missing document succeeded")
	}
}
