package search

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/search/index"
)

// TestExplainChangesNoHit: asking for the plan returns the same hits, for
// every kind of query (whole collection, routed, chosen documents, filled).
func TestExplainChangesNoHit(t *testing.T) {
	ix := selfCorpus(t)
	for _, q := range []Query{
		{Text: "Does the lease mention subletting?", K: 5},
		{Text: "Who repairs the roof under this contract?", K: 3},
		{Text: "rent", K: 8, Docs: []string{"lease-2"}},
		{Text: "which law governs", K: 4, Docs: []string{"lease-1", "lease-3"}, Stages: Stages{NoFill: true}},
		{Text: "What does LEASE 4 say about rent?", K: 6},
	} {
		plain := searchT(t, ix, q)
		q.Explain = true
		ex := searchT(t, ix, q)
		if ex.Explain == nil {
			t.Fatalf("%q: no explanation", q.Text)
		}
		if !reflect.DeepEqual(plain.Hits, ex.Hits) || !reflect.DeepEqual(plain.RoutedTo, ex.RoutedTo) {
			t.Errorf("%q: explaining changed the hits:\n%v\n%v", q.Text, plain.Hits, ex.Hits)
		}
		if len(ex.Explain.Hits) != len(ex.Hits) {
			t.Errorf("%q: %d hits explained of %d", q.Text, len(ex.Explain.Hits), len(ex.Hits))
		}
	}
}

// TestExplainScoreMakeup: a lexical hit's term contributions add up to its
// score, and every stage is listed with its switch.
func TestExplainScoreMakeup(t *testing.T) {
	ix := selfCorpus(t)
	res := searchT(t, ix, Query{Text: "Does the lease mention subletting the premises?", K: 3, Explain: true})
	ex := res.Explain
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	for i, h := range ex.Hits {
		if len(h.Terms) == 0 {
			t.Errorf("hit %d: no term contributions", i)
			continue
		}
		sum := 0.0
		for _, ts := range h.Terms {
			sum += ts.Score
		}
		if math.Abs(sum-h.Score) > 1e-6*max(1, h.Score) {
			t.Errorf("hit %d: contributions add up to %v, score %v", i, sum, h.Score)
		}
		if !strings.Contains(h.Why, "BM25") {
			t.Errorf("hit %d: why %q", i, h.Why)
		}
	}
	if !slices.ContainsFunc(ex.Framing, func(f FramingWord) bool { return f.Word == "leas" }) {
		t.Errorf("framing %v: want the lease's self-reference", ex.Framing)
	}
	var switches []string
	for _, s := range ex.Stages {
		switches = append(switches, s.Switch)
		if !s.On {
			t.Errorf("stage %q off in a default search", s.Name)
		}
	}
	for _, want := range []string{"NoRoute", "NoFraming", "NoAssociations", "NoHeadings", "NoProvisions", "NoFill"} {
		if !slices.Contains(switches, want) {
			t.Errorf("no stage switched by %s", want)
		}
	}
}

// TestStageSwitches: each switch turns its stage off, and the plan says so.
func TestStageSwitches(t *testing.T) {
	ix := selfCorpus(t)
	q := Query{Text: "Does the lease mention subletting?", K: 3, Explain: true}
	on := searchT(t, ix, q).Explain

	q.NoFraming = true
	off := searchT(t, ix, q).Explain
	if len(off.Framing) != 0 || !slices.ContainsFunc(off.Terms, func(t TermWeight) bool { return t.Word == "leas" }) {
		t.Errorf("NoFraming: framing %v, terms %v", off.Framing, off.Terms)
	}
	if stageOn(off, "NoFraming") || !stageOn(on, "NoFraming") {
		t.Error("the framing stage does not show its switch")
	}

	q.NoFraming, q.NoAssociations, q.NoHeadings = false, true, true
	plain := searchT(t, ix, q).Explain
	if len(plain.Expansions) != 0 {
		t.Errorf("no expansion asked, got %v", plain.Expansions)
	}
	q.NoHeadings = false
	for _, e := range searchT(t, ix, q).Explain.Expansions {
		if e.Kind != "heading" {
			t.Errorf("NoAssociations: an association added: %+v", e)
		}
	}
}

func stageOn(ex *Explain, sw string) bool {
	for _, s := range ex.Stages {
		if s.Switch == sw {
			return s.On
		}
	}
	return false
}

