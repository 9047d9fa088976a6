package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"

	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// Sharing a collection's index on a cluster. On a store whose Remote keeps
// blobs and shared records (Weaviate), the process that brings a
// collection's index up to date (or merges it) publishes it: its segment
// files and their stats files as blobs, its association table, and then —
// the commit point — a shared record holding the commit. Every other app
// server that finds that record current for the collection's stamp copies
// the files it lacks into its local index directory and opens the same
// commit: segments are written once, not rebuilt by each process. Two
// processes publishing at once each publish a complete commit reflecting
// the same documents; the last record wins, and the other's files are
// garbage the next publisher removes. A server of a sharded collection
// (LoadOptions.Shard) copies the segments it scores whole and the stats
// files of the others.

// indexRecordKind is the kind of the shared record holding a collection's
// published commit (its id is the collection's name).
const indexRecordKind = "index-commit"

// sharedCommit is a published commit.
type sharedCommit struct {
	Commit index.Commit `json:"commit"`
	// Aux lists the commit's auxiliary files published with it ("assoc").
	Aux []string `json:"aux,omitempty"`
}

// Shard says which segments of a collection an app server scores whole:
// those whose position i in the commit has i mod N = K (search.Sharding).
type Shard struct{ K, N int }

func (s *Shard) owns(i int) bool { return s == nil || i%s.N == s.K }

// sharing returns the cluster's blobs and records when the store shares
// indexes, nil otherwise.
func sharing(st *store.Store) (store.Blobs, store.SharedRecords) {
	b, r := st.Blobs(), st.Shared()
	if b == nil || r == nil {
		return nil, nil
	}
	return b, r
}

// fetchShared makes the local index directory hold the published commit of
// the collection when it reflects generation gen, copying the files it
// lacks. It reports whether it does.
func fetchShared(ctx context.Context, st *store.Store, collection string, d *index.Dir, gen uint64, shard *Shard) (index.Commit, bool, error) {
	blobs, recs := sharing(st)
	if blobs == nil {
		return index.Commit{}, false, nil
	}
	sc, ok, err := publishedCommit(ctx, recs, collection)
	if err != nil || !ok || sc.Commit.Label != gen || gen == 0 {
		return index.Commit{}, false, err
	}
	local, err := d.Commit()
	if err == nil && local.ID == sc.Commit.ID && hasFiles(d, sc, shard) {
		return local, true, nil
	}
	unlock, err := d.Lock()
	if err != nil {
		return index.Commit{}, false, err
	}
	defer unlock()
	for i, s := range sc.Commit.Segments {
		if err := ctx.Err(); err != nil {
			return index.Commit{}, false, err
		}
		name := s.Name
		if !shard.owns(i) {
			name = index.StatsName(s.Name)
		}
		if d.Has(name) {
			continue
		}
		if err := d.PutFile(name, func(w io.Writer) error { return blobs.GetBlob(ctx, collection, name, w) }); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return index.Commit{}, false, nil // republished meanwhile: build it here
			}
			return index.Commit{}, false, fmt.Errorf("copying the search index from the cluster: %w", err)
		}
	}
	for _, a := range sc.Aux {
		name := auxName(sc.Commit.ID, a)
		if d.Has(name) {
			continue
		}
		if err := d.PutFile(name, func(w io.Writer) error { return blobs.GetBlob(ctx, collection, name, w) }); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return index.Commit{}, false, fmt.Errorf("copying the search index from the cluster: %w", err)
		}
	}
	if err := d.Adopt(sc.Commit); err != nil {
		return index.Commit{}, false, err
	}
	return sc.Commit, true, nil
}

func hasFiles(d *index.Dir, sc sharedCommit, shard *Shard) bool {
	for i, s := range sc.Commit.Segments {
		name := s.Name
		if !shard.owns(i) {
			name = index.StatsName(s.Name)
		}
		if !d.Has(name) {
			return false
		}
	}
	for _, a := range sc.Aux {
		if !d.Has(auxName(sc.Commit.ID, a)) {
			return false
		}
	}
	return true
}

