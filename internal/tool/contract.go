package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// Corpus is an indexed collection the contract tools search: the store that
// holds the documents and the collection's search index.
type Corpus struct {
	Store      *store.Store
	Collection string
	Index      *search.Index
	// Models are the optional embedding and rerank servers searches use.
	Models search.Models
}

// Search runs q and resolves the hits to passages of the stored documents.
func (c *Corpus) Search(ctx context.Context, q search.Query) (search.Result, []Evidence, error) {
	res, err := c.Index.SearchWith(ctx, c.Models, q, docread.TextFunc(ctx, c.Store, c.Collection))
	if err != nil {
		return res, nil, fmt.Errorf("collection %q: %w", c.Collection, err)
	}
	ps, err := docread.Passages(ctx, c.Store, c.Collection, res.Hits)
	if err != nil {
		return res, nil, fmt.Errorf("collection %q: %w", c.Collection, err)
	}
	ev := make([]Evidence, len(ps))
	for i, p := range ps {
		ev[i] = Evidence{DocID: p.DocID, DocName: p.DocName, Path: p.Path, Pages: p.Pages, Start: p.Span.Start, End: p.Span.End, Text: p.Text, Support: p.Support, Provision: p.Provision}
	}
	return res, ev, nil
}

// searchArgs are the arguments of the contract tools.
type searchArgs struct {
	Query string `json:"query" jsonschema:"what to look for, in the words a contract would use"`
	K     int    `json:"k,omitempty" jsonschema:"number of passages (default 5)"`
}

func parseSearchArgs(ctx context.Context, name string, raw json.RawMessage) (searchArgs, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%s: arguments are not a JSON object with a \"query\": %w", name, err)
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return a, fmt.Errorf("%s: \"query\" is empty", name)
	}
	return a, ctx.Err()
}

// SearchContract is the in-document search tool: it searches the contracts
// under review (Docs) with the retrieval core and returns verbatim passages
// with their clause path, pages and code-point span.
type SearchContract struct {
	Corpus *Corpus
	// Docs are the documents under review. When empty, each query is routed
	// to the contracts it names, or searches the whole collection.
	Docs []string
	// K is the default number of passages (5 when zero).
	K int
	// NoRoute searches the whole collection when Docs is empty, even for a
	// query that seems to name a contract.
	NoRoute bool
}

// Spec describes the tool to a model.
func (t *SearchContract) Spec() llm.ToolSpec {
	return SearchContractTool.Spec()
}

// Call runs one search.
func (t *SearchContract) Call(ctx context.Context, raw json.RawMessage) (Result, error) {
	a, err := parseSearchArgs(ctx, "search_contract", raw)
	if err != nil {
		return Result{}, err
	}
	_, ev, err := t.Corpus.Search(ctx, search.Query{Text: a.Query, Docs: t.Docs, K: clampK(a.K, defaultK(t.K)), Stages: search.Stages{NoRoute: t.NoRoute}})
	if err != nil {
		return Result{}, fmt.Errorf("search_contract: %w", err)
	}
	return Result{Text: FormatEvidence(ev, nil), Evidence: ev}, nil
}

func defaultK(k int) int {
	if k <= 0 {
		return 5
	}
	return k
}

// FormatEvidence renders passages as delimited data for a model: each inside
// <contract_passage …>…</contract_passage>, with its locator as attributes.
// ids, when given, names each passage (ids[i] for ev[i]). Text that looks like
// a closing delimiter is defused, so a passage cannot end its own quotation.
func FormatEvidence(ev []Evidence, ids []string) string {
	if len(ev) == 0 {
		return "No passages found."
	}
	var b strings.Builder
	for i, e := range ev {
		b.WriteString("<contract_passage")
		if i < len(ids) {
			fmt.Fprintf(&b, " id=%q", ids[i])
		}
		fmt.Fprintf(&b, " document=%s", DefuseAttr(e.DocName))
		if e.Path != "" {
			fmt.Fprintf(&b, " clause=%s", DefuseAttr(e.Path))
		}
		if len(e.Pages) > 0 {
			ps := make([]string, len(e.Pages))
			for j, p := range e.Pages {
				ps[j] = strconv.Itoa(p)
			}
			fmt.Fprintf(&b, " pages=%q", strings.Join(ps, ","))
		}
		fmt.Fprintf(&b, " span=\"[%d,%d)\">\n", e.Start, e.End)
		b.WriteString(DefuseDelimiters(e.Text))
		b.WriteString("\n</contract_passage>\n")
		writeSupport(&b, e.Support)
	}
	return b.String()
}

// writeSupport names, after a passage, the defined terms it uses and the
// clauses it refers to, so the model can read them with define_term and
// follow_reference. Only names and clause paths: the definitions' and
// clauses' text is fetched on demand, never mixed into the passage.
func writeSupport(b *strings.Builder, s *docread.Support) {
	if s == nil {
		return
	}
	b.WriteString("<contract_support>")
	if len(s.Definitions) > 0 {
		terms := make([]string, len(s.Definitions))
		for i, d := range s.Definitions {
			terms[i] = fmt.Sprintf("%q (%s)", d.Term, d.Path)
		}
		b.WriteString("\nDefined terms used (define_term): " + DefuseDelimiters(strings.Join(terms, "; ")))
	}
	if len(s.References) > 0 {
		refs := make([]string, len(s.References))
		for i, r := range s.References {
			switch {
			case r.Path != "":
				refs[i] = fmt.Sprintf("%s → %s", r.Text, r.Path)
			case r.External != "":
				refs[i] = fmt.Sprintf("%s → %s (another instrument)", r.Text, r.External)
			default:
				refs[i] = fmt.Sprintf("%s → not in this document", r.Text)
			}
		}
		b.WriteString("\nClauses referred to (follow_reference): " + DefuseDelimiters(strings.Join(refs, "; ")))
	}
	b.WriteString("\n</contract_support>\n")
}

// DefuseDelimiters makes text that came from a document (or from a model
// quoting one) safe to place inside a prompt's data element: every "<" that
// could begin a tag — followed by a letter, "/", "!" or "?" — gets a
// zero-width space after it, so the text can neither close its own element
// (</contract_passage>, </collection>) nor open one the prompt gives
// meaning to (<instructions>). Every prompt that carries document text,
// titles, parties, names or clause paths uses it; DefuseAttr is its form
// for attribute values.
func DefuseDelimiters(text string) string {
	if !strings.Contains(text, "<") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	for i := 0; i < len(text); i++ {
		b.WriteByte(text[i])
		if text[i] == '<' && i+1 < len(text) && tagStart(text[i+1]) {
			b.WriteString("\u200B")
		}
	}
	return b.String()
}

func tagStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// DefuseAttr quotes a document-derived value for an attribute of a data
// element: defused, then quoted with its own quotes escaped.
func DefuseAttr(v string) string { return strconv.Quote(DefuseDelimiters(v)) }

// clampK returns the number of passages a model asked for, in [1, 10], or
// def when it asked for none.
func clampK(k, def int) int {
	if k <= 0 {
		return def
	}
	return min(k, 10)
}
