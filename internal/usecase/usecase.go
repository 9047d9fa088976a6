// Package usecase is what pakton does for a user, once, whatever face asks:
// answer a question from a collection (Asking.Answer), open a collection
// ready to answer (Answering), and read what the faces show of stored
// documents — a document's details (Describe), folders, families of
// near-duplicates (CollectionFamilies), graphs (ViewGraph, CollectionGraph)
// and the sides of a comparison (CompareSide). internal/ingest is the write
// path; the faces read through this package. The faces — the HTTP API (internal/server),
// the command line (cmd/pakton) and the MCP server (internal/mcp) — read a
// request, call a use case and write its result or error in their own
// transport; none of them decides how a question is answered.
//
// A use case fails with the errors of this package where the failure is the
// user's (ErrEmptyCollection), or with the store's (store.ErrNotFound), so a
// face maps each kind of failure to its transport in one place (the API
// server's status codes: server.statusOf).
package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/tool"
)

// ErrEmptyCollection is the error of a search or a question in a collection
// that holds no documents yet: the same answer from every face (CLI error,
// API 409, MCP tool error), never "no hits".
var ErrEmptyCollection = errors.New("holds no documents yet")

// Answering returns collection c of svc ready to answer a search or a
// question. A collection with no documents is an error that wraps
// ErrEmptyCollection and reads "collection "c" holds no documents yet"; a
// collection the store does not have is its error (store.ErrNotFound).
func Answering(ctx context.Context, svc *collection.Service, c string) (*collection.Snapshot, error) {
	sn, err := svc.Get(ctx, c)
	if err != nil {
		return nil, err
	}
	if sn.Index.Docs() == 0 {
		return nil, EmptyCollection(c)
	}
	return sn, nil
}

// EmptyCollection is the error of collection c holding no documents.
func EmptyCollection(c string) error {
	return fmt.Errorf("collection %q %w", c, ErrEmptyCollection)
}

// Asking answers questions: with the agents when Models is set, otherwise
// (or when a question asks for it) with an evidence report that quotes the
// best-matching provisions and interprets nothing.
type Asking struct {
	// Models are the agents' models; nil means no model is configured.
	Models *agent.Models
	// External are the external tools the Researcher may call.
	External []tool.Tool
}

// Question is one question to answer, with how to answer it.
type Question struct {
	agent.Request
	// Route resolves a contract the question names first
	// (agent.ResolveRoute): asked back through Clarifier when the name fits
	// several contracts and Clarifier can choose, otherwise every candidate
	// is searched. A face that resolves the route itself leaves it off.
	Route bool
	// Evidence asks for an evidence report even when models are configured.
	Evidence bool
	// K is the number of provisions an evidence report quotes
	// (agent.EvidenceK when 0).
	K int
	// MaxTurns bounds the Interrogator's questions (agent.DefaultMaxTurns
	// when 0).
	MaxTurns int
	// Progress receives a line per step; nil discards them.
	Progress func(string)
	// Announce receives the line that says an evidence report is being
	// built and why; nil says nothing.
	Announce func(string)
	// Clarifier asks the user when the agents need an answer; nil never asks.
	Clarifier agent.Clarifier
}

// Answer answers q from lib's documents. Like agent.Asker.Ask it may return
// a partial report together with the error that stopped it; a nil report
// always comes with an error.
func (a Asking) Answer(ctx context.Context, lib *agent.Library, q Question) (*report.Report, error) {
	req := q.Request
	if q.Route {
		var err error
		if req, err = agent.ResolveRoute(ctx, lib, req, q.Clarifier, q.Progress); err != nil {
			return nil, err
		}
	}
	if a.Models == nil || q.Evidence {
		if q.Announce != nil {
			if a.Models == nil {
				q.Announce("no language model configured: building an evidence report")
			} else {
				q.Announce("evidence report requested: quoting the best-matching provisions")
			}
		}
		k := q.K
		if k == 0 {
			k = agent.EvidenceK
		}
		return agent.Evidence(ctx, lib, req, k)
	}
	asker := &agent.Asker{Library: lib, Models: *a.Models, External: a.External, MaxTurns: q.MaxTurns, Progress: q.Progress, Clarifier: q.Clarifier}
	return asker.Ask(ctx, req)
}
