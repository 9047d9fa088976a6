package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// memRemote is a Remote in memory: the seam's contract, without a cluster.
type memRemote struct {
	mu    sync.Mutex
	colls map[string]*memColl
	stamp uint64
}

type memColl struct {
	entries map[string]RemoteEntry
	files   map[string][]byte // id/version/name
}

func newMemRemote() *memRemote { return &memRemote{colls: map[string]*memColl{}} }

func (m *memRemote) Location() string { return "mem://test" }
func (m *memRemote) Close() error     { return nil }

func (m *memRemote) Collections() ([]CollectionInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []CollectionInfo
	for name, c := range m.colls {
		out = append(out, CollectionInfo{Name: name, Docs: len(c.entries)})
	}
	return out, nil
}

func (m *memRemote) CreateCollection(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.colls[name] == nil {
		m.colls[name] = &memColl{entries: map[string]RemoteEntry{}, files: map[string][]byte{}}
	}
	m.stamp++
	return nil
}

func (m *memRemote) coll(name string) (*memColl, error) {
	c := m.colls[name]
	if c == nil {
		return nil, fmt.Errorf("collection %q: %w", name, ErrNotFound)
	}
	return c, nil
}

func (m *memRemote) DeleteCollection(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.coll(name); err != nil {
		return err
	}
	delete(m.colls, name)
	return nil
}

func (m *memRemote) Stamp(name string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.coll(name); err != nil {
		return 0, err
	}
	return m.stamp, nil
}

func (m *memRemote) Entries(name string) ([]RemoteEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.coll(name)
	if err != nil {
		return nil, err
	}
	var out []RemoteEntry
	for _, e := range c.entries {
		out = append(out, e)
	}
	return out, nil
}

func (m *memRemote) Entry(name, id string) (RemoteEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.coll(name)
	if err != nil {
		return RemoteEntry{}, err
	}
	e, ok := c.entries[id]
	if !ok {
		return e, ErrNotFound
	}
	return e, nil
}

func (m *memRemote) ReadFile(name, id, version, file string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.coll(name)
	if err != nil {
		return nil, err
	}
	b, ok := c.files[id+"/"+version+"/"+file]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return b, nil
}

func (m *memRemote) Commit(name string, vs []RemoteVersion) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.coll(name)
	if err != nil {
		return err
	}
	for _, v := range vs {
		for f, b := range v.Files {
			c.files[v.ID+"/"+v.Version+"/"+f] = b
		}
	}
	for _, v := range vs {
		c.entries[v.ID] = v.RemoteEntry
	}
	m.stamp++
	return nil
}

func (m *memRemote) Delete(name, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.coll(name)
	if err != nil {
		return err
	}
	if _, ok := c.entries[id]; !ok {
		return ErrNotFound
	}
	delete(c.entries, id)
	m.stamp++
	return nil
}

// TestRemoteSeam runs the Store API over a Remote: what a directory store
// returns, a remote one returns too.
func TestRemoteSeam(t *testing.T) {
	st, err := OpenRemote(newMemRemote(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.IsRemote() || st.Location() != "mem://test" {
		t.Fatalf("Location %q", st.Location())
	}
	// The default collection exists implicitly.
	if g, err := st.Generation(DefaultCollection); err != nil || g != 0 {
		t.Fatalf("Generation(default) = %d, %v", g, err)
	}
	if l, err := st.List(DefaultCollection); err != nil || len(l) != 0 {
		t.Fatalf("List(default) = %v, %v", l, err)
	}
	rec := func(id, text string) *Record {
		return &Record{Doc: &document.Document{ID: id, Name: id + ".txt", Format: "text", Text: text},
			Artifacts: map[string][]byte{"segment": []byte("seg-" + id)}}
	}
	if err := st.Put(DefaultCollection, rec("a", "alpha")); err != nil {
		t.Fatal(err)
	}
	g1, _ := st.Generation(DefaultCollection)
	if err := st.PutBatch(DefaultCollection, []*Record{rec("b", "beta"), rec("c", "gamma")}); err != nil {
		t.Fatal(err)
	}
	g2, _ := st.Generation(DefaultCollection)
	if g1 == g2 {
		t.Fatal("generation did not change on a put")
	}
	got, err := st.Get(DefaultCollection, "b")
	if err != nil || got.Doc.Text != "beta" || string(got.Artifacts["segment"]) != "seg-b" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if a, err := st.Artifact(DefaultCollection, "c", "segment"); err != nil || string(a) != "seg-c" {
		t.Fatalf("Artifact = %q, %v", a, err)
	}
	if _, err := st.Artifact(DefaultCollection, "c", "vectors"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing artifact: %v", err)
	}
	l, err := st.List(DefaultCollection)
	if err != nil || len(l) != 3 || l[0].ID != "a" || l[2].Runes != 5 || len(l[0].Artifacts) != 1 {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if err := st.Delete(DefaultCollection, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(DefaultCollection, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	if err := st.Delete(DefaultCollection, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	// A damaged file is refused, as in a directory store.
	m := st.remote.(*memRemote)
	for k := range m.colls[DefaultCollection].files {
		m.colls[DefaultCollection].files[k] = []byte("damaged")
	}
	if _, err := st.Get(DefaultCollection, "b"); err == nil {
		t.Fatal("damaged file read without error")
	}
	// Other collections must be created; isolation.
	if err := st.Put("other", rec("x", "x")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("put into a missing collection: %v", err)
	}
	if err := st.CreateCollection("other"); err != nil {
		t.Fatal(err)
	}
	if err := st.Put("other", rec("x", "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(DefaultCollection, "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("isolation: %v", err)
	}
	cols, err := st.Collections()
	if err != nil || len(cols) != 2 || cols[0].Name != DefaultCollection || cols[1].Docs != 1 {
		t.Fatalf("Collections = %+v, %v", cols, err)
	}
	// Derived files live in the local directory.
	if err := st.WriteCache("other", "search.idx", func(w io.Writer) error { _, err := w.Write([]byte("ix")); return err }); err != nil {
		t.Fatal(err)
	}
	p, _ := st.CachePath("other", "search.idx")
	if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, []byte("ix")) {
		t.Fatalf("cache file: %q, %v", b, err)
	}
	if err := st.DeleteCollection("other"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("cache file of a deleted collection: %v", err)
	}
	if _, err := st.Generation("other"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted collection: %v", err)
	}
}
