package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/store"
)

// maxFollowRunes bounds the text of one clause a graph tool returns.
const maxFollowRunes = 3000

// graphDoc is a stored document with its tree and graph.
type graphDoc struct {
	rec *store.Record
	g   *graph.Doc
}

// scope returns the documents a graph tool looks in: the one named by the
// model (id or name), else the documents under review, else the whole
// collection.
func (c *Corpus) scope(ctx context.Context, named string, docs []string) ([]graphDoc, error) {
	var ids []string
	switch {
	case strings.TrimSpace(named) != "":
		in, err := docread.FindDoc(ctx, c.Store, c.Collection, strings.TrimSpace(named))
		if err != nil {
			return nil, err
		}
		ids = []string{in.ID}
	case len(docs) > 0:
		ids = docs
	default:
		infos, err := c.Store.List(ctx, c.Collection)
		if err != nil {
			return nil, err
		}
		for _, in := range infos {
			ids = append(ids, in.ID)
		}
	}
	out := make([]graphDoc, 0, len(ids))
	for _, id := range ids {
		rec, g, _, err := docread.ReadGraph(context.Background(), c.Store, c.Collection, id)
		if err != nil {
			return nil, err
		}
		out = append(out, graphDoc{rec, g})
	}
	return out, nil
}

// evidenceOf quotes span sp of a document (at most limit code points) as
// citable evidence, with the path of node.
func evidenceOf(d graphDoc, node int, sp document.Span, limit int) Evidence {
	if sp.Len() > limit {
		sp.End = sp.Start + limit
	}
	return Evidence{DocID: d.rec.Doc.ID, DocName: d.rec.Doc.Name, Path: d.rec.Tree.Path(node), Pages: d.rec.Doc.PagesOf(sp),
		Start: sp.Start, End: sp.End, Text: d.rec.Doc.Slice(sp)}
}

// DefineTerm is the Researcher's tool to look up a defined term: it returns
// the verbatim definition(s) of the term in the contracts under review,
// citable like search passages.
type DefineTerm struct {
	Corpus *Corpus
	// Docs are the documents under review; empty: the whole collection.
	Docs []string
}

// Spec describes the tool to a model.
func (t *DefineTerm) Spec() llm.ToolSpec {
	return DefineTermTool.Spec()
}

// Call looks the term up.
func (t *DefineTerm) Call(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a defineArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{}, fmt.Errorf("define_term: arguments are not a JSON object with a \"term\": %w", err)
	}
	a.Term = strings.Trim(strings.TrimSpace(a.Term), "\"“”'")
	if a.Term == "" {
		return Result{}, fmt.Errorf("define_term: \"term\" is empty")
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	docs, err := t.Corpus.scope(ctx, a.Document, t.Docs)
	if err != nil {
		return Result{}, fmt.Errorf("define_term: %w", err)
	}
	var ev []Evidence
	for _, d := range docs {
		for _, def := range d.g.Definition(a.Term) {
			ev = append(ev, evidenceOf(d, def.Node, def.Span, maxFollowRunes))
			if len(ev) == 10 {
				break
			}
		}
	}
	if len(ev) == 0 {
		return Result{Text: fmt.Sprintf("%q is not defined in %s. Search for it with search_contract to see how it is used.", a.Term, docNames(docs))}, nil
	}
	return Result{Text: FormatEvidence(ev, nil), Evidence: ev}, nil
}

// defineArgs are the arguments of define_term.
type defineArgs struct {
	Term     string `json:"term" jsonschema:"the defined term, as capitalised in the contract"`
	Document string `json:"document,omitempty" jsonschema:"optional: the document's name or id, when several are under review"`
}

// followArgs are the arguments of follow_reference.
type followArgs struct {
	Reference string `json:"reference" jsonschema:"the reference as written, e.g. \"Section 7.3\" or \"Exhibit B\""`
	Document  string `json:"document,omitempty" jsonschema:"optional: the document's name or id, when several are under review"`
}

// FollowReference is the Researcher's tool to read the clause a
// cross-reference points to ("Section 7.3", "Exhibit B", "clauses (a) and
// (c) of Section 9.1"), resolved against the contract's clause tree.
type FollowReference struct {
	Corpus *Corpus
	// Docs are the documents under review; empty: the whole collection.
	Docs []string
}

// Spec describes the tool to a model.
func (t *FollowReference) Spec() llm.ToolSpec {
	return FollowReferenceTool.Spec()
}

// Call resolves and reads the reference.
func (t *FollowReference) Call(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a followArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{}, fmt.Errorf("follow_reference: arguments are not a JSON object with a \"reference\": %w", err)
	}
	a.Reference = strings.TrimSpace(a.Reference)
	if a.Reference == "" {
		return Result{}, fmt.Errorf("follow_reference: \"reference\" is empty")
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	docs, err := t.Corpus.scope(ctx, a.Document, t.Docs)
	if err != nil {
		return Result{}, fmt.Errorf("follow_reference: %w", err)
	}
	var ev []Evidence
	var notes []string
	read := false
	for _, d := range docs {
		refs := graph.Lookup(d.rec.Doc, d.rec.Tree, a.Reference, 0)
		if len(refs) > 0 {
			read = true
		}
		for _, r := range refs {
			switch r.Status {
			case graph.External:
				notes = append(notes, fmt.Sprintf("%s points into %s, another instrument that is not in this collection.", r.Label, r.External))
			case graph.Unresolved:
				notes = append(notes, fmt.Sprintf("%s: %s has no clause labelled so (it may be an attachment that was not included).", d.rec.Doc.Name, r.Label))
			default:
				n := d.rec.Tree.Nodes[r.Target]
				ev = append(ev, evidenceOf(d, r.Target, n.Span, maxFollowRunes))
				if r.Status == graph.Within {
					notes = append(notes, fmt.Sprintf("%s: %s is not a clause of its own in the parsed structure; quoting the clause that contains it (%s).", d.rec.Doc.Name, r.Label, d.rec.Tree.Path(r.Target)))
				}
			}
		}
	}
	if !read {
		return Result{}, fmt.Errorf("follow_reference: %q is not a reference pakton can read; write it as the contract does, e.g. \"Section 7.3\", \"Article IV\", \"Exhibit B\"", a.Reference)
	}
	text := strings.Join(notes, "\n")
	if len(ev) > 0 {
		text = strings.TrimSpace(text + "\n" + FormatEvidence(ev, nil))
	}
	return Result{Text: text, Evidence: ev}, nil
}

func docNames(docs []graphDoc) string {
	if len(docs) == 1 {
		return docs[0].rec.Doc.Name
	}
	return fmt.Sprintf("the %d documents searched", len(docs))
}
