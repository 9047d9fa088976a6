package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// indexes caches each collection's search index, keyed by the collection's
// store generation: an index is reloaded only when a document was put or
// deleted since it was loaded (by this server or another process), and one
// load serves every request waiting for it.
//
// Requests never wait for a reload when an index is already loaded: they
// keep using the previous one while one background load runs. Changes made
// through this server are visible at once anyway, because an ingest job and
// a document deletion refresh the index before they report back (refresh);
// changes made by another process (the CLI) show within one index load.
type indexes struct {
	st  *store.Store
	log func(msg string, args ...any)
	mu  sync.Mutex
	m   map[string]*indexSlot

	// shard, when set, makes every collection's index sharded (shard.go).
	shard       *ShardConfig
	shardClient *http.Client

	// Background maintenance of the index directories (merges, word
	// associations): stopped and waited for by close.
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup
}

type indexSlot struct {
	load    sync.Mutex // one load at a time
	loading atomic.Bool
	cur     atomic.Pointer[loadedIndex]

	maintaining atomic.Bool // a maintenance goroutine runs
	again       atomic.Bool // the index changed while it ran
}

// loadedIndex is one collection's index at one generation, with the texts
// and trees of the documents its hits were resolved against.
type loadedIndex struct {
	coll string
	gen  uint64
	ix   *search.Index
	vers map[string]string // document id → version (sha256 and ingest time)

	mu    sync.RWMutex
	docs  map[string]*cachedDoc
	bytes int64

	// provisions finds the passage of a provision a question asks about,
	// reading documents through this index's cache (set up on first use).
	provOnce   sync.Once
	provisions search.ProvisionFinder
}

// provisionFinder returns the index's provision finder (the built-in
// playbook's detectors over the documents the index was built from).
func (li *loadedIndex) provisionFinder(st *store.Store) search.ProvisionFinder {
	li.provOnce.Do(func() {
		li.provisions = review.BuiltinProvisions(func(ctx context.Context, id string) (review.Doc, error) {
			d, err := li.doc(ctx, st, id)
			if err != nil {
				return review.Doc{}, err
			}
			return review.Doc{ID: id, Name: d.doc.Name, Doc: d.doc, Tree: d.tree}, nil
		})
	})
	return li.provisions
}

type cachedDoc struct {
	ver  string
	doc  *document.Document
	tree *clause.Tree

	graphOnce sync.Once
	graph     *graph.Doc // read on first use (docGraph)
	graphErr  error
}

// maxCachedText bounds the document text a collection's cache holds; past
// it documents are read from the store per request.
const maxCachedText = 256 << 20

func newIndexes(st *store.Store, log func(string, ...any)) *indexes {
	ctx, cancel := context.WithCancel(context.Background())
	return &indexes{st: st, log: log, m: map[string]*indexSlot{}, ctx: ctx, cancel: cancel}
}

// loadIndex loads a collection's index, as a shard of it when the server
// is one.
func (x *indexes) loadIndex(c string) (*search.Index, ingest.LoadReport, error) {
	if x.shard == nil {
		return ingest.Load(x.ctx, x.st, c)
	}
	ix, rep, err := ingest.LoadWith(x.ctx, x.st, c, x.shard.loadOptions())
	if err != nil {
		return nil, rep, err
	}
	ix.SetSharding(x.shard.sharding(c, x.shardClient))
	return ix, rep, nil
}

// close stops background maintenance and waits for it (a merge in progress
// is abandoned: its temporary file is removed, the index stays as it was).
func (x *indexes) close() {
	x.cancel()
	x.bg.Wait()
}

