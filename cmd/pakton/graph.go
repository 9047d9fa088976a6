package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

const graphUsage = `graph [flags] [DOC]

Prints the contract graph of a collection: its documents, the terms and
parties they define, and their cross-references (docs/GRAPH.md). With DOC (id
or name), lists that document's definitions and references clause by clause.`

func runGraph(ctx context.Context, args []string) error {
	fs, g := newFlags("graph", graphUsage)
	asJSON := fs.Bool("json", false, "print the graph as JSON: nodes and edges (the whole collection, or DOC)")
	dot := fs.Bool("dot", false, "print the graph in Graphviz DOT (documents, terms, references; no part-of/next edges)")
	term := fs.String("term", "", "with DOC: print the definition of TERM and the clauses that use it")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		fs.Usage()
		return fmt.Errorf("name at most one DOC")
	}
	if *term != "" && len(rest) == 0 {
		return fmt.Errorf("--term needs a DOC: the document whose term to look up")
	}
	st, err := g.openCollection(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	var ids []string
	if len(rest) == 1 {
		info, err := docread.FindDoc(ctx, st, g.collection, rest[0])
		if err != nil {
			return err
		}
		ids = []string{info.ID}
	}
	if *term != "" {
		return printTerm(ctx, st, g.collection, ids[0], *term)
	}
	cg, computed, err := usecase.CollectionGraph(ctx, st, g.collection, ids)
	if err != nil {
		return err
	}
	if computed > 0 {
		fmt.Fprintf(stderr, "pakton graph: %d documents were stored before graphs existed; their graphs were computed now (run \"pakton docs reindex\" to store them)\n", computed)
	}
	switch {
	case *asJSON:
		return writeJSON(cg)
	case *dot:
		return writeDOT(cg)
	case len(ids) == 1:
		return printDocGraph(ctx, st, g.collection, ids[0])
	}
	return printCollectionGraph(st, g.collection, cg)
}

// printCollectionGraph writes one line per document and the instruments
// the collection refers to.
func printCollectionGraph(st *store.Store, collection string, cg *graph.Graph) error {
	type docStats struct{ name, id string }
	var docs []docStats
	defs, terms, refs := map[string]int{}, map[string]int{}, map[string]map[string]int{}
	instruments := map[string]int{}
	label := map[string]graph.Vertex{}
	for _, v := range cg.Vertices {
		label[v.ID] = v
		switch v.Kind {
		case graph.NodeDocument:
			docs = append(docs, docStats{v.Label, v.Doc})
			refs[v.Doc] = map[string]int{}
		case graph.NodeTerm, graph.NodeParty:
			terms[v.Doc]++
		}
	}
	for _, e := range cg.Edges {
		from := label[e.From]
		switch e.Kind {
		case graph.EdgeDefines:
			defs[from.Doc]++
		case graph.EdgeRefersTo:
			to := label[e.To]
			refs[from.Doc][string(to.Kind)] += e.Count
			if to.Kind == graph.NodeInstrument {
				instruments[to.Label] += e.Count
			}
		}
	}
	if len(docs) == 0 {
		fmt.Fprintf(stdout, "collection %q holds no documents\n", collection)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tDEFINITIONS\tTERMS\tREFERENCES\tTO CLAUSES\tEXTERNAL\tUNRESOLVED")
	for _, d := range docs {
		r := refs[d.id]
		total := r[string(graph.NodeClause)] + r[string(graph.NodeDocument)] + r[string(graph.NodeInstrument)] + r[string(graph.NodeMissing)]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", d.id, d.name, defs[d.id], terms[d.id], total,
			r[string(graph.NodeClause)]+r[string(graph.NodeDocument)], r[string(graph.NodeInstrument)], r[string(graph.NodeMissing)])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(instruments) > 0 {
		names := make([]string, 0, len(instruments))
		for n := range instruments {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return instruments[names[i]] > instruments[names[j]] })
		fmt.Fprintf(stdout, "\nOther instruments referred to:\n")
		for _, n := range names {
			fmt.Fprintf(stdout, "  %4d  %s\n", instruments[n], n)
		}
	}
	s := cg.Stats()
	_, err := fmt.Fprintf(stdout, "\n%d documents, %d clauses, %d terms, %d parties; %d defines, %d uses, %d refers-to edges\n",
		s["document"], s["clause"], s["term"], s["party"], s["defines"], s["uses"], s["refers-to"])
	return err
}

