package store

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/atomicfile"
)

// docsEntries lists a collection's docs directory.
func docsEntries(t *testing.T, s *Store, collection string) []string {
	t.Helper()
	ents, err := os.ReadDir(s.docsDir(collection))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestFaultInjection fails a Put (and a Delete) at every step and checks the
// store still holds exactly the old version, with nothing left behind.
func TestFaultInjection(t *testing.T) {
	steps := []string{"mkdir", "text", "tree", "artifacts", "artifact", "meta", "sync", "rename", "manifest"}
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			s := openTemp(t)
			v1 := record("a.txt", "v1")
			if err := s.Put(t.Context(), DefaultCollection, v1); err != nil {
				t.Fatal(err)
			}
			gen, _ := s.Generation(t.Context(), DefaultCollection)
			boom := errors.New("injected failure")
			faultHook = func(at string) error {
				if at == step {
					return boom
				}
				return nil
			}
			defer func() { faultHook = nil }()
			err := s.Put(t.Context(), DefaultCollection, record("a.txt", "v2"))
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), v1.Doc.ID) {
				t.Fatalf("replacing Put = %v, want the injected failure naming the document", err)
			}
			if err := s.Put(t.Context(), DefaultCollection, record("new.txt", "v1")); !errors.Is(err, boom) {
				t.Fatalf("new Put = %v, want the injected failure", err)
			}
			if step == "manifest" {
				if err := s.Delete(t.Context(), DefaultCollection, v1.Doc.ID); !errors.Is(err, boom) {
					t.Fatalf("Delete = %v, want the injected failure", err)
				}
			}
			faultHook = nil
			check := func(s *Store) {
				t.Helper()
				got, err := s.Get(t.Context(), DefaultCollection, v1.Doc.ID)
				if err != nil {
					t.Fatal(err)
				}
				sameRecord(t, got, v1)
				if _, err := s.Get(t.Context(), DefaultCollection, DocID("new.txt")); !errors.Is(err, ErrNotFound) {
					t.Errorf("failed new Put left a document: %v", err)
				}
				if g, _ := s.Generation(t.Context(), DefaultCollection); g != gen {
					t.Errorf("failed writes changed the generation %d -> %d", gen, g)
				}
				if e := docsEntries(t, s, DefaultCollection); len(e) != 1 {
					t.Errorf("docs dir after failures: %v, want only the old version", e)
				}
			}
			check(s)
			s2, err := Open(s.Dir())
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			check(s2)
			if err := s2.Put(t.Context(), DefaultCollection, record("a.txt", "v3")); err != nil {
				t.Fatalf("Put after failures: %v", err)
			}
		})
	}
}

