package search

import (
	"context"
	"slices"
	"testing"
)

// fixedLearner adds the same words to every question and records the
// terms it was asked about.
type fixedLearner struct {
	words []Weighted
	asked [][]string
}

func (f *fixedLearner) Expand(terms []string) []Weighted {
	f.asked = append(f.asked, slices.Clone(terms))
	return f.words
}

func TestModelsLearntAddsWordsUnlessNoLearnt(t *testing.T) {
	ctx := context.Background()
	ix := selfCorpus(t)
	l := &fixedLearner{words: []Weighted{{Term: "roof", Weight: 0.5}, {Term: "unknownword", Weight: 0.5}}}
	m := Models{Learnt: l}
	q := Query{Text: "Who pays the rent?", Explain: true}
	res, err := ix.SearchWith(ctx, m, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ix.Plan(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.asked) != 1 || !slices.Equal(l.asked[0], p.Words) {
		t.Fatalf("the learner was asked about %v, want the plan's terms %v", l.asked, p.Words)
	}
	if got := res.Explain.Learned; len(got) != 1 || got[0].Term != "roof" {
		t.Fatalf("learnt words in the plan = %v, want roof alone (words the index does not know are skipped)", got)
	}

	q.NoLearnt = true
	res, err = ix.SearchWith(ctx, m, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Explain.Learned) != 0 || len(l.asked) != 1 {
		t.Fatalf("with NoLearnt: learnt words %v, learner asked %d times; want none and once", res.Explain.Learned, len(l.asked))
	}
	// The switch also drops words the caller learnt (as eval's folds do).
	q.Learned = l.words
	if res, err = ix.SearchWith(ctx, Models{}, q, nil); err != nil {
		t.Fatal(err)
	}
	if len(res.Explain.Learned) != 0 {
		t.Fatalf("with NoLearnt and Query.Learned: learnt words %v, want none", res.Explain.Learned)
	}
	// Words the caller set are not replaced by the model's.
	q.NoLearnt, q.Learned = false, []Weighted{{Term: "sublet", Weight: 0.4}}
	if res, err = ix.SearchWith(ctx, m, q, nil); err != nil {
		t.Fatal(err)
	}
	if got := res.Explain.Learned; len(got) != 1 || got[0].Term != "sublet" || len(l.asked) != 1 {
		t.Fatalf("with Query.Learned set: learnt words %v (learner asked %d times), want sublet and no new asking", got, len(l.asked))
	}
}
