package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// listAll pages through a listing with ?limit=n and returns the ids in
// order, checking that every page but the last is full and says "next".
func listAll(e *env, path, key, name string, n int, id func(map[string]any) string) []string {
	e.t.Helper()
	var ids []string
	after := ""
	for range 100 {
		q := url.Values{"limit": {fmt.Sprint(n)}}
		if after != "" {
			q.Set("after", after)
		}
		code, body := e.json("GET", path+"?"+q.Encode(), key, nil)
		if code != http.StatusOK {
			e.t.Fatalf("GET %s: %d %s", path, code, body)
		}
		page := decode[map[string]any](e.t, body)
		items, _ := page[name].([]any)
		for _, it := range items {
			ids = append(ids, id(it.(map[string]any)))
		}
		next, _ := page["next"].(string)
		if next == "" {
			return ids
		}
		if len(items) != n {
			e.t.Fatalf("a page of %d items says more follow: %s", len(items), body)
		}
		after = next
	}
	e.t.Fatal("listing never ends")
	return nil
}

func itemID(m map[string]any) string { s, _ := m["id"].(string); return s }

// TestListingPages: documents and jobs listed a page at a time come out as
// the whole listing does; a document removed between two pages shifts
// nothing; malformed paging parameters are refused.
func TestListingPages(t *testing.T) {
	e := newEnv(t, nil)
	if code, body := e.json("POST", "/api/v1/collections", e.admin, map[string]string{"name": "deals"}); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	k := e.key("deals")
	for i := range 5 {
		e.ingest("deals", k, file{fmt.Sprintf("contract-%d.txt", i), contract(fmt.Sprintf("Party %d", i), fmt.Sprintf("%d years", i+1))})
	}
	docs := "/api/v1/collections/deals/documents"
	_, body := e.json("GET", docs, k, nil)
	whole := decode[map[string]any](t, body)
	if _, ok := whole["next"]; ok {
		t.Fatalf("a whole listing says more follow: %s", body)
	}
	var all []string
	for _, d := range whole["documents"].([]any) {
		all = append(all, itemID(d.(map[string]any)))
	}
	if len(all) != 5 {
		t.Fatalf("%d documents listed", len(all))
	}
	for _, n := range []int{1, 2, 5, 7} {
		if got := listAll(e, docs, k, "documents", n, itemID); !slices.Equal(got, all) {
			t.Fatalf("pages of %d: %v, whole listing %v", n, got, all)
		}
	}

	// A page, then the first document of the next page is deleted: the
	// next page starts with the one after it.
	_, body = e.json("GET", docs+"?limit=2", k, nil)
	first := decode[map[string]any](t, body)
	if code, b := e.json("DELETE", docs+"/"+all[2], k, nil); code != http.StatusOK && code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", code, b)
	}
	_, body = e.json("GET", docs+"?limit=2&after="+url.QueryEscape(first["next"].(string)), k, nil)
	var second []string
	for _, d := range decode[map[string]any](t, body)["documents"].([]any) {
		second = append(second, itemID(d.(map[string]any)))
	}
	if !slices.Equal(second, all[3:5]) {
		t.Fatalf("page after a deletion: %v, want %v", second, all[3:5])
	}

	// Jobs, newest first.
	jobsPath := "/api/v1/collections/deals/jobs"
	_, body = e.json("GET", jobsPath, k, nil)
	var allJobs []string
	for _, j := range decode[map[string]any](t, body)["jobs"].([]any) {
		allJobs = append(allJobs, itemID(j.(map[string]any)))
	}
	if len(allJobs) != 5 {
		t.Fatalf("%d jobs listed", len(allJobs))
	}
	if got := listAll(e, jobsPath, k, "jobs", 2, itemID); !slices.Equal(got, allJobs) {
		t.Fatalf("job pages: %v, whole listing %v", got, allJobs)
	}

	for _, q := range []string{"limit=0", "limit=-1", "limit=x", "limit=1001", "after=%21%21", "limit=2&after=%25"} {
		for _, p := range []string{docs, jobsPath, "/api/v1/collections/deals/reports", "/api/v1/collections/deals/reviews"} {
			if code, body := e.json("GET", p+"?"+q, k, nil); code != http.StatusBadRequest {
				t.Errorf("GET %s?%s: %d %s", p, q, code, body)
			}
		}
	}
}
