package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pakton/pakton/internal/atomicfile"
)

// cacheDir holds files derived from a collection's documents, such as its
// search index. They are never a source of truth: a reader checks a cache
// file against the collection's Generation and rebuilds a stale one. They
// go with the collection when it is deleted.
func (s *Store) cacheDir(collection string) string {
	return filepath.Join(s.collectionDir(collection), "cache")
}

// CacheDir returns the directory of a collection's derived files, creating
// it when missing (not the collection: a collection that does not exist is
// an error wrapping ErrNotFound). Its users own what they put in it (the
// search index keeps its segments there) and write atomically, as
// WriteCache does: a reader may read it at any time.
func (s *Store) CacheDir(ctx context.Context, collection string) (string, error) {
	if err := checkCollection(collection); err != nil {
		return "", err
	}
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	dir := s.cacheDir(collection)
	if err := s.makeCacheDir(ctx, collection, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// makeCacheDir creates a collection's cache directory when missing.
func (s *Store) makeCacheDir(ctx context.Context, collection, dir string) error {
	if err := s.engine.prepareCache(ctx, collection, dir); err != nil {
		return err
	}
	// Mkdir, not MkdirAll: never bring back the directory of a collection
	// deleted meanwhile.
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: collection %q: %w", collection, ErrNotFound)
		}
		return fmt.Errorf("store: collection %q: cache: %w", collection, err)
	}
	return nil
}

// CachePath returns the path of a derived file kept with a collection (for
// example its persisted search index). The file may not exist.
func (s *Store) CachePath(collection, name string) (string, error) {
	if err := checkCollection(collection); err != nil {
		return "", err
	}
	if !validName(name, 64) {
		return "", fmt.Errorf("store: collection %q: cache file %q: %w", collection, name, ErrInvalidName)
	}
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	return filepath.Join(s.cacheDir(collection), name), nil
}

// WriteCache atomically replaces a collection's derived file with what
// write writes (atomicfile.WriteFunc), so a reader sees the old file or the
// complete new one.
// It takes no lock (a cache is not the store's state, and a reader opened
// with OpenReader may write one); two processes writing the same file leave
// one of the two. A collection that does not exist is an error wrapping
// ErrNotFound.
func (s *Store) WriteCache(ctx context.Context, collection, name string, write func(w io.Writer) error) error {
	path, err := s.CachePath(collection, name)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := s.makeCacheDir(ctx, collection, dir); err != nil {
		return err
	}
	if err := atomicfile.WriteFunc(path, 0o644, write); err != nil {
		return fmt.Errorf("store: collection %q: cache %s: %w", collection, name, err)
	}
	return nil
}
