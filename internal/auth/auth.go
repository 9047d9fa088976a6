// Package auth holds pakton's API keys. A key either belongs to one
// collection — it can read, search, ask about and add to that collection and
// nothing else — or is an admin key, which may also create, list and delete
// collections. Keys are random secrets ("pk_" and 43 base64url characters)
// shown once when created; the key file stores only their SHA-256 hashes,
// compared in constant time. The pakton "keys" command and the HTTP server
// both use this package.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/filelock"
	"github.com/pakton/pakton/internal/store"
)

// Prefix starts every key, so a leaked key is easy to recognise and scan for.
const Prefix = "pk_"

// ErrNotFound is returned when revoking a key id that does not exist.
var ErrNotFound = errors.New("key not found")

// Key is a stored API key: what it may do, never the secret itself.
type Key struct {
	ID   string `json:"id"`             // public identifier, e.g. for "pakton keys revoke"
	Name string `json:"name,omitempty"` // a label chosen by whoever created it
	// Collection is the one collection a non-admin key may use.
	Collection string `json:"collection,omitempty"`
	// Admin keys may use every collection and create, list and delete them.
	Admin   bool      `json:"admin,omitempty"`
	Hash    string    `json:"hash"` // lowercase hex SHA-256 of the secret
	Created time.Time `json:"created"`
}

// Allows reports whether the key may use a collection.
func (k Key) Allows(collection string) bool {
	return k.Admin || (k.Collection != "" && k.Collection == collection)
}

// Scope describes what a key may use, for listings.
func (k Key) Scope() string {
	if k.Admin {
		return "admin (all collections)"
	}
	return "collection " + k.Collection
}

// Keyring is the set of API keys of a store, kept in a JSON file. It notices
// changes another process (the "pakton keys" command) makes to the file.
type Keyring struct {
	path string
	src  keySource // where the keys live: the file at path, or Records
	read time.Time // when the records were last read

	mu     sync.Mutex
	keys   []Key
	hashes [][]byte
	stamp  fileStamp
}

type fileStamp struct {
	mod  time.Time
	size int64
	info os.FileInfo // for os.SameFile: every save is a new file (renamed into place)
	ok   bool
}

func (a fileStamp) same(b fileStamp) bool {
	if a.ok != b.ok {
		return false
	}
	return !a.ok || (a.mod.Equal(b.mod) && a.size == b.size && os.SameFile(a.info, b.info))
}

// File returns the key file of a store directory.
func File(storeDir string) string { return filepath.Join(storeDir, "auth", "keys.json") }

// Open returns the keyring of a store directory. A missing key file is an
// empty keyring; the file is created on the first Create.
func Open(ctx context.Context, storeDir string) (*Keyring, error) {
	r := &Keyring{path: File(storeDir), src: keyFile{}}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reloadLocked(ctx, true); err != nil {
		return nil, err
	}
	return r, nil
}

// Records keeps small records shared by the processes that use one store
// on a cluster (store.SharedRecords): the keys are kept there, one record per
// key, when the store is not a directory.
type Records interface {
	Records(ctx context.Context, kind string) (map[string][]byte, error)
	PutRecord(ctx context.Context, kind, id string, data []byte) error
	DeleteRecord(ctx context.Context, kind, id string) error
}

// recordKind is the kind of the key records.
const recordKind = "api-key"

// recordTTL is how long keys read from Records are trusted: a key created
// or revoked by another process takes effect within it.
const recordTTL = time.Second

// OpenRecords returns a keyring whose keys live in rs (one record per
// key, so concurrent creates and revokes in different processes never undo
// each other).
func OpenRecords(ctx context.Context, rs Records) (*Keyring, error) {
	r := &Keyring{src: keyRecords{rs}}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reloadLocked(ctx, true); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Keyring) setKeys(keys []Key) error {
	hashes := make([][]byte, len(keys))
	for i, k := range keys {
		h, err := hex.DecodeString(k.Hash)
		if err != nil || len(h) != sha256.Size {
			return fmt.Errorf("auth: key %q has a malformed hash", k.ID)
		}
		hashes[i] = h
	}
	r.keys, r.hashes = keys, hashes
	return nil
}

// keySource is where a keyring's keys live: the key file of a store
// directory (keyFile) or one record per key on a cluster (keyRecords). The
// keyring calls it and never asks which of the two it has.
type keySource interface {
	// reloadLocked rereads the keys when they may have changed (r.mu held).
	reloadLocked(ctx context.Context, r *Keyring, force bool) error
	// update applies a change to the keys, safely against other processes.
	update(ctx context.Context, r *Keyring, change func([]Key) ([]Key, error)) error
}

