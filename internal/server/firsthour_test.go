package server

import (
	"net/http"
	"strings"
	"testing"
)

// Search and ask answer an empty collection alike (409, the same words),
// and a document reference matching several documents is a 400 naming
// them, not a 404.
func TestEmptyCollectionAndAmbiguousDoc(t *testing.T) {
	e := newEnv(t, nil)
	a := e.admin
	if code, body := e.json("POST", "/api/v1/collections", a, map[string]string{"name": "empty"}); code != http.StatusCreated {
		t.Fatalf("create collection: %d %s", code, body)
	}
	scode, sbody := e.json("POST", "/api/v1/collections/empty/search", a, map[string]any{"query": "notice"})
	acode, abody := e.json("POST", "/api/v1/collections/empty/ask", a, map[string]any{"question": "what notice?", "evidence": true})
	if scode != http.StatusConflict || acode != http.StatusConflict || string(sbody) != string(abody) ||
		!strings.Contains(string(sbody), `holds no documents`) {
		t.Errorf("empty collection: search %d %s; ask %d %s; want the same 409", scode, sbody, acode, abody)
	}

	e.ingest("deals", a, file{"alpha-supply.txt", contract("Alpha Ltd", "three years")}, file{"beta-supply.txt", contract("Beta GmbH", "five years")})
	for _, tc := range []struct {
		ref  string
		code int
		want string
	}{
		{"supply", http.StatusBadRequest, `matches 2 documents`},
		{"ALPHA", http.StatusOK, `"doc_name":"alpha-supply.txt"`},
		{"gamma", http.StatusNotFound, `not found`},
	} {
		code, body := e.json("POST", "/api/v1/collections/deals/search", a, map[string]any{"query": "term", "docs": []string{tc.ref}})
		if code != tc.code || !strings.Contains(string(body), tc.want) {
			t.Errorf("docs [%q]: %d %s; want %d with %s", tc.ref, code, body, tc.code, tc.want)
		}
	}
}