func captureLogs(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// TestOpenRecovers plants what crashed writers and damaged disks leave behind
// and checks that Open keeps exactly the intact documents the manifest names.
func TestOpenRecovers(t *testing.T) {
	s := openTemp(t)
	good, missing, truncated, stale := record("good.txt", "v1"), record("missing.txt", "v1"), record("truncated.txt", "v1"), record("stale.txt", "v1")
	for _, r := range []*Record{good, missing, truncated, stale} {
		if err := s.Put(t.Context(), DefaultCollection, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateCollection(t.Context(), "other"); err != nil {
		t.Fatal(err)
	}
	gen, _ := s.Generation(t.Context(), DefaultCollection)
	staleDir := mustDir(t, s, DefaultCollection, stale.Doc.ID)
	docs := s.docsDir(DefaultCollection)
	// A replaced version whose removal was cut short: copy the live one to an
	// older revision name.
	must(t, os.CopyFS(filepath.Join(docs, stale.Doc.ID+"@1"), os.DirFS(filepath.Join(docs, staleDir))))
	// A version renamed into place whose manifest commit never happened.
	must(t, os.CopyFS(filepath.Join(docs, versionDir(good.Doc.ID, gen+7)), os.DirFS(filepath.Join(docs, staleDir))))
	// Half-written temporaries everywhere.
	must(t, os.MkdirAll(filepath.Join(docs, atomicfile.TempPrefix+"1-2", "artifacts"), 0o755))
	must(t, os.WriteFile(filepath.Join(s.collectionDir(DefaultCollection), atomicfile.TempPrefix+"3-4"), []byte("{"), 0o644))
	must(t, os.MkdirAll(filepath.Join(s.collectionsDir(), atomicfile.TempPrefix+"5-6", "docs"), 0o755))
	must(t, os.WriteFile(filepath.Join(s.Dir(), atomicfile.TempPrefix+"7-8"), []byte("1"), 0o644))
	// Damage two live documents.
	must(t, os.RemoveAll(filepath.Join(docs, mustDir(t, s, DefaultCollection, missing.Doc.ID))))
	must(t, os.Truncate(filepath.Join(docs, mustDir(t, s, DefaultCollection, truncated.Doc.ID), "text.txt"), 3))
	s.Close()

	logs := captureLogs(t)
	s2, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	list, err := s2.List(t.Context(), DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range list {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"good.txt", "stale.txt"}) {
		t.Errorf("documents after recovery: %v, want good.txt stale.txt", names)
	}
	for _, r := range []*Record{good, stale} {
		got, err := s2.Get(t.Context(), DefaultCollection, r.Doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameRecord(t, got, r)
	}
	for _, id := range []string{missing.Doc.ID, truncated.Doc.ID} {
		if !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "level=WARN") {
			t.Errorf("no warning names dropped document %s; logs:\n%s", id, logs)
		}
	}
	if g, _ := s2.Generation(t.Context(), DefaultCollection); g <= gen {
		t.Errorf("dropping documents did not change the generation (%d -> %d)", gen, g)
	}
	if e := docsEntries(t, s2, DefaultCollection); len(e) != 2 {
		t.Errorf("docs dir after recovery: %v, want the two live versions", e)
	}
	assertNoTemps(t, s2.Dir())
	if infos, _ := s2.Collections(t.Context()); len(infos) != 2 {
		t.Errorf("collections after recovery: %+v", infos)
	}
	if err := s2.Put(t.Context(), DefaultCollection, missing); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildManifest destroys a manifest and checks Open rebuilds it from the
// newest intact version of each document.
func TestRebuildManifest(t *testing.T) {
	s := openTemp(t)
	a, b := record("a.txt", "v1"), record("b.txt", "v1")
	for _, r := range []*Record{a, b} {
		must(t, s.Put(t.Context(), DefaultCollection, r))
	}
	gen, _ := s.Generation(t.Context(), DefaultCollection)
	mpath := filepath.Join(s.collectionDir(DefaultCollection), logName)
	must(t, os.WriteFile(mpath, []byte("00000000 H 1 - {\"format\":2}\n00000000 P 2 x {}\n"), 0o644))
	if _, err := s.List(t.Context(), DefaultCollection); err == nil || !strings.Contains(err.Error(), "damaged manifest") {
		t.Errorf("List over a damaged manifest: %v", err)
	}
	s.Close()
	captureLogs(t)
	s2, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for _, r := range []*Record{a, b} {
		got, err := s2.Get(t.Context(), DefaultCollection, r.Doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameRecord(t, got, r)
	}
	if g, _ := s2.Generation(t.Context(), DefaultCollection); g <= gen {
		t.Errorf("rebuilt generation %d not above %d", g, gen)
	}
	if m, _ := filepath.Glob(mpath + ".damaged-*"); len(m) != 1 {
		t.Errorf("damaged manifest not kept aside: %v", m)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// assertNoTemps fails if any temporary file or directory remains in the store.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			t.Errorf("temporary left behind: %s", path)
		}
		return nil
	})
}

// TestPutOverLeftover checks a Put succeeds when a writer in another process
// crashed after renaming in the very version directory name this Put uses.
func TestPutOverLeftover(t *testing.T) {
	s := openTemp(t)
	a := record("a.txt", "v1")
	must(t, s.Put(t.Context(), DefaultCollection, a))
	gen, _ := s.Generation(t.Context(), DefaultCollection)
	docs := s.docsDir(DefaultCollection)
	leftover := filepath.Join(docs, versionDir(a.Doc.ID, gen+1))
	must(t, os.MkdirAll(filepath.Join(leftover, "artifacts"), 0o755))
	must(t, os.WriteFile(filepath.Join(leftover, "text.txt"), []byte("junk"), 0o644))
	a2 := record("a.txt", "v2")
	must(t, s.Put(t.Context(), DefaultCollection, a2))
	got, err := s.Get(t.Context(), DefaultCollection, a.Doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, got, a2)
	if e := docsEntries(t, s, DefaultCollection); len(e) != 1 {
		t.Errorf("docs dir: %v", e)
	}
}

// TestGetDetectsCorruption flips one byte in each file of a stored document
// and checks that Get reports the damage instead of returning wrong data.
func TestGetDetectsCorruption(t *testing.T) {
	for _, file := range []string{"meta.json", "text.txt", "tree.json", "artifacts/units.bin"} {
		t.Run(file, func(t *testing.T) {
			s := openTemp(t)
			rec := record("a.txt", "v1")
			must(t, s.Put(t.Context(), DefaultCollection, rec))
			path := filepath.Join(s.docsDir(DefaultCollection), mustDir(t, s, DefaultCollection, rec.Doc.ID), file)
			b, err := os.ReadFile(path)
			must(t, err)
			b[len(b)/2] ^= 0x20
			must(t, os.WriteFile(path, b, 0o644))
			_, err = s.Get(t.Context(), DefaultCollection, rec.Doc.ID)
			if err == nil || !strings.Contains(err.Error(), "checksum") || !strings.Contains(err.Error(), rec.Doc.ID) {
				t.Errorf("Get of a damaged %s: %v, want a checksum error naming the document", file, err)
			}
		})
	}
}

// TestOpenChecksSinceLastRecovery checks that Open stats only the entries
// committed since the last completed recovery: an older entry damaged behind
// the store's back is left to reads (which verify checksums), one committed
// since is dropped, and a checked file that belongs to another log is
// ignored, so everything is checked again.
func TestOpenChecksSinceLastRecovery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	must(t, err)
	old, later := record("old.txt", "v1"), record("later.txt", "v1")
	must(t, s.Put(t.Context(), DefaultCollection, old))
	s.Close()
	s, err = Open(dir) // checks old.txt and records that it did
	must(t, err)
	must(t, s.Put(t.Context(), DefaultCollection, later))
	docs := s.docsDir(DefaultCollection)
	for _, r := range []*Record{old, later} {
		must(t, os.Truncate(filepath.Join(docs, mustDir(t, s, DefaultCollection, r.Doc.ID), "text.txt"), 3))
	}
	s.Close()

	s, err = Open(dir)
	must(t, err)
	if _, err := s.Info(t.Context(), DefaultCollection, later.Doc.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("damaged document committed since the last recovery: Info = %v, want it dropped", err)
	}
	if _, err := s.Get(t.Context(), DefaultCollection, old.Doc.ID); err == nil || !strings.Contains(err.Error(), old.Doc.ID) {
		t.Errorf("Get of a damaged document checked by an earlier recovery: %v, want an error naming it", err)
	}
	s.Close()

	// A checked file from another log (here: another creation time) is
	// not trusted: the old entry is checked and dropped.
	path := filepath.Join(dir, "collections", DefaultCollection, checkedName)
	raw, err := os.ReadFile(path)
	must(t, err)
	gen, _, _ := strings.Cut(string(raw), " ")
	must(t, os.WriteFile(path, []byte(gen+" 2001-01-01T00:00:00Z\n"), 0o644))
	s, err = Open(dir)
	must(t, err)
	defer s.Close()
	if _, err := s.Info(t.Context(), DefaultCollection, old.Doc.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("damaged document with a foreign checked file: Info = %v, want it dropped", err)
	}
}
