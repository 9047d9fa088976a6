package server

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"time"
)

// Listings (documents, reports, reviews, jobs) come whole by default. With
// ?limit=N a listing returns at most N items and, when more follow, a
// "next" cursor; ?after=<cursor> continues after the last item returned.
// The cursor holds that item's place in the listing's order (not an
// offset), so items added or removed meanwhile never shift a page: nothing
// is skipped or returned twice.
const maxPageLimit = 1000

type pageQuery struct {
	limit int    // 0: the whole listing
	after string // the sort key the page starts after; "" from the start
}

// parsePage reads ?limit and ?after, answering 400 itself when they are
// malformed.
func parsePage(w http.ResponseWriter, r *http.Request) (pageQuery, bool) {
	var p pageQuery
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageLimit {
			fail(w, http.StatusBadRequest, "limit must be a whole number from 1 to %d", maxPageLimit)
			return p, false
		}
		p.limit = n
	}
	if v := q.Get("after"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || len(b) == 0 {
			fail(w, http.StatusBadRequest, "after is not a cursor this server returned as \"next\"")
			return p, false
		}
		p.after = string(b)
	}
	return p, true
}

// pageOf returns the page of items (in the listing's order: by key
// ascending, or descending when desc) that p asks for, and the cursor of
// the next page ("" when none follows).
func pageOf[T any](items []T, key func(T) string, desc bool, p pageQuery) ([]T, string) {
	start := 0
	if p.after != "" {
		start = len(items)
		for i, it := range items {
			k := key(it)
			if (!desc && k > p.after) || (desc && k < p.after) {
				start = i
				break
			}
		}
	}
	items = items[start:]
	if p.limit == 0 || len(items) <= p.limit {
		return items, ""
	}
	items = items[:p.limit]
	return items, base64.RawURLEncoding.EncodeToString([]byte(key(items[len(items)-1])))
}

// timeKey is the sort key of an item listed newest first: its creation
// time (fixed width, so keys compare as strings compare) and its id.
func timeKey(t time.Time, id string) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000000") + "\x00" + id
}

// pageResponse is a listing's body: the items under name, and "next" when
// a page follows.
func pageResponse[T any](name string, items []T, next string) map[string]any {
	out := map[string]any{name: items}
	if next != "" {
		out["next"] = next
	}
	return out
}