// TestExplainProvisions: SearchWith notes what the provision finder did.
func TestExplainProvisions(t *testing.T) {
	ix := selfCorpus(t)
	f := fakeFinder{hits: []Hit{{DocID: "lease-1", View: index.ViewProvision, Provision: "Governing Law", Score: 0.9}}}
	res, err := ix.SearchWith(context.Background(), Models{Provisions: f}, Query{Text: "which law governs", K: 3, Docs: []string{"lease-1"}, Explain: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Explain.Provisions
	if ps == nil || len(ps.Matches) != 1 || !ps.Matches[0].Asked || len(ps.Found) != 1 || !strings.Contains(ps.Why, "Governing Law") {
		t.Fatalf("provision stage %+v", ps)
	}
	if h := res.Explain.Hits[0]; h.Provision != "Governing Law" || !strings.Contains(h.Why, "review detectors") {
		t.Errorf("first hit %+v", h)
	}
	if len(res.Explain.Hits) != len(res.Hits) {
		t.Errorf("%d hits explained of %d", len(res.Explain.Hits), len(res.Hits))
	}
}

type fakeFinder struct{ hits []Hit }

func (f fakeFinder) FindProvisions(_ context.Context, req ProvisionRequest) ([]Hit, []Absence, error) {
	var out []Hit
	for _, h := range f.hits {
		if slices.Contains(req.Docs, h.DocID) {
			h.Span.End = 30
			out = append(out, h)
		}
	}
	return out, nil, nil
}

func (f fakeFinder) MatchProvisions(_ context.Context, _ string) []ProvisionMatch {
	return []ProvisionMatch{{Provision: "Governing Law", Score: 0.6, Lead: 0.3, Asked: true}}
}

// stagesFinder records the requests SearchWith made of it.
type stagesFinder struct {
	fakeFinder
	got *[]ProvisionRequest
}

func (f stagesFinder) FindProvisions(ctx context.Context, req ProvisionRequest) ([]Hit, []Absence, error) {
	*f.got = append(*f.got, req)
	return f.fakeFinder.FindProvisions(ctx, req)
}

func TestNoSpreadReachesTheFinder(t *testing.T) {
	ix := selfCorpus(t)
	var got []ProvisionRequest
	f := stagesFinder{fakeFinder{hits: []Hit{{DocID: "lease-1", View: index.ViewProvision, Provision: "Governing Law", Score: 0.9}}}, &got}
	for _, noSpread := range []bool{false, true} {
		res, err := ix.SearchWith(context.Background(), Models{Provisions: f}, Query{Text: "which law governs", K: 3, Docs: []string{"lease-1"}, Stages: Stages{NoSpread: noSpread}, Explain: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Explain.Stages, func(s Stage) bool { return s.Switch == "NoSpread" })
		if i < 0 || res.Explain.Stages[i].On == noSpread {
			t.Errorf("NoSpread %v: stages %+v", noSpread, res.Explain.Stages)
		}
	}
	if len(got) != 2 || got[0].NoSpread || !got[1].NoSpread {
		t.Errorf("the finder was passed %+v, want NoSpread false then true", got)
	}
}

// TestPlanBeforeRun: every decision is in the plan before anything is
// scored — the framing words, the weighted terms, the expansions with their
// source, the provision decision and the fusion — and running the plan
// gives what searching does, with the plan's decisions as its explanation.
func TestPlanBeforeRun(t *testing.T) {
	ix := selfCorpus(t)
	q := Query{Text: "Does the lease mention subletting the premises?", K: 3, Docs: []string{"lease-1"}}
	p := planT(t, ix, q)
	if !slices.ContainsFunc(p.Framing, func(f FramingWord) bool { return f.Word == "leas" }) {
		t.Errorf("framing %v: want the lease's self-reference", p.Framing)
	}
	if len(p.Terms) == 0 || p.Terms[0].Weight != 1 {
		t.Errorf("weighted terms %v", p.Terms)
	}
	for _, e := range p.Expansions {
		if e.From == "" || e.Word == "" || e.Weight <= 0 || (e.Kind != "association" && e.Kind != "heading") {
			t.Errorf("expansion without its source: %+v", e)
		}
	}
	if !slices.Equal(p.Provision.Docs, q.Docs) || p.Provision.Topic == "" {
		t.Errorf("provision decision %+v: want the chosen document and the topic", p.Provision)
	}
	if !p.Fusion.Fill || p.Fusion.Dense || p.Fusion.Rerank {
		t.Errorf("fusion %+v: want fill only", p.Fusion)
	}
	if wide := planT(t, ix, Query{Text: q.Text}); len(wide.Provision.Docs) != 0 || wide.Provision.Why == "" || wide.Fusion.Fill {
		t.Errorf("corpus-wide plan: provision %+v, fusion %+v", wide.Provision, wide.Fusion)
	}
	q.Explain = true
	p = planT(t, ix, q)
	run := runT(t, ix, p)
	if searched := searchT(t, ix, q); !reflect.DeepEqual(run.Hits, searched.Hits) {
		t.Errorf("running the plan gave other hits than searching:\n%v\n%v", run.Hits, searched.Hits)
	}
	if run.Explain == nil || run.Explain.Plan != p || len(run.Explain.Hits) != len(run.Hits) {
		t.Fatalf("explain %+v: want the plan run and every hit's makeup", run.Explain)
	}
}
