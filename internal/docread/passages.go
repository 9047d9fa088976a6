package docread

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// ErrAmbiguous marks a document reference that matches several documents.
var ErrAmbiguous = errors.New("ambiguous document reference")

// FindDoc resolves what a user typed to name a document. It tries, in turn:
// the exact id or name (path as ingested); the name or base name ignoring
// case; a prefix of the id (4 characters or more); a prefix of the name or
// base name ignoring case; a part of the name ignoring case. The first of
// these that matches one document wins; one that matches several is an
// error wrapping ErrAmbiguous that lists them, and no match at all is an
// error wrapping store.ErrNotFound that lists (some of) the documents.
func FindDoc(ctx context.Context, st *store.Store, collection, ref string) (store.DocInfo, error) {
	return findDoc(ctx, st, collection, ref, true)
}

// FindDocExact is FindDoc without prefixes and parts of names: only the id,
// the name or the base name (ignoring case) match. Removing documents uses
// it, so a fragment never deletes the wrong contract.
func FindDocExact(ctx context.Context, st *store.Store, collection, ref string) (store.DocInfo, error) {
	return findDoc(ctx, st, collection, ref, false)
}

func findDoc(ctx context.Context, st *store.Store, collection, ref string, loose bool) (store.DocInfo, error) {
	// The first tier (the exact id or name) is looked up, not listed: a
	// document named ref has the id store.DocID(ref). One match is the
	// answer; anything else goes through the tiers below, which list.
	if in, ok := exactDoc(ctx, st, collection, strings.TrimSpace(ref)); ok {
		return in, nil
	}
	infos, err := st.List(ctx, collection)
	if err != nil {
		return store.DocInfo{}, err
	}
	ref = strings.TrimSpace(ref)
	low := strings.ToLower(ref)
	tiers := []func(in store.DocInfo) bool{
		func(in store.DocInfo) bool { return in.ID == ref || in.Name == ref },
		func(in store.DocInfo) bool {
			return strings.EqualFold(in.Name, ref) || strings.EqualFold(path.Base(in.Name), ref)
		},
	}
	if loose && ref != "" {
		tiers = append(tiers,
			func(in store.DocInfo) bool { return len(ref) >= 4 && strings.HasPrefix(in.ID, low) },
			func(in store.DocInfo) bool {
				n := strings.ToLower(in.Name)
				return strings.HasPrefix(n, low) || strings.HasPrefix(path.Base(n), low)
			},
			func(in store.DocInfo) bool { return strings.Contains(strings.ToLower(in.Name), low) },
		)
	}
	for _, match := range tiers {
		var found []store.DocInfo
		for _, in := range infos {
			if match(in) {
				found = append(found, in)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		return store.DocInfo{}, &refError{ErrAmbiguous, fmt.Sprintf("collection %q: %q matches %d documents: %s; give more of the name, or the id",
			collection, ref, len(found), docList(found, true))}
	}
	how := "id or name"
	if loose {
		how = "id, name, or part of a name"
	}
	if len(infos) == 0 {
		return store.DocInfo{}, &refError{store.ErrNotFound, fmt.Sprintf("collection %q holds no documents, so none matches %q", collection, ref)}
	}
	return store.DocInfo{}, &refError{store.ErrNotFound, fmt.Sprintf("collection %q: no document has the %s %q; its documents: %s",
		collection, how, ref, docList(infos, false))}
}

// exactDoc returns the one document whose id or name is ref, when exactly
// one is and looking it up raised no error.
func exactDoc(ctx context.Context, st *store.Store, collection, ref string) (store.DocInfo, bool) {
	if ref == "" {
		return store.DocInfo{}, false
	}
	var found []store.DocInfo
	for _, id := range []string{ref, store.DocID(ref)} {
		in, err := st.Info(ctx, collection, id)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrInvalidName) {
				return store.DocInfo{}, false
			}
			continue
		}
		if (in.ID == ref || in.Name == ref) && !slices.ContainsFunc(found, func(f store.DocInfo) bool { return f.ID == in.ID }) {
			found = append(found, in)
		}
	}
	if len(found) != 1 {
		return store.DocInfo{}, false
	}
	return found[0], true
}

// refError is a document reference that resolved to no document or to
// several: msg says which, kind (store.ErrNotFound or ErrAmbiguous) is what
// errors.Is sees.
type refError struct {
	kind error
	msg  string
}

func (e *refError) Error() string { return e.msg }
func (e *refError) Unwrap() error { return e.kind }

