package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
)

// ClauseInput are the arguments of get_clause. At most one of Path, Node and
// Span is given; none means the document's root.
type ClauseInput struct {
	Doc  string         `json:"doc" jsonschema:"the document: its id or name from list_documents"`
	Path string         `json:"path,omitempty" jsonschema:"clause path as search_contracts returns it (e.g. Article 5 > 5.2 > (a)), or a unique label or heading (e.g. 5.2)"`
	Node *int           `json:"node,omitempty" jsonschema:"clause node id (0 is the whole document)"`
	Span *document.Span `json:"span,omitempty" jsonschema:"a span [start, end) in code points: returns the smallest clause containing it"`
}

// ClauseChild summarises one sub-clause.
type ClauseChild struct {
	Node    int           `json:"node"`
	Kind    string        `json:"kind"`
	Label   string        `json:"label,omitempty"`
	Heading string        `json:"heading,omitempty"`
	Path    string        `json:"path"`
	Span    document.Span `json:"span"`
	Preview string        `json:"preview" jsonschema:"the start of the sub-clause's text"`
}

// ClauseOutput is the structured result of get_clause.
type ClauseOutput struct {
	DocID   string        `json:"doc_id"`
	DocName string        `json:"doc_name"`
	URI     string        `json:"uri"`
	Node    int           `json:"node"`
	Parent  int           `json:"parent" jsonschema:"node id of the enclosing clause; -1 for the document"`
	Kind    string        `json:"kind"`
	Label   string        `json:"label,omitempty"`
	Heading string        `json:"heading,omitempty"`
	Term    string        `json:"term,omitempty" jsonschema:"the defined term, for definitions"`
	Path    string        `json:"path"`
	Span    document.Span `json:"span" jsonschema:"[start, end) in code points of the canonical text, sub-clauses included"`
	Pages   []int         `json:"pages"`
	Text    string        `json:"text" jsonschema:"the verbatim text of span"`
	// Truncated is true when text holds only the start of the span.
	Truncated bool          `json:"truncated,omitempty"`
	Children  []ClauseChild `json:"children"`
	// MoreChildren counts the sub-clauses beyond those summarised.
	MoreChildren int `json:"more_children,omitempty"`
}

const previewLen = 120

func (h *handlers) getClause(ctx context.Context, _ *mcpsdk.CallToolRequest, in ClauseInput) (*mcpsdk.CallToolResult, ClauseOutput, error) {
	var out ClauseOutput
	if strings.TrimSpace(in.Doc) == "" {
		return nil, out, errors.New("doc is empty: give a document id or name from list_documents")
	}
	given := 0
	if in.Path != "" {
		given++
	}
	if in.Node != nil {
		given++
	}
	if in.Span != nil {
		given++
	}
	if given > 1 {
		return nil, out, errors.New("give at most one of path, node and span")
	}
	c, err := h.corpus(ctx)
	if err != nil {
		return nil, out, err
	}
	info, err := findDoc(ctx, c, in.Doc)
	if err != nil {
		return nil, out, err
	}
	rec, err := c.Store.Document(ctx, c.Collection, info.ID)
	if err != nil {
		return nil, out, fmt.Errorf("reading document %s: %w", info.Name, err)
	}
	t := docread.Tree(rec)
	doc := rec.Doc
	id := 0
	switch {
	case in.Node != nil:
		id = *in.Node
		if id < 0 || id >= len(t.Nodes) {
			return nil, out, fmt.Errorf("node %d: %s has nodes 0 to %d", id, info.Name, len(t.Nodes)-1)
		}
	case in.Span != nil:
		sp := *in.Span
		if sp.Start < 0 || sp.End <= sp.Start || sp.End > doc.Runes() {
			return nil, out, fmt.Errorf("span [%d, %d): want 0 ≤ start < end ≤ %d (the length of %s)", sp.Start, sp.End, doc.Runes(), info.Name)
		}
		id = t.At(sp.Start)
		for id > 0 && !t.Nodes[id].Span.Contains(sp) {
			id = t.Nodes[id].Parent
		}
	case in.Path != "":
		id, err = findPath(t, in.Path)
		if err != nil {
			return nil, out, fmt.Errorf("%s: %w", info.Name, err)
		}
	}
	n := &t.Nodes[id]
	text, truncated := cut(doc.Slice(n.Span), MaxClauseText)
	out = ClauseOutput{
		DocID: info.ID, DocName: info.Name, URI: docURI(c.Collection, info.ID),
		Node: id, Parent: n.Parent, Kind: string(n.Kind), Label: n.Label, Heading: n.Heading, Term: n.Term,
		Path: t.Path(id), Span: n.Span, Pages: orEmpty(doc.PagesOf(n.Span)),
		Text: text, Truncated: truncated, Children: []ClauseChild{},
	}
	for i, ch := range n.Children {
		if i == MaxChildren {
			out.MoreChildren = len(n.Children) - i
			break
		}
		cn := &t.Nodes[ch]
		preview, cutp := cut(strings.Join(strings.Fields(doc.Slice(cn.Span)), " "), previewLen)
		if cutp {
			preview += "…"
		}
		out.Children = append(out.Children, ClauseChild{Node: ch, Kind: string(cn.Kind), Label: cn.Label, Heading: cn.Heading, Path: t.Path(ch), Span: cn.Span, Preview: preview})
	}
	return textResult(clauseText(out)), out, nil
}

