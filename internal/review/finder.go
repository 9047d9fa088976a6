package review

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// A Finder looks for the provisions a question asks about in a few
// contracts, with a reviewer's detectors: the provision check of an offline
// answer and the provision passages search puts first
// (search.ProvisionFinder). A question that matches no playbook provision
// clearly (Reviewer.AskedProvisions) costs one cosine over the question's
// words and nothing else. Safe for concurrent use.
type Finder struct {
	pb   *playbook.Playbook
	all  *Reviewer // the whole playbook, zero-shot: which provisions a question asks about
	load func(ctx context.Context, id string) (detect.Doc, error)
	// detFor returns the detectors a reviewer of some of pb's provisions uses.
	detFor func(sub *playbook.Playbook) (*detect.Detectors, error)
	// matcher, when set, decides which provisions a question asks about
	// instead of all (SetMatcher).
	matcher func(question string) []string

	mu   sync.Mutex
	subs map[string]*Reviewer // by the asked provisions' names
	prep []preparedEntry      // the contracts prepared last, most recent last
	keep int                  // how many prepared contracts to keep (0: finderCache)
	// checked holds the cells of contracts checked for a set of provisions,
	// so a question about provisions a contract was checked for already
	// costs a comparison, not a review (see check).
	checked *checkCache
}

// KeepPrepared sets how many prepared contracts f keeps (default 16): a
// caller asking several questions of the same many contracts (an
// evaluation) keeps them all, at some memory per contract.
func (f *Finder) KeepPrepared(n int) {
	f.mu.Lock()
	f.keep = n
	f.mu.Unlock()
}

type preparedEntry struct {
	id   string
	doc  *document.Document // the text it was prepared from
	prep *detect.Prepared
}

// finderCache is how many prepared contracts a Finder keeps: questions come
// in runs about the same few contracts.
const finderCache = 16

// NewFinder returns a Finder over pb's provisions with det's detectors
// (det nil: every provision zero-shot). load reads a contract by id; a
// contract is prepared again only when load returns another text than last
// time (a loader that caches documents makes repeated questions cheap).
func NewFinder(pb *playbook.Playbook, det *detect.Detectors, load func(ctx context.Context, id string) (detect.Doc, error)) (*Finder, error) {
	var head *detect.Detectors
	if det != nil {
		h := *det
		h.Models = nil
		head = &h
	}
	return newFinder(pb, head, func(*playbook.Playbook) (*detect.Detectors, error) { return det, nil }, load)
}

// NewBuiltinFinder is NewFinder over the built-in playbook and detectors,
// decoding a provision's trained model only when a question first asks
// about it: cheap enough for every one-shot search.
func NewBuiltinFinder(load func(ctx context.Context, id string) (detect.Doc, error)) (*Finder, error) {
	lazy, err := builtinLazy()
	if err != nil {
		return nil, fmt.Errorf("review: built-in detectors: %w", err)
	}
	all, err := builtinAsked()
	if err != nil {
		return nil, err
	}
	return &Finder{pb: builtinPlaybook(), all: all, load: load, detFor: lazy.forPlaybook, subs: map[string]*Reviewer{}}, nil
}

// builtinAsked is the built-in playbook's reviewer for matching questions
// to provisions, built once per process.
var builtinAsked = sync.OnceValues(func() (*Reviewer, error) {
	lazy, err := builtinLazy()
	if err != nil {
		return nil, fmt.Errorf("review: built-in detectors: %w", err)
	}
	return NewReviewer(builtinPlaybook(), &lazy.head)
})

// newFinder builds a Finder; head holds the calibration and IDF the
// question matching uses (its models are not needed).
func newFinder(pb *playbook.Playbook, head *detect.Detectors, detFor func(*playbook.Playbook) (*detect.Detectors, error), load func(ctx context.Context, id string) (detect.Doc, error)) (*Finder, error) {
	// Which provision a question asks about depends only on the zero-shot
	// profiles and the IDF, not on the trained models.
	all, err := NewReviewer(pb, head)
	if err != nil {
		return nil, err
	}
	return &Finder{pb: pb, all: all, load: load, detFor: detFor, subs: map[string]*Reviewer{}}, nil
}

