package main

import (
	"context"
	"fmt"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
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
		return writeJSON(struct {
			Name   string          `json:"name"`
			Format string          `json:"format"`
			Chars  int             `json:"chars"`
			Pages  []document.Page `json:"pages,omitempty"`
			Nodes  []clause.Node   `json:"nodes"`
		}{doc.Name, doc.Format, doc.Runes(), doc.Pages, nodes})
	}
	p := *preview
	if p <= 0 {
		p = -1
	}
	return clause.Render(stdout, doc, t, clause.RenderOptions{MaxDepth: *depth, Preview: p})
}