func orEmpty(p []int) []int {
	if p == nil {
		return []int{}
	}
	return p
}

// clauseText renders a clause for a reader.
func clauseText(o ClauseOutput) string {
	var b strings.Builder
	path := o.Path
	if path == "" {
		path = "(whole document)"
	}
	fmt.Fprintf(&b, "%s (doc %s) — %s [node %d, %s]\n%sspan %d–%d\n", o.DocName, o.DocID, path, o.Node, o.Kind, pagesText(o.Pages), o.Span.Start, o.Span.End)
	if o.Node == 0 {
		// The whole text of a long contract would drown the outline; the
		// structured result and the resource hold it.
		text, _ := cut(o.Text, 2000)
		b.WriteString(quote(text))
		if len(text) < len(o.Text) {
			b.WriteString("> […] (the document resource " + o.URI + " holds the full text)\n")
		}
	} else {
		b.WriteString(quote(o.Text))
		if o.Truncated {
			b.WriteString("> […] (cut; the document resource " + o.URI + " holds the full text)\n")
		}
	}
	if len(o.Children) > 0 {
		fmt.Fprintf(&b, "\nSub-clauses (read one with get_clause and its node):\n")
		for _, ch := range o.Children {
			name := ch.Path
			if name == "" {
				name = ch.Preview
			}
			fmt.Fprintf(&b, "- node %d: %s", ch.Node, name)
			if ch.Heading != "" && !strings.Contains(name, ch.Heading) {
				fmt.Fprintf(&b, " — %s", ch.Heading)
			}
			b.WriteString("\n")
		}
		if o.MoreChildren > 0 {
			fmt.Fprintf(&b, "… and %d more\n", o.MoreChildren)
		}
	}
	return b.String()
}

// findPath resolves a clause path: the exact path, else (ignoring case and
// spacing) the path, a path ending with it, or a node's label or heading,
// when exactly one node matches.
func findPath(t *clause.Tree, path string) (int, error) {
	want := normPath(path)
	if want == "" {
		return 0, nil
	}
	var exact, suffix, named []int
	for id := 1; id < len(t.Nodes); id++ {
		p := normPath(t.Path(id))
		n := &t.Nodes[id]
		switch {
		case p == want:
			exact = append(exact, id)
		case strings.HasSuffix(p, " > "+want):
			suffix = append(suffix, id)
		case strings.EqualFold(n.Label, path) || strings.EqualFold(n.Heading, path) || strings.EqualFold(n.Term, strings.Trim(path, `"`)):
			named = append(named, id)
		}
	}
	for tier, ids := range [][]int{exact, suffix, named} {
		switch {
		case len(ids) == 0:
			continue
		case len(ids) == 1, tier == 0:
			// The same full path twice (two unlabelled items, say): the
			// first in document order.
			return ids[0], nil
		}
		var names []string
		for i, id := range ids {
			if i == 5 {
				names = append(names, "…")
				break
			}
			names = append(names, fmt.Sprintf("%q (node %d)", t.Path(id), id))
		}
		return 0, fmt.Errorf("path %q matches %d clauses: %s; give the full path or the node", path, len(ids), strings.Join(names, ", "))
	}
	return 0, fmt.Errorf("no clause with path %q; call get_clause with only doc for the outline, or search_contracts for the text", path)
}

// normPath lower-cases a path and normalises the spacing around ">".
func normPath(p string) string {
	parts := strings.Split(p, ">")
	for i, s := range parts {
		parts[i] = strings.ToLower(strings.Join(strings.Fields(s), " "))
	}
	return strings.Trim(strings.Join(parts, " > "), " >")
}
