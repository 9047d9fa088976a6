package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// manifest is a collection's manifest.json: the documents that exist and the
// directory holding each one's current version.
type manifest struct {
	Format int `json:"format"`
	// Generation changes on every Put and Delete. A new collection starts
	// from the clock in nanoseconds rather than zero, so a collection deleted
	// and created again never repeats a value a reader may have cached.
	Generation uint64            `json:"generation"`
	Created    time.Time         `json:"created"`
	Docs       map[string]*entry `json:"docs"` // by document id; entries are never mutated
}

// entry is one live document in a manifest.
type entry struct {
	Dir   string  `json:"dir"` // "<id>@<rev>" under docs/
	Info  DocInfo `json:"info"`
	Meta  fileSum `json:"meta"` // meta.json, which cannot list itself in Files
	Files files   `json:"files"`
}

// files lists the checksums of a document version's files, so reads can
// verify them without parsing meta.json.
type files struct {
	Text      fileSum            `json:"text"`
	Tree      *fileSum           `json:"tree,omitempty"` // nil when stored without a tree
	Artifacts map[string]fileSum `json:"artifacts,omitempty"`
}

type fileSum struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

func newManifest() *manifest {
	return &manifest{
		Format:     FormatVersion,
		Generation: uint64(time.Now().UnixNano()),
		Created:    time.Now().UTC(),
		Docs:       map[string]*entry{},
	}
}

// clone returns a copy whose Docs map may be changed.
func (m *manifest) clone() *manifest {
	c := *m
	c.Docs = maps.Clone(m.Docs)
	if c.Docs == nil {
		c.Docs = map[string]*entry{}
	}
	return &c
}

// parseManifest decodes and validates a manifest. Directory names are checked
// so that a damaged or hostile manifest cannot point reads outside docs/.
func parseManifest(raw []byte) (*manifest, error) {
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m.Format < 1 || m.Format > FormatVersion {
		return nil, fmt.Errorf("unsupported manifest format %d", m.Format)
	}
	if m.Docs == nil {
		m.Docs = map[string]*entry{}
	}
	for id, e := range m.Docs {
		if e == nil || !validName(id, 128) || e.Info.ID != id {
			return nil, fmt.Errorf("bad entry for document %q", id)
		}
		if rev, ok := dirRev(id, e.Dir); !ok || rev > m.Generation {
			return nil, fmt.Errorf("document %q: bad directory %q", id, e.Dir)
		}
	}
	return &m, nil
}

// versionDir names the directory of document id's version rev.
func versionDir(id string, rev uint64) string { return id + "@" + strconv.FormatUint(rev, 10) }

// dirRev parses a version directory name made by versionDir for id.
func dirRev(id, dir string) (uint64, bool) {
	rest, ok := strings.CutPrefix(dir, id+"@")
	if !ok || rest == "" || rest[0] == '0' && len(rest) > 1 {
		return 0, false
	}
	rev, err := strconv.ParseUint(rest, 10, 64)
	return rev, err == nil
}

// cachedManifest lets readers skip parsing a manifest whose bytes have not
// changed since the last read.
type cachedManifest struct {
	raw []byte
	m   *manifest
}

// errNoManifest marks a collection directory without a manifest.
var errNoManifest = errors.New("collection does not exist")

// loadManifest returns the current manifest of a collection. The result is
// shared: callers clone it before changing it. A default collection nobody
// has written to yields an empty manifest with generation 0; any other
// missing collection yields an error wrapping ErrNotFound.
func (s *Store) loadManifest(collection string) (*manifest, error) {
	raw, err := os.ReadFile(filepath.Join(s.collectionDir(collection), "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		s.cmu.Lock()
		delete(s.cache, collection)
		s.cmu.Unlock()
		if collection == DefaultCollection {
			return &manifest{Format: FormatVersion, Docs: map[string]*entry{}}, nil
		}
		return nil, fmt.Errorf("store: collection %q: %w", collection, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: %w", collection, err)
	}
	s.cmu.Lock()
	c := s.cache[collection]
	s.cmu.Unlock()
	if c != nil && bytes.Equal(c.raw, raw) {
		return c.m, nil
	}
	m, err := parseManifest(raw)
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: damaged manifest.json (reopen the store to recover): %w", collection, err)
	}
	s.cmu.Lock()
	s.cache[collection] = &cachedManifest{raw: raw, m: m}
	s.cmu.Unlock()
	return m, nil
}

// writeManifest atomically replaces a collection's manifest. committed
// reports whether the new manifest became visible (see replaceFile).
func (s *Store) writeManifest(collection string, m *manifest) (committed bool, err error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return false, err
	}
	if err := fault("manifest"); err != nil {
		return false, err
	}
	committed, err = replaceFile(filepath.Join(s.collectionDir(collection), "manifest.json"), raw)
	if committed {
		s.cmu.Lock()
		s.cache[collection] = &cachedManifest{raw: raw, m: m}
		s.cmu.Unlock()
	}
	return committed, err
}

// Collections lists the collections, sorted by name. The default collection
// is always included.
func (s *Store) Collections() ([]CollectionInfo, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
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
		m, err := s.loadManifest(name)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		if name == DefaultCollection {
			sawDefault = true
		}
		out = append(out, CollectionInfo{Name: name, Docs: len(m.Docs), Created: m.Created})
	}
	if !sawDefault {
		out = append(out, CollectionInfo{Name: DefaultCollection})
	}
	slices.SortFunc(out, func(a, b CollectionInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// CreateCollection creates a collection. Creating one that exists is not an
// error.
func (s *Store) CreateCollection(name string) error {
	if err := checkCollection(name); err != nil {
		return err
	}
	return s.withWriteLock(func() error {
		_, err := s.loadManifest(name)
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
	_, err := os.Stat(filepath.Join(s.collectionDir(collection), "manifest.json"))
	return err == nil
}

// createCollectionLocked builds the collection under a temporary name and
// renames it into place, so a collection directory always has a manifest.
func (s *Store) createCollectionLocked(name string) error {
	root := s.collectionsDir()
	tmp := filepath.Join(root, tmpName())
	err := func() error {
		if err := os.Mkdir(tmp, 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(tmp, "docs"), 0o755); err != nil {
			return err
		}
		raw, err := json.Marshal(newManifest())
		if err != nil {
			return err
		}
		if err := writeFileSync(filepath.Join(tmp, "manifest.json"), raw); err != nil {
			return err
		}
		if err := syncDir(tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, s.collectionDir(name)); err != nil {
			return err
		}
		return syncDir(root)
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
func (s *Store) DeleteCollection(name string) error {
	if err := checkCollection(name); err != nil {
		return err
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
		gone := filepath.Join(s.collectionsDir(), tmpName())
		if err := os.Rename(dir, gone); err != nil {
			return fmt.Errorf("store: delete collection %q: %w", name, err)
		}
		s.cmu.Lock()
		delete(s.cache, name)
		s.cmu.Unlock()
		if err := syncDir(s.collectionsDir()); err != nil {
			return fmt.Errorf("store: delete collection %q: %w", name, err)
		}
		if err := os.RemoveAll(gone); err != nil {
			slog.Warn("store: could not remove deleted collection's files; the next Open retries", "collection", name, "path", gone, "err", err)
		}
		return nil
	})
}
