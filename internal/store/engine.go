package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pakton/pakton/internal/atomicfile"
)

// engine is where a Store keeps its collections and documents: its own
// directory (dirEngine: one manifest log per collection, one directory per
// document version, writers serialised by a lock — the crash-safety argument
// of the package comment) or a Remote (remoteEngine, remote.go). The Store
// does what both share — validating names, encoding a record and its
// checksums, retrying a read whose version was replaced — and then calls
// its engine; it never asks which one it has, the way database/sql never
// asks which driver it was given. Open and OpenReader choose dirEngine,
// OpenRemote remoteEngine.
type engine interface {
	// location names where the documents live, for messages.
	location() string
	close() error
	collections(ctx context.Context) ([]CollectionInfo, error)
	createCollection(ctx context.Context, name string) error
	deleteCollection(ctx context.Context, name string) error
	put(ctx context.Context, collection string, p *prepared) error
	putBatch(ctx context.Context, collection string, ps []*prepared) error
	delete(ctx context.Context, collection, id string) error
	lookup(ctx context.Context, collection, id string) (*entry, error)
	// readFile reads one file of a document version and verifies it.
	readFile(ctx context.Context, collection string, e *entry, name string, want fileSum) ([]byte, error)
	// reader returns how Get reads the files of the version e.
	reader(ctx context.Context, collection string, e *entry, artifacts bool) func(string, fileSum) ([]byte, error)
	list(ctx context.Context, collection string) ([]DocInfo, error)
	generation(ctx context.Context, collection string) (uint64, error)
	// findSource and changes: lookup.go.
	findSource(ctx context.Context, collection, sha string) ([]DocInfo, error)
	changes(ctx context.Context, collection string, since uint64) (changed []DocInfo, live map[string]bool, err error)
	// prepareCache readies the parent of a collection's cache directory
	// dir, which makeCacheDir then makes.
	prepareCache(ctx context.Context, collection, dir string) error
}

// dirEngine keeps a Store's documents in its directory.
type dirEngine struct{ s *Store }

func (d dirEngine) location() string { return d.s.dir }

func (d dirEngine) readFile(_ context.Context, collection string, e *entry, name string, want fileSum) ([]byte, error) {
	return readFile(filepath.Join(d.s.docsDir(collection), e.Dir, filepath.FromSlash(name)), want)
}

func (d dirEngine) put(_ context.Context, collection string, p *prepared) error {
	s := d.s
	return s.withWriteLock(func() error { return s.putLocked(collection, p) })
}

func (d dirEngine) putBatch(_ context.Context, collection string, ps []*prepared) error {
	s := d.s
	return s.withWriteLock(func() error { return s.putBatchLocked(collection, ps) })
}

func (d dirEngine) delete(_ context.Context, collection, id string) error {
	s := d.s
	return s.withWriteLock(func() error {
		var gen uint64
		var old *lazyEntry
		if err := s.view(collection, func(m *manifest) error {
			gen, old = m.Generation, m.Docs[id]
			return nil
		}); err != nil {
			return err
		}
		if old == nil {
			return notFound(collection, id)
		}
		committed, err := s.appendRecord(collection, logLine(opDelete, gen+1, id, []byte("{}")))
		if err != nil {
			return fmt.Errorf("store: collection %q: delete document %q: %w", collection, id, err)
		}
		if committed {
			s.removeVersion(collection, old.dir)
		}
		if err := s.maybeCompact(collection); err != nil {
			return fmt.Errorf("store: collection %q: delete document %q: compact manifest: %w", collection, id, err)
		}
		return nil
	})
}

func (d dirEngine) lookup(_ context.Context, collection, id string) (*entry, error) {
	s := d.s
	var l *lazyEntry
	if err := s.view(collection, func(m *manifest) error {
		l = m.Docs[id]
		return nil
	}); err != nil {
		return nil, err
	}
	if l == nil {
		return nil, notFound(collection, id)
	}
	return l.in(collection, id)
}

// reader: a directory's files are read one at a time, as get asks.
func (d dirEngine) reader(ctx context.Context, collection string, e *entry, _ bool) func(string, fileSum) ([]byte, error) {
	return func(name string, sum fileSum) ([]byte, error) {
		return d.readFile(ctx, collection, e, name, sum)
	}
}

func (d dirEngine) list(_ context.Context, collection string) ([]DocInfo, error) {
	s := d.s
	var out []DocInfo
	if err := s.viewState(collection, func(cs *collState) error {
		var kept bool
		if out, kept = cs.listing(); kept {
			return nil
		}
		cs.making.Lock()
		defer cs.making.Unlock()
		if out, kept = cs.listing(); kept {
			return nil // made meanwhile by a listing asked at the same time
		}
		s.listingsMade.Add(1)
		docs, decoded, err := s.listDocs(collection, cs)
		if err != nil {
			return err
		}
		out = make([]DocInfo, len(docs))
		for i := range docs {
			out[i] = docs[i].info
		}
		cs.keepListing(cs.off, cs.m.Generation, out)
		s.maybeWriteListing(collection, cs, docs, decoded)
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

func (d dirEngine) generation(_ context.Context, collection string) (uint64, error) {
	var gen uint64
	err := d.s.view(collection, func(m *manifest) error {
		gen = m.Generation
		return nil
	})
	return gen, err
}

func (d dirEngine) collections(context.Context) ([]CollectionInfo, error) {
	s := d.s
	ents, err := os.ReadDir(s.collectionsDir())
	if err != nil {
		return nil, fmt.Errorf("store: list collections: %w", err)
	}
	var out []CollectionInfo
	sawDefault := false
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !validName(name, 64) {
			continue
		}
		var info CollectionInfo
		err := s.view(name, func(m *manifest) error {
			info = CollectionInfo{Name: name, Docs: len(m.Docs), Created: m.Created}
			return nil
		})
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		if name == DefaultCollection {
			sawDefault = true
		}
		out = append(out, info)
	}
	if !sawDefault {
		out = append(out, CollectionInfo{Name: DefaultCollection})
	}
	slices.SortFunc(out, func(a, b CollectionInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (d dirEngine) createCollection(_ context.Context, name string) error {
	s := d.s
	return s.withWriteLock(func() error {
		_, err := s.state(name)
		if err == nil && (name != DefaultCollection || s.exists(name)) {
			return nil
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return s.createCollectionLocked(name)
	})
}

func (d dirEngine) deleteCollection(_ context.Context, name string) error {
	s := d.s
	return s.withWriteLock(func() error {
		dir := s.collectionDir(name)
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			if name == DefaultCollection {
				return nil
			}
			return fmt.Errorf("store: delete collection %q: %w", name, ErrNotFound)
		}
		// One rename makes the deletion atomic; the slow removal happens
		// under a temporary name that recovery would finish.
		gone := filepath.Join(s.collectionsDir(), atomicfile.TempName())
		if err := os.Rename(dir, gone); err != nil {
			return fmt.Errorf("store: delete collection %q: %w", name, err)
		}
		s.dropState(name)
		if err := atomicfile.SyncDir(s.collectionsDir()); err != nil {
			return fmt.Errorf("store: delete collection %q: %w", name, err)
		}
		if err := os.RemoveAll(gone); err != nil {
			slog.Warn("store: could not remove deleted collection's files; the next Open retries", "collection", name, "path", gone, "err", err)
		}
		return nil
	})
}

func (d dirEngine) close() error {
	if d.s.lock == nil {
		return nil
	}
	return d.s.lock.Close()
}

// prepareCache: the collection's directory exists, or the collection does
// not (makeCacheDir says so).
func (dirEngine) prepareCache(context.Context, string, string) error { return nil }