// docList names up to eight documents (with their ids when withIDs) and how
// many more there are.
func docList(infos []store.DocInfo, withIDs bool) string {
	const most = 8
	var parts []string
	for i, in := range infos {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more (see \"pakton docs\")", len(infos)-most))
			break
		}
		if withIDs {
			parts = append(parts, in.ID+" "+in.Name)
		} else {
			parts = append(parts, in.Name)
		}
	}
	return strings.Join(parts, ", ")
}

// Passage is a search hit resolved against its stored document: where the
// span sits in the clause tree and on which pages, and its exact text.
type Passage struct {
	Rank    int    `json:"rank"`
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	// DocTitle is how the faces show the document: its title, parties and
	// date (names.Display), filled in where the collection's index is at
	// hand (collection.Snapshot.Respond).
	DocTitle string `json:"doc_title,omitempty"`
	Path     string `json:"path"`  // clause path, e.g. "Article 5 > 5.2 > (a)"
	Pages    []int  `json:"pages"` // 1-based pages the span touches (paginated formats; empty otherwise)
	// PageLabels are the page numbers printed on Pages ("23", "iv"), ""
	// where a page shows none; absent when none does.
	PageLabels []string      `json:"page_labels,omitempty"`
	Span       document.Span `json:"span"` // code points of the canonical text
	Score      float64       `json:"score"`
	Text       string        `json:"text"` // the canonical text of Span, page furniture as spaces
	// Support holds the definitions of the terms the passage uses and the
	// clauses it refers to: supporting evidence, apart from Span and Text
	// (nil when there is none).
	Support *Support `json:"support,omitempty"`
	// Provision names the playbook provision the review detectors found in
	// this passage, when they put it first (search.ProvisionFinder).
	Provision string `json:"provision,omitempty"`
}

// Passages resolves hits against the documents of a collection, reading each
// document once. The clause path is that of the hit's node (or, when the hit
// has none, of the deepest node containing the span's start). Each passage
// carries its supporting evidence (SupportFor).
func Passages(ctx context.Context, st *store.Store, collection string, hits []search.Hit) ([]Passage, error) {
	recs := map[string]*store.Record{}
	graphs := &docGraphs{st: st, collection: collection}
	out := make([]Passage, 0, len(hits))
	for _, h := range hits {
		rec, ok := recs[h.DocID]
		if !ok {
			var err error
			rec, err = st.Document(ctx, collection, h.DocID)
			if err != nil {
				return nil, err
			}
			rec.Tree = Tree(rec)
			recs[h.DocID] = rec
		}
		var g *graph.Doc
		if len(rec.Tree.Nodes) > 0 {
			var err error
			if g, err = graphs.get(rec); err != nil {
				return nil, err
			}
		}
		out = append(out, NewPassage(h, rec.Doc, rec.Tree, g))
	}
	return out, nil
}

// NewPassage resolves one hit against its document d, clause tree t and
// reference graph g (t or g nil: no clause path, no supporting evidence):
// the pages and printed page labels it touches, its clause path, its text
// with page furniture blanked, and its supporting evidence. Pages is never
// nil. The clause path cites every clause the span runs over
// (clause.SpanPath: "9 > 9.3–9.4"), so it always matches the text shown.
func NewPassage(h search.Hit, d *document.Document, t *clause.Tree, g *graph.Doc) Passage {
	p := Passage{Rank: h.Rank, DocID: h.DocID, DocName: d.Name, Span: h.Span, Score: h.Score,
		Pages: d.PagesOf(h.Span), Text: d.Masked(h.Span), Provision: h.Provision}
	if p.Pages == nil {
		p.Pages = []int{}
	}
	p.PageLabels = d.PageLabelsOf(p.Pages)
	if t != nil && len(t.Nodes) > 0 {
		p.Path = t.SpanPath(h.Span)
		if g != nil {
			p.Support = SupportFor(d, t, g, h.Span)
		}
	}
	return p
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
func TextFunc(ctx context.Context, st *store.Store, collection string) func(search.Hit) (string, error) {
	docs := map[string]*store.Record{}
	return func(h search.Hit) (string, error) {
		rec, ok := docs[h.DocID]
		if !ok {
			var err error
			if rec, err = st.Document(ctx, collection, h.DocID); err != nil {
				return "", err
			}
			docs[h.DocID] = rec
		}
		return rec.Doc.Masked(h.Span), nil
	}
}
