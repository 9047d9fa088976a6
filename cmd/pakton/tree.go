package main

import (
	"context"
	"fmt"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/parse"
)

func runTree(ctx context.Context, args []string) error {
	fs, _ := newFlags("tree", "tree [flags] FILE\n\nPrints the clause tree of a file (no store needed).")
	pf := addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the tree as JSON")
	depth := fs.Int("depth", 0, "deepest level to print (0: all)")
	preview := fs.Int("preview", 60, "characters of each node's text to show (0: none)")
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return fmt.Errorf("name exactly one FILE")
	}
	popt, err := pf.options()
	if err != nil {
		return err
	}
	doc, err := parse.File(ctx, files[0], popt)
	if err != nil {
		return err
	}
	t := clause.Parse(doc)
	if *asJSON {
		nodes := t.Nodes
		if *depth > 0 {
			nodes = nil
			for _, n := range t.Nodes {
				if n.Depth <= *depth {
					nodes = append(nodes, n)
				}
			}
		}
		g := graph.Extract(doc, t)
		return writeJSON(struct {
			Name        string             `json:"name"`
			Format      string             `json:"format"`
			Chars       int                `json:"chars"`
			Pages       []document.Page    `json:"pages,omitempty"`
			Nodes       []clause.Node      `json:"nodes"`
			Definitions []graph.Definition `json:"definitions"`
			References  []treeReference    `json:"references"`
		}{doc.Name, doc.Format, doc.Runes(), doc.Pages, nodes, g.Definitions, treeReferences(g.References)})
	}
	p := *preview
	if p <= 0 {
		p = -1
	}
	return clause.Render(stdout, doc, t, clause.RenderOptions{MaxDepth: *depth, Preview: p})
}

// treeReference is a graph.Reference as "tree --json" prints it: target is a
// node id or null.
type treeReference struct {
	graph.Reference
	Target *int `json:"target"`
}

func treeReferences(refs []graph.Reference) []treeReference {
	out := make([]treeReference, len(refs))
	for i, r := range refs {
		out[i].Reference = r
		if r.Target >= 0 {
			t := r.Target
			out[i].Target = &t
		}
	}
	return out
}
