package server

import (
	"net/http"
	"strings"
	"testing"
)

// Issue 17 (hardening round 2): the review surfaces.

// TestReviewPlaybookLimits: the numbers and sizes of a review request are
// bounded at the edge with a 400 naming the field; the server keeps
// serving (a keyword window that overflowed used to kill the process).
func TestReviewPlaybookLimits(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxReviewCells = 100 })
	key := e.key("deal")
	e.ingest("deal", key, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"b.txt", contract("Bravo Inc", "one year")},
		file{"c.txt", contract("Charlie LLC", "two years")})
	base := "/api/v1/collections/deal/reviews"
	aliases := "provisions: [&p {name: A, definition: d}" + strings.Repeat(", *p", 1000) + "]\n"
	bad := []struct {
		name string
		req  map[string]any
		want string
	}{
		{"within", map[string]any{"playbook_yaml": "provisions:\n  - name: A\n    definition: d\n    keywords:\n      - {text: the, near: [x], within: 9223372036854775807}\n"}, `field \"within\"`},
		{"boost", map[string]any{"playbook_yaml": "provisions:\n  - name: A\n    definition: d\n    keywords:\n      - {text: the, boost: .nan}\n"}, `field \"boost\"`},
		{"aliases", map[string]any{"playbook_yaml": aliases}, "aliases"},
		// 3 contracts × 51 built-in provisions = 153 cells > 100.
		{"cells", map[string]any{"playbook": "builtin"}, "153 cells, more than the 100"},
	}
	for _, c := range bad {
		code, body := e.json("POST", base, key, c.req)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want 400 with %s", c.name, code, body, c.want)
		}
	}
	// Narrowed under the limit, the same review runs.
	e.startReviewOf("deal", key, map[string]any{"playbook": "builtin", "provisions": []string{"Governing Law", "Parties"}})
	if code, _ := e.json("GET", "/healthz", "", nil); code != http.StatusOK {
		t.Fatalf("server gone: %d", code)
	}
}
