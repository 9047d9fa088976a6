package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// namedDeal is a small deal room whose contracts name their parties the
// way contracts do; the router learns their names with names.Learn.
var namedDeal = map[string]string{
	"acme-supply": "SUPPLY AGREEMENT\n\nThis Supply Agreement is made as of March 3, 2019 by and between Acme Widgets, Inc., a Delaware corporation (\"Acme\"), and Borealis Foods LLC (\"Buyer\").\n\n" +
		"The Supplier shall deliver Products monthly and warrants fitness for a particular purpose.\n\nLiability shall not exceed the fees paid in the prior twelve months.\n\nThis Agreement is governed by the laws of Delaware.",
	"acme-license": "SOFTWARE LICENSE AGREEMENT\n\nThis License Agreement is made as of June 1, 2021 by and between Acme Widgets, Inc. (\"Acme\") and Zenith Software Ltd. (\"Licensee\").\n\n" +
		"Licensee may not assign this Agreement without consent.\n\nThe software is provided without any warranty of fitness for a particular purpose.\n\nThis Agreement is governed by the laws of New York.",
	"curo-servicing": "LOAN SERVICING AGREEMENT\n\nThis Servicing Agreement is entered into by Curo Financial Technologies Corp. (\"Curo\") and Orion Bank, N.A. (\"Bank\").\n\n" +
		"Either party may terminate this Agreement for convenience on ninety days' notice.\n\nNo warranty of fitness for a particular purpose is given.\n\nThis Agreement is governed by the laws of Kansas.",
	"bravo-distribution": "DISTRIBUTION AGREEMENT\n\nThis Distribution Agreement is made between Bravo Trading Corp. (\"Bravo\") and Fitness Publications, Inc. (\"Distributor\").\n\n" +
		"The Distributor shall not sell competing products.\n\nLiability is capped at the fees paid.\n\nThis Agreement is governed by the laws of Texas.",
	"franchise-one": "FRANCHISE AGREEMENT\n\nThis Franchise Agreement is made between Pretzel Time, Inc. (\"Franchisor\") and the person named below (\"Franchisee\").\n\nThe Franchisee may terminate on sixty days' notice.",
	"franchise-two": "FRANCHISE AGREEMENT\n\nThis Franchise Agreement is made between Soup Kitchen Corp. (\"Franchisor\") and Grill House LLC (\"Franchisee\").\n\nThe Franchisee shall pay royalties monthly.",
}