// auxName is the file name of a commit's auxiliary file (index.Dir.AuxPath).
func auxName(commit uint64, name string) string {
	return fmt.Sprintf("aux-%d-%s", commit, name)
}

func publishedCommit(ctx context.Context, recs store.SharedRecords, collection string) (sharedCommit, bool, error) {
	data, err := recs.Record(ctx, indexRecordKind, collection)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return sharedCommit{}, false, nil
	}
	if err != nil {
		return sharedCommit{}, false, fmt.Errorf("reading the cluster's search index commit: %w", err)
	}
	var sc sharedCommit
	if err := json.Unmarshal(data, &sc); err != nil {
		slog.Warn("the cluster's search index commit is unreadable; building the index here", "collection", collection, "err", err)
		return sharedCommit{}, false, nil
	}
	return sc, true, nil
}

// publishShared publishes the local directory's commit c to the cluster
// (see above): the files the published commit does not have, stats files
// included, then the record; then it removes the files of the commit it
// replaced that c does not use.
func publishShared(ctx context.Context, st *store.Store, collection string, d *index.Dir, c index.Commit) error {
	blobs, recs := sharing(st)
	if blobs == nil || c.Label == 0 {
		return nil
	}
	prev, _, err := publishedCommit(ctx, recs, collection)
	if err != nil {
		return err
	}
	if prev.Commit.ID == c.ID && (slices.Contains(prev.Aux, assocAux) || !d.Has(auxName(c.ID, assocAux))) {
		return nil // published already (with its table, when it has one)
	}
	had := map[string]bool{}
	for _, s := range prev.Commit.Segments {
		had[s.Name] = true
	}
	put := func(name string) error {
		f, err := d.OpenFile(name)
		if err != nil {
			return err
		}
		defer f.Close()
		return blobs.PutBlob(ctx, collection, name, f)
	}
	for _, s := range c.Segments {
		if err := ctx.Err(); err != nil {
			return err
		}
		if had[s.Name] {
			continue
		}
		if err := d.WriteStats(s.Name); err != nil {
			return err
		}
		for _, name := range []string{s.Name, index.StatsName(s.Name)} {
			if err := put(name); err != nil {
				return fmt.Errorf("publishing the search index to the cluster: %w", err)
			}
		}
	}
	sc := sharedCommit{Commit: c}
	if d.Has(auxName(c.ID, assocAux)) {
		if err := put(auxName(c.ID, assocAux)); err != nil {
			return fmt.Errorf("publishing the search index to the cluster: %w", err)
		}
		sc.Aux = []string{assocAux}
	}
	data, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	if err := recs.PutRecord(ctx, indexRecordKind, collection, data); err != nil {
		return fmt.Errorf("publishing the search index to the cluster: %w", err)
	}
	keep := map[string]bool{}
	for _, s := range c.Segments {
		keep[s.Name] = true
	}
	for _, s := range prev.Commit.Segments {
		if !keep[s.Name] {
			blobs.DeleteBlob(ctx, collection, s.Name)
			blobs.DeleteBlob(ctx, collection, index.StatsName(s.Name))
		}
	}
	for _, a := range prev.Aux {
		if prev.Commit.ID != c.ID {
			blobs.DeleteBlob(ctx, collection, auxName(prev.Commit.ID, a))
		}
	}
	return nil
}

// openSnapshot opens commit c of d: every segment whole, or for a shard the
// segments it scores whole and the others' stats files (written here from
// the whole file when this process made the segment).
func openSnapshot(d *index.Dir, c index.Commit, shard *Shard) (*index.Snapshot, error) {
	if shard == nil {
		return d.Snapshot(c)
	}
	for i, s := range c.Segments {
		if !shard.owns(i) && !d.Has(index.StatsName(s.Name)) {
			if err := d.WriteStats(s.Name); err != nil {
				return nil, err
			}
		}
	}
	return d.SnapshotWith(c, func(i int) bool { return !shard.owns(i) })
}
