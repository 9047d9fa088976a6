package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func logSize(t *testing.T, s *Store, collection string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(s.collectionDir(collection), logName))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestManifestGrowsLinearly checks that each Put appends one record instead
// of rewriting the manifest: N puts write O(N) manifest bytes.
func TestManifestGrowsLinearly(t *testing.T) {
	s := openTemp(t)
	var sizes []int64
	for i := range 40 {
		must(t, s.Put(t.Context(), DefaultCollection, record(fmt.Sprintf("d%03d.txt", i), "v1")))
		sizes = append(sizes, logSize(t, s, DefaultCollection))
	}
	first := sizes[1] - sizes[0]
	last := sizes[39] - sizes[38]
	if first <= 0 || last > 2*first {
		t.Errorf("bytes appended by the 2nd put %d, by the 40th %d: want about the same", first, last)
	}
}

// TestReaderFollowsWriter checks that a second Store on the same directory
// sees appended records and compactions.
func TestReaderFollowsWriter(t *testing.T) {
	defer func(n int) { compactMinDead = n }(compactMinDead)
	compactMinDead = 8
	w := openTemp(t)
	r, err := OpenReader(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	must(t, w.CreateCollection(t.Context(), "deals"))
	var want []string
	for i := range 2*compactMinDead + 10 {
		name := fmt.Sprintf("d%d.txt", i%7)
		must(t, w.Put(t.Context(), "deals", record(name, fmt.Sprint("v", i))))
		if i%13 == 0 {
			must(t, w.Delete(t.Context(), "deals", DocID(name)))
		}
		want = want[:0]
		wl, err := w.List(t.Context(), "deals")
		must(t, err)
		for _, d := range wl {
			want = append(want, d.ID+"/"+d.Source.SHA256)
		}
		rl, err := r.List(t.Context(), "deals")
		must(t, err)
		var got []string
		for _, d := range rl {
			got = append(got, d.ID+"/"+d.Source.SHA256)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("after write %d the reader lists %v, the writer %v", i, got, want)
		}
		wg, _ := w.Generation(t.Context(), "deals")
		rg, _ := r.Generation(t.Context(), "deals")
		if wg != rg {
			t.Fatalf("after write %d generations differ: writer %d, reader %d", i, wg, rg)
		}
	}
	for _, d := range mustList(t, r, "deals") {
		if _, err := r.Get(t.Context(), "deals", d.ID); err != nil {
			t.Error(err)
		}
	}
	// 7 live documents after well over compactMinDead replacements: the log
	// was compacted.
	if n := strings.Count(readLog(t, w, "deals"), "\n"); n > 2*compactMinDead {
		t.Errorf("log has %d records for 7 documents: never compacted", n)
	}
	if err := r.Put(t.Context(), "deals", record("x.txt", "v1")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Put on a reader: %v, want ErrReadOnly", err)
	}
}

func mustList(t *testing.T, s *Store, collection string) []DocInfo {
	t.Helper()
	l, err := s.List(t.Context(), collection)
	must(t, err)
	return l
}

func readLog(t *testing.T, s *Store, collection string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.collectionDir(collection), logName))
	must(t, err)
	return string(b)
}

// TestTornRecord plants what a writer killed in the middle of an append
// leaves: readers ignore it, Open cuts it off, and the next write follows
// the last complete record.
func TestTornRecord(t *testing.T) {
	for name, tail := range map[string]string{
		"incomplete":   "1234abcd P 99999999999999999999 abc {\"di",
		"bad checksum": "00000000 P 99999999999999999999 abc {}\n",
	} {
		t.Run(name, func(t *testing.T) {
			s := openTemp(t)
			a := record("a.txt", "v1")
			must(t, s.Put(t.Context(), DefaultCollection, a))
			path := filepath.Join(s.collectionDir(DefaultCollection), logName)
			good := readLog(t, s, DefaultCollection)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString(tail)
			must(t, err)
			f.Close()
			r, err := OpenReader(s.Dir())
			must(t, err)
			defer r.Close()
			if l := mustList(t, r, DefaultCollection); len(l) != 1 {
				t.Errorf("reader over a torn record lists %v", l)
			}
			s.Close()
			captureLogs(t)
			s2, err := Open(s.Dir())
			must(t, err)
			defer s2.Close()
			if got := readLog(t, s2, DefaultCollection); got != good {
				t.Errorf("log after recovery:\n%s\nwant:\n%s", got, good)
			}
			b := record("b.txt", "v1")
			must(t, s2.Put(t.Context(), DefaultCollection, b))
			for _, rec := range []*Record{a, b} {
				got, err := s2.Get(t.Context(), DefaultCollection, rec.Doc.ID)
				must(t, err)
				sameRecord(t, got, rec)
			}
		})
	}
}