// BuiltinProvisions is the provision finder searches use by default: the
// built-in playbook and detectors, set up on the first search that asks
// about a provision (a search that asks about none pays nothing). It also
// has Finder's Check.
func BuiltinProvisions(load func(ctx context.Context, id string) (detect.Doc, error)) search.ProvisionFinder {
	return &lazyFinder{load: load}
}

type lazyFinder struct {
	load func(ctx context.Context, id string) (detect.Doc, error)
	once sync.Once
	f    *Finder
	err  error
}

func (l *lazyFinder) finder() (*Finder, error) {
	l.once.Do(func() { l.f, l.err = NewBuiltinFinder(l.load) })
	return l.f, l.err
}

func (l *lazyFinder) FindProvisions(ctx context.Context, req search.ProvisionRequest) ([]search.Hit, []search.Absence, error) {
	f, err := l.finder()
	if err != nil {
		return nil, nil, err
	}
	return f.FindProvisions(ctx, req)
}

// MatchProvisions is Finder.MatchProvisions (search.ProvisionExplainer).
func (l *lazyFinder) MatchProvisions(ctx context.Context, question string) []search.ProvisionMatch {
	f, err := l.finder()
	if err != nil {
		return nil
	}
	return f.MatchProvisions(ctx, question)
}

// Check is Finder.Check: a caller that both searches and checks (the
// evidence report) prepares each contract once.
func (l *lazyFinder) Check(ctx context.Context, question string, docs []string) ([]Cell, error) {
	f, err := l.finder()
	if err != nil {
		return nil, err
	}
	return f.Check(ctx, question, docs)
}

// DealRoom is Finder.DealRoom on the built-in finder.
func (l *lazyFinder) DealRoom(ctx context.Context, question string, docs []DealRoomDoc, opt DealRoomOptions) (*DealRoom, error) {
	f, err := l.finder()
	if err != nil {
		return nil, err
	}
	return f.DealRoom(ctx, question, docs, opt)
}

// StoreLoader reads a collection's contracts for a Finder, keeping the
// last few it read (it never sees later changes to a contract it keeps: use
// one per command, request or loaded index).
func StoreLoader(st *store.Store, collection string) func(ctx context.Context, id string) (detect.Doc, error) {
	var mu sync.Mutex
	var kept []detect.Doc // most recent last
	return func(ctx context.Context, id string) (detect.Doc, error) {
		mu.Lock()
		if k := slices.IndexFunc(kept, func(d detect.Doc) bool { return d.ID == id }); k >= 0 {
			d := kept[k]
			kept = append(slices.Delete(kept, k, k+1), d)
			mu.Unlock()
			return d, nil
		}
		mu.Unlock()
		// read without the lock: a deal-room question reads contracts on
		// every core at once
		rec, err := st.Document(ctx, collection, id)
		if err != nil {
			return detect.Doc{}, err
		}
		d := detect.Doc{ID: id, Name: rec.Doc.Name, Doc: rec.Doc, Tree: docread.Tree(rec), Stored: docread.StoredReview(ctx, st, collection, id)}
		mu.Lock()
		defer mu.Unlock()
		if k := slices.IndexFunc(kept, func(d detect.Doc) bool { return d.ID == id }); k >= 0 {
			// read meanwhile by another caller: keep the one kept, so
			// the Finder's prepared contract (by document) stays valid
			d := kept[k]
			kept = append(slices.Delete(kept, k, k+1), d)
			return d, nil
		}
		kept = append(kept, d)
		if len(kept) > finderCache {
			kept = slices.Delete(kept, 0, len(kept)-finderCache)
		}
		return d, nil
	}
}

// Asked returns the provisions question clearly asks about (none when it
// matches no provision clearly).
func (f *Finder) Asked(question string) []string { return f.all.AskedProvisions(question) }

// MatchProvisions implements search.ProvisionExplainer: the three
// provisions whose profiles question is closest to, with their scores, and
// which of them it was taken to ask about.
func (f *Finder) MatchProvisions(ctx context.Context, question string) []search.ProvisionMatch {
	asked := f.asked(question)
	var out []search.ProvisionMatch
	for i, m := range f.all.MatchQuestion(question) {
		if i == 3 && !slices.Contains(asked, m.Provision) {
			break
		}
		out = append(out, search.ProvisionMatch{Provision: m.Provision, Score: m.Score, Lead: m.Margin, Asked: slices.Contains(asked, m.Provision)})
	}
	return out
}

