// Package collection is a collection ready to answer: its search index at
// the store's current generation, the documents its hits resolve against,
// the provision finder over them and the model wiring that searches and
// asks use. One Service serves a process: the HTTP API, the MCP server it
// mounts at /mcp, the MCP stdio server and the CLI all take their
// collections from it, so a process keeps one index per collection however
// many faces it has.
//
// Why an index is never stale when it matters, and never reloaded for
// nothing: a Snapshot is labelled with the collection's generation, read
// before the documents it is built from, so a snapshot can only be newer
// than its label and a changed generation always means a reload. A request
// that finds the generation moved keeps answering from the previous snapshot
// while one background load runs (Get); a change made through this process
// (an upload, a deletion) calls Refresh before it reports done, so its
// client sees it in the next search. The first request for a collection
// waits for its load, and one load serves every request waiting for it.
//
// A Snapshot's documents are cached with the version the index was built
// from: a document replaced since is an error wrapping store.ErrNotFound
// (its spans would not match), and the cache holds at most MaxCachedText
// bytes of text; past that documents are read per request.
package collection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/learnq"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

// Models are the optional model servers of a process: embedding and rerank
// for searches, chat models and external tools for the agents. The zero
// value is a process without models (lexical search, evidence reports).
type Models struct {
	// Search holds the embedding and rerank servers (its Provisions is
	// ignored: each snapshot brings its own provision finder).
	Search search.Models
	// Agents, when set, answer questions; nil means evidence reports.
	Agents *agent.Models
	// External are the tools a Researcher may call besides the contracts.
	External []tool.Tool
}

// MaxCachedText bounds the document text one snapshot's cache holds.
const MaxCachedText = 256 << 20

// Service serves the collections of one store. Safe for concurrent use;
// Close stops its background work.
type Service struct {
	st            *store.Store
	models        Models
	log           *slog.Logger
	noMaintenance bool
	wait          bool // WaitForReload
	shard         *ingest.Shard
	sharding      func(collection string) *search.Sharding

	mu sync.Mutex
	m  map[string]*slot

	// Background loads and maintenance of the index directories (merges,
	// word associations) run under ctx, which Close cancels before waiting
	// for them: a load shared by every request waiting for it is not
	// cancelled by one of them going away.
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup

	// gate, when set (SetMaintenanceGate), is held around each maintenance
	// pass.
	gate atomic.Pointer[func(ctx context.Context, collection string) (func(), error)]
}

// SetMaintenanceGate makes every background maintenance pass of a
// collection (merges, learning word associations: processor time) wait for
// acquire and release what it returns when done: a server shares its
// processor slots between its tenants' jobs and this work (jobs.Pool).
// Call it before the service is used.
func (s *Service) SetMaintenanceGate(acquire func(ctx context.Context, collection string) (release func(), err error)) {
	s.gate.Store(&acquire)
}

type slot struct {
	load    sync.Mutex // one load at a time
	loading atomic.Bool
	cur     atomic.Pointer[Snapshot]

	maintaining atomic.Bool // a maintenance goroutine runs
	again       atomic.Bool // the index changed while it ran
}

// Options configure a Service.
type Options struct {
	Models Models
	// Log receives the background work's warnings (nil: discarded).
	Log *slog.Logger
	// NoMaintenance leaves index directories as loads leave them, without
	// merging segments or learning associations in the background: for a
	// command that answers once and exits.
	NoMaintenance bool
	// WaitForReload makes a Get that finds the generation moved wait for
	// the new snapshot instead of answering from the previous one while it
	// loads: for a process serving one client (pakton mcp over stdio), whose
	// next answer must see a change another process just made. A server
	// with many clients keeps answering instead (and refreshes itself after
	// the changes it makes: Refresh).
	WaitForReload bool
	// Shard, with Sharding, makes every collection's index sharded: this
	// process holds whole the segments Shard says (ingest.LoadOptions.Shard)
	// and Sharding gives the servers that score the others
	// (search.Sharding). A shard does no maintenance.
	Shard    *ingest.Shard
	Sharding func(collection string) *search.Sharding
}