// TestDamagedRecordInTheMiddle checks that a record damaged before the last
// one (not what a crash leaves) makes Open rebuild the manifest from the
// version directories, keeping the damaged log aside.
func TestDamagedRecordInTheMiddle(t *testing.T) {
	s := openTemp(t)
	a, b := record("a.txt", "v1"), record("b.txt", "v1")
	must(t, s.Put(t.Context(), DefaultCollection, a))
	must(t, s.Put(t.Context(), DefaultCollection, b))
	path := filepath.Join(s.collectionDir(DefaultCollection), logName)
	raw := []byte(readLog(t, s, DefaultCollection))
	i := strings.Index(string(raw), " P ")
	raw[i+10] ^= 1
	must(t, os.WriteFile(path, raw, 0o644))
	r, err := OpenReader(s.Dir())
	must(t, err)
	defer r.Close()
	if _, err := r.List(t.Context(), DefaultCollection); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("List over a damaged log: %v", err)
	}
	s.Close()
	captureLogs(t)
	s2, err := Open(s.Dir())
	must(t, err)
	defer s2.Close()
	for _, rec := range []*Record{a, b} {
		got, err := s2.Get(t.Context(), DefaultCollection, rec.Doc.ID)
		must(t, err)
		sameRecord(t, got, rec)
	}
	if m, _ := filepath.Glob(path + ".damaged-*"); len(m) != 1 {
		t.Errorf("damaged log not kept aside: %v", m)
	}
}

// TestConvertFormat1 opens a store written by format 1 (manifest.json
// rewritten whole on every write) and checks it is converted to a log with
// every document, generation and creation time kept.
func TestConvertFormat1(t *testing.T) {
	s := openTemp(t)
	must(t, s.CreateCollection(t.Context(), "deals"))
	recs := []*Record{record("a.txt", "v1"), record("b.txt", "v2")}
	for _, r := range recs {
		must(t, s.Put(t.Context(), "deals", r))
	}
	gen, _ := s.Generation(t.Context(), "deals")
	var created CollectionInfo
	for _, c := range mustCollections(t, s) {
		if c.Name == "deals" {
			created = c
		}
	}
	// Rewrite the collection the way format 1 kept it.
	v1 := map[string]any{"format": 1, "generation": gen, "created": created.Created, "docs": map[string]*entry{}}
	for _, r := range recs {
		e, err := s.lookup(t.Context(), "deals", r.Doc.ID)
		must(t, err)
		v1["docs"].(map[string]*entry)[r.Doc.ID] = e
	}
	raw, err := json.Marshal(v1)
	must(t, err)
	cdir := s.collectionDir("deals")
	s.Close()
	must(t, os.Remove(filepath.Join(cdir, logName)))
	must(t, os.WriteFile(filepath.Join(cdir, legacyManifest), raw, 0o644))
	must(t, os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(cdir)), "VERSION"), []byte("1\n"), 0o644))
	if _, err := OpenReader(s.Dir()); err == nil {
		t.Error("OpenReader of a format 1 store succeeded")
	}

	s2, err := Open(s.Dir())
	must(t, err)
	defer s2.Close()
	for _, r := range recs {
		got, err := s2.Get(t.Context(), "deals", r.Doc.ID)
		must(t, err)
		sameRecord(t, got, r)
	}
	if g, _ := s2.Generation(t.Context(), "deals"); g <= gen {
		t.Errorf("generation after conversion %d, want above %d (readers' caches must notice)", g, gen)
	}
	for _, c := range mustCollections(t, s2) {
		if c.Name == "deals" && !c.Created.Equal(created.Created) {
			t.Errorf("created %v, want %v", c.Created, created.Created)
		}
	}
	if _, err := os.Stat(filepath.Join(cdir, legacyManifest)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("manifest.json left after conversion: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(s2.Dir(), "VERSION")); string(b) != "2\n" {
		t.Errorf("VERSION after conversion %q", b)
	}
}

