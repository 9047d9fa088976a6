// Package graph finds the web inside a contract — its defined terms, where
// they are used, and its cross-references — and links the contracts of a
// collection into one graph of documents, clauses, terms and parties.
//
// Extraction needs no model. It reads the canonical text and the clause tree
// (package clause) and follows the conventions of legal drafting:
//
//   - definitions: a definitions article or list (`"X" means …`, `X shall
//     have the meaning …`), inline definitions in parentheses (`(the
//     "Distributor")`, `(hereinafter referred to as "Company")`, `(each a
//     "Party")`), and the short names the preamble gives the parties;
//   - uses: every later occurrence of a defined term (capitalised as defined,
//     with plural and possessive forms);
//   - cross-references: Section / Clause / Article / Paragraph / Schedule /
//     Exhibit / Annex / Appendix / § followed by a number, letter or
//     "(a)"-style label, including lists and ranges ("Sections 4.1 through
//     4.3", "clauses (a) and (c)"); each is resolved against the clause tree
//     to a node, or flagged: pointing to another agreement or statute
//     ("Section 365(n) of the Bankruptcy Code"), or to nothing in this one.
//
// Every span is [start, end) in code points of the canonical text, like
// every other span in pakton. A definition's span lies inside its node's span.
package graph

import (
	"context"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// DefinitionKind says how a term was defined.
type DefinitionKind string

// Definition kinds.
const (
	// DefMeans is a definition sentence: `"X" means …`, `X shall have the
	// meaning set out in …`, an entry of a definitions article.
	DefMeans DefinitionKind = "means"
	// DefInline is a term defined in passing: `… products (the "Products")`.
	DefInline DefinitionKind = "inline"
	// DefParty is a party's short name, defined inline in the preamble:
	// `Acme Corp., a Delaware corporation ("Acme")`.
	DefParty DefinitionKind = "party"
)

// Definition is one place where a term is defined.
type Definition struct {
	Term string `json:"term"`
	// Span is the defining text: the definition sentence or entry for
	// DefMeans, the sentence holding the parenthesis for DefInline and
	// DefParty. It lies inside the span of Node.
	Span document.Span `json:"span"`
	// TermSpan is where the term itself is written (inside its quotes).
	TermSpan document.Span  `json:"term_span"`
	Node     int            `json:"node"` // clause node that holds the definition
	Kind     DefinitionKind `json:"kind"`
}

// Status says what a cross-reference points to.
type Status string

// Reference statuses.
const (
	// Resolved: Target is the node the reference names.
	Resolved Status = "resolved"
	// Within: the exact sub-unit is not a node of the tree (the parser did
	// not split it), Target is the deepest node that contains it.
	Within Status = "within"
	// External: the reference points into another agreement, a statute or
	// a regulation (External names it); Target is -1.
	External Status = "external"
	// Unresolved: nothing in this document carries the label (a missing
	// schedule, a drafting error, a clause the parser missed); Target is -1.
	Unresolved Status = "unresolved"
)

// Reference is one cross-reference to one target. A list or range ("Sections
// 4.1 through 4.3") gives one Reference per target it names.
type Reference struct {
	Text string        `json:"text"` // the words as written, e.g. "Section 4.1" or "(c)"
	Span document.Span `json:"span"`
	Node int           `json:"node"` // clause node the reference is written in
	// Label is the label the reference names, normalised: "4.1(a)",
	// "Exhibit A", "Article 4".
	Label string `json:"label"`
	// Target is the node referred to, or -1 when Status is External or
	// Unresolved.
	Target   int    `json:"target"`
	Status   Status `json:"status"`
	External string `json:"external,omitempty"` // the other instrument, e.g. "Bankruptcy Code"
}

// Use is a node that uses a defined term, with how many times.
type Use struct {
	Node  int `json:"node"`
	Term  int `json:"term"` // index into Doc.Terms
	Count int `json:"count"`
}

// Doc is what Extract finds in one document. It is stored beside the
// document (ingest artifact "graph") and rebuilt when a stored document has
// none.
type Doc struct {
	// Version of the extraction; a stored Doc of an older version is
	// recomputed on load.
	Version     int          `json:"version"`
	Definitions []Definition `json:"definitions"`
	References  []Reference  `json:"references"`
	// Terms lists the distinct defined terms, in order of first definition;
	// Uses points into it.
	Terms []string `json:"terms"`
	Uses  []Use    `json:"uses"`
}

// A document's graph holds at most MaxDefinitions definitions written with
// quotes and MaxReferences cross-references, the first ones in the text:
// a long contract defines a few hundred terms and cites a few thousand
// clauses, while a hostile text of a million definitions on one line would
// otherwise cost a trie of every term and a pass of every use.
const (
	MaxDefinitions = 10_000
	MaxReferences  = 100_000
)

// Version is the current extraction version (Doc.Version). Raise it when
// extraction changes what it finds: stored graphs of an older version are
// computed again when read. (2: references "of the <defined term>" are
// external; party names in a numbered list of parties. 3: a term without
// quotes is defined only by a present-tense defining verb; "Section 5" is
// never an item numbered 5 inside a numbered section.)
const Version = 3

// Extract finds the definitions, term uses and cross-references of a
// document whose clause tree is t. It never fails: text it cannot read is
// simply not a definition or a reference.
//
// Extraction reads the text a bounded number of times whatever it holds
// (each definition's sentence is looked for at most a few hundred bytes
// around it; term uses are found in one pass over the text; clause numbers
// are indexed once), so its time grows with the text's length, not with the
// length times the number of definitions or references.
func Extract(doc *document.Document, t *clause.Tree) *Doc {
	d, _ := ExtractContext(context.Background(), doc, t)
	return d
}

// ExtractContext is Extract that stops, returning ctx's error and no Doc,
// once ctx is done: ingestion gives it a deadline and cancels it with the
// job.
func ExtractContext(ctx context.Context, doc *document.Document, t *clause.Tree) (*Doc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t == nil || len(t.Nodes) == 0 {
		t = clause.Parse(doc)
	}
	x := newText(doc, t)
	x.ctx = ctx
	d := &Doc{Version: Version}
	d.Definitions = x.definitions()
	d.Terms = termList(d.Definitions)
	d.Uses = x.uses(d.Terms, d.Definitions)
	x.instrumentTerms(d.Definitions)
	d.References = x.references()
	if x.err != nil {
		return nil, x.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// Definition returns the definitions of term (compared as Key does), first
// first.
func (d *Doc) Definition(term string) []Definition {
	k := Key(term)
	var out []Definition
	for _, def := range d.Definitions {
		if Key(def.Term) == k {
			out = append(out, def)
		}
	}
	return out
}

// ReferencesFrom returns the references written inside span sp.
func (d *Doc) ReferencesFrom(sp document.Span) []Reference {
	var out []Reference
	for _, r := range d.References {
		if sp.Contains(r.Span) {
			out = append(out, r)
		}
	}
	return out
}

// ReferencesTo returns the references whose target is node id.
func (d *Doc) ReferencesTo(id int) []Reference {
	var out []Reference
	for _, r := range d.References {
		if r.Target == id {
			out = append(out, r)
		}
	}
	return out
}

// termList returns the distinct terms of defs in order of first definition.
func termList(defs []Definition) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range defs {
		k := Key(d.Term)
		if !seen[k] {
			seen[k] = true
			out = append(out, d.Term)
		}
	}
	return out
}