// SetMatcher replaces how f decides which provisions a question asks about
// (by default Asked: the cosine with every provision's zero-shot profile).
// The evaluation uses it to hold a provision's own example questions out of
// that provision's profile when measuring questions about it
// (MatcherWithout). Call it before f is used.
func (f *Finder) SetMatcher(asked func(question string) []string) {
	f.matcher = asked
}

// asked returns the provisions question asks about, as f decides it.
func (f *Finder) asked(question string) []string {
	if f.matcher != nil {
		return f.matcher(question)
	}
	return f.Asked(question)
}

// MatcherWithout returns a Reviewer for matching questions to pb's
// provisions (AskedProvisions) whose profile of the provision named
// without leaves out that provision's example questions: a question written
// from the same wording as the playbook's questions is then matched as a
// question nobody anticipated would be. det supplies the IDF and calibration
// (its trained models are not used).
func MatcherWithout(pb *playbook.Playbook, det *detect.Detectors, without string) (*Reviewer, error) {
	held := *pb
	held.Provisions = slices.Clone(pb.Provisions)
	for i := range held.Provisions {
		if strings.EqualFold(held.Provisions[i].Name, without) {
			held.Provisions[i].Questions = nil
		}
	}
	var head *detect.Detectors
	if det != nil {
		h := *det
		h.Models = nil
		head = &h
	}
	return NewReviewer(&held, head)
}

// Check reviews each of docs for the provisions question asks about: one
// cell per document and provision, in the order of docs. It returns nothing
// when the question asks about no provision clearly.
func (f *Finder) Check(ctx context.Context, question string, docs []string) ([]Cell, error) {
	checked, err := f.check(ctx, f.asked(question), docs)
	var out []Cell
	for _, c := range checked {
		out = append(out, c.cell)
	}
	return out, err
}

type checkedCell struct {
	cell Cell
	// spread is how many of the contract's passages the detector gives at
	// least half the best passage's probability.
	spread int
	// passages is how many passages of the contract the detector rated.
	passages int
	// said is, for a cell found zero-shot, how many of the contract's
	// passages hold one of the provision's defining keywords.
	said int
	// For a cell found with extracts, what FindProvisions puts first: the
	// best extract's clause widened to minHitChars (hit), and the other
	// extracts widened, those not overlapping it (more).
	hit  search.Hit
	more []search.Hit
}

// hits fills cc's hit and more from the contract's prepared passages.
func (cc *checkedCell) hits(prep *detect.Prepared) {
	c := &cc.cell
	if !c.Found || len(c.Extracts) == 0 {
		return
	}
	sp, node := clauseOf(prep, c.Extracts)
	sp = widen(prep, sp, minHitChars)
	cc.hit = search.Hit{DocID: c.DocID, Span: sp, Score: c.Confidence, Node: node, View: index.ViewProvision, Provision: c.Provision}
	for _, e := range c.Extracts[1:] {
		if w := widen(prep, e.Span, minHitChars); w.Intersect(sp).Len() == 0 {
			cc.more = append(cc.more, search.Hit{DocID: c.DocID, Span: w, Score: e.Score, Node: e.Node, View: index.ViewProvision, Provision: c.Provision})
		}
	}
}

// check reviews each of docs for the named provisions.
func (f *Finder) check(ctx context.Context, names []string, docs []string) ([]checkedCell, error) {
	if len(names) == 0 || len(docs) == 0 {
		return nil, nil
	}
	rev, err := f.reviewer(names)
	if err != nil {
		return nil, err
	}
	key := strings.Join(names, "\x00")
	var out []checkedCell
	for _, id := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := f.load(ctx, id)
		if err != nil {
			return nil, err
		}
		if d.Doc == nil {
			return nil, fmt.Errorf("review: document %q has no text", id)
		}
		if cells, ok := f.cache().get(key, id, d); ok {
			out = append(out, cells...)
			continue
		}
		prep, err := f.preparedDoc(id, d)
		if err != nil {
			return nil, err
		}
		scores := rev.sc.Scores(prep)
		var cells []checkedCell
		for i := range rev.pb.Provisions {
			cc := checkedCell{cell: rev.cell(prep, i, scores[i]), passages: len(scores[i])}
			best := slices.Max(append([]float64{0}, scores[i]...))
			for _, v := range scores[i] {
				if v >= best/2 {
					cc.spread++
				}
			}
			cc.hits(prep)
			if cc.cell.Found && cc.cell.Method == "zero-shot" {
				cc.said = prep.KeywordPassages(&rev.pb.Provisions[i], definingBoost)
			}
			cells = append(cells, cc)
		}
		f.cache().put(key, id, d, cells)
		out = append(out, cells...)
	}
	return out, nil
}