func mustCollections(t *testing.T, s *Store) []CollectionInfo {
	t.Helper()
	c, err := s.Collections(t.Context())
	must(t, err)
	return c
}

// FuzzApplyLog checks that no log content makes the parser panic, and that
// whatever it accepts round-trips through a snapshot.
func FuzzApplyLog(f *testing.F) {
	m := newManifest()
	m.Docs["a"] = decodedEntry(&entry{Dir: "a@1", Info: DocInfo{ID: "a"}})
	seed, _ := snapshot(m)
	f.Add(seed)
	f.Add(append(seed, logLine(opDelete, m.Generation+1, "a", []byte("{}"))...))
	f.Add([]byte("00000000 H 1 - {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := applyLog(nil, data, 0)
		if err != nil || m == nil {
			return
		}
		for _, l := range m.Docs {
			l.get()
		}
		snap, err := snapshot(m)
		if err != nil {
			return
		}
		m2, used, err := applyLog(nil, snap, 0)
		if err != nil || used != len(snap) || len(m2.Docs) != len(m.Docs) || m2.Generation != m.Generation {
			t.Fatalf("snapshot does not round-trip: %v", err)
		}
	})
}

// TestPutBatch stores a batch that adds and replaces documents, and fails
// one at every step of a write: a failed batch stores nothing and leaves
// nothing behind.
func TestPutBatch(t *testing.T) {
	s := openTemp(t)
	a1 := record("a.txt", "v1")
	must(t, s.Put(t.Context(), DefaultCollection, a1))
	gen, _ := s.Generation(t.Context(), DefaultCollection)
	batch := []*Record{record("a.txt", "v2"), record("b.txt", "v1"), record("c.txt", "v1")}
	for _, step := range []string{"mkdir", "text", "tree", "artifacts", "artifact", "meta", "sync", "rename", "manifest"} {
		boom := errors.New("injected failure")
		faultHook = func(at string) error {
			if at == step {
				return boom
			}
			return nil
		}
		err := s.PutBatch(t.Context(), DefaultCollection, batch)
		faultHook = nil
		if !errors.Is(err, boom) {
			t.Fatalf("%s: PutBatch = %v, want the injected failure", step, err)
		}
		if l := mustList(t, s, DefaultCollection); len(l) != 1 {
			t.Errorf("%s: a failed batch left %d documents", step, len(l))
		}
		if e := docsEntries(t, s, DefaultCollection); len(e) != 1 {
			t.Errorf("%s: docs dir after a failed batch: %v", step, e)
		}
		if g, _ := s.Generation(t.Context(), DefaultCollection); g != gen {
			t.Errorf("%s: a failed batch changed the generation", step)
		}
	}
	if err := s.PutBatch(t.Context(), DefaultCollection, []*Record{batch[1], batch[1]}); err == nil {
		t.Error("a batch with one document twice was accepted")
	}
	must(t, s.PutBatch(t.Context(), DefaultCollection, batch))
	s2, err := Open(s.Dir())
	must(t, err)
	defer s2.Close()
	for _, rec := range batch {
		got, err := s2.Get(t.Context(), DefaultCollection, rec.Doc.ID)
		must(t, err)
		sameRecord(t, got, rec)
	}
	if g, _ := s2.Generation(t.Context(), DefaultCollection); g != gen+3 {
		t.Errorf("generation after a batch of 3: %d, want %d", g, gen+3)
	}
	if e := docsEntries(t, s2, DefaultCollection); len(e) != 3 {
		t.Errorf("docs dir: %v, want the three live versions", e)
	}
	assertNoTemps(t, s2.Dir())
}
