package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

// MaxQueryChars is the longest query any face accepts, in characters. Each
// term of a query costs a pass over its postings, so one caller's
// megabyte-long queries would slow every other search on a shared server.
const MaxQueryChars = 2000

// Query is one search request.
type Query struct {
	Text string
	// Docs restricts the search to these document ids (nil = whole index).
	Docs []string
	// K is the number of spans to return (default 10).
	K int
	// Views restricts which unit views are searched (nil = all).
	Views []index.View
	// Stages switch the search's tuned stages off, one by one.
	Stages
	// Explain asks for the plan and each hit's score makeup in
	// Result.Explain (explain.go). It changes no hit.
	Explain bool
	// Vector is the question's embedding (from the same model as the
	// index's vectors). When set and the index has vectors, lexical and dense
	// rankings are fused by reciprocal rank fusion.
	Vector []float32
	// Learned are words a model learnt from labelled questions adds to the
	// question (analyzed terms; a heading word starts with index.HeadMark),
	// each with its weight: what the passages that answered questions like
	// this one in other documents say, and what their clauses are headed.
	// Words the index does not know are skipped.
	Learned []Weighted

	// exhaustive scores a corpus-wide search with the accumulator rather
	// than window by window (tests compare the two).
	exhaustive bool
}

// Stages are the switches of a search's tuned stages: each turns one stage
// off, so an ablation is a switch, not a patch, and the zero value runs
// them all. The one struct is the query's (Query), the API's search request,
// the MCP tool's arguments and the evaluation's options: its JSON names are
// theirs, its descriptions the MCP tool's.
type Stages struct {
	// NoRoute searches every document even when the question names a
	// contract (routing: plan.go).
	NoRoute bool `json:"no_route,omitempty" jsonschema:"search every document even when the query seems to name a contract (routed_to says when routing narrowed a search)"`
	// NoProvisions ranks by the question's words only: the review
	// detectors' passage is not put first (Models.Provisions).
	NoProvisions bool `json:"no_provisions,omitempty" jsonschema:"rank by the query's words only, without putting first the passage the review detectors find when the query asks about a playbook provision (such a passage carries its provision's name)"`
	// NoFraming keeps the words a question frames itself with ("does this
	// contract mention …": framing.go) among the words searched.
	NoFraming bool `json:"no_framing,omitempty" jsonschema:"keep the words the query frames itself with (\"does this contract mention\") among the words searched"`
	// NoAssociations adds no words that co-occur with a question word
	// (expand.go); NoHeadings no body words of the clauses a question word
	// heads (headings.go). Both together: no expansion at all.
	NoAssociations bool `json:"no_associations,omitempty" jsonschema:"do not add the words that co-occur with the query's words in the collection"`
	NoHeadings     bool `json:"no_headings,omitempty" jsonschema:"do not add the body words of the clauses the query's words head"`
	// NoFill returns only units that match the question's words, even when
	// the search is restricted to some documents and fewer than K match.
	NoFill bool `json:"no_fill,omitempty" jsonschema:"in a search narrowed to some contracts, return only passages that match the query's words"`
	// NoSpread puts a provision's passage first even where the provision
	// pervades the contract (the finder rates many of its passages near the
	// best, so none singles itself out): ProvisionRequest.NoSpread.
	NoSpread bool `json:"no_spread,omitempty" jsonschema:"put the review detectors' passage first even for a provision that pervades the contract (many passages rated near the best)"`
	// NoLearnt adds no words learnt from labelled questions like this one
	// (Models.Learnt, Query.Learned).
	NoLearnt bool `json:"no_learnt,omitempty" jsonschema:"do not add the words learnt from labelled questions like the query (what the passages answering them say and how their clauses are headed)"`
}

// expand reports whether the query is expanded with associated words at
// all.
func (s Stages) expand() bool { return !s.NoAssociations || !s.NoHeadings }

// Weighted is an analyzed term with a weight (Query.Learned).
type Weighted struct {
	Term   string  `json:"term"`
	Weight float64 `json:"weight"`
}

// Hit is one returned source span.
type Hit struct {
	DocID string        `json:"doc_id"`
	Span  document.Span `json:"span"`
	Score float64       `json:"score"`
	Node  int           `json:"node"` // clause node of the best unit, -1 if none
	View  index.View    `json:"view"`
	Rank  int           `json:"rank"`
	// Provision names the playbook provision a ProvisionFinder found in
	// this passage (View is then ViewProvision).
	Provision string `json:"provision,omitempty"`
}

