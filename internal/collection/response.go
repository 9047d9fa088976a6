package collection

import (
	"context"
	"errors"
	"fmt"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// Response is a search's answer as every face returns it: POST …/search,
// pakton search --json and the MCP search tool. Its JSON is a stable
// interface (docs/API.md).
type Response struct {
	Query    string   `json:"query"`
	RoutedTo []DocRef `json:"routed_to"`
	// Route says which documents were searched and why (search.Route):
	// the decision, the names matched, an ambiguous name's candidates.
	Route *search.Route `json:"route,omitempty"`
	// Hits are the passages found, best first.
	Hits []docread.Passage `json:"hits"`
	// NotFound: provisions the question asks about that the review
	// detectors looked for and did not find (search.Result.NotFound).
	NotFound []NotFound `json:"not_found,omitempty"`
	// Explain is the search's plan as it ran, when the query asked for it
	// (search.Query.Explain).
	Explain *search.Explain `json:"explain,omitempty"`
}

// DocRef names a document.
type DocRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Display is how the faces show it: title, parties and date.
	Display string `json:"display,omitempty"`
}

// NotFound is a provision the review detectors looked for in a document
// and did not find, with their confidence that it is there.
type NotFound struct {
	DocID      string  `json:"doc_id"`
	DocName    string  `json:"doc_name"`
	Provision  string  `json:"provision"`
	Confidence float64 `json:"confidence"`
}

// Respond resolves a search's result to a Response: each hit becomes a
// passage with its document's name, clause path, pages, exact text and
// supporting evidence (definitions and references, from the document's
// graph). A hit whose document was deleted or replaced since the snapshot
// was loaded is left out, and the others are ranked again from 1; a graph
// that cannot be built leaves its passages without supporting evidence.
func (sn *Snapshot) Respond(ctx context.Context, query string, res search.Result) (*Response, error) {
	out := &Response{Query: query, RoutedTo: []DocRef{}, Route: res.Route, Hits: []docread.Passage{}, Explain: res.Explain}
	for _, id := range res.RoutedTo {
		out.RoutedTo = append(out.RoutedTo, DocRef{id, sn.Index.DocName(id), sn.Index.DocDisplay(id)})
	}
	for _, a := range res.NotFound {
		out.NotFound = append(out.NotFound, NotFound{a.DocID, sn.Index.DocName(a.DocID), a.Provision, a.Confidence})
	}
	for _, h := range res.Hits {
		d, err := sn.Doc(ctx, h.DocID)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted since the index was loaded
		}
		if err != nil {
			return nil, fmt.Errorf("collection %q: document %s: %w", sn.Collection, h.DocID, err)
		}
		var g *graph.Doc
		if d.Tree != nil && len(d.Tree.Nodes) > 0 {
			if g, err = sn.Graph(ctx, d); err != nil {
				sn.svc.log.Warn("collection: no graph for supporting evidence", "collection", sn.Collection, "doc", h.DocID, "err", err)
			}
		}
		h.Rank = len(out.Hits) + 1
		p := docread.NewPassage(h, d.Doc, d.Tree, g)
		p.DocTitle = sn.Index.DocDisplay(h.DocID)
		out.Hits = append(out.Hits, p)
	}
	return out, nil
}
