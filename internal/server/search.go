package server

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/usecase"
)

// searchRequest is the body of POST …/search.
type searchRequest struct {
	Query string   `json:"query"`
	K     int      `json:"k"`
	Docs  []string `json:"docs"` // document ids or names; empty: whole collection
	// Stages switch the search's tuned stages off: "no_route" searches
	// every document even when the query seems to name a contract (the
	// response's routed_to says when routing narrowed it), "no_provisions"
	// ranks by the question's words only, and "no_framing",
	// "no_associations", "no_headings", "no_fill", "no_spread" turn off the
	// others (search.Stages).
	search.Stages
	// Explain adds the plan as it ran ("explain": search.Explain).
	Explain bool `json:"explain"`
}

// maxK bounds the hits one search returns.
const maxK = 100

func (s *Server) search(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	var req searchRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	if req.Query == "" {
		fail(w, http.StatusBadRequest, "empty query")
		return
	}
	if n := utf8.RuneCountInString(req.Query); n > search.MaxQueryChars {
		fail(w, http.StatusBadRequest, "query: %d characters; the limit is %d", n, search.MaxQueryChars)
		return
	}
	if req.K == 0 {
		req.K = 10
	}
	if req.K < 0 || req.K > maxK {
		fail(w, http.StatusBadRequest, "k %d: want 1 to %d", req.K, maxK)
		return
	}
	ids, sn, ok := s.answeringIn(w, r, c, req.Docs)
	if !ok {
		return
	}
	res, err := sn.Search(r.Context(), search.Query{Text: req.Query, K: req.K, Docs: ids, Stages: req.Stages, Explain: req.Explain})
	if err != nil {
		s.log.Warn("search: model server failed", "err", err)
		fail(w, http.StatusBadGateway, "search failed: %v", err)
		return
	}
	out, err := sn.Respond(r.Context(), req.Query, res)
	if err != nil {
		s.internal(w, "read document", err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// resolveDocs turns the document ids or names of a request into ids,
// answering itself (docErr) for one the collection does not hold.
func (s *Server) resolveDocs(w http.ResponseWriter, r *http.Request, c string, refs []string) ([]string, bool) {
	ids, err := usecase.Documents(r.Context(), s.st, c, docRefs(refs))
	if err != nil {
		s.docErr(w, r, c, err)
		return nil, false
	}
	return ids, true
}

// docErr writes the response for a document reference of collection c
// that did not resolve (a *usecase.DocumentError): 404 for a collection or a
// document the store does not have, 400 for a reference several documents
// fit (the message names them).
func (s *Server) docErr(w http.ResponseWriter, r *http.Request, c string, err error) {
	var de *usecase.DocumentError
	switch {
	case !errors.As(err, &de):
		s.caseErr(w, r, "resolve documents", err)
	case s.collectionMissing(r, c):
		collectionNotFound(w, c)
	case de.Ambiguous():
		fail(w, http.StatusBadRequest, "%s", err.Error())
	default:
		fail(w, http.StatusNotFound, "document %q not found", de.Ref)
	}
}

// collectionMissing reports whether the store has no collection c.
func (s *Server) collectionMissing(r *http.Request, c string) bool {
	_, err := s.st.Generation(r.Context(), c)
	return err != nil
}

// answeringIn is what search and ask start with: the documents refs name
// (resolveDocs) and the collection's snapshot (answering), or false once
// the response says why not.
func (s *Server) answeringIn(w http.ResponseWriter, r *http.Request, c string, refs []string) ([]string, *collection.Snapshot, bool) {
	ids, ok := s.resolveDocs(w, r, c, refs)
	if !ok {
		return nil, nil, false
	}
	sn, ok := s.answering(w, r, c)
	return ids, sn, ok
}

// answering returns collection c's snapshot for a search or a question, or
// writes why there is none: a store error, or 409 for a collection that
// holds no documents yet (the same answer for search and ask, and as the CLI
// and MCP give: not "no hits").
func (s *Server) answering(w http.ResponseWriter, r *http.Request, c string) (*collection.Snapshot, bool) {
	sn, err := usecase.Answering(r.Context(), s.coll, c)
	if err != nil {
		s.caseErr(w, r, "load index", err)
		return nil, false
	}
	return sn, true
}
