package search

import (
	"slices"
	"strings"
	"testing"
)

// Names people mistype route to the nearest name, and say so; a name near
// none is said unknown, nothing is searched, and the nearest are offered.
func TestRouteNearNames(t *testing.T) {
	ix := namedCorpus(t)
	tests := []struct {
		q        string
		decision RouteDecision
		docs     []string
		said     string // in the route's sentence
	}{
		{"What law governs the Cruo agreement?", RouteNamed, []string{"curo-servicing"}, "No contract is called “Cruo”; the nearest name is “Curo”"},
		{"Can we terminate our contract with Bravvo for convenience?", RouteNamed, []string{"bravo-distribution"}, "nearest name"},
		{"Which law governs our contract with ZenithSoftware?", RouteNamed, []string{"acme-license"}, "“ZenithSoftware”"},
		{"Is liability capped in the CFTC agreement?", RouteNamed, []string{"curo-servicing"}, "“CFTC”"},
		{"Does the Borealis Fods agreement cap liability?", RouteNamed, []string{"acme-supply"}, "“Borealis”"},
		// Near nothing: unknown, the nearest offered, nothing searched.
		{"What law governs the Quasar agreement?", RouteUnknown, nil, "none was searched"},
		{"What law governs the Curoz Holdings agreement?", RouteUnknown, nil, "Did you mean"},
		// Questions that name no contract stay unrouted.
		{"Is liability capped?", RouteAll, nil, ""},
		{"Can the Franchisee terminate early?", RouteAll, nil, ""},
		{"Is there a warranty of fitnes for a particular purpose?", RouteAll, nil, ""},
	}
	for _, tc := range tests {
		r := planT(t, ix, Query{Text: tc.q}).Route
		if r.Decision != tc.decision || !slices.Equal(r.Docs, tc.docs) || !strings.Contains(r.Why, tc.said) {
			t.Errorf("%q: %s %v (%s), want %s %v saying %q", tc.q, r.Decision, r.Docs, r.Why, tc.decision, tc.docs, tc.said)
		}
		if r.Decision == RouteUnknown {
			res, err := ix.Search(t.Context(), Query{Text: tc.q})
			if err != nil || len(res.Hits) != 0 {
				t.Errorf("%q: an unknown name searched: %d hits, %v", tc.q, len(res.Hits), err)
			}
		}
	}
	r := planT(t, ix, Query{Text: "What law governs the Curoz Holdings agreement?"}).Route
	if len(r.Nearest) == 0 || r.Nearest[0].DocID != "curo-servicing" || r.Nearest[0].Display == "" {
		t.Errorf("nearest to “Curoz Holdings”: %+v", r.Nearest)
	}
	// Searching everything stays possible.
	res, err := ix.Search(t.Context(), Query{Text: "What law governs the Quasar agreement?", Stages: Stages{NoRoute: true}})
	if err != nil || len(res.Hits) == 0 {
		t.Errorf("no routing: %d hits, %v", len(res.Hits), err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"slicon", "silicon", 1}, {"pifzer", "pfizer", 1}, {"kriomic", "kiromic", 1}, {"abc", "abc", 0}, {"abcdef", "uvwxyz", 3}} {
		if got := editDistance(c.a, c.b, 2); got != min(c.want, 3) {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := humps("JOHNRogers"); !slices.Equal(got, []string{"JOHN", "Rogers"}) {
		t.Errorf("humps: %q", got)
	}
}