// printDocGraph lists one document's definitions and references.
func printDocGraph(ctx context.Context, st *store.Store, collection, id string) error {
	rec, dg, _, err := docread.ReadGraph(ctx, st, collection, id)
	if err != nil {
		return err
	}
	t := rec.Tree
	fmt.Fprintf(stdout, "%s  %s\n\nDefinitions (%d):\n", rec.Doc.ID, rec.Doc.Name, len(dg.Definitions))
	uses := map[string]int{}
	for _, tc := range dg.SortedTerms() {
		uses[graph.Key(tc.Term)] = tc.Uses
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, d := range dg.Definitions {
		fmt.Fprintf(tw, "  %s\t%s\t%s\tused %d×\n", d.Term, d.Kind, where(t, d.Node), uses[graph.Key(d.Term)])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nReferences (%d):\n", len(dg.References))
	tw = tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, r := range dg.References {
		var to string
		switch r.Status {
		case graph.External:
			to = "external: " + r.External
		case graph.Unresolved:
			to = "unresolved: nothing in this document is labelled " + r.Label
		case graph.Within:
			to = where(t, r.Target) + " (within)"
		default:
			to = where(t, r.Target)
		}
		fmt.Fprintf(tw, "  %s\t%q\t→ %s\n", where(t, r.Node), oneLine(r.Text), to)
	}
	return tw.Flush()
}

// printTerm prints a term's definitions and the clauses that use it.
func printTerm(ctx context.Context, st *store.Store, collection, id, term string) error {
	rec, dg, _, err := docread.ReadGraph(ctx, st, collection, id)
	if err != nil {
		return err
	}
	defs := dg.Definition(term)
	if len(defs) == 0 {
		return fmt.Errorf("%s: no definition of %q (the document defines %d terms; \"pakton graph %s\" lists them)", rec.Doc.Name, term, len(dg.Terms), id)
	}
	for _, d := range defs {
		fmt.Fprintf(stdout, "%s — %s %s\n  %s\n\n", d.Term, where(rec.Tree, d.Node), d.Span, rec.Doc.Slice(d.Span))
	}
	k := graph.Key(term)
	var lines []string
	for _, u := range dg.Uses {
		if graph.Key(dg.Terms[u.Term]) == k {
			lines = append(lines, fmt.Sprintf("  %s (%d×)", where(rec.Tree, u.Node), u.Count))
		}
	}
	_, err = fmt.Fprintf(stdout, "Used in %d clauses:\n%s\n", len(lines), strings.Join(lines, "\n"))
	return err
}

// writeDOT prints documents, terms, parties, instruments and missing
// targets with the defines, uses and refers-to edges, in Graphviz DOT.
func writeDOT(cg *graph.Graph) error {
	var b strings.Builder
	b.WriteString("digraph pakton {\n  rankdir=LR;\n  node [fontsize=10];\n")
	shape := map[graph.NodeKind]string{graph.NodeDocument: "folder", graph.NodeClause: "box", graph.NodeTerm: "ellipse",
		graph.NodeParty: "doubleoctagon", graph.NodeInstrument: "note", graph.NodeMissing: "octagon"}
	used := map[string]bool{}
	for _, e := range cg.Edges {
		if e.Kind == graph.EdgePartOf || e.Kind == graph.EdgeNext {
			continue
		}
		used[e.From], used[e.To] = true, true
		fmt.Fprintf(&b, "  %q -> %q [label=%q];\n", e.From, e.To, string(e.Kind))
	}
	for _, v := range cg.Vertices {
		if used[v.ID] || v.Kind == graph.NodeDocument {
			fmt.Fprintf(&b, "  %q [label=%q, shape=%s];\n", v.ID, v.Label, shape[v.Kind])
		}
	}
	b.WriteString("}\n")
	_, err := stdout.Write([]byte(b.String()))
	return err
}

// where names clause node id for a reader: its path, or its kind.
func where(t *clause.Tree, id int) string {
	if p := t.Path(id); p != "" {
		return p
	}
	if id <= 0 || id >= len(t.Nodes) {
		return "(document)"
	}
	return string(t.Nodes[id].Kind)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
