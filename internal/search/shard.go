package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/pakton/pakton/internal/search/index"
)

// Sharded search, as a distributed Lucene runs one. A collection's segments
// are split between N app servers: server k scores the segments i with
// i mod N = k (it holds them whole) and keeps the others as stats files
// (index.WriteStatsFile: their documents, vocabulary, header postings,
// names and statistics, without postings). So every server plans every
// question exactly as one holding all segments would — routing, names,
// framing words, the collection's document frequencies and average lengths,
// and the word associations, which a sharded collection looks up in the
// table learned for its commit (sampling them would need every posting).
//
// Ranking is then a scatter and a gather. For a question searched in some
// documents, IDF is over those documents: the servers holding them first
// count each term's postings there (ShardRequest.Count), and the counts are
// summed. Every server then scores its own segments with the same weights
// — each unit's score is the same sum in the same order as on one server —
// and returns its n best (score, then unit number), which are merged in the
// same total order: the n best of the collection, exactly. A search that
// needs more (spans overlapping: Run ranks deeper) asks again, deeper.
// Units are numbered across the snapshot the same way on every server, as
// long as they open the same commit, which every request checks.
//
// Dense vectors are not sharded: a sharded collection is searched by its
// words (Dense reports none).

// Sharding says how a collection's segments are split and how to reach the
// other servers.
type Sharding struct {
	K, N int
	// Peers[j] reaches server j (nil for j = K).
	Peers []Shard
}

// owns reports whether server k of n scores segment i.
func owns(k, n, i int) bool { return i%n == k }

// A Shard scores the segments it holds for a search planned elsewhere.
type Shard interface {
	Rank(ctx context.Context, req *ShardRequest) (*ShardResponse, error)
}

// ShardTerm is one weighted query term of a plan.
type ShardTerm struct {
	Term   string  `json:"term"`
	Weight float64 `json:"weight"`
	Body   bool    `json:"body,omitempty"`
}

// ShardRequest asks a server to score some of its segments.
type ShardRequest struct {
	// Commit is the commit the asking server's snapshot was opened from.
	Commit   uint64      `json:"commit"`
	Segments []int       `json:"segments"` // the segments to score (all held whole by the server asked)
	Terms    []ShardTerm `json:"terms"`
	// Ranges restricts the search to these units (documents), numbered
	// across the snapshot; nil for the whole collection.
	Ranges [][2]int32   `json:"ranges,omitempty"`
	Views  []index.View `json:"views,omitempty"`
	// Count asks for each term's postings in Ranges (the first phase of a
	// search in some documents) instead of a ranking.
	Count bool `json:"count,omitempty"`
	// W are the terms' weights (IDF times weight), from the asking server.
	W []float64 `json:"w,omitempty"`
	// N is how many of the best units to return; 0 for all.
	N int `json:"n"`
	// Fill asks for the plain units of Ranges too (a restricted search's
	// ranking is filled with them).
	Fill bool `json:"fill,omitempty"`
}

// ShardUnit is a unit a shard scored (or holds, for filling): its number
// in the snapshot, score, and what collecting hits needs.
type ShardUnit struct {
	Unit  int32        `json:"unit"`
	Score float64      `json:"score"`
	DocID string       `json:"doc_id"`
	Doc   int32        `json:"doc"`
	Node  int32        `json:"node"`
	View  index.View   `json:"view"`
	Spans []index.Span `json:"spans"`
	Plain bool         `json:"plain,omitempty"`
	_     struct{}     `json:"-"`
}

// ShardResponse is a shard's answer.
type ShardResponse struct {
	Commit  uint64      `json:"commit"`
	Counts  []int       `json:"counts,omitempty"` // by term (Count)
	Ranked  []ShardUnit `json:"ranked,omitempty"` // best first
	Touched int         `json:"touched"`          // units with a score
	Units   []ShardUnit `json:"units,omitempty"`  // the plain units of Ranges (Fill)
}

