package usecase

import (
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
)

// GraphView is a document's graph as the HTTP API and MCP show it: each
// definition and reference with the clause paths a reader needs.
type GraphView struct {
	// Computed is true when the store held no graph for the document
	// (ingested before graphs existed) and it was computed for this answer.
	Computed    bool              `json:"computed"`
	Definitions []DefinitionView  `json:"definitions"`
	References  []ReferenceView   `json:"references"`
	Terms       []graph.TermCount `json:"terms"`
	// Uses lists, per clause node, the defined terms it uses (indexes into
	// Terms) with counts.
	Uses []graph.Use `json:"uses"`
}

// DefinitionView is a definition with its clause path and the number of
// times its term is used.
type DefinitionView struct {
	graph.Definition
	Path string `json:"path"`
	Uses int    `json:"uses"`
}

// ReferenceView is a reference with the clause paths of its source and
// target; target is null for external and unresolved references.
type ReferenceView struct {
	graph.Reference
	Target     *int           `json:"target"`
	Path       string         `json:"path"`
	TargetPath string         `json:"target_path,omitempty"`
	TargetSpan *document.Span `json:"target_span,omitempty"`
}

// ViewGraph renders graph g of a document with tree t.
func ViewGraph(t *clause.Tree, g *graph.Doc, computed bool) GraphView {
	uses := make([]int, len(g.Terms))
	for _, u := range g.Uses {
		uses[u.Term] += u.Count
	}
	index := map[string]int{}
	for i, term := range g.Terms {
		index[graph.Key(term)] = i
	}
	v := GraphView{Computed: computed, Definitions: []DefinitionView{}, References: []ReferenceView{},
		Terms: make([]graph.TermCount, len(g.Terms)), Uses: g.Uses}
	if v.Uses == nil {
		v.Uses = []graph.Use{}
	}
	for i, term := range g.Terms {
		v.Terms[i] = graph.TermCount{Term: term, Uses: uses[i]}
	}
	for _, d := range g.Definitions {
		v.Definitions = append(v.Definitions, DefinitionView{Definition: d, Path: t.Path(d.Node), Uses: uses[index[graph.Key(d.Term)]]})
	}
	for _, r := range g.References {
		rv := ReferenceView{Reference: r, Path: t.Path(r.Node)}
		if r.Target >= 0 {
			tg := r.Target
			sp := t.Nodes[tg].Span
			rv.Target, rv.TargetPath, rv.TargetSpan = &tg, t.Path(tg), &sp
		}
		v.References = append(v.References, rv)
	}
	return v
}
