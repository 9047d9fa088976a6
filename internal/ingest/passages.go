package ingest

import (
	"fmt"
	"path"
	"strings"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// FindDoc resolves what a user typed to name a document: its id, its name
// (path as ingested), or — when unambiguous — its base name or a
// case-insensitive match of either.
func FindDoc(st *store.Store, collection, ref string) (store.DocInfo, error) {
	infos, err := st.List(collection)
	if err != nil {
		return store.DocInfo{}, err
	}
	for _, in := range infos {
		if in.ID == ref || in.Name == ref {
			return in, nil
		}
	}
	var matches []store.DocInfo
	for _, in := range infos {
		if strings.EqualFold(in.Name, ref) || strings.EqualFold(path.Base(in.Name), ref) {
			matches = append(matches, in)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return store.DocInfo{}, fmt.Errorf("collection %q: no document with id or name %q (see \"pakton docs\"): %w", collection, ref, store.ErrNotFound)
	}
	var names []string
	for _, m := range matches {
		names = append(names, m.ID+" "+m.Name)
	}
	return store.DocInfo{}, fmt.Errorf("collection %q: %q names %d documents; use an id: %s", collection, ref, len(matches), strings.Join(names, ", "))
}

// Passage is a search hit resolved against its stored document: where the
// span sits in the clause tree and on which pages, and its exact text.
type Passage struct {
	Rank    int    `json:"rank"`
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	Path    string `json:"path"`            // clause path, e.g. "Article 5 > 5.2 > (a)"
	Pages   []int  `json:"pages,omitempty"` // 1-based pages the span touches (paginated formats)
	// PageLabels are the page numbers printed on Pages ("23", "iv"), ""
	// where a page shows none; absent when none does.
	PageLabels []string      `json:"page_labels,omitempty"`
	Span       document.Span `json:"span"` // code points of the canonical text
	Score      float64       `json:"score"`
	Text       string        `json:"text"` // the canonical text of Span, verbatim
}

// Passages resolves hits against the documents of a collection, reading each
// document once. The clause path is that of the hit's node (or, when the hit
// has none, of the deepest node containing the span's start).
func Passages(st *store.Store, collection string, hits []search.Hit) ([]Passage, error) {
	recs := map[string]*store.Record{}
	out := make([]Passage, 0, len(hits))
	for _, h := range hits {
		rec, ok := recs[h.DocID]
		if !ok {
			var err error
			rec, err = st.Document(collection, h.DocID)
			if err != nil {
				return nil, err
			}
			rec.Tree = Tree(rec)
			recs[h.DocID] = rec
		}
		p := Passage{Rank: h.Rank, DocID: h.DocID, DocName: rec.Doc.Name, Span: h.Span, Score: h.Score,
			Pages: rec.Doc.PagesOf(h.Span), Text: rec.Doc.Masked(h.Span)}
		p.PageLabels = rec.Doc.PageLabelsOf(p.Pages)
		if t := rec.Tree; len(t.Nodes) > 0 {
			node := h.Node
			if node <= 0 || node >= len(t.Nodes) {
				node = t.At(h.Span.Start)
			}
			p.Path = t.Path(node)
		}
		out = append(out, p)
	}
	return out, nil
}

// Tree returns a stored document's clause tree, parsing the text again when
// the store holds none.
func Tree(rec *store.Record) *clause.Tree {
	if rec.Tree != nil && len(rec.Tree.Nodes) > 0 {
		return rec.Tree
	}
	return clause.Parse(rec.Doc)
}

// TextFunc returns a function giving a hit's source text from the stored
// documents, reading each document once (for search.Index.SearchWith).
func TextFunc(st *store.Store, collection string) func(search.Hit) (string, error) {
	docs := map[string]*store.Record{}
	return func(h search.Hit) (string, error) {
		rec, ok := docs[h.DocID]
		if !ok {
			var err error
			if rec, err = st.Document(collection, h.DocID); err != nil {
				return "", err
			}
			docs[h.DocID] = rec
		}
		return rec.Doc.Masked(h.Span), nil
	}
}
