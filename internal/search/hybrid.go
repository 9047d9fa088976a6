package search

import (
	"context"
	"fmt"
)

// Models are the optional model servers a search may use. The zero value
// uses none: plain lexical search.
type Models struct {
	// Embedder embeds the question when the index has vectors (from the same
	// model); the dense ranking is then fused with BM25.
	Embedder Embedder
	// Reranker reorders the best RerankDepth passages.
	Reranker    Reranker
	RerankDepth int // default 30
	// Provisions, when set, finds the passages that hold a provision the
	// question clearly asks about in the few documents a search is narrowed
	// to; they are put first (see FuseProvisions).
	Provisions ProvisionFinder
	// Learnt, when set, adds to a question the words learnt from labelled
	// questions like it (Query.Learned, unless the caller set them or
	// Stages.NoLearnt): learnq.Builtin in the product.
	Learnt Learner
}

// A Learner returns the words to add to a question, given its analyzed
// words after routing (Plan.Words): learnq.Model.
type Learner interface {
	Expand(words []string) []Weighted
}

// A ProvisionFinder answers questions that ask about a known kind of
// provision ("is there a non-compete?") with a model of that provision
// rather than with the question's words: the offline review detectors,
// trained on labelled contracts, find a clause however it is worded.
type ProvisionFinder interface {
	// FindProvisions returns, for each of req.Docs that holds a provision
	// req.Question clearly asks about, the passages that hold it (View
	// ViewProvision, Score the finder's confidence), best first; and the
	// documents it looked in and found no such provision in. Both are empty
	// when the question asks about no provision the finder knows.
	FindProvisions(ctx context.Context, req ProvisionRequest) ([]Hit, []Absence, error)
}

// ProvisionRequest is what a search asks a ProvisionFinder.
type ProvisionRequest struct {
	// Question is what the question asks about: without the words that name
	// the contract (Index.Topic).
	Question string
	// Docs are the documents to look in: those the search was narrowed to.
	Docs []string
	// NoSpread: put a provision's passage first even where the provision
	// pervades the contract (Stages.NoSpread).
	NoSpread bool
}

// Absence is a provision a ProvisionFinder looked for in a document and did
// not find: the question's words may still match passages, but none holds
// the provision.
type Absence struct {
	DocID     string `json:"doc_id"`
	Provision string `json:"provision"`
	// Confidence is the finder's probability that the provision is there
	// after all (below its threshold).
	Confidence float64 `json:"confidence"`
}

// MaxProvisionDocs bounds the documents a ProvisionFinder looks in: a
// search narrowed (by routing or by the caller) to more documents than this
// is left as it is.
const MaxProvisionDocs = 5

