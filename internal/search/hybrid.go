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
}

// defaultRerankDepth is how many passages a reranker reorders by default.
const defaultRerankDepth = 30

// SearchWith runs q like Search, using the configured models: it embeds the
// question and fuses dense retrieval in when the index has vectors, and
// reranks the best passages when a reranker is set. text returns a hit's
// source text; it is needed only for reranking.
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
	if m.Reranker == nil || text == nil {
		return ix.Search(q), nil
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
	res := ix.Search(q)
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
	return res, nil
}