// ByScore orders hits best first, for slices.SortStableFunc: a higher score
// first, equal (or incomparable) scores keeping their order.
func ByScore(a, b Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return 0
}

// Result is the outcome of a search.
type Result struct {
	Hits []Hit `json:"hits"`
	// RoutedTo lists the documents the question named, best first, when
	// routing restricted the search to them.
	RoutedTo []string `json:"routed_to,omitempty"`
	// Route is the plan's first stage: which documents were searched and
	// why (Plan).
	Route *Route `json:"route,omitempty"`
	// NotFound lists the provisions the question asks about that a
	// ProvisionFinder looked for and did not find (SearchWith): the hits of
	// those documents only match the question's words.
	NotFound []Absence `json:"not_found,omitempty"`
	// Explain is the plan and each hit's score makeup, when Query.Explain
	// asked for it.
	Explain *Explain `json:"explain,omitempty"`
}

// Search runs q against the index: it plans q (Plan) and runs the plan. A
// sharded index (SetSharding) that cannot reach a shard, or has not learned
// its word associations ahead, returns its error and no hits.
func (ix *Index) Search(ctx context.Context, q Query) (Result, error) {
	p, err := ix.Plan(ctx, q)
	if err != nil {
		return Result{}, err
	}
	return ix.Run(ctx, p)
}

// Run runs a plan built by Plan (over the snapshot the plan was made on):
// it scores the plan's terms in its documents, fuses and fills as the plan
// says, and collects the hits; it decides nothing. A sharded search that
// fails returns its error and no hits: never a part of the collection's.
func (ix *Index) Run(ctx context.Context, p *Plan) (Result, error) {
	q := p.Query
	v := p.v
	if v == nil {
		return Result{}, errors.New("search: run a plan made by Index.Plan")
	}
	k := q.K
	if k <= 0 {
		k = 10
	}
	route := p.Route
	res := Result{Route: &route}
	if route.Decision.Narrowed() {
		res.RoutedTo = route.Docs
	}
	if q.Explain {
		res.Explain = &Explain{Plan: p, Hits: []HitScore{}}
	}
	if p.docs != nil && len(p.docs) == 0 {
		return res, nil // the caller's documents are not in the index
	}
	qt, ranges, fill := p.qt, p.ranges, p.Fusion.Fill
	sc := newScope(v, ranges, q.Views)
	// Only the best units are ranked: collect rarely needs more than a few
	// per hit. When it does (many overlapping spans), rank deeper (below); the
	// order is total, so the hits are the same either way. Filling needs the
	// whole ranking to know which units went unscored, and its units come
	// after every scored one: a search that finds k hits among the best
	// units never needs it, so a question about a long agreement does not
	// sort all of its clauses.
	n := max(rankDepth, rankPerHit*k)
	if fill && ix.sharding != nil {
		n = 0 // the shards send the units to fill with on the first call
	}
	var lexical func(n int) (ranked []scored, all bool)
	unit := func(g int32) (ShardUnit, bool) { return localUnit(v, g) }
	plain := func(g int32) bool {
		i, lu := v.SegmentOfUnit(g)
		units := v.Segments()[i].Units()
		return uint(lu) < uint(len(units)) && units[lu].View == index.ViewPlain
	}
	var dist *distributed
	switch {
	case ix.sharding != nil:
		var err error
		if dist, err = ix.newDistributed(ctx, v, qt, sc, fill); err != nil {
			return Result{}, err
		}
		lexical, unit = dist.rank, dist.unitInfo
		plain = func(g int32) bool { return dist.plain[g] }
	case ranges == nil && !q.exhaustive:
		// Corpus-wide: scored a window of units at a time (window.go),
		// skipping what cannot reach the n best. Without dense fusion
		// (which fuses the best fusionDepth) or an explanation, only what
		// collect needs is ranked to begin with: the hits are the same
		// (collect reads the ranking in order and stops at k hits; a
		// ranking short of them is made deeper below), and the fewer
		// ranked, the more the bounds skip.
		if !p.Fusion.Dense && !q.Explain && !fill {
			n = rankPerHit * k
		}
		lexical = func(n int) ([]scored, bool) { return ix.topWindowed(v, qt, sc, n, true) }
	default:
		accRanges := ranges
		if accRanges == nil {
			accRanges = allRanges(v)
		}
		acc := ix.getAcc(accRanges)
		defer ix.putAcc(acc)
		ix.score(v, acc, qt, sc)
		lexical = func(n int) ([]scored, bool) {
			if n >= acc.n {
				n = 0
			}
			return acc.top(n), n <= 0
		}
	}
	rank := func(n int) ([]scored, bool) {
		ranked, all := lexical(n)
		if p.Fusion.Dense {
			ranked = ix.hybrid(v, ranked, q.Vector, sc)
		}
		if fill && all {
			ranked = fillRanked(ranked, ranges, plain)
		}
		return ranked, all
	}
	ranked, all := rank(n)
	res.Hits = collect(unit, ranked, k)
	for !all && len(res.Hits) < k {
		// Rank deeper, a few times as deep each round, rather than sort
		// every touched unit at once: with many similar contracts the best
		// units' spans overlap and more are needed, but rarely all.
		n *= 4
		ranked, all = rank(n)
		res.Hits = collect(unit, ranked, k)
	}
	if dist != nil && dist.err != nil {
		return Result{Route: res.Route, RoutedTo: res.RoutedTo}, dist.err
	}
	if res.Explain != nil && dist == nil {
		// A sharded search explains its plan; the score makeup of each hit
		// is known only to the shard that ranked it.
		res.Explain.Hits = ix.scoreMakeup(v, qt, sc, ranked, res.Hits, p.Fusion.Dense)
	}
	return res, nil
}