// maintain merges a collection's index segments as the merge policy asks
// and learns its word associations, in the background, after a load
// changed the index; then the collection's loaded index is swapped for
// the maintained one (same answers: fewer segments to visit, associations
// looked up instead of learned per question). One goroutine per collection
// at a time; a change while it runs makes it go round again.
func (x *indexes) maintain(c string, sl *indexSlot) {
	if x.shard != nil {
		// A shard holds some segments as stats files only: it can neither
		// merge nor learn. The process that ingests (or "pakton docs
		// optimize") maintains the published index.
		return
	}
	if !sl.maintaining.CompareAndSwap(false, true) {
		sl.again.Store(true)
		return
	}
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		defer sl.maintaining.Store(false)
		for {
			sl.again.Store(false)
			rep, err := ingest.Maintain(x.ctx, x.st, c, ingest.MaintainOptions{Learn: true})
			if err != nil {
				if x.ctx.Err() == nil && !errors.Is(err, store.ErrNotFound) {
					x.log("server: maintaining a collection's index failed", "collection", c, "err", err)
				}
				return
			}
			if rep.Merges > 0 || rep.Learned {
				x.reopen(c, sl)
			}
			if !sl.again.Load() || x.ctx.Err() != nil {
				return
			}
		}
	}()
}

// reopen swaps a collection's loaded index for the index directory's
// current commit when the store has not changed since (maintenance changes
// the index, never what it answers), keeping the cached documents.
func (x *indexes) reopen(c string, sl *indexSlot) {
	sl.load.Lock()
	defer sl.load.Unlock()
	old := sl.cur.Load()
	if old == nil {
		return
	}
	ix, rep, err := x.loadIndex(c)
	if err != nil || !rep.Opened {
		return // the store moved on: the next request reloads
	}
	old.mu.RLock()
	li := &loadedIndex{coll: c, gen: old.gen, ix: ix, vers: old.vers, docs: make(map[string]*cachedDoc, len(old.docs)), bytes: old.bytes}
	for id, d := range old.docs {
		li.docs[id] = d
	}
	old.mu.RUnlock()
	sl.cur.Store(li)
}

// drop forgets a collection's index (it was deleted).
func (x *indexes) drop(c string) {
	x.mu.Lock()
	delete(x.m, c)
	x.mu.Unlock()
}

func (x *indexes) slot(c string) *indexSlot {
	x.mu.Lock()
	defer x.mu.Unlock()
	sl := x.m[c]
	if sl == nil {
		sl = &indexSlot{}
		x.m[c] = sl
	}
	return sl
}

// get returns the index of a collection: the current one, or while a newer
// one loads in the background the previous one. The first request for a
// collection waits for its load.
func (x *indexes) get(ctx context.Context, c string) (*loadedIndex, error) {
	gen, err := x.st.Generation(ctx, c)
	if err != nil {
		return nil, err
	}
	sl := x.slot(c)
	cur := sl.cur.Load()
	if cur != nil && cur.gen == gen {
		return cur, nil
	}
	if cur == nil {
		return x.load(ctx, c, sl)
	}
	if sl.loading.CompareAndSwap(false, true) {
		// The reload outlives the request that noticed the new generation.
		bg := context.WithoutCancel(ctx)
		go func() {
			defer sl.loading.Store(false)
			if _, err := x.load(bg, c, sl); err != nil && !errors.Is(err, store.ErrNotFound) {
				x.log("server: reloading a collection's index failed", "collection", c, "err", err)
			}
		}()
	}
	return cur, nil
}

// refresh brings a loaded index of a collection up to date before
// returning, so a client told that its upload or deletion is done sees it
// in the next search. A collection never searched is left to load lazily.
func (x *indexes) refresh(ctx context.Context, c string) {
	x.mu.Lock()
	sl := x.m[c]
	x.mu.Unlock()
	if sl == nil || sl.cur.Load() == nil {
		return
	}
	if _, err := x.load(ctx, c, sl); err != nil && !errors.Is(err, store.ErrNotFound) {
		x.log("server: refreshing a collection's index failed", "collection", c, "err", err)
	}
}

