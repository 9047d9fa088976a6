package search

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"The Licensee shall not assign this Agreement.", []string{"license", "shall", "not", "assign", "agreement"}},
		{"Party's rights; Section 2.3(a)", []string{"parti", "right", "section", "2.3"}},
		{"Café RENEWAL renewals", []string{"cafe", "renew", "renew"}},
		{"", []string{}},
	}
	for _, tc := range tests {
		got := index.Analyze(tc.in)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("index.Analyze(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// corpus builds an index of small synthetic contracts, one unit per
// paragraph.
func corpus(t testing.TB, docs map[string]string) *Index {
	t.Helper()
	ix := NewIndex()
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		text := docs[id]
		in := index.DocInput{ID: id, Name: id + ".txt", Header: firstLine(text), Units: paragraphUnits(text)}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// paragraphUnits makes a unit of each paragraph of text (split at blank
// lines), with its span in the text.
func paragraphUnits(text string) []index.UnitInput {
	var us []index.UnitInput
	pos := 0
	for _, para := range strings.Split(text, "\n\n") {
		n := len([]rune(para))
		us = append(us, index.UnitInput{Text: para, Spans: []document.Span{{Start: pos, End: pos + n}}, Node: -1})
		pos += n + 2
	}
	return us
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

var contracts = map[string]string{
	"acme-supply":    "SUPPLY AGREEMENT between Acme Widgets Inc. and Borealis Foods Ltd.\n\nThe Supplier shall deliver Products monthly.\n\nEither party's aggregate liability shall not exceed the fees paid in the prior twelve months.\n\nThis Agreement is governed by the laws of Delaware.",
	"zenith-license": "SOFTWARE LICENSE AGREEMENT between Zenith Software LLC and Quarry Partners.\n\nLicensee may not assign this Agreement without consent.\n\nLicensor's liability is limited to the license fees.\n\nThis Agreement is governed by the laws of New York.",
	"orion-nda":      "MUTUAL NONDISCLOSURE AGREEMENT between Orion Bank and Vega Capital.\n\nThe Recipient shall keep Confidential Information secret for five years.\n\nThis Agreement is governed by the laws of England.",
}

func TestRoutingToTheNamedContract(t *testing.T) {
	ix := corpus(t, contracts)
	tests := []struct {
		q    string
		want string // first routed document, "" for none
	}{
		{"Consider the Supply Agreement between Acme Widgets and Borealis Foods; what law governs it?", "acme-supply"},
		{"In the Zenith Software license, can the licensee assign?", "zenith-license"},
		{"under the Orion Bank NDA how long is information kept secret", "orion-nda"},
		{"which law governs?", ""},
	}
	for _, tc := range tests {
		res := searchT(t, ix, Query{Text: tc.q, K: 3})
		got := ""
		if len(res.RoutedTo) > 0 {
			got = res.RoutedTo[0]
		}
		if got != tc.want {
			t.Errorf("%q routed to %q, want %q", tc.q, got, tc.want)
		}
		if tc.want != "" {
			for _, h := range res.Hits {
				if h.DocID != tc.want {
					t.Errorf("%q: hit from %s, want only %s", tc.q, h.DocID, tc.want)
				}
			}
		}
	}
}

// TestRoutingIgnoresTopics: questions that name no contract are never
// narrowed, even when their words (or capitalized defined terms) occur in
// some contracts' titles; a contract is named by a name (capitalized, rare)
// or by a title phrase only one contract has.
func TestRoutingIgnoresTopics(t *testing.T) {
	docs := map[string]string{}
	for k, v := range contracts {
		docs[k] = v
	}
	// Several contracts of one kind: "the Franchise Agreement" names none.
	for _, name := range []string{"Northwind", "Southgate", "Eastway", "Westmark", "Midland"} {
		docs[strings.ToLower(name)+"-franchise"] = "FRANCHISE AGREEMENT between " + name + " Franchising Inc. and the Franchisee.\n\n" +
			"The Franchisee may terminate on ninety days notice.\n\nThe Franchisor may inspect the premises."
	}
	ix := corpus(t, docs)
	tests := []struct {
		q    string
		want string // first routed document, "" for none
	}{
		{"Can the franchisee terminate on notice?", ""},
		{"Can the Franchisee terminate the Franchise Agreement early?", ""},
		{"May the Franchisor inspect the premises?", ""},
		{"Is the supplier's liability capped?", ""},
		{"How long must confidential information be kept secret?", ""},
		{"Can Northwind Franchising inspect the premises?", "northwind-franchise"},
		{"Under the Acme supply agreement, is liability capped?", "acme-supply"},
	}
	for _, tc := range tests {
		res := searchT(t, ix, Query{Text: tc.q, K: 3})
		got := ""
		if len(res.RoutedTo) > 0 {
			got = res.RoutedTo[0]
		}
		if got != tc.want {
			t.Errorf("%q routed to %v, want %q", tc.q, res.RoutedTo, tc.want)
		}
		if res := searchT(t, ix, Query{Text: tc.q, K: 3, Stages: Stages{NoRoute: true}}); len(res.RoutedTo) > 0 {
			t.Errorf("%q with NoRoute routed to %v", tc.q, res.RoutedTo)
		}
	}
}

func TestSearchFindsTheClause(t *testing.T) {
	ix := corpus(t, contracts)
	res := searchT(t, ix, Query{Text: "Consider the Supply Agreement between Acme Widgets and Borealis Foods; is there a cap on liability?", K: 1})
	if len(res.Hits) != 1 {
		t.Fatalf("got %d hits", len(res.Hits))
	}
	text := []rune(contracts["acme-supply"])
	got := string(text[res.Hits[0].Span.Start:res.Hits[0].Span.End])
	if !strings.Contains(got, "aggregate liability") {
		t.Errorf("top hit %q, want the liability clause", got)
	}
}

func TestDocumentFilterIsolation(t *testing.T) {
	ix := corpus(t, contracts)
	for _, q := range []string{"liability", "governed by the laws", "Acme Widgets supply liability"} {
		res := searchT(t, ix, Query{Text: q, K: 10, Docs: []string{"orion-nda"}})
		for _, h := range res.Hits {
			if h.DocID != "orion-nda" {
				t.Fatalf("%q with a filter on orion-nda returned %s", q, h.DocID)
			}
		}
	}
	if res := searchT(t, ix, Query{Text: "liability", Docs: []string{"no-such-doc"}}); len(res.Hits) != 0 {
		t.Fatalf("unknown filter document returned hits: %v", res.Hits)
	}
}

// TestHitsNeverOverlap indexes overlapping views of random text and checks
// that returned spans are disjoint and that a deeper search extends a
// shallower one.
func TestHitsNeverOverlap(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	words := strings.Fields("licensee licensor assign liability cap fee term renew notice terminate law court audit")
	ix := NewIndex()
	for d := 0; d < 5; d++ {
		in := index.DocInput{ID: fmt.Sprint("d", d), Name: fmt.Sprint("d", d)}
		for u := 0; u < 60; u++ {
			var b strings.Builder
			for w := 0; w < 5+rng.Intn(20); w++ {
				b.WriteString(words[rng.Intn(len(words))] + " ")
			}
			start := rng.Intn(5000)
			in.Units = append(in.Units, index.UnitInput{Text: b.String(), Spans: []document.Span{{Start: start, End: start + 1 + rng.Intn(600)}}, Node: -1, View: index.View(rng.Intn(int(index.NumViews)))})
		}
		if err := ix.Add(in); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ {
		q := words[rng.Intn(len(words))] + " " + words[rng.Intn(len(words))]
		deep := searchT(t, ix, Query{Text: q, K: 64, Docs: []string{"d1", "d3"}})
		for a := range deep.Hits {
			for b := a + 1; b < len(deep.Hits); b++ {
				if deep.Hits[a].DocID == deep.Hits[b].DocID && deep.Hits[a].Span.Overlaps(deep.Hits[b].Span) {
					t.Fatalf("%q: hits %v and %v overlap", q, deep.Hits[a], deep.Hits[b])
				}
			}
		}
		shallow := searchT(t, ix, Query{Text: q, K: 8, Docs: []string{"d1", "d3"}})
		for j, h := range shallow.Hits {
			if h.Span != deep.Hits[j].Span || h.DocID != deep.Hits[j].DocID {
				t.Fatalf("%q: top-8 hit %d differs from the top-64 list", q, j)
			}
		}
	}
}

func TestFillReturnsKHitsInScopedDocument(t *testing.T) {
	ix := corpus(t, contracts)
	res := searchT(t, ix, Query{Text: "audit rights", K: 4, Docs: []string{"acme-supply"}})
	if len(res.Hits) != 4 {
		t.Fatalf("got %d hits, want 4 (every paragraph of the document)", len(res.Hits))
	}
}

func TestSegmentRoundTrip(t *testing.T) {
	in := index.DocInput{ID: "x", Name: "x.txt", Header: "H", Units: []index.UnitInput{
		{Text: "The licensee shall pay fees.", Spans: []document.Span{{Start: 0, End: 28}}, Node: 3, View: index.ViewAncestors},
		{Text: "Fees are due monthly; fees fees.", Spans: []document.Span{{Start: 30, End: 60}, {Start: 70, End: 80}}, Node: -1},
	}}
	seg := index.AnalyzeDoc(in)
	got, err := index.DecodeDoc(seg.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seg, got) {
		t.Fatalf("round trip changed the segment:\n%+v\n%+v", seg, got)
	}
	a, b := NewIndex(), NewIndex()
	if err := a.Add(in); err != nil {
		t.Fatal(err)
	}
	if err := b.AddSegment(got); err != nil {
		t.Fatal(err)
	}
	ra, rb := searchT(t, a, Query{Text: "fees", K: 5}), searchT(t, b, Query{Text: "fees", K: 5})
	if !reflect.DeepEqual(ra, rb) {
		t.Fatalf("index from decoded segment differs: %v vs %v", ra, rb)
	}
}

func FuzzDecodeSegment(f *testing.F) {
	f.Add(index.AnalyzeDoc(index.DocInput{ID: "x", Units: []index.UnitInput{{Text: "a b c", Spans: []document.Span{{Start: 0, End: 5}}}}}).Encode())
	f.Add([]byte("PKSEG3\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seg, err := index.DecodeDoc(data)
		if err != nil {
			return
		}
		ix := NewIndex()
		if err := ix.AddSegment(seg); err != nil {
			return
		}
		searchT(t, ix, Query{Text: "a b", K: 3})
	})
}

// TestShortUnitNeverFirst: a heading matched alone is not the first hit
// while a real provision matches; it may follow, and it is returned when
// nothing else matches.
func TestShortUnitNeverFirst(t *testing.T) {
	ix := NewIndex()
	heading := "Audit Rights."
	body := "The Licensee shall keep complete books and records and permit the Licensor to inspect and audit them once a year."
	text := heading + "\n\n" + body
	hs, bs := len([]rune(heading)), len([]rune(heading))+2
	if err := ix.Add(index.DocInput{ID: "d", Name: "d.txt", Units: []index.UnitInput{
		{Text: heading, Spans: []document.Span{{Start: 0, End: hs}}, Node: -1},
		{Text: body, Spans: []document.Span{{Start: bs, End: len([]rune(text))}}, Node: -1},
	}}); err != nil {
		t.Fatal(err)
	}
	res := searchT(t, ix, Query{Text: "audit rights", K: 2})
	if len(res.Hits) != 2 || res.Hits[0].Span.Start != bs || res.Hits[1].Span.Start != 0 {
		t.Fatalf("hits %+v: want the provision first, then the heading", res.Hits)
	}
	res = searchT(t, ix, Query{Text: "rights", K: 1})
	if len(res.Hits) != 1 || res.Hits[0].Span.Start != 0 {
		t.Fatalf("hits %+v: want the heading when only it matches", res.Hits)
	}
}

// TestDenseAccumulatorRanksTheSame checks that an accumulator that stopped
// listing its units ranks exactly as one that listed them.
func TestDenseAccumulatorRanksTheSame(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const units = 5000
	// Two ranges with a gap, as a search of two documents has.
	ranges := [][2]int32{{100, 100 + units/2}, {9000, 9000 + units/2}}
	var ix Index
	list, dense := ix.getAcc(ranges), (&Index{}).getAcc(ranges)
	dense.dense = true
	for range 3 {
		for range 600 {
			u, s := int32(rng.Intn(units)), float64(rng.Intn(20)+1)/4 // ties included
			list.add(u, s)
			dense.add(u, s)
		}
	}
	if list.n != dense.n || list.n != len(list.touched) {
		t.Fatalf("touched %d / %d / %d", list.n, dense.n, len(list.touched))
	}
	for _, n := range []int{0, 1, 7, 100, list.n - 1, list.n, list.n + 5} {
		if a, b := list.top(n), dense.top(n); !reflect.DeepEqual(a, b) {
			t.Errorf("top(%d): listed %v…, dense %v…", n, a[:min(3, len(a))], b[:min(3, len(b))])
		}
	}
	for _, sc := range list.top(0) {
		if !(sc.unit >= 100 && sc.unit < 100+units/2 || sc.unit >= 9000 && sc.unit < 9000+units/2) {
			t.Fatalf("unit %d outside the ranges", sc.unit)
		}
	}
	ix.putAcc(dense)
	for _, s := range dense.score {
		if s != 0 {
			t.Fatal("a dense accumulator was not cleared")
		}
	}
}
