package server

import (
	"net/http"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/usecase"
)

// docGraphJSON is the body of GET …/documents/{id}/graph.
type docGraphJSON struct {
	Document docJSON `json:"document"`
	usecase.GraphView
}

// getDocGraph answers GET …/documents/{id}/graph: the document's defined
// terms, their uses and its cross-references, resolved to clause paths.
func (s *Server) getDocGraph(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c, id := r.PathValue("c"), r.PathValue("id")
	info, err := s.st.Info(r.Context(), c, id)
	if err != nil {
		s.storeErr(w, r, "get document graph", err)
		return
	}
	rec, g, computed, err := docread.ReadGraph(r.Context(), s.st, c, id)
	if err != nil {
		s.storeErr(w, r, "get document graph", err)
		return
	}
	out := docGraphJSON{Document: toDocJSON(info), GraphView: usecase.ViewGraph(rec.Tree, g, computed)}
	writeJSON(w, http.StatusOK, out)
}

// getCollectionGraph answers GET …/collections/{c}/graph: the collection's
// graph of documents, clauses, terms and parties (?doc= restricts it to
// some documents, by id or name).
func (s *Server) getCollectionGraph(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	ids, ok := s.resolveDocs(w, r, c, r.URL.Query()["doc"])
	if !ok {
		return
	}
	g, computed, err := usecase.CollectionGraph(r.Context(), s.st, c, ids)
	if err != nil {
		s.storeErr(w, r, "collection graph", err)
		return
	}
	if g.Vertices == nil {
		g.Vertices = []graph.Vertex{}
	}
	if g.Edges == nil {
		g.Edges = []graph.Edge{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"collection": c, "computed": computed, "nodes": g.Vertices, "edges": g.Edges})
}