// New returns the Service of st.
func New(st *store.Store, opt Options) *Service {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{st: st, models: opt.Models, log: opt.Log, noMaintenance: opt.NoMaintenance || opt.Shard != nil, wait: opt.WaitForReload,
		shard: opt.Shard, sharding: opt.Sharding, m: map[string]*slot{}, ctx: ctx, cancel: cancel}
}

// Close stops background maintenance and waits for it (a merge in progress
// is abandoned: its temporary file is removed, the index stays as it was).
func (s *Service) Close() {
	s.cancel()
	s.bg.Wait()
}

// Store returns the store the service serves.
func (s *Service) Store() *store.Store { return s.st }

// Models returns the service's models.
func (s *Service) Models() Models { return s.models }

func (s *Service) slot(c string) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.m[c]
	if sl == nil {
		sl = &slot{}
		s.m[c] = sl
	}
	return sl
}

// Get returns a collection's current snapshot or, while a newer one loads
// in the background, the previous one (unless Options.WaitForReload). The
// first request for a collection waits for its load. A missing collection is an error wrapping
// store.ErrNotFound.
func (s *Service) Get(ctx context.Context, c string) (*Snapshot, error) {
	gen, err := s.st.Generation(ctx, c)
	if err != nil {
		return nil, err
	}
	sl := s.slot(c)
	cur := sl.cur.Load()
	if cur != nil && cur.Gen == gen {
		return cur, nil
	}
	if cur == nil || s.wait {
		return s.load(ctx, c, sl)
	}
	if sl.loading.CompareAndSwap(false, true) {
		// The reload outlives the request that noticed the new generation.
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			defer sl.loading.Store(false)
			if _, err := s.load(s.ctx, c, sl); err != nil && !errors.Is(err, store.ErrNotFound) && s.ctx.Err() == nil {
				s.log.Warn("collection: reloading an index failed", "collection", c, "err", err)
			}
		}()
	}
	return cur, nil
}

// Refresh brings a loaded collection up to date before returning, so a
// client told that its upload or deletion is done sees it in the next
// search. A collection never asked for is left to load when it is.
func (s *Service) Refresh(ctx context.Context, c string) {
	s.mu.Lock()
	sl := s.m[c]
	s.mu.Unlock()
	if sl == nil || sl.cur.Load() == nil {
		return
	}
	if _, err := s.load(ctx, c, sl); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.log.Warn("collection: refreshing an index failed", "collection", c, "err", err)
	}
}

// Drop forgets a collection (it was deleted).
func (s *Service) Drop(c string) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

// load loads the snapshot at the collection's current generation unless the
// slot already holds it, reusing the cached documents that did not change.
func (s *Service) load(ctx context.Context, c string, sl *slot) (*Snapshot, error) {
	sl.load.Lock()
	defer sl.load.Unlock()
	// The generation is read before the documents (see the package comment).
	gen, err := s.st.Generation(ctx, c)
	if err != nil {
		return nil, err
	}
	old := sl.cur.Load()
	if old != nil && old.Gen == gen {
		return old, nil
	}
	// A directory store names each version by the generation that stored
	// it, so a document read later is checked against gen alone
	// (Snapshot.Doc): nothing of the collection is listed, and opening a
	// collection of 46,800 documents does not decode 46,800 manifest
	// entries. A remote store's versions are listed here and compared.
	var vers map[string]string
	if s.st.IsRemote() {
		infos, err := s.st.List(ctx, c)
		if err != nil {
			return nil, err
		}
		vers = make(map[string]string, len(infos))
		for _, in := range infos {
			vers[in.ID] = version(in.Source)
		}
	}
	ix, rep, err := s.loadIndex(c)
	if err != nil {
		return nil, err
	}
	if !rep.Opened && !s.noMaintenance {
		s.maintain(c, sl)
	}
	sn := &Snapshot{Collection: c, Gen: gen, Index: ix, svc: s, vers: vers, docs: map[string]*Doc{}}
	if old != nil { // keep the documents that did not change
		keep := func(id string, d *Doc) bool { return vers[id] == d.ver }
		if vers == nil {
			// The documents stored since the old snapshot's generation, and
			// the live ones: no entry of an unchanged document is decoded.
			changed, live, err := s.st.Changes(ctx, c, old.Gen)
			if err != nil {
				return nil, err
			}
			replaced := make(map[string]bool, len(changed))
			for _, in := range changed {
				replaced[in.ID] = true
			}
			keep = func(id string, _ *Doc) bool { return live[id] && !replaced[id] }
		}
		old.mu.RLock()
		for id, d := range old.docs {
			if keep(id, d) {
				sn.docs[id] = d
				sn.bytes += int64(len(d.Doc.Text))
			}
		}
		old.mu.RUnlock()
	}
	sl.cur.Store(sn)
	return sn, nil
}

