package docread

import (
	"context"
	"sort"
	"strconv"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/store"
)

// Support is what a passage leans on: the definitions of the defined terms
// it uses and the clauses it refers to. It is supporting evidence, kept
// apart from the passage's own span: it never replaces a hit, is never
// merged into one and is not retrieved text (the benchmark harnesses score
// search hits only).
type Support struct {
	Definitions []SupportDefinition `json:"definitions,omitempty"`
	References  []SupportReference  `json:"references,omitempty"`
}

// SupportDefinition is the definition of a term a passage uses.
type SupportDefinition struct {
	Term string        `json:"term"`
	Path string        `json:"path"` // clause path of the definition
	Span document.Span `json:"span"` // the definition's text (at most MaxSupportRunes)
	Text string        `json:"text"` // the canonical text of Span, verbatim
}

// SupportReference is a cross-reference written in a passage and what it
// points to.
type SupportReference struct {
	Text   string       `json:"text"`  // as written, e.g. "Section 7.3"
	Label  string       `json:"label"` // normalised, e.g. "Section 7.3"
	Status graph.Status `json:"status"`
	// Path, Span and Target text are those of the clause referred to
	// (Span at most MaxSupportRunes), for resolved and within references.
	Path       string         `json:"path,omitempty"`
	Span       *document.Span `json:"span,omitempty"`
	TargetText string         `json:"target_text,omitempty"`
	External   string         `json:"external,omitempty"` // the other instrument
}

// Limits of supporting evidence per passage.
const (
	MaxSupportRunes       = 1200 // of one definition or referred-to clause
	MaxSupportDefinitions = 6
	MaxSupportReferences  = 6
)

// SupportFor returns the supporting evidence of span sp of a document with
// tree t and graph g: definitions of the terms used in sp (rarest first;
// left out: parties' names and the other preamble definitions, and
// definitions inside sp) and the clauses
// referred to from sp (each target once, targets inside sp left out).
func SupportFor(doc *document.Document, t *clause.Tree, g *graph.Doc, sp document.Span) *Support {
	s := &Support{}
	// Terms used in the clauses the span covers.
	total := map[int]int{}
	for _, u := range g.Uses {
		total[u.Term] += u.Count
	}
	inSpan := map[int]bool{}
	for _, u := range g.Uses {
		if u.Node > 0 && t.Nodes[u.Node].Own.Overlaps(sp) {
			inSpan[u.Term] = true
		}
	}
	terms := make([]int, 0, len(inSpan))
	for ti := range inSpan {
		terms = append(terms, ti)
	}
	sort.Slice(terms, func(i, j int) bool {
		if total[terms[i]] != total[terms[j]] {
			return total[terms[i]] < total[terms[j]]
		}
		return terms[i] < terms[j]
	})
	for _, ti := range terms {
		if len(s.Definitions) == MaxSupportDefinitions {
			break
		}
		for _, d := range g.Definition(g.Terms[ti]) {
			if d.Kind == graph.DefParty || d.Span.Overlaps(sp) || t.Nodes[d.Node].Kind == clause.KindPreamble {
				continue // parties, the agreement itself: named in the preamble, no help to a reader
			}
			dsp := capSpan(d.Span)
			s.Definitions = append(s.Definitions, SupportDefinition{Term: d.Term, Path: t.Path(d.Node), Span: dsp, Text: doc.Slice(dsp)})
			break
		}
	}
	seen := map[string]bool{}
	for _, r := range g.ReferencesFrom(sp) {
		if len(s.References) == MaxSupportReferences {
			break
		}
		key := r.Label + "|" + r.External
		if r.Target >= 0 {
			if t.Nodes[r.Target].Span.Overlaps(sp) {
				continue // the passage already holds it
			}
			key = "node|" + strconv.Itoa(r.Target)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		sr := SupportReference{Text: r.Text, Label: r.Label, Status: r.Status, External: r.External}
		if r.Target >= 0 {
			tsp := capSpan(t.Nodes[r.Target].Span)
			sr.Path, sr.Span, sr.TargetText = t.Path(r.Target), &tsp, doc.Slice(tsp)
		}
		s.References = append(s.References, sr)
	}
	// A definition inside a clause the passage refers to is quoted there.
	defs := s.Definitions[:0]
	for _, d := range s.Definitions {
		inRef := false
		for _, r := range s.References {
			if r.Span != nil && r.Span.Contains(d.Span) {
				inRef = true
			}
		}
		if !inRef {
			defs = append(defs, d)
		}
	}
	s.Definitions = defs
	if len(s.Definitions) == 0 && len(s.References) == 0 {
		return nil
	}
	return s
}

func capSpan(sp document.Span) document.Span {
	if sp.Len() > MaxSupportRunes {
		sp.End = sp.Start + MaxSupportRunes
	}
	return sp
}

// docGraphs caches the trees and graphs of the documents a batch of
// passages comes from.
type docGraphs struct {
	st         *store.Store
	collection string
	graphs     map[string]*graph.Doc
}

func (c *docGraphs) get(rec *store.Record) (*graph.Doc, error) {
	if g, ok := c.graphs[rec.Doc.ID]; ok {
		return g, nil
	}
	g, _, err := DocGraph(context.Background(), c.st, c.collection, rec)
	if err != nil {
		return nil, err
	}
	if c.graphs == nil {
		c.graphs = map[string]*graph.Doc{}
	}
	c.graphs[rec.Doc.ID] = g
	return g, nil
}
