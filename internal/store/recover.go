package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// recover brings every collection back to the state its manifest describes.
// Called by Open with the write lock held.
func (s *Store) recover() error {
	removeTemps(s.dir)
	root := s.collectionsDir()
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			// A collection being created or deleted when a writer died.
			if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
				return err
			}
		case !e.IsDir() || !validName(name, 64):
			slog.Warn("store: ignoring unexpected entry", "path", filepath.Join(root, name))
		default:
			if err := s.recoverCollection(name); err != nil {
				return fmt.Errorf("recover collection %q: %w", name, err)
			}
		}
	}
	return syncDir(root)
}

// removeTemps removes the temporary files a crashed writer left in dir.
func removeTemps(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// recoverCollection drops manifest entries whose version directory is
// missing or damaged, and removes every directory the manifest does not
// reference. A missing or unreadable manifest is rebuilt from the version
// directories.
func (s *Store) recoverCollection(name string) error {
	cdir := s.collectionDir(name)
	removeTemps(cdir)
	docs := s.docsDir(name)
	if err := os.MkdirAll(docs, 0o755); err != nil {
		return err
	}
	changed := false
	mpath := filepath.Join(cdir, "manifest.json")
	raw, err := os.ReadFile(mpath)
	var m *manifest
	if err == nil {
		m, err = parseManifest(raw)
	}
	if err != nil {
		slog.Warn("store: manifest missing or damaged; rebuilding it from document directories", "collection", name, "err", err)
		if raw != nil {
			keep := fmt.Sprintf("%s.damaged-%d", mpath, time.Now().Unix())
			if err := os.WriteFile(keep, raw, 0o644); err != nil {
				return err
			}
		}
		if m, err = s.rebuildManifest(name); err != nil {
			return err
		}
		changed = true
	}
	m = m.clone()
	for id, e := range m.Docs {
		if err := s.checkEntry(name, e); err != nil {
			slog.Warn("store: dropping damaged document from manifest", "collection", name, "id", id, "dir", e.Dir, "err", err)
			delete(m.Docs, id)
			changed = true
		}
	}
	live := make(map[string]bool, len(m.Docs))
	for _, e := range m.Docs {
		live[e.Dir] = true
	}
	ents, err := os.ReadDir(docs)
	if err != nil {
		return err
	}
	removed := false
	for _, e := range ents {
		if live[e.Name()] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(docs, e.Name())); err != nil {
			return err
		}
		removed = true
	}
	if removed {
		if err := syncDir(docs); err != nil {
			return err
		}
	}
	if changed {
		m.Generation++
		if _, err := s.writeManifest(name, m); err != nil {
			return err
		}
	}
	return nil
}

// checkEntry verifies that the files of a manifest entry exist with the
// sizes it lists. Stat calls only, so Open stays fast on large stores; reads
// verify checksums.
func (s *Store) checkEntry(collection string, e *entry) error {
	path := filepath.Join(s.docsDir(collection), e.Dir)
	size := func(rel string, sum fileSum) error {
		fi, err := os.Stat(filepath.Join(path, rel))
		if err != nil {
			return err
		}
		if fi.Size() != sum.Size {
			return fmt.Errorf("%s: %d bytes, want %d", rel, fi.Size(), sum.Size)
		}
		return nil
	}
	if err := size("meta.json", e.Meta); err != nil {
		return err
	}
	if err := size("text.txt", e.Files.Text); err != nil {
		return err
	}
	if e.Files.Tree != nil {
		if err := size("tree.json", *e.Files.Tree); err != nil {
			return err
		}
	}
	for a, sum := range e.Files.Artifacts {
		if err := size(filepath.Join("artifacts", a+".bin"), sum); err != nil {
			return err
		}
	}
	return nil
}

// readEntry rebuilds the manifest entry of a version directory from its
// meta.json, and checks it.
func (s *Store) readEntry(collection, id, dir string) (*entry, error) {
	b, err := os.ReadFile(filepath.Join(s.docsDir(collection), dir, "meta.json"))
	if err != nil {
		return nil, err
	}
	var meta docMeta
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("meta.json: %w", err)
	}
	if meta.Doc == nil || meta.Doc.ID != id || meta.Info.ID != id {
		return nil, errors.New("meta.json names another document")
	}
	e := &entry{Dir: dir, Info: meta.Info, Meta: sumOf(b), Files: meta.Files}
	if err := s.checkEntry(collection, e); err != nil {
		return nil, err
	}
	return e, nil
}

// rebuildManifest makes a manifest from the newest intact version directory
// of each document. A document deleted just before the manifest was lost may
// come back; nothing else records that it was deleted.
func (s *Store) rebuildManifest(collection string) (*manifest, error) {
	m := newManifest()
	ents, err := os.ReadDir(s.docsDir(collection))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	revs := map[string]uint64{}
	for _, e := range ents {
		id, _, ok := strings.Cut(e.Name(), "@")
		if !ok || !validName(id, 128) {
			continue
		}
		rev, ok := dirRev(id, e.Name())
		if !ok {
			continue
		}
		m.Generation = max(m.Generation, rev)
		if rev < revs[id] {
			continue
		}
		ent, err := s.readEntry(collection, id, e.Name())
		if err != nil {
			slog.Warn("store: skipping damaged document version", "collection", collection, "dir", e.Name(), "err", err)
			continue
		}
		revs[id] = rev
		m.Docs[id] = ent
	}
	return m, nil
}