// allRanges returns every unit of the snapshot, one range per segment.
func allRanges(v *index.Snapshot) [][2]int32 {
	var out [][2]int32
	for i := range v.Segments() {
		if f, l := v.UnitBase(i), v.UnitBase(i+1); l > f {
			out = append(out, [2]int32{f, l})
		}
	}
	return out
}

// weigh turns the terms of a question (text) into weighted query terms:
// the words the index knows but its framing words (framing.go), a repeated
// word weighing more, then (expand) the words associated with them.
func (ix *Index) weigh(v *index.Snapshot, text string, terms []string, expand bool) []queryTerm {
	q := Query{Text: text}
	q.NoAssociations, q.NoHeadings = !expand, !expand
	return ix.weighQuery(v, q, terms, nil)
}

// weighQuery is weigh with q's switches. With p set, it writes the plan's
// framing words, weighted terms and expansions.
func (ix *Index) weighQuery(v *index.Snapshot, q Query, terms []string, p *Plan) []queryTerm {
	qt := make([]queryTerm, 0, len(terms))
	seen := map[int32]int{}
	kept := terms
	if !q.NoFraming {
		framing := ix.framing(v, q.Text, terms)
		kept = dropFraming(terms, framing)
		if p != nil && len(kept) != len(terms) {
			for _, t := range terms {
				if why, ok := framing[t]; ok && !slices.ContainsFunc(p.Framing, func(f FramingWord) bool { return f.Word == t }) {
					p.Framing = append(p.Framing, FramingWord{t, why})
				}
			}
		}
	}
	for _, t := range kept {
		id, ok := v.Lookup(t)
		if !ok {
			continue
		}
		if i, ok := seen[id]; ok {
			qt[i].weight += 0.5 // a repeated word matters a little more
			continue
		}
		seen[id] = len(qt)
		qt = append(qt, queryTerm{id: id, weight: 1})
	}
	if p != nil {
		p.Terms = make([]TermWeight, 0, len(qt))
		for _, t := range qt {
			p.Terms = append(p.Terms, TermWeight{v.TermString(t.id), t.weight})
		}
		for _, t := range kept {
			if _, ok := v.Lookup(t); !ok {
				p.Terms = append(p.Terms, TermWeight{t, 0})
			}
		}
	}
	if q.expand() {
		var exps *[]Expansion
		if p != nil {
			exps = &p.Expansions
		}
		qt = ix.expand(v, qt, !q.NoHeadings, !q.NoAssociations, exps)
	}
	if q.NoLearnt {
		return qt
	}
	return addLearned(v, qt, q.Learned, p)
}

// rankDepth and rankPerHit bound how many scored units a search sorts
// before collecting hits from them (at least fusionDepth, for hybrid search).
const (
	rankDepth  = 2 * fusionDepth
	rankPerHit = 8
)

