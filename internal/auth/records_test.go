package auth

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"testing"
)

// memRecords is a Records in memory, shared by two keyrings as a cluster
// is shared by two servers.
type memRecords struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (m *memRecords) Records(_ context.Context, kind string) (map[string][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]byte{}
	for k, v := range m.m {
		if len(k) > len(kind) && k[:len(kind)+1] == kind+"/" {
			out[k[len(kind)+1:]] = v
		}
	}
	return out, nil
}

func (m *memRecords) PutRecord(_ context.Context, kind, id string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[kind+"/"+id] = data
	return nil
}

func (m *memRecords) DeleteRecord(_ context.Context, kind, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[kind+"/"+id]; !ok {
		return fs.ErrNotExist
	}
	delete(m.m, kind+"/"+id)
	return nil
}

// TestRecordsKeyring: keys kept as records are seen by another keyring on
// the same records (after a re-read), revocation included, and creates in
// two keyrings never undo each other.
func TestRecordsKeyring(t *testing.T) {
	rs := &memRecords{m: map[string][]byte{}}
	a, err := OpenRecords(t.Context(), rs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenRecords(t.Context(), rs)
	if err != nil {
		t.Fatal(err)
	}
	s1, k1, err := a.Create(t.Context(), "deals", "one", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Create(t.Context(), "", "two", true); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.reloadLocked(t.Context(), true)
	b.mu.Unlock()
	if k, ok := b.Lookup(t.Context(), s1); !ok || k.ID != k1.ID || !k.Allows("deals") || k.Allows("other") {
		t.Fatalf("b.Lookup = %+v, %v", k, ok)
	}
	a.mu.Lock() // a trusts its last read for recordTTL
	a.reloadLocked(t.Context(), true)
	a.mu.Unlock()
	if l, _ := a.List(t.Context()); len(l) != 2 {
		t.Fatalf("a lists %d keys, want 2", len(l))
	}
	if err := b.Revoke(t.Context(), k1.ID); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.reloadLocked(t.Context(), true)
	a.mu.Unlock()
	if _, ok := a.Lookup(t.Context(), s1); ok {
		t.Fatal("a revoked key still works in the other keyring")
	}
	if err := a.Revoke(t.Context(), k1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoke twice: %v", err)
	}
	if secret, err := a.EnsureAdmin(t.Context(), "x"); err != nil || secret != "" {
		t.Fatalf("EnsureAdmin with keys: %q %v", secret, err)
	}
}