// keyRecords keeps one record per key (OpenRecords).
type keyRecords struct{ rs Records }

// keyFile keeps the keys in the file at Keyring.path (Open).
type keyFile struct{}

func (r *Keyring) reloadLocked(ctx context.Context, force bool) error {
	return r.src.reloadLocked(ctx, r, force)
}

func (r *Keyring) update(ctx context.Context, change func([]Key) ([]Key, error)) error {
	return r.src.update(ctx, r, change)
}

func (src keyRecords) reloadLocked(ctx context.Context, r *Keyring, force bool) error {
	if !force && time.Since(r.read) < recordTTL {
		return nil
	}
	at := time.Now()
	recs, err := src.rs.Records(ctx, recordKind)
	if err != nil {
		return fmt.Errorf("auth: read keys: %w", err)
	}
	var keys []Key
	for id, b := range recs {
		var k Key
		if err := json.Unmarshal(b, &k); err != nil || k.ID != id {
			return fmt.Errorf("auth: key %q: damaged record", id)
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if err := r.setKeys(keys); err != nil {
		return err
	}
	r.read = at
	return nil
}

// update applies a change to the keys in Records: added keys are put,
// removed ones deleted.
func (src keyRecords) update(ctx context.Context, r *Keyring, change func([]Key) ([]Key, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := src.reloadLocked(ctx, r, true); err != nil {
		return err
	}
	keys, err := change(slices.Clone(r.keys))
	if err != nil || keys == nil {
		return err
	}
	had := map[string]bool{}
	for _, k := range r.keys {
		had[k.ID] = true
	}
	has := map[string]bool{}
	for _, k := range keys {
		has[k.ID] = true
		if had[k.ID] {
			continue
		}
		b, err := json.Marshal(k)
		if err != nil {
			return err
		}
		if err := src.rs.PutRecord(ctx, recordKind, k.ID, b); err != nil {
			return fmt.Errorf("auth: store key: %w", err)
		}
	}
	for id := range had {
		if !has[id] {
			if err := src.rs.DeleteRecord(ctx, recordKind, id); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("auth: revoke key: %w", err)
			}
		}
	}
	return src.reloadLocked(ctx, r, true)
}

// reloadLocked rereads the key file when it changed since last read.
func (keyFile) reloadLocked(ctx context.Context, r *Keyring, force bool) error {
	var st fileStamp
	fi, err := os.Stat(r.path)
	switch {
	case err == nil:
		st = fileStamp{mod: fi.ModTime(), size: fi.Size(), info: fi, ok: true}
	case errors.Is(err, os.ErrNotExist):
	default:
		return fmt.Errorf("auth: %s: %w", r.path, err)
	}
	if !force && st.same(r.stamp) {
		return nil
	}
	var keys []Key
	if st.ok {
		raw, err := os.ReadFile(r.path)
		if err != nil {
			return fmt.Errorf("auth: %s: %w", r.path, err)
		}
		var f struct {
			Keys []Key `json:"keys"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("auth: %s: damaged key file: %w", r.path, err)
		}
		keys = f.Keys
	}
	hashes := make([][]byte, len(keys))
	for i, k := range keys {
		h, err := hex.DecodeString(k.Hash)
		if err != nil || len(h) != sha256.Size {
			return fmt.Errorf("auth: %s: key %q has a malformed hash", r.path, k.ID)
		}
		hashes[i] = h
	}
	r.keys, r.hashes, r.stamp = keys, hashes, st
	return nil
}

// update changes the key file under an exclusive lock on its lock file
// (auth/keys.lock), so writers in other processes ("pakton keys create" run
// twenty times at once, a revoke racing a create) never overwrite each
// other's change: each reads the file afresh after taking the lock.
func (keyFile) update(ctx context.Context, r *Keyring, change func([]Key) ([]Key, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	lf, err := filelock.Open(r.path + ".lock")
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	defer lf.Close()
	if err := filelock.Lock(lf); err != nil {
		return fmt.Errorf("auth: lock %s: %w", lf.Name(), err)
	}
	defer filelock.Unlock(lf)
	if err := r.reloadLocked(ctx, true); err != nil {
		return err
	}
	keys, err := change(slices.Clone(r.keys))
	if err != nil || keys == nil {
		return err // nil keys: nothing to change
	}
	return r.saveLocked(ctx, keys)
}

func (r *Keyring) saveLocked(ctx context.Context, keys []Key) error {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	raw, err := json.MarshalIndent(struct {
		Keys []Key `json:"keys"`
	}{keys}, "", "  ")
	if err != nil {
		return fmt.Errorf("auth: encode keys: %w", err)
	}
	if err := atomicfile.Write(r.path, raw, 0o600); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return r.reloadLocked(ctx, true)
}

// Create makes a new key for one collection, or an admin key, and returns
// the secret — the only time it is available — with the stored key.
func (r *Keyring) Create(ctx context.Context, collection, name string, admin bool) (string, Key, error) {
	if !admin && !ValidCollection(collection) {
		return "", Key{}, fmt.Errorf("auth: collection %q: want 1-64 characters of [a-z0-9._-], not starting with '.'", collection)
	}
	if admin {
		collection = ""
	}
	secret := NewSecret()
	k := newKey(secret, collection, name, admin)
	err := r.update(ctx, func(keys []Key) ([]Key, error) { return append(keys, k), nil })
	if err != nil {
		return "", Key{}, err
	}
	return secret, k, nil
}

// List returns the stored keys, oldest first.
func (r *Keyring) List(ctx context.Context) ([]Key, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reloadLocked(ctx, false); err != nil {
		return nil, err
	}
	return slices.Clone(r.keys), nil
}

// Len returns the number of stored keys.
func (r *Keyring) Len(ctx context.Context) int {
	ks, _ := r.List(ctx)
	return len(ks)
}

// Revoke deletes a key by id; requests with it fail from then on, in this
// process at once and in a running server at its next request.
func (r *Keyring) Revoke(ctx context.Context, id string) error {
	return r.update(ctx, func(keys []Key) ([]Key, error) {
		i := slices.IndexFunc(keys, func(k Key) bool { return k.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("auth: key %q: %w", id, ErrNotFound)
		}
		return slices.Delete(keys, i, i+1), nil
	})
}

// Lookup returns the key whose secret this is. It compares the secret's
// hash with every stored hash in constant time, so timing reveals neither
// which key matched nor how much of one did.
func (r *Keyring) Lookup(ctx context.Context, secret string) (Key, bool) {
	if !strings.HasPrefix(secret, Prefix) || len(secret) > 256 {
		return Key{}, false
	}
	h := sha256.Sum256([]byte(secret))
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reloadLocked(ctx, false); err != nil {
		return Key{}, false // fail closed
	}
	found := -1
	for i, kh := range r.hashes {
		if subtle.ConstantTimeCompare(h[:], kh) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Key{}, false
	}
	return r.keys[found], true
}

// NewSecret returns a new random key: Prefix and 32 random bytes in
// unpadded base64url.
func NewSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return Prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// Hash returns the lowercase hex SHA-256 of a secret, as stored.
func Hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// ValidCollection reports whether name is a valid collection name (the
// store's rule: 1-64 characters of [a-z0-9._-], not starting with '.').
func ValidCollection(name string) bool { return store.ValidCollection(name) }

type ctxKey struct{}

// WithKey returns a context carrying the key a request was authorized with.
func WithKey(ctx context.Context, k Key) context.Context {
	return context.WithValue(ctx, ctxKey{}, k)
}

// FromContext returns the key a request was authorized with. Handlers
// mounted behind the server's authentication (the MCP endpoint) use it to
// learn which collection a caller may use.
func FromContext(ctx context.Context) (Key, bool) {
	k, ok := ctx.Value(ctxKey{}).(Key)
	return k, ok
}

// EnsureAdmin creates an admin key named name when the keyring holds no key
// at all, so a first local start is usable at once. It returns the new
// secret, or "" when keys already existed.
func (r *Keyring) EnsureAdmin(ctx context.Context, name string) (string, error) {
	secret := NewSecret()
	k := newKey(secret, "", name, true)
	created := false
	err := r.update(ctx, func(keys []Key) ([]Key, error) {
		if len(keys) > 0 {
			return nil, nil
		}
		created = true
		return []Key{k}, nil
	})
	if err != nil || !created {
		return "", err
	}
	return secret, nil
}

// newKey returns the stored form of a new key with the given secret.
func newKey(secret, collection, name string, admin bool) Key {
	var id [6]byte
	rand.Read(id[:])
	return Key{ID: hex.EncodeToString(id[:]), Name: strings.TrimSpace(name), Collection: collection, Admin: admin,
		Hash: Hash(secret), Created: time.Now().UTC().Truncate(time.Second)}
}