// load loads the index at the collection's current generation unless the
// slot already holds it, reusing the cached documents that did not change.
func (x *indexes) load(ctx context.Context, c string, sl *indexSlot) (*loadedIndex, error) {
	sl.load.Lock()
	defer sl.load.Unlock()
	// The generation is read before the documents, so an index can only be
	// newer than its label, which makes the next request reload: never a
	// stale index taken for a current one.
	gen, err := x.st.Generation(ctx, c)
	if err != nil {
		return nil, err
	}
	old := sl.cur.Load()
	if old != nil && old.gen == gen {
		return old, nil
	}
	infos, err := x.st.List(ctx, c)
	if err != nil {
		return nil, err
	}
	ix, rep, err := x.loadIndex(c)
	if err != nil {
		return nil, err
	}
	if !rep.Opened {
		x.maintain(c, sl)
	}
	li := &loadedIndex{coll: c, gen: gen, ix: ix, vers: make(map[string]string, len(infos)), docs: map[string]*cachedDoc{}}
	for _, in := range infos {
		li.vers[in.ID] = in.Source.SHA256 + "@" + in.Source.IngestedAt.String()
	}
	if old != nil { // keep the documents that did not change
		old.mu.RLock()
		for id, d := range old.docs {
			if li.vers[id] == d.ver {
				li.docs[id] = d
				li.bytes += int64(len(d.doc.Text))
			}
		}
		old.mu.RUnlock()
	}
	sl.cur.Store(li)
	return li, nil
}

// doc returns a document's text and tree, from the cache when it holds the
// version the index was built from.
func (li *loadedIndex) doc(ctx context.Context, st *store.Store, id string) (*cachedDoc, error) {
	li.mu.RLock()
	d := li.docs[id]
	li.mu.RUnlock()
	if d != nil {
		return d, nil
	}
	rec, err := st.Document(ctx, li.coll, id)
	if err != nil {
		return nil, err
	}
	rec.Artifacts = nil
	ver := rec.Source.SHA256 + "@" + rec.Source.IngestedAt.String()
	if ver != li.vers[id] {
		// Replaced since this index was loaded: its spans would not match.
		return nil, fmt.Errorf("document %s changed since the index was loaded: %w", id, store.ErrNotFound)
	}
	d = &cachedDoc{ver: ver, doc: rec.Doc, tree: ingest.Tree(rec)}
	li.mu.Lock()
	// Concurrent requests may have read the same document meanwhile: keep
	// the first copy (and count its bytes once), or the cache fills with
	// duplicates and then stops caching anything.
	if have := li.docs[id]; have != nil {
		d = have
	} else if li.bytes+int64(len(d.doc.Text)) <= maxCachedText {
		li.docs[id] = d
		li.bytes += int64(len(d.doc.Text))
	}
	li.mu.Unlock()
	return d, nil
}

// searchRequest is the body of POST …/search.
type searchRequest struct {
	Query string   `json:"query"`
	K     int      `json:"k"`
	Docs  []string `json:"docs"` // document ids or names; empty: whole collection
	// NoRoute searches every document even when the query seems to name a
	// contract; the response's routed_to says when routing narrowed it.
	NoRoute bool `json:"no_route"`
	// NoProvisions ranks by the question's words only, without putting
	// first the passage the review detectors find for a question about a
	// playbook provision.
	NoProvisions bool `json:"no_provisions"`
}

// hitJSON is a hit of POST …/search: the same shape as pakton search
// --json's.
type hitJSON = ingest.Passage

type routedJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type searchResponse struct {
	Query    string       `json:"query"`
	RoutedTo []routedJSON `json:"routed_to"`
	// Route says which documents were searched and why (search.Route):
	// the decision, the names matched, an ambiguous name's candidates.
	Route *search.Route `json:"route,omitempty"`
	Hits  []hitJSON     `json:"hits"`
	// NotFound: provisions the question asks about that the review
	// detectors looked for and did not find (search.Result.NotFound).
	NotFound []notFoundJSON `json:"not_found,omitempty"`
}

type notFoundJSON struct {
	DocID      string  `json:"doc_id"`
	DocName    string  `json:"doc_name"`
	Provision  string  `json:"provision"`
	Confidence float64 `json:"confidence"`
}

// maxK bounds the hits one search returns.
const maxK = 100

// rerankDepth is how many hits a configured reranker reorders.
const rerankDepth = 30

