package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

func sp(a, b int) document.Span { return document.Span{Start: a, End: b} }

// TestFuseProvisions: the finder's passages come first; a search hit that
// overlaps one keeps only its text outside it; never more than k hits;
// ranks renumbered.
func TestFuseProvisions(t *testing.T) {
	hits := []Hit{
		{DocID: "a", Span: sp(100, 300), Rank: 1},
		{DocID: "a", Span: sp(500, 600), Rank: 2},
		{DocID: "b", Span: sp(150, 250), Rank: 3},
	}
	found := []Hit{{DocID: "a", Span: sp(150, 200), View: index.ViewProvision, Provision: "Governing Law"}}
	got := FuseProvisions(hits, found, 10)
	want := []Hit{
		{DocID: "a", Span: sp(150, 200), View: index.ViewProvision, Provision: "Governing Law", Rank: 1},
		{DocID: "a", Span: sp(100, 150), Rank: 2},
		{DocID: "a", Span: sp(200, 300), Rank: 3},
		{DocID: "a", Span: sp(500, 600), Rank: 4},
		{DocID: "b", Span: sp(150, 250), Rank: 5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fused:\n got %+v\nwant %+v", got, want)
	}
	if got := FuseProvisions(hits, found, 2); len(got) != 2 || got[0].View != index.ViewProvision || got[1].Span != sp(100, 150) {
		t.Errorf("k=2: %+v", got)
	}
	// A found passage covering a whole hit drops it.
	got = FuseProvisions(hits, []Hit{{DocID: "a", Span: sp(50, 350), View: index.ViewProvision}}, 10)
	if len(got) != 3 || got[0].Span != sp(50, 350) || got[1].Span != sp(500, 600) {
		t.Errorf("covering passage: %+v", got)
	}
	// A provision's further passages alternate with the search's hits.
	two := []Hit{
		{DocID: "a", Span: sp(150, 200), View: index.ViewProvision, Provision: "Term"},
		{DocID: "a", Span: sp(700, 800), View: index.ViewProvision, Provision: "Term"},
		{DocID: "a", Span: sp(900, 950), View: index.ViewProvision, Provision: "Term"},
	}
	got = FuseProvisions(hits, two, 10)
	var spans []document.Span
	for _, h := range got {
		spans = append(spans, h.Span)
	}
	if want := []document.Span{sp(150, 200), sp(100, 150), sp(200, 300), sp(700, 800), sp(500, 600), sp(900, 950), sp(150, 250)}; !reflect.DeepEqual(spans, want) {
		t.Errorf("interleaved: %v, want %v", spans, want)
	}
	// The search's best hit is a further passage the finder found too: a
	// passage both find goes first, then the finder's best.
	agree := []Hit{
		{DocID: "a", Span: sp(1000, 1100), View: index.ViewProvision, Provision: "Governing Law"},
		{DocID: "a", Span: sp(120, 280), View: index.ViewProvision, Provision: "Governing Law"},
	}
	spans = nil
	for _, h := range FuseProvisions(hits, agree, 10) {
		spans = append(spans, h.Span)
	}
	if want := []document.Span{sp(100, 300), sp(1000, 1100), sp(500, 600), sp(150, 250)}; !reflect.DeepEqual(spans, want) {
		t.Errorf("agreeing: %v, want %v", spans, want)
	}
	// It overlaps the finder's best passage as well: the order is the finder's.
	if got := FuseProvisions(hits, append([]Hit{{DocID: "a", Span: sp(250, 320), View: index.ViewProvision, Provision: "Term"}}, agree...), 10); got[0].Span != sp(250, 320) {
		t.Errorf("overlapping the best passage: %+v", got[0])
	}
	// Nothing found: the hits unchanged.
	if got := FuseProvisions(hits, nil, 10); !reflect.DeepEqual(got, hits) {
		t.Errorf("no passages changed the hits: %+v", got)
	}
}

// scriptedFinder records what it was asked and returns fixed passages.
type scriptedFinder struct {
	question string
	docs     []string
	hits     []Hit
	absent   []Absence
	err      error
	calls    int
}

func (f *scriptedFinder) FindProvisions(_ context.Context, req ProvisionRequest) ([]Hit, []Absence, error) {
	f.calls++
	f.question, f.docs = req.Question, req.Docs
	return f.hits, f.absent, f.err
}

// TestSearchWithProvisions: the finder is asked only when the search is
// narrowed to a few documents, gets the question without the words naming
// the contract, and its passage comes first; NoProvisions and errors.
func TestSearchWithProvisions(t *testing.T) {
	ix := corpus(t, contracts)
	ctx := context.Background()
	f := &scriptedFinder{hits: []Hit{{DocID: "acme-supply", Span: sp(180, 230), View: index.ViewProvision, Provision: "Governing Law", Score: 0.9}},
		absent: []Absence{{DocID: "acme-supply", Provision: "Choice of Forum", Confidence: 0.1}}}
	m := Models{Provisions: f}

	res, err := ix.SearchWith(ctx, m, Query{Text: "Consider the Supply Agreement between Acme Widgets and Borealis Foods; what law governs it?", K: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.calls != 1 || !reflect.DeepEqual(f.docs, []string{"acme-supply"}) {
		t.Fatalf("finder asked %d times about %v", f.calls, f.docs)
	}
	if f.question != "what law governs it" {
		t.Errorf("finder got %q, want the question without the contract's name", f.question)
	}
	if len(res.Hits) == 0 || res.Hits[0].Provision != "Governing Law" || res.Hits[0].Rank != 1 || len(res.Hits) > 3 {
		t.Errorf("hits %+v", res.Hits)
	}
	if len(res.NotFound) != 1 || res.NotFound[0].Provision != "Choice of Forum" {
		t.Errorf("not found %+v", res.NotFound)
	}

	// Not narrowed: the finder is not asked.
	f.calls = 0
	if _, err := ix.SearchWith(ctx, m, Query{Text: "which law governs?", K: 3}, nil); err != nil || f.calls != 0 {
		t.Errorf("unnarrowed search asked the finder %d times (err %v)", f.calls, err)
	}
	// NoProvisions: not asked either, plain ranking.
	plain := searchT(t, ix, Query{Text: "what law governs?", Docs: []string{"acme-supply"}, K: 3})
	res, err = ix.SearchWith(ctx, m, Query{Text: "what law governs?", Docs: []string{"acme-supply"}, K: 3, Stages: Stages{NoProvisions: true}}, nil)
	if err != nil || f.calls != 0 || !reflect.DeepEqual(res, plain) {
		t.Errorf("NoProvisions: calls %d, err %v, %+v vs %+v", f.calls, err, res, plain)
	}
	// A finder error is the search's error.
	f.err = errors.New("disk gone")
	if _, err := ix.SearchWith(ctx, m, Query{Text: "what law governs?", Docs: []string{"acme-supply"}, K: 3}, nil); err == nil {
		t.Error("a finder error was swallowed")
	}
}

// TestTopic: the words that name the routed contract are taken out; a
// question that names nothing comes back unchanged.
func TestTopic(t *testing.T) {
	ix := corpus(t, contracts)
	for _, tc := range []struct{ q, doc, want string }{
		{"Consider the Software License Agreement between Zenith Software and Quarry Partners; can the licensee assign?", "zenith-license", "can the licensee assign"},
		{"which law governs?", "zenith-license", "which law governs?"},
		{"which law governs?", "", "which law governs?"},
	} {
		var docs []string
		if tc.doc != "" {
			docs = []string{tc.doc}
		}
		if got := ix.Topic(tc.q, docs); got != tc.want {
			t.Errorf("Topic(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// fuseFresh is FuseProvisions as first written, cutting every hit's pieces
// into new slices: the reference TestFuseProvisionsLikeFresh holds it to.
func fuseFresh(hits, found []Hit, k int) []Hit {
	if len(found) == 0 {
		return hits
	}
	out := make([]Hit, 0, min(k, len(hits)+len(found)))
	outside := func(h Hit) []Hit {
		pieces := []Hit{h}
		for _, o := range out {
			if o.DocID != h.DocID {
				continue
			}
			var next []Hit
			for _, p := range pieces {
				if o.Span.End <= p.Span.Start || p.Span.End <= o.Span.Start {
					next = append(next, p)
					continue
				}
				if p.Span.Start < o.Span.Start {
					l := p
					l.Span.End = o.Span.Start
					next = append(next, l)
				}
				if o.Span.End < p.Span.End {
					r := p
					r.Span.Start = o.Span.End
					next = append(next, r)
				}
			}
			pieces = next
		}
		return pieces
	}
	addFound := func(h Hit) {
		if p := outside(h); len(out) < k && len(p) == 1 && p[0].Span == h.Span {
			out = append(out, h)
		}
	}
	addHit := func(h Hit) {
		for _, p := range outside(h) {
			if len(out) < k {
				out = append(out, p)
			}
		}
	}
	type key struct{ doc, prov string }
	if len(hits) > 0 && bothFind(hits[0], found) {
		addHit(hits[0])
		hits = hits[1:]
	}
	seen := map[key]bool{}
	var more []Hit
	for _, h := range found {
		if kk := (key{h.DocID, h.Provision}); !seen[kk] {
			seen[kk] = true
			addFound(h)
		} else {
			more = append(more, h)
		}
	}
	for i := 0; i < max(len(hits), len(more)); i++ {
		if i < len(hits) {
			addHit(hits[i])
		}
		if i < len(more) {
			addFound(more[i])
		}
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// TestFuseProvisionsLikeFresh checks FuseProvisions, which reuses the
// slices it cuts hits into, against fuseFresh on random hits and passages
// of two documents that overlap in every way (a hit cut in several pieces,
// covered, covering).
func TestFuseProvisionsLikeFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	span := func() document.Span {
		a := rng.IntN(1000)
		return sp(a, a+1+rng.IntN(300))
	}
	doc := func() string { return []string{"a", "b"}[rng.IntN(2)] }
	for n := range 2000 {
		var hits, found []Hit
		for i := range rng.IntN(40) {
			hits = append(hits, Hit{DocID: doc(), Span: span(), Score: float64(-i), Rank: i + 1})
		}
		for range rng.IntN(8) {
			found = append(found, Hit{DocID: doc(), Span: span(), View: index.ViewProvision, Provision: []string{"Term", "Governing Law", "Audit"}[rng.IntN(3)]})
		}
		k := 1 + rng.IntN(64)
		want := fuseFresh(slices.Clone(hits), found, k)
		if got := FuseProvisions(slices.Clone(hits), found, k); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d, k=%d:\n got %+v\nwant %+v", n, k, got, want)
		}
	}
}
