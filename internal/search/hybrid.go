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

// A Learner returns the words to add to a question, given the analyzed
// words it is searched with (Plan.Terms): learnq.Model.
type Learner interface {
	Expand(terms []string) []Weighted
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
// comes first; the finder's further passages of it alternate with the
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
	// outside returns the pieces of h not covered by the hits already out.
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

// scopeOf returns the documents a search was narrowed to: the caller's, else
// the routed ones; nil when it searched the whole collection.
func scopeOf(q Query, res Result) []string {
	if len(q.Docs) > 0 {
		return q.Docs
	}
	return res.RoutedTo
}

// defaultRerankDepth is how many passages a reranker reorders by default.
const defaultRerankDepth = 30

// SearchWith runs q like Search, using the configured models: it embeds the
// question and fuses dense retrieval in when the index has vectors, and
// reranks the best passages when a reranker is set. text returns a hit's
// source text; it is needed only for reranking.
func (ix *Index) SearchWith(ctx context.Context, m Models, q Query, text func(Hit) (string, error)) (Result, error) {
	res, err := ix.searchModels(ctx, m, q, text)
	if err != nil || m.Provisions == nil || q.NoProvisions {
		return res, err
	}
	scope := scopeOf(q, res)
	if len(scope) == 0 || len(scope) > MaxProvisionDocs {
		res.Explain.noteProvisions(ctx, m.Provisions, "", nil, nil, nil, res)
		return res, nil
	}
	topic := ix.Topic(q.Text, scope)
	found, absent, err := m.Provisions.FindProvisions(ctx, ProvisionRequest{Question: topic, Docs: scope, NoSpread: q.NoSpread})
	if err != nil {
		return res, fmt.Errorf("finding the provision asked about: %w", err)
	}
	res.NotFound = absent
	k := q.K
	if k <= 0 {
		k = 10
	}
	res.Hits = FuseProvisions(res.Hits, found, k)
	res.Explain.noteProvisions(ctx, m.Provisions, topic, scope, found, absent, res)
	return res, nil
}

func (ix *Index) searchModels(ctx context.Context, m Models, q Query, text func(Hit) (string, error)) (Result, error) {
	if m.Learnt != nil && !q.NoLearnt && q.Learned == nil {
		p, err := ix.Plan(ctx, q)
		if err != nil {
			return Result{}, err
		}
		q.Learned = m.Learnt.Expand(p.Terms)
	}
	if dense, _ := ix.Dense(); dense && m.Embedder != nil && len(q.Vector) == 0 {
		v, err := m.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return Result{}, fmt.Errorf("embedding the question: %w", err)
		}
		if len(v) == 1 {
			q.Vector = v[0]
		}
	}
	if m.Reranker == nil || text == nil {
		return ix.Search(ctx, q)
	}
	depth := m.RerankDepth
	if depth <= 0 {
		depth = defaultRerankDepth
	}
	k := q.K
	if k <= 0 {
		k = 10
	}
	q.K = max(k, depth)
	res, err := ix.Search(ctx, q)
	if err != nil {
		return res, err
	}
	texts := make(map[int]string, len(res.Hits))
	var terr error
	for i, h := range res.Hits[:min(depth, len(res.Hits))] {
		t, err := text(h)
		if err != nil && terr == nil {
			terr = err
		}
		texts[i] = t
	}
	if terr != nil {
		return res, fmt.Errorf("reading passages to rerank: %w", terr)
	}
	idx := map[Hit]int{}
	for i, h := range res.Hits {
		idx[h] = i
	}
	hits, err := RerankHits(ctx, m.Reranker, q.Text, res.Hits, depth, func(h Hit) string { return texts[idx[h]] })
	if err != nil {
		return res, err
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	res.Hits = hits
	if ex := res.Explain; ex != nil {
		ex.Fusion.Rerank, ex.Fusion.RerankDepth = true, depth
		ex.reorder(hits)
	}
	return res, nil
}
