package server

import (
	"bytes"
	"mime"
	"net/http"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/compare"
	"github.com/pakton/pakton/internal/usecase"
)

// listFamilies answers GET …/collections/{c}/families: the groups of
// documents that are one contract (near-duplicates and versions).
func (s *Server) listFamilies(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	fams, err := s.families(r.Context(), c, nil)
	if err != nil {
		s.storeErr(w, r, "families", err)
		return
	}
	out := fams.Families
	if out == nil {
		out = []usecase.Family{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"families": out})
}

// compareDocs answers GET …/collections/{c}/compare?contract=REF&against=REF:
// the clause-by-clause comparison of a contract with a template or another
// version (each an id or a name); with format=docx, the redline (the
// template with the contract's differences as tracked changes, by author).
func (s *Server) compareDocs(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	q := r.URL.Query()
	if q.Get("contract") == "" || q.Get("against") == "" {
		fail(w, http.StatusBadRequest, "name the contract and the template: ?contract=ID|NAME&against=ID|NAME")
		return
	}
	var ids []string
	for _, ref := range []string{q.Get("contract"), q.Get("against")} {
		id, ok := s.resolveDocs(w, r, c, []string{ref})
		if !ok {
			return
		}
		ids = append(ids, id...)
	}
	var sides [2]compare.Side
	for i, id := range ids {
		side, err := usecase.CompareSide(r.Context(), s.st, c, id)
		if err != nil {
			s.storeErr(w, r, "compare", err)
			return
		}
		sides[i] = side
	}
	switch q.Get("format") {
	case "", "json":
	case "docx":
		// The redline: the template with the contract's differences as
		// tracked changes.
		author := q.Get("author")
		if author == "" {
			author = "pakton"
		}
		if len([]rune(author)) > 100 {
			fail(w, http.StatusBadRequest, "author: at most 100 characters")
			return
		}
		var buf bytes.Buffer
		if err := compare.Redline(&buf, sides[0], sides[1], compare.RedlineOptions{Author: author, Title: sides[0].Doc.Name + " against " + sides[1].Doc.Name}); err != nil {
			s.internal(w, "redline", err)
			return
		}
		w.Header().Set("Content-Type", compare.DocxContentType)
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": compare.RedlineName(sides[0].Doc.Name, sides[1].Doc.Name)}))
		w.Header().Set("Cache-Control", "no-store")
		w.Write(buf.Bytes())
		return
	default:
		fail(w, http.StatusBadRequest, "format: json or docx")
		return
	}
	res := compare.Compare(sides[0], sides[1], compare.Options{})
	writeJSON(w, http.StatusOK, map[string]any{
		"contract": map[string]string{"id": ids[0], "name": sides[0].Doc.Name},
		"against":  map[string]string{"id": ids[1], "name": sides[1].Doc.Name},
		"missing":  res.Missing, "changed": res.Changed, "added": res.Added,
		"same": res.Same, "moved": res.Moved, "similarity": res.Similarity,
	})
}