// namingParts widens the terms that name a contract (ref) to every term of
// each part of the question in which they are at least half the terms, when
// some other part of the question is left to search with. Terms for which
// also (optional) is true count with them, without being left out on their
// own: the words the document refers to itself with ("Consider Acme's
// privacy policy" only names the policy).
//
// A question names its contract once: when a part of it is left out as
// naming the contract, the other parts lose only the words that part
// already said ("Consider Acme's privacy policy; does Acme sell my
// data?"), not the runs of their own that the contract's opening text
// happens to share ("does it share my purchase information with others?"
// against a policy whose first sentence, read as its title, speaks of
// purchases and information). When several parts would be left out, only
// the one with the most naming words is, the earliest of equals: a
// question says first which contract it asks about.
func namingParts(ref map[int]bool, terms []string, breaks []bool, also ...func(i int) bool) map[int]bool {
	if len(ref) == 0 {
		return ref
	}
	var parts [][2]int       // each part's first term and the end
	best, bestWords := -1, 0 // the part left out whole, and its naming words
	for st := 0; st < len(breaks); {
		e := st + 1
		for e < len(breaks) && !breaks[e] {
			e++
		}
		n, naming := 0, 0
		for i := st; i < e; i++ {
			switch {
			case ref[i]:
				n++
				naming++
			case len(also) > 0 && also[0] != nil && also[0](i):
				naming++
			}
		}
		if n > 0 && 2*naming >= e-st && naming > bestWords {
			best, bestWords = len(parts), naming
		}
		parts = append(parts, [2]int{st, e})
		st = e
	}
	if best < 0 || len(parts) < 2 {
		return ref
	}
	out := map[int]bool{}
	said := map[string]bool{}
	for i := parts[best][0]; i < parts[best][1]; i++ {
		out[i] = true
		said[terms[i]] = true
	}
	for i := range ref {
		if said[terms[i]] {
			out[i] = true
		}
	}
	if len(out) >= len(terms) {
		return ref
	}
	return out
}

// fusionDepth is how many units of each ranking reciprocal rank fusion sees.
const fusionDepth = 200

// hybrid fuses the lexical ranking with the dense one; lexical matches beyond
// the fused depth follow in their own order.
func (ix *Index) hybrid(v *index.Snapshot, lex []scored, qv []float32, sc scope) []scored {
	qv = append([]float32(nil), qv...)
	normalize(qv)
	head := lex[:min(len(lex), fusionDepth)]
	fused := fuse(head, denseRank(v, qv, sc, fusionDepth))
	seen := make(map[int32]bool, len(fused))
	for _, s := range fused {
		seen[s.unit] = true
	}
	for _, s := range lex[len(head):] {
		if !seen[s.unit] {
			fused = append(fused, scored{s.unit, 0})
		}
	}
	return fused
}

