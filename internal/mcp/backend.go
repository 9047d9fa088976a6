// Package mcp serves a pakton collection to assistants over the Model Context
// Protocol: tools to search the contracts, read a clause, list the documents
// and ask for a cited report, and every document as a readable resource. The
// same server runs over stdio ("pakton mcp") and over streamable HTTP behind
// the API server's per-collection keys (HTTPHandler), where each request sees
// exactly one collection.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

// Backend is what the MCP server needs from the rest of pakton: which
// collection a request may see, that collection's documents and index, and
// a way to answer questions.
type Backend interface {
	// Collection returns the collection the request carried by ctx is
	// authorized for. An error refuses the request.
	Collection(ctx context.Context) (string, error)
	// Corpus returns the store and current search index of a collection.
	Corpus(ctx context.Context, collection string) (*tool.Corpus, error)
	// Ask answers req from lib's documents: with the agents when models are
	// configured, otherwise with an evidence report (report.ModeEvidence).
	// Like agent.Asker.Ask, it may return a partial report with an error.
	Ask(ctx context.Context, lib *agent.Library, req agent.Request, opt AskOptions) (*report.Report, error)
}

// AskOptions tune one question.
type AskOptions struct {
	// MaxTurns bounds the Interrogator's questions (agent.DefaultMaxTurns
	// when 0).
	MaxTurns int
	// Progress receives a line per step of the agents; nil discards them.
	Progress func(string)
	// Clarifier asks the user (MCP elicitation) when the Archivist needs a
	// clarifying answer; nil never asks.
	Clarifier agent.Clarifier
}

// ErrNoCollection reports a request that names no collection.
var ErrNoCollection = errors.New("mcp: the request is not bound to a collection")

type ctxKey struct{}

// WithCollection returns a context that binds a request to a collection.
// The API server calls it after authorizing a request's key, before handing
// the request to HTTPHandler.
func WithCollection(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, ctxKey{}, name)
}

// CollectionFrom returns the collection WithCollection bound ctx to, or "".
func CollectionFrom(ctx context.Context) string {
	s, _ := ctx.Value(ctxKey{}).(string)
	return s
}

// StoreBackend serves the collections of one store. It caches each
// collection's search index and reloads it when the collection's generation
// changes; it is safe for concurrent use.
type StoreBackend struct {
	st         *store.Store
	collection string
	models     *agent.Models
	external   []tool.Tool
	search     search.Models

	mu      sync.Mutex
	indexes map[string]*cachedIndex
}

// cachedIndex is one collection's index and the generation it was built at.
// Its mutex is held while loading, so concurrent requests for a stale index
// wait for one load instead of each starting their own.
type cachedIndex struct {
	mu  sync.Mutex
	gen uint64
	ix  *search.Index
	// provisions puts the review detectors' passage first for questions
	// about a playbook provision (search.Models.Provisions).
	provisions search.ProvisionFinder
}

// Option configures a StoreBackend.
type Option func(*StoreBackend)

// WithModels makes the ask tool run the agents with these models instead of
// returning an evidence report.
func WithModels(m agent.Models) Option {
	return func(b *StoreBackend) { b.models = &m }
}

// WithSearchModels makes searches use an embedding server (dense fusion, for
// collections with vectors) and a rerank server.
func WithSearchModels(m search.Models) Option {
	return func(b *StoreBackend) { b.search = m }
}

// WithExternalTools gives the Researcher external tools (web search,
// Wikipedia, SQL, MCP) when models are configured.
func WithExternalTools(tools []tool.Tool) Option {
	return func(b *StoreBackend) { b.external = tools }
}

// NewStoreBackend returns a Backend over st. A request is bound to the
// collection its context names (WithCollection) or, when it names none, to
// collection; with collection "" such a request is refused. Use a fixed
// collection for stdio, and "" behind an authorizing HTTP server so that a
// request the server did not bind can see nothing.
func NewStoreBackend(st *store.Store, collection string, opts ...Option) *StoreBackend {
	b := &StoreBackend{st: st, collection: collection, indexes: map[string]*cachedIndex{}}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Collection implements Backend. The collection must exist in the store.
func (b *StoreBackend) Collection(ctx context.Context) (string, error) {
	name := CollectionFrom(ctx)
	if name == "" {
		name = b.collection
	}
	if name == "" {
		return "", ErrNoCollection
	}
	if _, err := b.st.Generation(ctx, name); err != nil {
		return "", fmt.Errorf("collection %q: %w", name, err)
	}
	return name, nil
}

// Corpus implements Backend.
func (b *StoreBackend) Corpus(ctx context.Context, collection string) (*tool.Corpus, error) {
	gen, err := b.st.Generation(ctx, collection)
	if err != nil {
		return nil, fmt.Errorf("collection %q: %w", collection, err)
	}
	b.mu.Lock()
	c := b.indexes[collection]
	if c == nil {
		c = &cachedIndex{}
		b.indexes[collection] = c
	}
	b.mu.Unlock()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix == nil || c.gen != gen {
		// The generation is read before loading: a document put meanwhile
		// makes the next request reload, never serves a stale index as new.
		ix, err := ingest.LoadIndex(ctx, b.st, collection)
		if err != nil {
			return nil, fmt.Errorf("loading the index of collection %q: %w", collection, err)
		}
		c.ix, c.gen = ix, gen
		c.provisions = review.BuiltinProvisions(review.StoreLoader(b.st, collection))
	}
	m := b.search
	m.Provisions = c.provisions
	return &tool.Corpus{Store: b.st, Collection: collection, Index: c.ix, Models: m}, nil
}

// Ask implements Backend.
func (b *StoreBackend) Ask(ctx context.Context, lib *agent.Library, req agent.Request, opt AskOptions) (*report.Report, error) {
	if b.models == nil {
		return agent.Evidence(ctx, lib, req, agent.EvidenceK)
	}
	a := &agent.Asker{Library: lib, Models: *b.models, External: b.external, MaxTurns: opt.MaxTurns, Progress: opt.Progress, Clarifier: opt.Clarifier}
	return a.Ask(ctx, req)
}

// boundBackend is a Backend whose every request sees one collection,
// whatever its context says: what HTTPHandler gives each collection's server.
type boundBackend struct {
	Backend
	name string
}

func (b boundBackend) Collection(context.Context) (string, error) { return b.name, nil }
