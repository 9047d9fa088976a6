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

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// Backend is what the MCP server needs from the rest of pakton: which
// collection a request may see, that collection ready to answer, and a way
// to answer questions.
type Backend interface {
	// Collection returns the collection the request carried by ctx is
	// authorized for. An error refuses the request.
	Collection(ctx context.Context) (string, error)
	// Snapshot returns a collection ready to answer: its current index,
	// documents and search models (collection.Service.Get).
	Snapshot(ctx context.Context, collection string) (*collection.Snapshot, error)
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

// StoreBackend serves the collections of a collection.Service: the same
// service the API server answers from when it mounts /mcp, so one process
// keeps one index per collection. Safe for concurrent use.
type StoreBackend struct {
	svc        *collection.Service
	st         *store.Store
	collection string
}

// NewStoreBackend returns a Backend over svc's store. A request is bound to
// the collection its context names (WithCollection) or, when it names none,
// to collection; with collection "" such a request is refused. Use a fixed
// collection for stdio, and "" behind an authorizing HTTP server so that a
// request the server did not bind can see nothing. The ask tool runs the
// agents with svc's models, or returns an evidence report without them.
func NewStoreBackend(svc *collection.Service, collection string) *StoreBackend {
	return &StoreBackend{svc: svc, st: svc.Store(), collection: collection}
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

// Snapshot implements Backend.
func (b *StoreBackend) Snapshot(ctx context.Context, c string) (*collection.Snapshot, error) {
	sn, err := b.svc.Get(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("collection %q: %w", c, err)
	}
	return sn, nil
}

// Ask implements Backend.
func (b *StoreBackend) Ask(ctx context.Context, lib *agent.Library, req agent.Request, opt AskOptions) (*report.Report, error) {
	m := b.svc.Models()
	asking := usecase.Asking{Models: m.Agents, External: m.External}
	return asking.Answer(ctx, lib, usecase.Question{Request: req, MaxTurns: opt.MaxTurns, Progress: opt.Progress, Clarifier: opt.Clarifier})
}

// boundBackend is a Backend whose every request sees one collection,
// whatever its context says: what HTTPHandler gives each collection's server.
type boundBackend struct {
	Backend
	name string
}

func (b boundBackend) Collection(context.Context) (string, error) { return b.name, nil }