func (s *Server) search(w http.ResponseWriter, r *http.Request, _ auth.Key) {
	c := r.PathValue("c")
	var req searchRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	if req.Query == "" {
		fail(w, http.StatusBadRequest, "empty query")
		return
	}
	if n := utf8.RuneCountInString(req.Query); n > search.MaxQueryChars {
		fail(w, http.StatusBadRequest, "query: %d characters; the limit is %d", n, search.MaxQueryChars)
		return
	}
	if req.K == 0 {
		req.K = 10
	}
	if req.K < 0 || req.K > maxK {
		fail(w, http.StatusBadRequest, "k %d: want 1 to %d", req.K, maxK)
		return
	}
	ids, ok := s.resolveDocs(w, r, c, req.Docs)
	if !ok {
		return
	}
	li, err := s.indexes.get(r.Context(), c)
	if err != nil {
		s.storeErr(w, r, "load index", err)
		return
	}
	if li.ix.Docs() == 0 {
		// The same answer as ask (and as the CLI and MCP): not "no hits".
		fail(w, http.StatusConflict, "collection %q holds no documents yet", c)
		return
	}
	res, err := s.runSearch(r.Context(), li, search.Query{Text: req.Query, K: req.K, Docs: ids, NoRoute: req.NoRoute, NoProvisions: req.NoProvisions})
	if err != nil {
		s.log.Warn("search: model server failed", "err", err)
		fail(w, http.StatusBadGateway, "search failed: %v", err)
		return
	}
	out := searchResponse{Query: req.Query, RoutedTo: []routedJSON{}, Hits: []hitJSON{}, Route: res.Route}
	for _, id := range res.RoutedTo {
		out.RoutedTo = append(out.RoutedTo, routedJSON{id, li.ix.DocName(id)})
	}
	for _, a := range res.NotFound {
		out.NotFound = append(out.NotFound, notFoundJSON{a.DocID, li.ix.DocName(a.DocID), a.Provision, a.Confidence})
	}
	for _, h := range res.Hits {
		d, err := li.doc(r.Context(), s.st, h.DocID)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted since the index was loaded
		}
		if err != nil {
			s.internal(w, "read document", err)
			return
		}
		var g *graph.Doc
		if t := d.tree; t != nil && len(t.Nodes) > 0 {
			if g, err = s.docGraph(c, d); err != nil {
				s.log.Warn("search: no graph for supporting evidence", "collection", c, "doc", h.DocID, "err", err)
			}
		}
		h.Rank = len(out.Hits) + 1
		hj := ingest.NewPassage(h, d.doc, d.tree, g)
		out.Hits = append(out.Hits, hj)
	}
	writeJSON(w, http.StatusOK, out)
}

// resolveDocs turns the document ids or names of a request into ids,
// answering 404 itself for one the collection does not hold.
func (s *Server) resolveDocs(w http.ResponseWriter, r *http.Request, c string, refs []string) ([]string, bool) {
	var ids []string
	for _, ref := range docRefs(refs) {
		info, err := ingest.FindDoc(r.Context(), s.st, c, ref)
		if err != nil {
			if _, gerr := s.st.Generation(r.Context(), c); gerr != nil {
				collectionNotFound(w, c)
			} else if errors.Is(err, ingest.ErrAmbiguous) {
				fail(w, http.StatusBadRequest, "%s", err.Error())
			} else {
				fail(w, http.StatusNotFound, "document %q not found", ref)
			}
			return nil, false
		}
		ids = append(ids, info.ID)
	}
	return ids, true
}

// runSearch runs q, fusing dense retrieval in when the index has vectors and
// an embedder is configured, and reranking when a reranker is.
func (s *Server) runSearch(ctx context.Context, li *loadedIndex, q search.Query) (search.Result, error) {
	text := func(h search.Hit) (string, error) {
		d, err := li.doc(ctx, s.st, h.DocID)
		if err != nil {
			return "", err
		}
		return d.doc.Masked(h.Span), nil
	}
	return li.ix.SearchWith(ctx, s.searchModels(li), q, text)
}

// searchModels are the embedding and rerank servers searches of li use,
// and the review detectors (search.Query.NoProvisions switches them off).
func (s *Server) searchModels(li *loadedIndex) search.Models {
	return search.Models{Embedder: s.cfg.Embedder, Reranker: s.cfg.Reranker, RerankDepth: rerankDepth, Provisions: li.provisionFinder(s.st)}
}