func (f *Finder) cache() *checkCache {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.checked == nil {
		f.checked = newCheckCache(checkCacheSize)
	}
	return f.checked
}

// FindProvisions implements search.ProvisionFinder: FindNamed with the
// provisions req.Question asks about.
func (f *Finder) FindProvisions(ctx context.Context, req search.ProvisionRequest) ([]search.Hit, []search.Absence, error) {
	return f.FindNamed(ctx, f.asked(req.Question), req)
}

// FindNamed looks for the named provisions in req.Docs: for every cell of
// Check that was found, its best passage (or the clause its two best share,
// see clauseOf), most confident first; then the cells' other passages; and
// the cells not found. A provision that pervades a contract (pervades) puts
// no passage of it first, unless req.NoSpread.
func (f *Finder) FindNamed(ctx context.Context, names []string, req search.ProvisionRequest) ([]search.Hit, []search.Absence, error) {
	cells, err := f.check(ctx, names, req.Docs)
	if err != nil {
		return nil, nil, err
	}
	var absent []search.Absence
	// Each cell's best passage (or clause) first, most confident first;
	// then the cell's other passages (a provision often runs over several
	// clauses: a term and its renewal), best first.
	var hits, more []search.Hit
	for _, cc := range cells {
		c := cc.cell
		if !c.Found {
			absent = append(absent, search.Absence{DocID: c.DocID, Provision: c.Provision, Confidence: c.Confidence})
			continue
		}
		if len(c.Extracts) == 0 || !req.NoSpread && cc.pervades() {
			continue
		}
		hits = append(hits, cc.hit)
		more = append(more, cc.more...)
	}
	slices.SortStableFunc(hits, search.ByScore)
	slices.SortStableFunc(more, search.ByScore)
	hits = append(hits, more...)
	return hits, absent, nil
}

// reviewer returns a reviewer of only the named provisions (scoring one
// provision costs a fraction of scoring the playbook).
func (f *Finder) reviewer(names []string) (*Reviewer, error) {
	key := strings.Join(names, "\x00")
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.subs[key]; ok {
		return r, nil
	}
	sub, err := f.pb.Select(names)
	if err != nil {
		return nil, err
	}
	det, err := f.detFor(sub)
	if err != nil {
		return nil, err
	}
	r, err := NewReviewer(sub, det)
	if err != nil {
		return nil, err
	}
	f.subs[key] = r
	return r, nil
}

// prepared reads and prepares a contract, or returns it from the cache.
func (f *Finder) prepared(ctx context.Context, id string) (*detect.Prepared, error) {
	d, err := f.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if d.Doc == nil {
		return nil, fmt.Errorf("review: document %q has no text", id)
	}
	return f.preparedDoc(id, d)
}

// preparedDoc prepares contract id, read already as d, or returns it from
// the cache.
func (f *Finder) preparedDoc(id string, d detect.Doc) (*detect.Prepared, error) {
	f.mu.Lock()
	for i, e := range f.prep {
		if e.id == id && e.doc == d.Doc {
			f.prep = append(append(f.prep[:i:i], f.prep[i+1:]...), e)
			f.mu.Unlock()
			return e.prep, nil
		}
	}
	f.mu.Unlock()
	p, err := detect.Prepare(d)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.prep = append(f.prep, preparedEntry{id: id, doc: d.Doc, prep: p})
	keep := finderCache
	if f.keep > 0 {
		keep = f.keep
	}
	if len(f.prep) > keep {
		f.prep = slices.Delete(f.prep, 0, len(f.prep)-keep)
	}
	f.mu.Unlock()
	return p, nil
}

