package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pakton/pakton/internal/atomicfile"
)

// Collections lists the collections, sorted by name. The default collection
// is always included.
func (s *Store) Collections(ctx context.Context) ([]CollectionInfo, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if s.remote != nil {
		return s.remoteCollections(ctx)
	}
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

// CreateCollection creates a collection. Creating one that exists is not an
// error.
func (s *Store) CreateCollection(ctx context.Context, name string) error {
	if err := checkCollection(name); err != nil {
		return err
	}
	if s.remote != nil {
		if err := s.checkOpen(); err != nil {
			return err
		}
		if err := s.remote.CreateCollection(ctx, name); err != nil {
			return fmt.Errorf("store: create collection %q: %w", name, err)
		}
		return nil
	}
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
	if s.remote != nil {
		if err := s.checkOpen(); err != nil {
			return err
		}
		return s.remoteDeleteCollection(ctx, name)
	}
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