// ErrShardCommit reports a shard that has another commit of the collection
// open than the asking server: the question is asked again once both have
// the same (the index's maintenance brings them together).
var ErrShardCommit = errors.New("search: the servers of a sharded collection have different commits of its index open")

// SetSharding makes the index a sharded one (see above). It must be called
// before the index is searched.
func (ix *Index) SetSharding(s *Sharding) { ix.sharding = s }

// Sharded reports whether the index is searched by shards.
func (ix *Index) Sharded() bool { return ix.sharding != nil }

// ShardRank answers a ShardRequest over this server's snapshot.
func (ix *Index) ShardRank(ctx context.Context, req *ShardRequest) (*ShardResponse, error) {
	v := ix.view()
	commit, _ := v.Commit()
	if req.Commit != commit {
		return nil, fmt.Errorf("%w (asked for commit %d, this server has %d)", ErrShardCommit, req.Commit, commit)
	}
	segs := v.Segments()
	for _, i := range req.Segments {
		if i < 0 || i >= len(segs) || segs[i].StatsOnly() {
			return nil, fmt.Errorf("search: shard: segment %d is not held here", i)
		}
	}
	if req.W != nil && len(req.W) != len(req.Terms) {
		return nil, fmt.Errorf("search: shard: %d weights for %d terms", len(req.W), len(req.Terms))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qt := make([]queryTerm, len(req.Terms))
	for k, t := range req.Terms {
		qt[k] = queryTerm{id: -1, weight: t.Weight, body: t.Body}
		if id, ok := v.Lookup(t.Term); ok {
			qt[k].id = id
		}
	}
	sc := newScope(v, req.Ranges, req.Views)
	mine := func(i int) bool { return slices.Contains(req.Segments, i) }
	res := &ShardResponse{Commit: commit}
	if req.Count {
		res.Counts = make([]int, len(qt))
		for k, t := range qt {
			if t.id < 0 {
				continue
			}
			for _, p := range rangeParts(v, t.id, req.Ranges, mine) {
				res.Counts[k] += len(p.pl)
			}
		}
		return res, nil
	}
	ranked, touched := ix.rankLocal(v, qt, req.W, sc, req.N, mine)
	res.Touched = touched
	for _, s := range ranked {
		su, ok := localUnit(v, s.unit)
		if !ok {
			continue
		}
		su.Score = s.score
		res.Ranked = append(res.Ranked, su)
	}
	if req.Fill {
		for _, r := range req.Ranges {
			i, _ := v.SegmentOfUnit(r[0])
			if !mine(i) {
				continue
			}
			for u := r[0]; u < r[1]; u++ {
				if su, ok := localUnit(v, u); ok && su.View == index.ViewPlain {
					su.Plain = true
					res.Units = append(res.Units, su)
				}
			}
		}
	}
	return res, nil
}

// localUnit describes unit g of a segment held whole.
func localUnit(v *index.Snapshot, g int32) (ShardUnit, bool) {
	i, lu := v.SegmentOfUnit(g)
	seg := v.Segments()[i]
	units := seg.Units()
	if uint(lu) >= uint(len(units)) {
		return ShardUnit{}, false
	}
	u := units[lu]
	if uint(u.Doc) >= uint(seg.NumDocs()) {
		return ShardUnit{}, false
	}
	return ShardUnit{Unit: g, DocID: seg.DocID(u.Doc), Doc: v.DocBase(i) + u.Doc, Node: u.Node, View: u.View, Spans: seg.UnitSpans(lu)}, true
}

// rangeParts returns the postings of term t inside the ranges (nil: every
// unit) of the segments mine accepts.
func rangeParts(v *index.Snapshot, t int32, ranges [][2]int32, mine func(int) bool) []rangePart {
	var parts []rangePart
	if ranges == nil {
		for i := range v.Segments() {
			if pl := v.Postings(t, i); mine(i) && len(pl) > 0 {
				parts = append(parts, rangePart{pl: pl, seg: i, base: v.UnitBase(i)})
			}
		}
		return parts
	}
	for _, r := range ranges {
		i, lo := v.SegmentOfUnit(r[0])
		if !mine(i) {
			continue
		}
		pl := v.Postings(t, i)
		hi := lo + r[1] - r[0]
		a := sort.Search(len(pl), func(j int) bool { return pl[j].Unit >= lo })
		b := a + sort.Search(len(pl)-a, func(j int) bool { return pl[a+j].Unit >= hi })
		if b > a {
			parts = append(parts, rangePart{pl: pl[a:b], seg: i, base: v.UnitBase(i), lo: r[0]})
		}
	}
	return parts
}

// rankLocal ranks the units of the segments mine accepts with weights w
// (by query term), as Run ranks them on one server: window by window for
// the whole collection, with an accumulator in some documents. It returns
// the n best (all for n ≤ 0) and how many units had a score.
func (ix *Index) rankLocal(v *index.Snapshot, q []queryTerm, w []float64, sc scope, n int, mine func(int) bool) ([]scored, int) {
	if sc.ranges == nil && n > 0 {
		h := topHeap{n: n}
		touched := ix.windowed(v, q, w, sc, &h, mine, newPruning(false))
		slices.SortFunc(h.s, byRank)
		return h.s, touched
	}
	var ranges [][2]int32
	if sc.ranges == nil {
		for i := range v.Segments() {
			if f, l := v.UnitBase(i), v.UnitBase(i+1); mine(i) && l > f {
				ranges = append(ranges, [2]int32{f, l})
			}
		}
	} else {
		for _, r := range sc.ranges {
			if i, _ := v.SegmentOfUnit(r[0]); mine(i) {
				ranges = append(ranges, r)
			}
		}
	}
	if len(ranges) == 0 {
		return nil, 0
	}
	acc := ix.getAcc(ranges)
	defer ix.putAcc(acc)
	ix.scoreWith(v, acc, q, w, sc)
	if n >= acc.n {
		n = 0
	}
	return acc.top(n), acc.n
}

// distributed ranks a planned search over a sharded collection: its own
// segments here, the others by their servers, merged exactly.
type distributed struct {
	ctx     context.Context
	ix      *Index
	v       *index.Snapshot
	q       []queryTerm
	sc      scope
	fill    bool
	terms   []ShardTerm
	w       []float64
	commit  uint64
	byShard [][]int // segments scored by each server
	info    map[int32]ShardUnit
	plain   map[int32]bool // the plain units of the searched ranges (fill)
	err     error
}

func (ix *Index) newDistributed(ctx context.Context, v *index.Snapshot, q []queryTerm, sc scope, fill bool) (*distributed, error) {
	s := ix.sharding
	d := &distributed{ctx: ctx, ix: ix, v: v, q: q, sc: sc, fill: fill, info: map[int32]ShardUnit{}, byShard: make([][]int, s.N)}
	d.commit, _ = v.Commit()
	for i, seg := range v.Segments() {
		k := i % s.N
		if k == s.K && seg.StatsOnly() || k != s.K && (k >= len(s.Peers) || s.Peers[k] == nil) {
			return nil, fmt.Errorf("search: sharded collection: segment %d has no server to score it (server %d of %d)", i, k, s.N)
		}
		d.byShard[k] = append(d.byShard[k], i)
	}
	for _, t := range q {
		d.terms = append(d.terms, ShardTerm{Term: v.TermString(t.id), Weight: t.weight, Body: t.body})
	}
	// Weights: IDF over the scope. The whole collection's document
	// frequencies are in every server's statistics; a restricted search
	// counts its documents' postings where they are held.
	d.w = make([]float64, len(q))
	if sc.ranges == nil {
		for k, t := range q {
			if df := v.DF(t.id); df > 0 {
				d.w[k] = idf(sc.n, df) * t.weight
			}
		}
		return d, nil
	}
	counts := make([]int, len(q))
	var mu sync.Mutex // the servers answer in parallel
	err := d.each(func(k int, segs []int) error {
		req := &ShardRequest{Commit: d.commit, Segments: segs, Terms: d.terms, Ranges: sc.ranges, Views: views(sc), Count: true}
		res, err := d.call(k, req)
		if err != nil {
			return err
		}
		if len(res.Counts) != len(q) {
			return fmt.Errorf("search: shard %d: %d counts for %d terms", k, len(res.Counts), len(q))
		}
		mu.Lock()
		for t, c := range res.Counts {
			counts[t] += c
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, t := range q {
		if counts[k] > 0 {
			d.w[k] = idf(sc.n, counts[k]) * t.weight
		}
	}
	return d, nil
}

// views returns a scope's views as a request lists them (nil: all).
func views(sc scope) []index.View {
	var out []index.View
	for w, ok := range sc.views {
		if ok {
			out = append(out, index.View(w))
		}
	}
	if len(out) == int(index.NumViews) {
		return nil
	}
	return out
}

// call asks server k (this one when k is the index's own).
func (d *distributed) call(k int, req *ShardRequest) (*ShardResponse, error) {
	s := d.ix.sharding
	if k == s.K {
		return d.ix.ShardRank(d.ctx, req)
	}
	res, err := s.Peers[k].Rank(d.ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: shard %d of %d: %w", k, s.N, err)
	}
	if res.Commit != d.commit {
		return nil, fmt.Errorf("%w (server %d has commit %d, this one %d)", ErrShardCommit, k, res.Commit, d.commit)
	}
	return res, nil
}

// each calls fn for every server with segments to score, in parallel.
func (d *distributed) each(fn func(k int, segs []int) error) error {
	errs := make([]error, len(d.byShard))
	done := make(chan struct{})
	n := 0
	for k, segs := range d.byShard {
		if len(segs) == 0 {
			continue
		}
		n++
		go func() {
			errs[k] = fn(k, segs)
			done <- struct{}{}
		}()
	}
	for range n {
		<-done
	}
	return errors.Join(errs...)
}

// rank returns the n best units of the whole sharded collection (all for n
// ≤ 0), and whether that is every unit with a score.
func (d *distributed) rank(n int) ([]scored, bool) {
	if d.err != nil {
		return nil, true
	}
	parts := make([]*ShardResponse, len(d.byShard))
	req := func(segs []int) *ShardRequest {
		return &ShardRequest{Commit: d.commit, Segments: segs, Terms: d.terms, Ranges: d.sc.ranges, Views: views(d.sc), W: d.w, N: n, Fill: d.fill && d.plain == nil}
	}
	d.err = d.each(func(k int, segs []int) error {
		res, err := d.call(k, req(segs))
		parts[k] = res
		return err
	})
	if d.err != nil {
		return nil, true
	}
	touched := 0
	var all []scored
	for _, r := range parts {
		if r == nil {
			continue
		}
		touched += r.Touched
		for _, u := range r.Ranked {
			d.info[u.Unit] = u
			all = append(all, scored{u.Unit, u.Score})
		}
		if d.fill {
			if d.plain == nil {
				d.plain = map[int32]bool{}
			}
			for _, u := range r.Units {
				d.info[u.Unit] = u
				d.plain[u.Unit] = true
			}
		}
	}
	slices.SortFunc(all, byRank)
	if n > 0 && n < touched {
		if len(all) > n {
			all = all[:n]
		}
		return all, false
	}
	return all, true
}

// unitInfo returns what collecting hits needs of unit g.
func (d *distributed) unitInfo(g int32) (ShardUnit, bool) {
	u, ok := d.info[g]
	if ok {
		return u, true
	}
	return localUnit(d.v, g)
}
