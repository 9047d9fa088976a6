package server

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// A server opens its collections at start, in the background, when
// Config.OpenAtStart is set (pakton serve): for each collection, the
// default one first, it reads the list of documents, loads the search index
// (with how the index shows each document, which the document list names)
// and computes the families (usecase.CollectionFamiliesWith: from the
// caches when they are current, else reading only the documents' signatures
// it lacks). What would make a user's first page, first family list or
// first search wait is then done, or under way, before they ask; a request
// that comes first still waits only for the piece it needs (one index load
// and one families computation serve every request waiting for them).
// GET /collections shows each collection's opening while it runs
// ("opening": its stage and progress), so the web app can say what it waits
// for.

// Opening stages, in order.
const (
	stageDocuments = "documents" // reading the list of documents
	stageIndex     = "index"     // loading the search index
	stageFamilies  = "families"  // reading the documents' family signatures and grouping them
)

// opening is one collection's opening at start, as GET /collections shows
// it while it runs.
type opening struct {
	Stage string `json:"stage"`
	// Done and Total count the stage's documents where it counts them
	// (families: signatures read).
	Done  int `json:"done,omitempty"`
	Total int `json:"total,omitempty"`
}

// openings tracks the collections being opened.
type openings struct {
	mu sync.Mutex
	m  map[string]opening // collections being opened; absent when done or never opened
	wg sync.WaitGroup
}

func (o *openings) set(c string, op opening) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]opening{}
	}
	o.m[c] = op
}

func (o *openings) done(c string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, c)
}

// of returns a collection's opening while it runs, or nil.
func (o *openings) of(c string) *opening {
	o.mu.Lock()
	defer o.mu.Unlock()
	if op, ok := o.m[c]; ok {
		return &op
	}
	return nil
}

// openAtStart opens every collection in the background (see above); the
// work stops when the server closes (ctx).
func (s *Server) openAtStart(ctx context.Context) {
	all, err := s.st.Collections(ctx)
	if err != nil {
		s.log.Warn("server: opening the collections at start: cannot list them", "err", err)
		return
	}
	names := make([]string, 0, len(all))
	for _, c := range all {
		names = append(names, c.Name)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == store.DefaultCollection:
			return -1
		case b == store.DefaultCollection:
			return 1
		}
		return 0
	})
	for _, c := range names {
		s.opening.set(c, opening{Stage: stageDocuments})
	}
	s.opening.wg.Add(1)
	go func() {
		defer s.opening.wg.Done()
		for i, c := range names {
			if err := s.openCollection(ctx, c); err != nil {
				if ctx.Err() != nil {
					for _, c := range names[i:] {
						s.opening.done(c)
					}
					return
				}
				if !errors.Is(err, store.ErrNotFound) {
					s.log.Warn("server: opening a collection at start failed", "collection", c, "err", err)
				}
			}
			s.opening.done(c)
		}
	}()
}

// openCollection reads a collection's documents, loads its index and
// computes its families.
func (s *Server) openCollection(ctx context.Context, c string) error {
	s.opening.set(c, opening{Stage: stageDocuments})
	infos, err := s.st.List(ctx, c)
	if err != nil {
		return err
	}
	s.opening.set(c, opening{Stage: stageIndex})
	sn, err := s.coll.Get(ctx, c)
	if err != nil {
		return err
	}
	// How each document is shown, which the document list names (the
	// index keeps it for its snapshot). When most had to be made, not read
	// from the displays kept with the index, they are kept for the next
	// start.
	for _, in := range infos {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sn.Index.DocDisplay(in.ID)
	}
	if made := sn.Index.DisplaysMade(); made > 0 && made*16 >= len(infos) {
		if err := ingest.KeepDisplays(ctx, s.st, c, sn.Index); err != nil {
			s.log.Warn("server: keeping the documents' displays", "collection", c, "err", err)
		}
	}
	s.opening.set(c, opening{Stage: stageFamilies})
	_, err = s.families(ctx, c, func(done, total int) {
		s.opening.set(c, opening{Stage: stageFamilies, Done: done, Total: total})
	})
	return err
}

// families returns a collection's families (usecase.CollectionFamiliesWith),
// one computation per collection at a time: a request that comes while one
// runs waits for it and then reads its result from the cache.
func (s *Server) families(ctx context.Context, c string, progress func(done, total int)) (*usecase.Families, error) {
	s.famMu.Lock()
	mu := s.famLocks[c]
	if mu == nil {
		if s.famLocks == nil {
			s.famLocks = map[string]*sync.Mutex{}
		}
		mu = &sync.Mutex{}
		s.famLocks[c] = mu
	}
	s.famMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	return usecase.CollectionFamiliesWith(ctx, s.st, c, progress)
}
