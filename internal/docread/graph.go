package docread

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/store"
)

// Extracting a graph is linear in the text (graph.Extract), but a hostile
// text can still make it long; like a parser it gets a deadline of
// graphTimeout plus graphTimeoutPerMB of text, and stops when its job is
// cancelled or the server shuts down.
var (
	graphTimeout      = 30 * time.Second
	graphTimeoutPerMB = time.Second
)

// errGraphDeadline is the cancellation cause when a graph's deadline passes.
var errGraphDeadline = errors.New("graph deadline")

// ExtractGraph extracts a document's graph within its deadline. A deadline
// passed is an error wrapping parse.ErrTooLarge; ctx's own end is ctx's
// error.
func ExtractGraph(ctx context.Context, rec *store.Record) (*graph.Doc, error) {
	limit := graphTimeout + time.Duration(len(rec.Doc.Text)>>20)*graphTimeoutPerMB
	gctx, cancel := context.WithTimeoutCause(ctx, limit, errGraphDeadline)
	defer cancel()
	g, err := graph.ExtractContext(gctx, rec.Doc, rec.Tree)
	if err != nil {
		if ctx.Err() == nil && context.Cause(gctx) == errGraphDeadline {
			return nil, fmt.Errorf("%w: reading its defined terms and cross-references took longer than %s (the limit is %s plus %s per MB of text)",
				parse.ErrTooLarge, limit, graphTimeout, graphTimeoutPerMB)
		}
		return nil, err
	}
	return g, nil
}

// DocGraph returns the graph of a stored document (read with Document or
// Get, its Tree filled in by Tree). A document stored before graphs existed,
// or with a graph of an older extraction version or one that does not fit
// its tree, has it computed from its text and tree instead; computed
// reports that, so callers can suggest "pakton docs reindex".
func DocGraph(ctx context.Context, st *store.Store, collection string, rec *store.Record) (g *graph.Doc, computed bool, err error) {
	b, ok := rec.Artifacts[ArtifactGraph]
	if !ok {
		b, err = st.Artifact(ctx, collection, rec.Doc.ID, ArtifactGraph)
	}
	switch {
	case err == nil:
		g, derr := graph.Decode(b, len(rec.Tree.Nodes))
		if derr == nil && g.Version == graph.Version {
			return g, false, nil
		}
		if derr != nil {
			slog.Warn("stored graph unreadable; computing it again", "collection", collection, "doc", rec.Doc.ID, "err", derr)
		}
	case !errors.Is(err, store.ErrNotFound):
		return nil, false, fmt.Errorf("graph of %s: %w", rec.Doc.Name, err)
	}
	if g, err = ExtractGraph(ctx, rec); err != nil {
		return nil, false, fmt.Errorf("graph of %s: %w", rec.Doc.Name, err)
	}
	return g, true, nil
}

// ReadGraph reads a stored document (without its artifacts), its clause
// tree and its graph (DocGraph).
func ReadGraph(ctx context.Context, st *store.Store, collection, id string) (rec *store.Record, g *graph.Doc, computed bool, err error) {
	rec, err = st.Document(ctx, collection, id)
	if err != nil {
		return nil, nil, false, err
	}
	rec.Tree = Tree(rec)
	g, computed, err = DocGraph(ctx, st, collection, rec)
	if err != nil {
		return nil, nil, false, err
	}
	return rec, g, computed, nil
}
