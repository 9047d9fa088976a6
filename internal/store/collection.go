package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/pakton/pakton/internal/atomicfile"
)

// Collections lists the collections, sorted by name. The default collection
// is always included.
func (s *Store) Collections(ctx context.Context) ([]CollectionInfo, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	all, err := s.engine.collections(ctx)
	if err != nil {
		return nil, err
	}
	// the trash of each collection is not one to list
	return slices.DeleteFunc(all, func(c CollectionInfo) bool { return IsTrash(c.Name) }), nil
}

// CreateCollection creates a collection. Creating one that exists is not an
// error.
func (s *Store) CreateCollection(ctx context.Context, name string) error {
	if err := checkCollection(name); err != nil {
		return err
	}
	if IsTrash(name) {
		return fmt.Errorf("store: collection %q: %w (names starting with %q are the trash's)", name, ErrInvalidName, trashPrefix)
	}
	return s.engine.createCollection(ctx, name)
}

func (s *Store) exists(collection string) bool {
	_, err := os.Stat(filepath.Join(s.collectionDir(collection), logName))
	return err == nil
}

// createCollectionLocked builds the collection under a temporary name and
// renames it into place, so a collection directory always has a manifest.
func (s *Store) createCollectionLocked(name string) error {
	root := s.collectionsDir()
	tmp := filepath.Join(root, atomicfile.TempName())
	err := func() error {
		if err := os.Mkdir(tmp, 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(tmp, "docs"), 0o755); err != nil {
			return err
		}
		raw, err := snapshot(newManifest())
		if err != nil {
			return err
		}
		if err := atomicfile.CreateSynced(filepath.Join(tmp, logName), 0o644, func(w io.Writer) error { _, err := w.Write(raw); return err }); err != nil {
			return err
		}
		if err := atomicfile.SyncDir(tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, s.collectionDir(name)); err != nil {
			return err
		}
		return atomicfile.SyncDir(root)
	}()
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("store: create collection %q: %w", name, err)
	}
	return nil
}

// DeleteCollection deletes a collection and all its documents. Deleting the
// default collection empties it (it goes on existing implicitly). Deleting
// any other collection that does not exist is an error wrapping ErrNotFound.
func (s *Store) DeleteCollection(ctx context.Context, name string) error {
	if err := checkCollection(name); err != nil {
		return err
	}
	if err := s.engine.deleteCollection(ctx, name); err != nil {
		return err
	}
	// its trash goes with it
	if t := TrashCollection(name); !IsTrash(name) {
		if err := s.engine.deleteCollection(ctx, t); err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("store: trash of %q: %w", name, err)
		}
	}
	return nil
}
