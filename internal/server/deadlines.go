package server

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/review/deadline"
	"github.com/pakton/pakton/internal/usecase"
)

// deadlinesCost is what a list of deadlines costs a key's rate budget: it
// may review every contract of the collection (cached after the first).
const deadlinesCost = 5

// getDeadlines answers GET …/collections/{c}/deadlines: the deadlines of
// the collection's contracts (usecase.Deadlines) as JSON, or with
// ?format=ics as an iCalendar file. ?within=90d keeps those from the
// current date (or ?as_of=YYYY-MM-DD) to that far ahead; ?doc=REF
// (repeatable) limits the list to those documents; ?include_correspondence=true
// reads correspondence too.
func (s *Server) getDeadlines(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	q := r.URL.Query()
	asOf := time.Now().UTC()
	if v := q.Get("as_of"); v != "" {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			fail(w, http.StatusBadRequest, "as_of %q: want a day as YYYY-MM-DD", v)
			return
		}
		asOf = t
	}
	asOf = time.Date(asOf.Year(), asOf.Month(), asOf.Day(), 0, 0, 0, 0, time.UTC)
	var until time.Time
	within := q.Get("within")
	if within != "" {
		var err error
		if until, err = usecase.WithinDays(asOf, within); err != nil {
			fail(w, http.StatusBadRequest, "within: %v", err)
			return
		}
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "ics" {
		fail(w, http.StatusBadRequest, "format %q: want json or ics", format)
		return
	}
	uc := usecase.Deadlines{Store: s.st, Collection: c, IncludeCorrespondence: q.Get("include_correspondence") == "true"}
	if refs := q["doc"]; len(refs) > 0 {
		ids, ok := s.resolveDocs(w, r, c, refs)
		if !ok {
			return
		}
		uc.Docs = ids
	}
	list, err := uc.List(r.Context(), asOf)
	if err != nil {
		s.storeErr(w, r, "deadlines", err)
		return
	}
	if within != "" {
		list.Deadlines = deadline.Within(list.Deadlines, asOf, until)
		if list.Deadlines == nil {
			list.Deadlines = []deadline.Deadline{}
		}
	}
	if format != "ics" {
		writeJSON(w, http.StatusOK, list)
		return
	}
	var b bytes.Buffer
	if err := deadline.ICS(&b, list.Deadlines, "pakton deadlines — "+c, time.Now()); err != nil {
		fail(w, http.StatusInternalServerError, "deadlines: %v", err)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="deadlines-%s.ics"`, fileSafe(c)))
	w.WriteHeader(http.StatusOK)
	w.Write(b.Bytes())
}

var reUnsafeFile = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileSafe is s with what a file name should not hold replaced by "-".
func fileSafe(s string) string { return reUnsafeFile.ReplaceAllString(s, "-") }