// FuseProvisions puts the finder's passages first and fills up to k with
// the search's hits. The first passage of each provision in each document
// comes first — after the search's best hit when the finder returned that
// hit among a provision's further passages (bothFind) —; the finder's further passages of it alternate with the
// search's hits, so the best word matches stay near the top. A hit that
// overlaps a passage already returned keeps only its text outside it (the
// rest of a clause the passage was cut from stays retrievable), so spans
// never overlap and a fused search covers all the text the plain one did;
// ranks are numbered again. The result never holds more than k hits.
func FuseProvisions(hits, found []Hit, k int) []Hit {
	if len(found) == 0 {
		return hits
	}
	out := make([]Hit, 0, min(k, len(hits)+len(found)))
	// outside returns the pieces of h not covered by the hits already out,
	// valid until its next call: the two slices it cuts pieces into are
	// reused, as this runs for every pair of hits.
	var pieces, next []Hit
	outside := func(h Hit) []Hit {
		pieces = append(pieces[:0], h)
		for _, o := range out {
			if o.DocID != h.DocID {
				continue
			}
			next = next[:0]
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
			pieces, next = next, pieces
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

// bothFind reports whether the words' best hit h is also a passage the
// detectors found, though not the one they rate best for its provision: a
// passage both find goes before one only the detectors find ("governed by
// the laws of Spain" before "organized under the laws of Texas"). A hit
// overlapping a provision's best passage leaves the order as it is.
func bothFind(h Hit, found []Hit) bool {
	type key struct{ doc, prov string }
	first := map[key]bool{}
	agree := false
	for _, f := range found {
		k := key{f.DocID, f.Provision}
		overlaps := f.DocID == h.DocID && f.Span.Start < h.Span.End && h.Span.Start < f.Span.End
		if !first[k] {
			first[k] = true
			if overlaps {
				return false
			}
			continue
		}
		agree = agree || overlaps
	}
	return agree
}

// defaultRerankDepth is how many passages a reranker reorders by default.
const defaultRerankDepth = 30

// SearchWith runs q like Search, using the configured models: it embeds the
// question and fuses dense retrieval in when the index has vectors, reranks
// the best passages when a reranker is set, and asks the provision finder
// when the plan says so. text returns a hit's source text; it is needed
// only for reranking.
func (ix *Index) SearchWith(ctx context.Context, m Models, q Query, text func(Hit) (string, error)) (Result, error) {
	if dense, _ := ix.Dense(); dense && m.Embedder != nil && len(q.Vector) == 0 {
		v, err := m.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return Result{}, fmt.Errorf("embedding the question: %w", err)
		}
		if len(v) == 1 {
			q.Vector = v[0]
		}
	}
	k := q.K
	if k <= 0 {
		k = 10
	}
	rerank := m.Reranker != nil && text != nil
	depth := m.RerankDepth
	if depth <= 0 {
		depth = defaultRerankDepth
	}
	if rerank {
		q.K = max(k, depth)
	}
	if m.Learnt != nil && !q.NoLearnt && q.Learned == nil {
		// As the evaluation adds a fold's words: to the words the plan
		// searches with.
		p, err := ix.Plan(ctx, q)
		if err != nil {
			return Result{}, err
		}
		q.Learned = m.Learnt.Expand(p.Words)
	}
	p, err := ix.Plan(ctx, q)
	if err != nil {
		return Result{}, err
	}
	if rerank {
		p.Fusion.Rerank, p.Fusion.RerankDepth = true, depth
	}
	if m.Provisions == nil && !q.NoProvisions {
		p.Provision = ProvisionPlan{Why: "no provision finder is configured"}
	}
	res, err := ix.Run(ctx, p)
	if err != nil {
		return res, err
	}
	if rerank {
		if res.Hits, err = ix.rerank(ctx, m.Reranker, q.Text, res.Hits, depth, text); err != nil {
			return res, err
		}
		if len(res.Hits) > k {
			res.Hits = res.Hits[:k]
		}
		res.Explain.reorder(res.Hits)
	}
	if m.Provisions == nil || q.NoProvisions {
		return res, nil
	}
	pp := p.Provision
	if len(pp.Docs) == 0 {
		res.Explain.noteProvisions(ctx, m.Provisions, nil, nil, res.Hits)
		return res, nil
	}
	found, absent, err := m.Provisions.FindProvisions(ctx, ProvisionRequest{Question: pp.Topic, Docs: pp.Docs, NoSpread: pp.NoSpread})
	if err != nil {
		return res, fmt.Errorf("finding the provision asked about: %w", err)
	}
	res.NotFound = absent
	res.Hits = FuseProvisions(res.Hits, found, k)
	res.Explain.noteProvisions(ctx, m.Provisions, found, absent, res.Hits)
	return res, nil
}

// rerank reorders the best depth hits by the reranker's scores of their
// text.
func (ix *Index) rerank(ctx context.Context, rr Reranker, query string, hits []Hit, depth int, text func(Hit) (string, error)) ([]Hit, error) {
	texts := make(map[int]string, len(hits))
	for i, h := range hits[:min(depth, len(hits))] {
		t, err := text(h)
		if err != nil {
			return hits, fmt.Errorf("reading passages to rerank: %w", err)
		}
		texts[i] = t
	}
	idx := map[Hit]int{}
	for i, h := range hits {
		idx[h] = i
	}
	return RerankHits(ctx, rr, query, hits, depth, func(h Hit) string { return texts[idx[h]] })
}