// maintain merges a collection's index segments as the merge policy asks
// and learns its word associations, in the background, after a load
// changed the index; then the collection's snapshot is swapped for one over
// the maintained index (same answers: fewer segments to visit, associations
// looked up instead of learned per question). One goroutine per collection
// at a time; a change while it runs makes it go round again.
func (s *Service) maintain(c string, sl *slot) {
	if !sl.maintaining.CompareAndSwap(false, true) {
		sl.again.Store(true)
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer sl.maintaining.Store(false)
		for {
			sl.again.Store(false)
			release := func() {}
			if g := s.gate.Load(); g != nil {
				r, err := (*g)(s.ctx, c)
				if err != nil {
					return
				}
				release = r
			}
			rep, err := ingest.Maintain(s.ctx, s.st, c, ingest.MaintainOptions{Learn: true})
			release()
			if err != nil {
				if s.ctx.Err() == nil && !errors.Is(err, store.ErrNotFound) {
					s.log.Warn("collection: maintaining an index failed", "collection", c, "err", err)
				}
				return
			}
			if rep.Merges > 0 || rep.Learned {
				s.reopen(c, sl)
			}
			if !sl.again.Load() || s.ctx.Err() != nil {
				return
			}
		}
	}()
}

// reopen swaps a collection's snapshot for one over the index directory's
// current commit when the store has not changed since (maintenance changes
// the index, never what it answers), keeping the cached documents.
func (s *Service) reopen(c string, sl *slot) {
	sl.load.Lock()
	defer sl.load.Unlock()
	old := sl.cur.Load()
	if old == nil {
		return
	}
	ix, rep, err := s.loadIndex(c)
	if err != nil || !rep.Opened {
		return // the store moved on: the next request reloads
	}
	old.mu.RLock()
	sn := &Snapshot{Collection: c, Gen: old.Gen, Index: ix, svc: s, vers: old.vers, docs: make(map[string]*Doc, len(old.docs)), bytes: old.bytes}
	for id, d := range old.docs {
		sn.docs[id] = d
	}
	old.mu.RUnlock()
	sl.cur.Store(sn)
}

// loadIndex loads a collection's index (as a shard of it when the service
// is one: Options.Shard).
func (s *Service) loadIndex(c string) (*search.Index, ingest.LoadReport, error) {
	ix, rep, err := ingest.LoadWith(s.ctx, s.st, c, ingest.LoadOptions{Shard: s.shard})
	if err == nil && s.sharding != nil {
		ix.SetSharding(s.sharding(c))
	}
	return ix, rep, err
}

// Reopen swaps a collection's snapshot for one over its index directory's
// current commit (a sharded collection's servers must have the same one
// open: another may have opened a newer since) and returns it.
func (s *Service) Reopen(ctx context.Context, c string) (*Snapshot, error) {
	sl := s.slot(c)
	if sl.cur.Load() == nil {
		return s.Get(ctx, c)
	}
	s.reopen(c, sl)
	return sl.cur.Load(), nil
}

func version(src store.Source) string { return src.SHA256 + "@" + src.IngestedAt.String() }

// Snapshot is one collection's index at one generation, with the documents
// its hits resolve against.
type Snapshot struct {
	Collection string
	Gen        uint64
	Index      *search.Index

	svc *Service
	// vers maps document id → the version the index was built from, for a
	// remote store; nil for a directory store, whose documents are read as
	// of Gen (store.DocumentAsOf).
	vers map[string]string

	mu    sync.RWMutex
	docs  map[string]*Doc
	bytes int64

	provOnce   sync.Once
	provisions search.ProvisionFinder
}

// Doc is a document of a snapshot: its text and clause tree, and its graph
// of defined terms and references, read on first use.
type Doc struct {
	Doc  *document.Document
	Tree *clause.Tree
	ver  string

	graphOnce sync.Once
	graph     *graph.Doc
	graphErr  error
}