// fillRanked appends, after the scored units, the unscored plain units of
// the searched documents, nearest to the best unit first: when the words
// run out, the text around the best match is the likeliest place for the
// rest of the answer. Only searches restricted to some documents are filled.
func fillRanked(ranked []scored, ranges [][2]int32, plain func(g int32) bool) []scored {
	anchor := int32(-1)
	if len(ranked) > 0 {
		anchor = ranked[0].unit
	}
	inRanked := make(map[int32]bool, len(ranked))
	for _, s := range ranked {
		inRanked[s.unit] = true
	}
	var rest []scored
	for _, r := range ranges {
		for u := r[0]; u < r[1]; u++ {
			if inRanked[u] || !plain(u) {
				continue
			}
			d := float64(u - anchor)
			if anchor < 0 {
				d = float64(u)
			}
			rest = append(rest, scored{u, -math.Abs(d)})
		}
	}
	slices.SortStableFunc(rest, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	for i := range rest {
		rest[i].score = 0
	}
	return append(ranked, rest...)
}

// collect turns ranked units into at most k non-overlapping spans, best
// first. Text already returned is not returned again: a unit whose span lies
// inside returned spans is skipped, and one that partly overlaps them
// contributes only its new part (dropped when shorter than minFragment). The
// first k hits of a search for K > k are therefore exactly the hits of a
// search for k.
func collect(unit func(g int32) (ShardUnit, bool), ranked []scored, k int) []Hit {
	var hits []Hit
	type shortHit struct {
		Hit
		doc int32
	}
	var short []shortHit                 // short units skipped while no hit was found
	taken := map[int32][]document.Span{} // returned spans per document, sorted
	for _, s := range ranked {
		if len(hits) >= k {
			break
		}
		u, ok := unit(s.unit)
		if !ok {
			continue // a damaged index file; see index/container.go
		}
		doc := u.Doc
		for _, usp := range u.Spans {
			sp := document.Span{Start: int(usp.Start), End: int(usp.End)}
			for _, frag := range subtract(sp, taken[doc]) {
				if len(hits) >= k {
					break
				}
				// A leftover shorter than minFragment is never returned, and
				// a short unit never first: a heading or "." quoted alone
				// answers nothing (unless nothing else matched).
				h := Hit{DocID: u.DocID, Span: frag, Score: s.score, Node: int(u.Node), View: u.View}
				if frag.Len() < minFragment && (frag != sp || len(hits) == 0) {
					if frag == sp {
						short = append(short, shortHit{h, doc})
					}
					continue
				}
				h.Rank = len(hits) + 1
				hits = append(hits, h)
				taken[doc] = insertSpan(taken[doc], frag)
				// Short units ranked above the first hit follow it.
				for _, sh := range short {
					if len(hits) >= k {
						break
					}
					if rest := subtract(sh.Span, taken[sh.doc]); len(rest) == 1 && rest[0] == sh.Span {
						sh.Rank = len(hits) + 1
						hits = append(hits, sh.Hit)
						taken[sh.doc] = insertSpan(taken[sh.doc], sh.Span)
					}
				}
				short = short[:0]
			}
		}
	}
	if len(hits) == 0 && len(short) > 0 {
		short[0].Rank = 1
		hits = append(hits, short[0].Hit)
	}
	return hits
}

// minFragment is the shortest leftover of a partly returned unit worth
// returning on its own (code points).
const minFragment = 40

// subtract returns the parts of sp not covered by the sorted, disjoint spans.
func subtract(sp document.Span, taken []document.Span) []document.Span {
	out := []document.Span{sp}
	for _, t := range taken {
		if t.Start >= sp.End {
			break
		}
		if !t.Overlaps(sp) {
			continue
		}
		last := out[len(out)-1]
		out = out[:len(out)-1]
		if last.Start < t.Start {
			out = append(out, document.Span{Start: last.Start, End: t.Start})
		}
		if t.End < last.End {
			out = append(out, document.Span{Start: t.End, End: last.End})
		}
		if len(out) == 0 {
			break
		}
	}
	return out
}

// insertSpan inserts sp into the sorted, disjoint list.
func insertSpan(list []document.Span, sp document.Span) []document.Span {
	i := sort.Search(len(list), func(i int) bool { return list[i].Start >= sp.Start })
	list = append(list, document.Span{})
	copy(list[i+1:], list[i:])
	list[i] = sp
	return list
}

// analyzeQuery analyzes a question part by part, split at ; : ? ! and line
// breaks, and reports for each term whether a part starts with it and
// whether it was written like a name (see AnalyzeCased).
func analyzeQuery(text string) (terms []string, breaks, named []bool) {
	parts := questionParts(text)
	for _, p := range parts {
		ts, ns := index.AnalyzeCased(p)
		for i, t := range ts {
			terms = append(terms, t)
			breaks = append(breaks, i == 0)
		}
		named = append(named, ns...)
	}
	return terms, breaks, named
}

// RerankHits reorders the first n hits by a reranker's scores of their text
// (text returns a hit's source text). Hits beyond n keep their order after
// them. The spans themselves are unchanged, so they still never overlap.
func RerankHits(ctx context.Context, rr Reranker, query string, hits []Hit, n int, text func(Hit) string) ([]Hit, error) {
	n = min(n, len(hits))
	if n < 2 {
		return hits, nil
	}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = text(hits[i])
	}
	scores, err := rr.Rerank(ctx, query, texts)
	if err != nil {
		return hits, fmt.Errorf("rerank: %w", err)
	}
	if len(scores) != n {
		return hits, fmt.Errorf("rerank: %d scores for %d passages", len(scores), n)
	}
	head := append([]Hit(nil), hits[:n]...)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	out := make([]Hit, 0, len(hits))
	for _, i := range order {
		h := head[i]
		h.Score = scores[i]
		out = append(out, h)
	}
	out = append(out, hits[n:]...)
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
}