// minHitChars is the shortest passage FindProvisions returns: a date line
// or a heading alone ("Term.") says too little to be quoted as the answer,
// as search never puts a span this short first either.
const minHitChars = 40

// widen returns sp, the span of one of p's passages, widened over the
// passages after it (else before it) until it holds at least n code
// points; passages more than a line apart are not joined.
func widen(p *detect.Prepared, sp document.Span, n int) document.Span {
	if sp.Len() >= n {
		return sp
	}
	k := slices.IndexFunc(p.Passages(), func(ps detect.Passage) bool { return ps.Span == sp })
	if k < 0 {
		return sp
	}
	const gap = 200 // code points between passages that may be joined
	for j := k + 1; j < len(p.Passages()) && sp.Len() < n; j++ {
		next := p.Passages()[j].Span
		if next.Start < sp.End || next.Start-sp.End > gap {
			break
		}
		sp.End = next.End
	}
	for j := k - 1; j >= 0 && sp.Len() < n; j-- {
		prev := p.Passages()[j].Span
		if prev.End > sp.Start || sp.Start-prev.End > gap {
			break
		}
		sp.Start = prev.Start
	}
	return sp
}

// maxClauseChars bounds the clause clauseOf returns in place of a passage.
const maxClauseChars = 1500

// clauseOf returns the span and node FindProvisions returns for a cell's
// extracts: the best passage, or — when the second best is a sibling in
// the same clause, as when a provision runs over a clause's items (the
// customer's and the provider's rights to terminate) — that whole clause,
// if it is no longer than maxClauseChars.
func clauseOf(p *detect.Prepared, ex []detect.Extract) (document.Span, int) {
	sp, node := ex[0].Span, ex[0].Node
	if len(ex) < 2 || node <= 0 || ex[1].Node <= 0 || node >= len(p.Tree().Nodes) || ex[1].Node >= len(p.Tree().Nodes) {
		return sp, node
	}
	par := p.Tree().Nodes[node].Parent
	if par <= 0 || p.Tree().Nodes[ex[1].Node].Parent != par || p.Tree().Nodes[par].Kind == clause.KindDocument {
		return sp, node
	}
	if full := detect.TrimSpan(p.Index(), p.Tree().Nodes[par].Span); full.Len() <= maxClauseChars && !full.Empty() {
		return full, par
	}
	return sp, node
}

// maxSpread is the most passages of a contract a detector may rate at
// least half as likely as its best for FindProvisions to put that best
// first. A provision that pervades a contract — confidentiality in a
// non-disclosure agreement — singles out no passage, and a question about
// one of its aspects ("must information be returned?") is better answered
// by its words. Measured with 2-fold cross-validated detectors (R@1,
// spread 3 / 5 / unbounded): ContractNLI 55.08 / 54.31 / 52.60, CUAD dev
// 55.01 / 55.17 / 55.17, new question types 67.16 / 68.04 / 67.72.
const maxSpread = 4

// maxSpreadShare is the same limit as a share of the contract's passages: in
// a short contract (a two-page NDA has a few dozen passages) four passages
// rated near the best are a tenth of it, and single out nothing either.
// Measured with the cv detectors (R@1, share unbounded / 0.1): ContractNLI
// 54.66 / 55.14, CUAD dev 55.07 / 55.10, new question types 68.23 / 68.48
// (R@8 90.26 / 90.01), paraphrased 42.12 / 42.11 (docs/EVALUATION.md).
const maxSpreadShare = 0.1

// pervades reports whether a provision whose detector rates spread of the
// contract's passages at least half as likely as its best pervades it (one
// such passage, the best, singles itself out however short the contract).
func pervades(spread, passages int) bool {
	return spread > maxSpread || spread > 1 && float64(spread) >= maxSpreadShare*float64(passages)
}

// pervades reports whether cc's provision pervades its contract: its
// detector rates many passages near the best (pervades), or, for a
// provision nobody labelled, more than maxSpread passages say it in the
// playbook's defining words. A zero-shot scorer weighs those words most, so
// where they are everywhere — personal information in a privacy policy —
// its best passage is one of many that merely speak of the subject, and a
// question about one aspect of it ("is my data kept secure?") is better
// answered by its own words.
func (cc *checkedCell) pervades() bool {
	return pervades(cc.spread, cc.passages) || cc.said > maxSpread
}
