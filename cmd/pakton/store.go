package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate"
	"github.com/pakton/pakton/internal/usecase"
)

// openExisting opens the store the global flags name for a command that
// reads it. It never creates one: a directory without a store is almost
// always a mistyped --store or PAKTON_STORE, and an empty store made there
// would only answer "no documents".
func (g *globals) openExisting(ctx context.Context) (*store.Store, error) {
	if weaviate.IsURL(g.store) {
		return weaviate.OpenStore(ctx, g.store)
	}
	ok, err := store.Exists(g.store)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noStore(g.store)
	}
	return store.Open(g.store)
}

// openOrCreate opens the store the global flags name, creating it when
// needed (ingest, serve), and says on stderr when it made a new one, so a
// mistyped directory does not go unnoticed.
func (g *globals) openOrCreate(ctx context.Context) (*store.Store, error) {
	if weaviate.IsURL(g.store) {
		return weaviate.OpenStore(ctx, g.store)
	}
	existed, err := store.Exists(g.store)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(g.store)
	if err != nil {
		return nil, err
	}
	if !existed {
		fmt.Fprintf(stderr, "pakton: created a new, empty store at %s\n", st.Dir())
	}
	return st, nil
}

// noStore explains a store directory that holds no store.
func noStore(dir string) error {
	if dir == config.DefaultStoreDir() {
		return fmt.Errorf("no pakton store at %s yet: add contracts with \"pakton ingest PATH\" (or name another store with --store DIR or %s)",
			dir, config.EnvStore)
	}
	return fmt.Errorf("no pakton store at %s: check --store and %s (the default store is %s); \"pakton ingest --store %s PATH\" creates one there",
		dir, config.EnvStore, config.DefaultStoreDir(), dir)
}

// checkCollection returns an error naming the store's collections when name
// is not one of them.
func checkCollection(ctx context.Context, st *store.Store, name string) error {
	cols, err := st.Collections(ctx)
	if err != nil {
		return err
	}
	var have []string
	for _, c := range cols {
		if c.Name == name {
			return nil
		}
		have = append(have, fmt.Sprintf("%s (%s)", c.Name, plural(c.Docs, "1 document", fmt.Sprintf("%d documents", c.Docs))))
	}
	return fmt.Errorf("no collection %q in store %s; its collections: %s (choose one with --collection NAME or %s)",
		name, st.Location(), strings.Join(have, ", "), config.EnvCollection)
}

// openCollection opens an existing store and checks that it holds the
// collection the global flags name.
func (g *globals) openCollection(ctx context.Context) (*store.Store, error) {
	st, err := g.openExisting(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkCollection(ctx, st, g.collection); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// openCollectionReader is openCollection for a command that only reads:
// the store is opened without the writers' lock and recovery
// (store.OpenReader), so a one-shot search starts in milliseconds. A store
// that needs converting to the current format is opened for writing, which
// converts it.
func (g *globals) openCollectionReader(ctx context.Context) (*store.Store, error) {
	if weaviate.IsURL(g.store) {
		return g.openCollection(ctx)
	}
	st, err := store.OpenReader(g.store)
	if errors.Is(err, store.ErrNotFound) {
		return nil, noStore(g.store)
	}
	if err != nil {
		return g.openCollection(ctx)
	}
	if err := checkCollection(ctx, st, g.collection); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// openSnapshot loads the collection ready to answer for search and ask,
// which both refuse, with the same words, a collection that holds no
// documents: a one-shot collection service (no background maintenance)
// with the embedding and rerank servers configured in the environment,
// noting on stderr when the collection has vectors that cannot be used.
// Close the service when done.
func openSnapshot(ctx context.Context, st *store.Store, name string, m collection.Models) (*collection.Service, *collection.Snapshot, error) {
	sm, err := envSearchModels()
	if err != nil {
		return nil, nil, err
	}
	m.Search = sm
	svc := collection.New(st, collection.Options{Models: m, NoMaintenance: true})
	sn, err := svc.Get(ctx, name)
	if err != nil {
		svc.Close()
		return nil, nil, err
	}
	if sn.Index.Docs() == 0 {
		svc.Close()
		return nil, nil, emptyCollection(st, name)
	}
	if dense, model := sn.Index.Dense(); dense && sm.Embedder == nil {
		fmt.Fprintf(stderr, "note: the collection has %s vectors but no embedding server is configured (PAKTON_EMBED_URL); searching lexically\n", model)
	}
	return svc, sn, nil
}

// emptyCollection is the error for a collection with no documents.
func emptyCollection(st *store.Store, collection string) error {
	return fmt.Errorf("collection %q in %s holds no documents; add some with \"pakton ingest --collection %s PATH\"", collection, st.Location(), collection)
}

// docIDs resolves --doc references (ids or names) to document ids, in order;
// nil when none are given.
func docIDs(ctx context.Context, st *store.Store, coll string, refs []string) ([]string, error) {
	return usecase.Documents(ctx, st, coll, refs)
}
