// Package storetest holds test doubles of the store's seams.
package storetest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/store"
)

// Remote is a store.Remote in memory, with shared records
// (store.SharedRecords): the seam's contract without a cluster. Two stores
// opened on one Remote (store.OpenRemote with two local directories) stand
// for two processes on one cluster.
type Remote struct {
	mu      sync.Mutex
	colls   map[string]*coll
	stamp   uint64
	records map[string][]byte // kind NUL id
}

type coll struct {
	entries map[string]store.RemoteEntry
	files   map[string][]byte // id/version/name
}

// NewRemote returns an empty Remote.
func NewRemote() *Remote { return &Remote{colls: map[string]*coll{}, records: map[string][]byte{}} }

var (
	_ store.Remote        = (*Remote)(nil)
	_ store.SharedRecords = (*Remote)(nil)
)

func (m *Remote) Location() string { return "mem://test" }
func (m *Remote) Close() error     { return nil }

func (m *Remote) Collections(ctx context.Context) ([]store.CollectionInfo, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	var out []store.CollectionInfo
	for name, c := range m.colls {
		out = append(out, store.CollectionInfo{Name: name, Docs: len(c.entries)})
	}
	return out, nil
}

func (m *Remote) CreateCollection(ctx context.Context, name string) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if m.colls[name] == nil {
		m.colls[name] = &coll{entries: map[string]store.RemoteEntry{}, files: map[string][]byte{}}
	}
	m.stamp++
	return nil
}

// enter starts a call: a cancelled context does nothing (as a cluster call
// would fail), else the lock is taken.
func (m *Remote) enter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	return nil
}

func (m *Remote) get(name string) (*coll, error) {
	c := m.colls[name]
	if c == nil {
		return nil, fmt.Errorf("collection %q: %w", name, store.ErrNotFound)
	}
	return c, nil
}

func (m *Remote) DeleteCollection(ctx context.Context, name string) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if _, err := m.get(name); err != nil {
		return err
	}
	delete(m.colls, name)
	return nil
}

func (m *Remote) Stamp(ctx context.Context, name string) (uint64, error) {
	if err := m.enter(ctx); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	if _, err := m.get(name); err != nil {
		return 0, err
	}
	return m.stamp, nil
}

func (m *Remote) Entries(ctx context.Context, name string) ([]store.RemoteEntry, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	c, err := m.get(name)
	if err != nil {
		return nil, err
	}
	var out []store.RemoteEntry
	for _, e := range c.entries {
		out = append(out, e)
	}
	return out, nil
}

func (m *Remote) Entry(ctx context.Context, name, id string) (store.RemoteEntry, error) {
	if err := m.enter(ctx); err != nil {
		return store.RemoteEntry{}, err
	}
	defer m.mu.Unlock()
	c, err := m.get(name)
	if err != nil {
		return store.RemoteEntry{}, err
	}
	e, ok := c.entries[id]
	if !ok {
		return e, store.ErrNotFound
	}
	return e, nil
}

func (m *Remote) ReadFile(ctx context.Context, name, id, version, file string) ([]byte, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	c, err := m.get(name)
	if err != nil {
		return nil, err
	}
	b, ok := c.files[id+"/"+version+"/"+file]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return b, nil
}

func (m *Remote) Commit(ctx context.Context, name string, vs []store.RemoteVersion) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	c, err := m.get(name)
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

func (m *Remote) Delete(ctx context.Context, name, id string) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	c, err := m.get(name)
	if err != nil {
		return err
	}
	if _, ok := c.entries[id]; !ok {
		return store.ErrNotFound
	}
	delete(c.entries, id)
	m.stamp++
	return nil
}

// Records implements store.SharedRecords.
func (m *Remote) Records(ctx context.Context, kind string) (map[string][]byte, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	out := map[string][]byte{}
	for k, v := range m.records {
		if id, ok := strings.CutPrefix(k, kind+"\x00"); ok {
			out[id] = v
		}
	}
	return out, nil
}

// Record implements store.SharedRecords.
func (m *Remote) Record(ctx context.Context, kind, id string) ([]byte, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	b, ok := m.records[kind+"\x00"+id]
	if !ok {
		return nil, fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	return b, nil
}

// PutRecord implements store.SharedRecords.
func (m *Remote) PutRecord(ctx context.Context, kind, id string, data []byte) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.records[kind+"\x00"+id] = append([]byte(nil), data...)
	return nil
}

// DeleteRecord implements store.SharedRecords.
func (m *Remote) DeleteRecord(ctx context.Context, kind, id string) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if _, ok := m.records[kind+"\x00"+id]; !ok {
		return fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	delete(m.records, kind+"\x00"+id)
	return nil
}

// Len returns the number of records of every kind.
func (m *Remote) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}

// Damage overwrites every file of a collection with bytes no store wrote,
// as a torn or corrupted write on a real cluster would.
func (m *Remote) Damage(collection string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.colls[collection]; c != nil {
		for k := range c.files {
			c.files[k] = []byte("damaged")
		}
	}
}

// PutBlob implements store.Blobs.
func (m *Remote) PutBlob(_ context.Context, name, blob string, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.get(name)
	if err != nil {
		return err
	}
	c.files["\x00blob/"+blob] = data
	return nil
}

// GetBlob implements store.Blobs.
func (m *Remote) GetBlob(_ context.Context, name, blob string, w io.Writer) error {
	m.mu.Lock()
	c, err := m.get(name)
	var data []byte
	ok := false
	if err == nil {
		data, ok = c.files["\x00blob/"+blob]
	}
	m.mu.Unlock()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("blob %q: %w", blob, fs.ErrNotExist)
	}
	_, err = w.Write(data)
	return err
}

// DeleteBlob implements store.Blobs.
func (m *Remote) DeleteBlob(_ context.Context, name, blob string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.get(name)
	if err != nil {
		return err
	}
	delete(c.files, "\x00blob/"+blob)
	return nil
}