// namedCorpus indexes namedDeal with the names each contract is learnt to
// be called by.
func namedCorpus(t testing.TB) *Index {
	t.Helper()
	ix := NewIndex()
	ids := make([]string, 0, len(namedDeal))
	for id := range namedDeal {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		text := namedDeal[id]
		in := index.DocInput{ID: id, Name: id + ".txt", Header: firstLine(text), Opening: text[:min(len(text), 300)], Names: names.Learn(text, id+".txt").All(), Units: paragraphUnits(text)}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func TestRouteByLearntNames(t *testing.T) {
	ix := namedCorpus(t)
	tests := []struct {
		q        string
		decision RouteDecision
		docs     []string
		matched  string // a name the route says it matched
	}{
		{"What law governs the Curo agreement?", RouteNamed, []string{"curo-servicing"}, "Curo"},
		{"can we terminate our contract with curo for convenience?", RouteNamed, []string{"curo-servicing"}, "curo"},
		{"Can we assign our contract with Acme?", RouteAmbiguous, []string{"acme-license", "acme-supply"}, "Acme"},
		{"Is liability capped in the Acme supply agreement?", RouteNamed, []string{"acme-supply"}, "supply agreement"},
		{"What does the 2021 Acme agreement say about assignment?", RouteNamed, []string{"acme-license"}, "2021"},
		{"Compare the liability caps of the Curo and Bravo agreements", RouteSeveral, []string{"curo-servicing", "bravo-distribution"}, "Bravo"},
		{"Which law governs the agreement between Acme and Zenith Software?", RouteNamed, []string{"acme-license"}, "Zenith Software"},
		// Names that name nothing in particular.
		{"Is liability capped?", RouteAll, nil, ""},
		{"Is there a warranty of fitness for a particular purpose?", RouteAll, nil, ""},
		{"Can the Franchisee terminate early?", RouteAll, nil, ""},
		{"What law governs the Quasar agreement?", RouteUnknown, nil, ""},
	}
	for _, tc := range tests {
		p := planT(t, ix, Query{Text: tc.q})
		r := p.Route
		docs := slices.Clone(r.Docs)
		want := slices.Clone(tc.docs)
		if r.Decision == RouteAmbiguous {
			slices.Sort(docs)
			slices.Sort(want)
		}
		if r.Decision != tc.decision || !slices.Equal(docs, want) {
			t.Errorf("%q: %s %v, want %s %v (%s)", tc.q, r.Decision, r.Docs, tc.decision, tc.docs, r.Why)
			continue
		}
		if tc.matched != "" && !slices.ContainsFunc(r.Matched, func(m NameMatch) bool { return m.Text == tc.matched }) {
			t.Errorf("%q: matched %+v, want %q among them", tc.q, r.Matched, tc.matched)
		}
		if r.Decision == RouteAmbiguous && len(r.Candidates) != len(r.Docs) {
			t.Errorf("%q: %d candidates for %d documents", tc.q, len(r.Candidates), len(r.Docs))
		}
		if r.Decision != RouteAll && r.Why == "" {
			t.Errorf("%q: no sentence says why", tc.q)
		}
		// Passages from other contracts never come first when a contract is named.
		if r.Decision.Narrowed() {
			res := runT(t, ix, p)
			for _, h := range res.Hits {
				if !slices.Contains(r.Docs, h.DocID) {
					t.Errorf("%q: hit from %s, not a named contract", tc.q, h.DocID)
				}
			}
		}
	}
}

// TestRouteDropsNamingWords checks that the words that only name the
// contract are left out of the ranking, and said so.
func TestRouteDropsNamingWords(t *testing.T) {
	ix := namedCorpus(t)
	p := planT(t, ix, Query{Text: "What law governs the Curo agreement?"})
	if !slices.Contains(p.Route.Dropped, "Curo") || slices.Contains(p.Words, "curo") {
		t.Errorf("dropped %q, terms %q: want Curo dropped", p.Route.Dropped, p.Words)
	}
	if !slices.Contains(p.Words, "law") {
		t.Errorf("terms %q lost the question's topic", p.Words)
	}
}

// TestRouteDropsTheNamingPart checks that a part of the question made of
// the contract's name and the words the contracts call themselves by only
// names the contract: it is left out whole.
func TestRouteDropsTheNamingPart(t *testing.T) {
	ix := namedCorpus(t)
	q := Query{Text: "Consider this contract with Borealis in full; which law governs it?"}
	p := planT(t, ix, q)
	if p.Route.Decision != RouteNamed || slices.Contains(p.Words, "consid") || slices.Contains(p.Words, "full") {
		t.Errorf("route %s, terms %q: want the first part left out", p.Route.Decision, p.Words)
	}
	if !slices.Contains(p.Words, "law") || !slices.Contains(p.Words, "govern") {
		t.Errorf("terms %q lost the question's topic", p.Words)
	}
	q.NoFraming = true
	if p := planT(t, ix, q); !slices.Contains(p.Words, "consid") {
		t.Errorf("with the framing words kept, terms %q: want the first part kept but the name", p.Words)
	}
}

// TestRouteChosenAndOff checks that the caller's choice and switching
// routing off are kept and said.
func TestRouteChosenAndOff(t *testing.T) {
	ix := namedCorpus(t)
	p := planT(t, ix, Query{Text: "Can we assign our contract with Acme?", Docs: []string{"acme-supply"}})
	if p.Route.Decision != RouteChosen || !slices.Equal(p.Route.Docs, []string{"acme-supply"}) {
		t.Errorf("chosen: %+v", p.Route)
	}
	p = planT(t, ix, Query{Text: "What law governs the Curo agreement?", Stages: Stages{NoRoute: true}})
	if p.Route.Decision != RouteOff || len(p.Route.Docs) > 0 {
		t.Errorf("off: %+v", p.Route)
	}
}

// familyCorpus indexes family copies of one supply agreement between the
// same two parties among other contracts, each between parties of its own,
// n documents in all.
func familyCorpus(t testing.TB, n, family int) *Index {
	t.Helper()
	ix := NewIndex()
	word := func(i int) string { // a made-up name, distinct for each i
		const cons, vows = "bdfgklmnprstvz", "aeiou"
		w := []byte{cons[i%len(cons)] - 32}
		for i /= len(cons); ; i /= len(cons) * len(vows) {
			w = append(w, vows[i%len(vows)], cons[(i/len(vows))%len(cons)])
			if i < len(cons)*len(vows) {
				break
			}
		}
		return string(w) + "ex"
	}
	for d := range n {
		a, b := "Zorblax Industries, Inc.", "Quentaro Foods LLC"
		if d >= family {
			a, b = word(2*d)+" Holdings, Inc.", word(2*d+1)+" Trading LLC"
		}
		text := "SUPPLY AGREEMENT\n\nThis Supply Agreement is made as of March 3, 2019 by and between " + a + " (\"Supplier\") and " + b + " (\"Buyer\").\n\n" +
			"The Supplier shall deliver the Products monthly.\n\nLiability shall not exceed the fees paid in the prior twelve months.\n\nThis Agreement is governed by the laws of Delaware."
		id := fmt.Sprintf("doc%05d", d)
		in := index.DocInput{ID: id, Name: id + ".txt", Header: firstLine(text), Opening: text, Names: names.Learn(text, id+".txt").All(), Units: paragraphUnits(text)}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// TestRouteFamilyInLargeCollection checks that a name fitting more
// contracts than one company's handful, but few of a large collection's,
// narrows the search to them (and asks which one), while in a smaller
// collection the same name still names none in particular.
func TestRouteFamilyInLargeCollection(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 3,300 documents")
	}
	const family = 12 // more than maxNameFit
	questions := []string{
		"What law governs the Zorblax agreement?",
		"Consider the Supply Agreement between Zorblax Industries, Inc. and Quentaro Foods LLC; is liability capped?",
	}
	large := familyCorpus(t, family*familyShare+100, family)
	for _, q := range questions {
		p := planT(t, large, Query{Text: q})
		r := p.Route
		if r.Decision != RouteAmbiguous || len(r.Docs) != family || len(r.Candidates) != family {
			t.Errorf("%d documents, %q: %s over %d documents (%d candidates), want %s over the %d copies (%s)", large.Docs(), q, r.Decision, len(r.Docs), len(r.Candidates), RouteAmbiguous, family, r.Why)
			continue
		}
		for _, id := range r.Docs {
			if id >= fmt.Sprintf("doc%05d", family) {
				t.Errorf("%q: routed to %s, not a copy", q, id)
			}
		}
		if !strings.Contains(r.Why, "others") || strings.Count(r.Why, "doc0") > 8 {
			t.Errorf("%q: the sentence should count the documents past a few: %s", q, r.Why)
		}
		for _, h := range runT(t, large, p).Hits {
			if !slices.Contains(r.Docs, h.DocID) {
				t.Errorf("%q: hit from %s, not a copy", q, h.DocID)
			}
		}
	}
	small := familyCorpus(t, 400, family)
	for _, q := range questions {
		if r := planT(t, small, Query{Text: q}).Route; r.Decision.Narrowed() {
			t.Errorf("%d documents, %q: %s over %d documents, want the whole collection (%s)", small.Docs(), q, r.Decision, len(r.Docs), r.Why)
		}
	}
}

// policies are privacy policies as their text copies read: no title line,
// the first sentence taken for one, openings full of the words users ask
// with. Only their file names name them.
var policies = map[string]string{
	"Groupon": "We will collect information, including Personal Information and Non-Identifying Information, when you interact with us and the Site.\n\n" +
		"We use cookies to remember your preferences.\n\nYou may close your account at any time.",
	"Wordscapes": "Welcome to the game. So, please make sure that you have read and understand our Terms of Service.\n\n" +
		"If you create an Account, you may be required to provide your name, e-mail address and a password.\n\nWe do not share personal information with advertisers for their direct marketing purposes.",
	"Helix": "To learn how a third party application uses your information, please review its privacy statement.\n\n" +
		"Genetic data is the most personal information there is.\n\nWe do not sell your genetic data to insurers or employers.\n\nSaliva samples are destroyed after the laboratory completes its work.",
}

func policyCorpus(t testing.TB) *Index {
	t.Helper()
	ix := NewIndex()
	for _, id := range []string{"Groupon", "Helix", "Wordscapes"} {
		text := policies[id]
		in := index.DocInput{ID: id, Name: id + ".txt", Header: firstLine(text), Opening: text[:min(len(text), 300)], Names: names.Learn(text, id+".txt").All(), Units: paragraphUnits(text)}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// TestRoutePolicyByFileName checks that a policy named by its file name is
// the one searched even when another policy's first sentence, read as its
// title, holds more of the question's words; and that words the named
// policy's opening shares with the question's topic, outside the part that
// names it, are searched, not dropped as naming it.
func TestRoutePolicyByFileName(t *testing.T) {
	ix := policyCorpus(t)
	p := planT(t, ix, Query{Text: `Consider "Wordscapes"'s privacy policy; does the wordscapes app collect any personally identifying information like my name?`})
	if !slices.Equal(p.Route.Docs, []string{"Wordscapes"}) {
		t.Errorf("routed to %v, want Wordscapes (%s)", p.Route.Docs, p.Route.Why)
	}
	p = planT(t, ix, Query{Text: `Consider "Helix"'s privacy policy; do you sell my genetic data?`})
	if !slices.Equal(p.Route.Docs, []string{"Helix"}) {
		t.Errorf("routed to %v, want Helix (%s)", p.Route.Docs, p.Route.Why)
	}
	for _, w := range []string{"sell", "genet", "data"} {
		if !slices.Contains(p.Words, w) {
			t.Errorf("terms %q, dropped %q: want %q searched", p.Words, p.Route.Dropped, w)
		}
	}
	if slices.Contains(p.Words, "helix") {
		t.Errorf("terms %q: the name Helix is searched for", p.Words)
	}
}