// Doc returns a document's text and tree, from the cache when it holds the
// version the index was built from. A document deleted or replaced since is
// an error wrapping store.ErrNotFound.
func (sn *Snapshot) Doc(ctx context.Context, id string) (*Doc, error) {
	sn.mu.RLock()
	d := sn.docs[id]
	sn.mu.RUnlock()
	if d != nil {
		return d, nil
	}
	var rec *store.Record
	var err error
	if sn.vers == nil {
		// Stored at or before the snapshot's generation, or an error
		// wrapping store.ErrNotFound.
		rec, err = sn.svc.st.DocumentAsOf(ctx, sn.Collection, id, sn.Gen)
	} else {
		rec, err = sn.svc.st.Document(ctx, sn.Collection, id)
	}
	if err != nil {
		return nil, err
	}
	ver := version(rec.Source)
	if sn.vers != nil && ver != sn.vers[id] {
		return nil, fmt.Errorf("document %s changed since the index was loaded: %w", id, store.ErrNotFound)
	}
	d = &Doc{Doc: rec.Doc, Tree: docread.Tree(rec), ver: ver}
	sn.mu.Lock()
	// Concurrent requests may have read the same document meanwhile: keep
	// the first copy (and count its bytes once), or the cache fills with
	// duplicates and then stops caching anything.
	if have := sn.docs[id]; have != nil {
		d = have
	} else if sn.bytes+int64(len(d.Doc.Text)) <= MaxCachedText {
		sn.docs[id] = d
		sn.bytes += int64(len(d.Doc.Text))
	}
	sn.mu.Unlock()
	return d, nil
}

// Graph returns the document's graph, computed from its tree on first use
// when the store holds none.
func (sn *Snapshot) Graph(ctx context.Context, d *Doc) (*graph.Doc, error) {
	d.graphOnce.Do(func() {
		d.graph, _, d.graphErr = docread.DocGraph(context.WithoutCancel(ctx), sn.svc.st, sn.Collection, &store.Record{Doc: d.Doc, Tree: d.Tree})
	})
	return d.graph, d.graphErr
}

// Provisions returns the snapshot's provision finder: the built-in
// playbook's detectors over the snapshot's documents (set up on first use).
func (sn *Snapshot) Provisions() search.ProvisionFinder {
	sn.provOnce.Do(func() {
		sn.provisions = review.BuiltinProvisions(func(ctx context.Context, id string) (detect.Doc, error) {
			d, err := sn.Doc(ctx, id)
			if err != nil {
				return detect.Doc{}, err
			}
			return detect.Doc{ID: id, Name: d.Doc.Name, Doc: d.Doc, Tree: d.Tree, Stored: docread.StoredReview(ctx, sn.svc.st, sn.Collection, id)}, nil
		})
	})
	return sn.provisions
}

// SearchModels are the models a search of the snapshot uses: the service's
// embedding and rerank servers, the snapshot's provision finder and the
// words learnt from labelled questions (learnq.Builtin).
func (sn *Snapshot) SearchModels() search.Models {
	m := sn.svc.models.Search
	m.Provisions = sn.Provisions()
	if m.Learnt == nil {
		m.Learnt = learnq.Builtin()
	}
	return m
}

// Corpus is the snapshot as the contract tools and the agents see it.
func (sn *Snapshot) Corpus() *tool.Corpus {
	return &tool.Corpus{Store: sn.svc.st, Collection: sn.Collection, Index: sn.Index, Models: sn.SearchModels()}
}

// Library is the snapshot as the agents read it.
func (sn *Snapshot) Library() *agent.Library { return agent.NewLibrary(sn.Corpus()) }

// Search runs q, fusing dense retrieval in when the index has vectors and an
// embedder is configured, reranking when a reranker is, and putting the
// review detectors' passage first for a question about a playbook provision
// (q.NoProvisions switches that off).
func (sn *Snapshot) Search(ctx context.Context, q search.Query) (search.Result, error) {
	text := func(h search.Hit) (string, error) {
		d, err := sn.Doc(ctx, h.DocID)
		if err != nil {
			return "", err
		}
		return d.Doc.Masked(h.Span), nil
	}
	return sn.Index.SearchWith(ctx, sn.SearchModels(), q, text)
}
