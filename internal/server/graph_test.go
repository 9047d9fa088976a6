package server

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
)

// TestGraphRoutes reads a document's graph, the collection's graph and the
// supporting evidence of a search hit over the API.
func TestGraphRoutes(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deals")
	text := contract("Alpha Ltd", "three years") + "\n5. Remedies\n5.1 Termination under Section 2.2 does not limit the Supplier's liability for the Services under Section 4.1 of the Framework Agreement.\n"
	e.ingest("deals", key, file{"alpha.txt", text})
	id := e.docIDOf("deals", key, "alpha.txt")

	code, body := e.json("GET", "/api/v1/collections/deals/documents/"+id+"/graph", key, nil)
	if code != 200 {
		t.Fatalf("document graph: %d %s", code, body)
	}
	g := decode[struct {
		Computed    bool
		Definitions []struct {
			Term string
			Path string
			Uses int
		}
		References []struct {
			Text, Label, Status, External, Path string
			Target                              *int
			TargetPath                          string `json:"target_path"`
		}
		Terms []graph.TermCount
	}](t, body)
	terms := map[string]int{}
	for _, d := range g.Definitions {
		terms[d.Term] = d.Uses
	}
	if g.Computed || terms["Services"] < 1 || terms["Supplier"] < 2 {
		t.Errorf("definitions %v (computed %v)", terms, g.Computed)
	}
	var got []string
	for _, r := range g.References {
		got = append(got, r.Label+"|"+r.Status+"|"+r.TargetPath+"|"+r.External)
		if (r.Target == nil) != (r.Status == "external" || r.Status == "unresolved") {
			t.Errorf("reference %+v: target %v", r, r.Target)
		}
	}
	want := "Schedule 1|unresolved||;Section 2.2|resolved|2 > 2.2|;Section 4.1|external||Framework Agreement"
	if strings.Join(got, ";") != want {
		t.Errorf("references\n got %s\nwant %s", strings.Join(got, ";"), want)
	}

	code, body = e.json("GET", "/api/v1/collections/deals/graph", key, nil)
	cg := decode[struct {
		Nodes []graph.Vertex
		Edges []graph.Edge
	}](t, body)
	if code != 200 || len(cg.Nodes) < 10 || len(cg.Edges) < 10 {
		t.Fatalf("collection graph: %d, %d nodes, %d edges", code, len(cg.Nodes), len(cg.Edges))
	}
	if code, _ := e.json("GET", "/api/v1/collections/deals/graph?doc=nosuch.txt", key, nil); code != 404 {
		t.Errorf("collection graph of a missing document: %d", code)
	}
	if code, _ := e.json("GET", "/api/v1/collections/deals/documents/nosuch/graph", key, nil); code != 404 {
		t.Errorf("graph of a missing document: %d", code)
	}

	code, body = e.json("POST", "/api/v1/collections/deals/search", key, map[string]any{"query": "termination does not limit liability remedies", "k": 1})
	res := decode[struct {
		Hits []docread.Passage
	}](t, body)
	if code != 200 || len(res.Hits) != 1 {
		t.Fatalf("search: %d %s", code, body)
	}
	h := res.Hits[0]
	if !strings.Contains(h.Text, "Section 2.2") || h.Support == nil || len(h.Support.References) == 0 {
		t.Fatalf("hit %q has support %+v", h.Text, h.Support)
	}
	r := h.Support.References[0]
	if r.Text != "Section 2.2" || r.Span == nil || r.Span.Overlaps(h.Span) || !strings.HasPrefix(r.TargetText, "2.2 Either party may terminate") {
		t.Errorf("support reference %+v", r)
	}
	if len(h.Support.Definitions) == 0 || h.Support.Definitions[0].Term != "Services" {
		t.Errorf("support definitions %+v", h.Support.Definitions)
	}
}
