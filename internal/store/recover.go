package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
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
		case strings.HasPrefix(name, atomicfile.TempPrefix):
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
	return atomicfile.SyncDir(root)
}

// removeTemps removes the temporary files a crashed writer left in dir.
func removeTemps(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// recoverCollection brings a collection's log back to a consistent state:
// a torn last record (a writer died while appending it) is cut off, a format
// 1 manifest.json is converted, a missing or damaged log is rebuilt from the
// version directories (the damaged file kept beside it), entries whose files
// are missing or of the wrong size are dropped, and every directory the log
// does not reference is removed.
func (s *Store) recoverCollection(name string) error {
	cdir := s.collectionDir(name)
	removeTemps(cdir)
	removeTemps(s.cacheDir(name))
	docs := s.docsDir(name)
	if err := os.MkdirAll(docs, 0o755); err != nil {
		return err
	}
	s.dropState(name)
	changed := false
	lpath := filepath.Join(cdir, logName)
	legacy := filepath.Join(cdir, legacyManifest)
	raw, err := os.ReadFile(lpath)
	s.recoveredLogs += int64(len(raw))
	var m *manifest
	switch {
	case err == nil:
		var used int
		m, used, err = applyLog(nil, raw, 0)
		if errors.Is(err, errTorn) || err == nil && used < len(raw) {
			slog.Warn("store: cutting off the incomplete last manifest record of a writer that died", "collection", name, "bytes", len(raw)-used)
			if err = truncateFile(lpath, int64(used)); err != nil {
				return err
			}
		}
		if err == nil && m == nil {
			err = errors.New("no header record")
		}
	case errors.Is(err, fs.ErrNotExist):
		// Format 1, or a crash while the collection was converted: the log
		// is written whole before the old manifest is removed.
		raw, err = os.ReadFile(legacy)
		if err == nil {
			m, err = parseLegacyManifest(raw)
			changed = true
		}
	}
	if err != nil {
		slog.Warn("store: manifest missing or damaged; rebuilding it from document directories", "collection", name, "err", err)
		if raw != nil {
			keep := fmt.Sprintf("%s.damaged-%d", lpath, time.Now().Unix())
			if err := os.WriteFile(keep, raw, 0o644); err != nil {
				return err
			}
		}
		if m, err = s.rebuildManifest(name); err != nil {
			return err
		}
		changed = true
	}
	// Entries at or below the generation the last completed recovery
	// checked were checked then and are immutable since; only later ones
	// (what writers committed since, all a crash can have touched) are
	// decoded and statted again.
	checked, trusted := readChecked(cdir, m)
	if changed {
		trusted = false
	}
	for id, l := range m.Docs {
		if trusted {
			if rev, ok := dirRev(id, l.dir); ok && rev <= checked {
				continue
			}
		}
		e, err := l.get()
		if err == nil {
			err = s.checkEntry(name, e)
		}
		if err != nil {
			slog.Warn("store: dropping damaged document from manifest", "collection", name, "id", id, "dir", l.dir, "err", err)
			m.replaced(id, l, nil)
			delete(m.Docs, id)
			changed = true
		}
	}
	live := make(map[string]bool, len(m.Docs))
	for _, l := range m.Docs {
		live[l.dir] = true
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
		if err := atomicfile.SyncDir(docs); err != nil {
			return err
		}
	}
	if changed {
		m.Generation++
	}
	if changed || m.dead() >= compactMinDead && m.dead() > len(m.Docs) {
		data, err := snapshot(m)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(lpath, data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Remove(legacy); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !trusted || checked != m.Generation {
		if err := writeChecked(cdir, m); err != nil {
			return err
		}
	}
	s.maybeCheckpoint(name)
	return nil
}

// checkedName records, per collection, the generation up to which Open's
// recovery has checked every live entry's files, and the creation time of
// the manifest it checked (so a log replaced by another — a collection
// deleted and created again, a restored copy — is not trusted).
const checkedName = "checked"

// readChecked returns the generation in dir's checked file and whether it
// applies to m. A missing, damaged or foreign file, or one ahead of m,
// yields false: every entry is checked.
func readChecked(dir string, m *manifest) (uint64, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, checkedName))
	if err != nil {
		return 0, false
	}
	genText, created, ok := strings.Cut(strings.TrimSpace(string(raw)), " ")
	if !ok {
		return 0, false
	}
	gen, err := strconv.ParseUint(genText, 10, 64)
	if err != nil || gen > m.Generation || created != m.Created.UTC().Format(time.RFC3339Nano) {
		return 0, false
	}
	return gen, true
}

// writeChecked records that every entry of m has been checked. Written
// atomically after the recovered log is durable; losing it only makes the
// next Open check everything again.
func writeChecked(dir string, m *manifest) error {
	line := fmt.Sprintf("%d %s\n", m.Generation, m.Created.UTC().Format(time.RFC3339Nano))
	return atomicfile.Write(filepath.Join(dir, checkedName), []byte(line), 0o644)
}

// truncateFile cuts path to size bytes and fsyncs it.
func truncateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return atomicfile.SyncClose(f, func(f *os.File) error { return f.Truncate(size) })
}

// parseLegacyManifest decodes a format 1 manifest.json. Directory names are
// checked so that a damaged or hostile manifest cannot point reads outside
// docs/.
func parseLegacyManifest(raw []byte) (*manifest, error) {
	var v1 struct {
		Format     int               `json:"format"`
		Generation uint64            `json:"generation"`
		Created    time.Time         `json:"created"`
		Docs       map[string]*entry `json:"docs"`
	}
	if err := json.Unmarshal(raw, &v1); err != nil {
		return nil, fmt.Errorf("%s: %w", legacyManifest, err)
	}
	if v1.Format != 1 {
		return nil, fmt.Errorf("%s: unsupported format %d", legacyManifest, v1.Format)
	}
	m := &manifest{Generation: v1.Generation, Created: v1.Created, Docs: map[string]*lazyEntry{}}
	for id, e := range v1.Docs {
		if e == nil || !validName(id, 128) || e.Info.ID != id {
			return nil, fmt.Errorf("%s: bad entry for document %q", legacyManifest, id)
		}
		if rev, ok := dirRev(id, e.Dir); !ok || rev > m.Generation {
			return nil, fmt.Errorf("%s: document %q: bad directory %q", legacyManifest, id, e.Dir)
		}
		m.Docs[id] = decodedEntry(e)
		m.records++
	}
	return m, nil
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
		m.Docs[id] = decodedEntry(ent)
	}
	return m, nil
}
