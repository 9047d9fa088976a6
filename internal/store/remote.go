package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/parallel"
)

// Remote is where a Store keeps its documents when they do not live in a
// directory: a distributed engine such as a Weaviate cluster (package
// store/weaviate). It is the seam between the two implementations: a
// Store opened with OpenRemote keeps its whole API — Put, PutBatch, Get,
// Document, Artifact, List, Info, Delete, Generation, Collections — and does
// all the encoding, validation and checksumming itself, exactly as for a
// directory, so every package above the store (ingest, search, ask, review,
// serve, mcp, eval) runs unchanged on either. A Remote only keeps bytes.
//
// A Remote stores, per collection, one small entry per live document (the
// same JSON a directory store keeps in its manifest) and the files of each
// entry's version, and a stamp that changes on every write.
//
// Every method must be safe for concurrent use, and every write idempotent:
// the store may call it again after a timeout.
type Remote interface {
	// Location names the remote for messages (a URL without credentials).
	Location() string
	// Close releases connections.
	Close() error
	// Collections lists the collections that exist (in any order).
	Collections(ctx context.Context) ([]CollectionInfo, error)
	// CreateCollection creates a collection; an existing one is not an error.
	CreateCollection(ctx context.Context, name string) error
	// DeleteCollection deletes a collection and everything in it; a missing
	// one is an error wrapping ErrNotFound.
	DeleteCollection(ctx context.Context, name string) error
	// Stamp returns the collection's generation: a value that changes on
	// every Commit and Delete and is never reused. A missing collection is an
	// error wrapping ErrNotFound.
	Stamp(ctx context.Context, collection string) (uint64, error)
	// Entries returns every live document of a collection (in any order).
	Entries(ctx context.Context, collection string) ([]RemoteEntry, error)
	// Entry returns one live document; a missing one is an error wrapping
	// ErrNotFound.
	Entry(ctx context.Context, collection, id string) (RemoteEntry, error)
	// ReadFile returns one file of a document version. A file that does not
	// exist (the version was replaced meanwhile) is an error wrapping
	// fs.ErrNotExist.
	ReadFile(ctx context.Context, collection, id, version, name string) ([]byte, error)
	// Commit stores versions: first all their files, then their entries, so
	// a reader never sees an entry whose files are missing; each document is
	// replaced atomically (old entry or new). Files of replaced versions may
	// be removed afterwards. A missing collection is an error wrapping
	// ErrNotFound.
	Commit(ctx context.Context, collection string, vs []RemoteVersion) error
	// Delete removes a document's entry (then its files); a missing document
	// is an error wrapping ErrNotFound.
	Delete(ctx context.Context, collection, id string) error
}

// RemoteEntry is one live document of a remote collection.
type RemoteEntry struct {
	ID      string
	Version string // names the version's files (ReadFile)
	Entry   []byte // opaque to the Remote: the store's manifest entry (JSON)
}

// RemoteVersion is a document version to commit.
type RemoteVersion struct {
	RemoteEntry
	// Files by name: "meta.json", "text.txt", "tree.json",
	// "artifacts/<name>.bin".
	Files map[string][]byte
}

// OpenRemote returns a Store whose documents live in r. localDir holds what
// stays on this machine: derived files such as the persisted search index
// (CachePath), and the state of the processes that use the store (a
// server's jobs, uploads and keys) — Dir returns it. It is created if
// needed.
func OpenRemote(r Remote, localDir string) (*Store, error) {
	abs, err := filepath.Abs(localDir)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", r.Location(), err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("store: open %s: local directory: %w", r.Location(), err)
	}
	s := &Store{dir: abs, remote: r, cache: map[string]*collState{}}
	s.engine = remoteEngine{s: s, r: r}
	return s, nil
}

// Location names where the store's documents live: its directory, or the
// remote's location (a URL).
func (s *Store) Location() string { return s.engine.location() }

// IsRemote reports whether the store's documents live in a Remote.
func (s *Store) IsRemote() bool { return s.remote != nil }

// remoteEngine keeps a Store's documents in a Remote (engine.go): entries
// and files, encoded and verified by the Store as for a directory.
type remoteEngine struct {
	s *Store
	r Remote
}

func (e remoteEngine) location() string { return e.r.Location() }
func (e remoteEngine) close() error     { return e.r.Close() }

func (e remoteEngine) createCollection(ctx context.Context, name string) error {
	if err := e.s.checkOpen(); err != nil {
		return err
	}
	if err := e.r.CreateCollection(ctx, name); err != nil {
		return fmt.Errorf("store: create collection %q: %w", name, err)
	}
	return nil
}

func (e remoteEngine) deleteCollection(ctx context.Context, name string) error {
	if err := e.s.checkOpen(); err != nil {
		return err
	}
	return e.remoteDeleteCollection(ctx, name)
}

func (e remoteEngine) put(ctx context.Context, collection string, p *prepared) error {
	return e.commit(ctx, collection, []*prepared{p})
}

func (e remoteEngine) putBatch(ctx context.Context, collection string, ps []*prepared) error {
	return e.commit(ctx, collection, ps)
}

func (e remoteEngine) delete(ctx context.Context, collection, id string) error {
	s := e.s
	if err := s.checkOpen(); err != nil {
		return err
	}
	err := e.r.Delete(ctx, collection, id)
	if errors.Is(err, ErrNotFound) {
		return notFound(collection, id)
	}
	if err != nil {
		return fmt.Errorf("store: collection %q: delete document %q: %w", collection, id, err)
	}
	return nil
}

// reader: a version's files are read from the remote concurrently (one
// round trip of latency instead of one per file).
func (e remoteEngine) reader(ctx context.Context, collection string, en *entry, artifacts bool) func(string, fileSum) ([]byte, error) {
	return e.prefetch(ctx, collection, en, artifacts)
}

// prepareCache: the local directory of a remote store holds only derived
// files: check that the collection exists, then make its directory.
func (e remoteEngine) prepareCache(ctx context.Context, collection, dir string) error {
	if _, err := e.generation(ctx, collection); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("store: collection %q: cache: %w", collection, err)
	}
	return nil
}

func (e remoteEngine) collections(ctx context.Context) ([]CollectionInfo, error) {
	out, err := e.r.Collections(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: list collections: %w", err)
	}
	if !slices.ContainsFunc(out, func(c CollectionInfo) bool { return c.Name == DefaultCollection }) {
		out = append(out, CollectionInfo{Name: DefaultCollection})
	}
	slices.SortFunc(out, func(a, b CollectionInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (e remoteEngine) remoteDeleteCollection(ctx context.Context, name string) error {
	s := e.s
	err := e.r.DeleteCollection(ctx, name)
	if name == DefaultCollection && errors.Is(err, ErrNotFound) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("store: delete collection %q: %w", name, err)
	}
	os.RemoveAll(s.collectionDir(name)) // local derived files
	return nil
}

// commit stores prepared versions in the remote.
func (e remoteEngine) commit(ctx context.Context, collection string, ps []*prepared) error {
	s := e.s
	if err := s.checkOpen(); err != nil {
		return err
	}
	vs := make([]RemoteVersion, len(ps))
	for i, p := range ps {
		version := newVersion()
		e := entry{Dir: version, Info: p.info, Meta: sumOf(p.meta), Files: p.files}
		raw, err := json.Marshal(&e)
		if err != nil {
			return err
		}
		files := map[string][]byte{"meta.json": p.meta, "text.txt": p.text}
		if p.tree != nil {
			files["tree.json"] = p.tree
		}
		for name, b := range p.artifacts {
			files["artifacts/"+name+".bin"] = b
		}
		vs[i] = RemoteVersion{RemoteEntry: RemoteEntry{ID: p.id, Version: version, Entry: raw}, Files: files}
	}
	err := e.r.Commit(ctx, collection, vs)
	if errors.Is(err, ErrNotFound) && collection == DefaultCollection {
		if err = e.r.CreateCollection(ctx, collection); err == nil {
			err = e.r.Commit(ctx, collection, vs)
		}
	}
	return err
}

// newVersion names a document version: unique without coordination, so two
// writers (or a retried write) never share one.
func newVersion() string {
	return strings.TrimPrefix(atomicfile.TempName(), atomicfile.TempPrefix)
}

func decodeRemoteEntry(collection string, re RemoteEntry) (*entry, error) {
	var e entry
	if err := json.Unmarshal(re.Entry, &e); err != nil {
		return nil, fmt.Errorf("store: collection %q: document %q: damaged entry: %w", collection, re.ID, err)
	}
	e.Dir = re.Version
	return &e, nil
}

func (e remoteEngine) lookup(ctx context.Context, collection, id string) (*entry, error) {
	re, err := e.r.Entry(ctx, collection, id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, notFound(collection, id)
		}
		return nil, fmt.Errorf("store: collection %q: document %q: %w", collection, id, err)
	}
	return decodeRemoteEntry(collection, re)
}

func (e remoteEngine) list(ctx context.Context, collection string) ([]DocInfo, error) {
	res, err := e.r.Entries(ctx, collection)
	if errors.Is(err, ErrNotFound) && collection == DefaultCollection {
		return []DocInfo{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: list: %w", collection, err)
	}
	out := make([]DocInfo, 0, len(res))
	for _, re := range res {
		e, err := decodeRemoteEntry(collection, re)
		if err != nil {
			return nil, err
		}
		out = append(out, e.info())
	}
	slices.SortFunc(out, func(a, b DocInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

func (e remoteEngine) generation(ctx context.Context, collection string) (uint64, error) {
	gen, err := e.r.Stamp(ctx, collection)
	if errors.Is(err, ErrNotFound) && collection == DefaultCollection {
		return 0, nil
	}
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return 0, fmt.Errorf("store: collection %q: %w", collection, ErrNotFound)
		}
		return 0, fmt.Errorf("store: collection %q: %w", collection, err)
	}
	return gen, nil
}

// readVersionFile reads one file of a document version and verifies it.
func (s *Store) readVersionFile(ctx context.Context, collection string, e *entry, name string, want fileSum) ([]byte, error) {
	return s.engine.readFile(ctx, collection, e, name, want)
}

func (e remoteEngine) readFile(ctx context.Context, collection string, en *entry, name string, want fileSum) ([]byte, error) {
	b, err := e.r.ReadFile(ctx, collection, en.Info.ID, en.Dir, name)
	if err != nil {
		return nil, err
	}
	if got := sumOf(b); got != want {
		return nil, fmt.Errorf("%s: version %s: %s: checksum mismatch (store damaged)", e.r.Location(), en.Dir, name)
	}
	return b, nil
}

// Sums returns the SHA-256 of each file of a document's current version, by
// file name ("meta.json", "text.txt", "tree.json", "artifacts/<name>.bin"),
// as its manifest entry records them: two stores holding the same version
// of a document return the same sums. Reads verify files against these.
func (s *Store) Sums(ctx context.Context, collection, id string) (map[string]string, error) {
	e, err := s.lookup(ctx, collection, id)
	if err != nil {
		return nil, err
	}
	out := map[string]string{"meta.json": e.Meta.SHA256, "text.txt": e.Files.Text.SHA256}
	if e.Files.Tree != nil {
		out["tree.json"] = e.Files.Tree.SHA256
	}
	for name, sum := range e.Files.Artifacts {
		out["artifacts/"+name+".bin"] = sum.SHA256
	}
	return out, nil
}

// Ping checks, quickly and without retries, that the store can be reached:
// always nil for a directory; for a remote that implements Ping(ctx), its
// answer (a server's readiness probe uses it, so an unreachable cluster
// shows as not ready in seconds rather than after the retry budget).
func (s *Store) Ping(ctx context.Context) error {
	if p, ok := s.remote.(interface{ Ping(context.Context) error }); ok {
		return p.Ping(ctx)
	}
	return nil
}

// prefetch reads a version's files from the remote concurrently (one round
// trip of latency instead of one per file) and returns a reader of the
// results.
func (re remoteEngine) prefetch(ctx context.Context, collection string, e *entry, artifacts bool) func(string, fileSum) ([]byte, error) {
	s := re.s
	sums := map[string]fileSum{"meta.json": e.Meta, "text.txt": e.Files.Text}
	if e.Files.Tree != nil {
		sums["tree.json"] = *e.Files.Tree
	}
	if artifacts {
		for name, sum := range e.Files.Artifacts {
			sums["artifacts/"+name+".bin"] = sum
		}
	}
	type result struct {
		b   []byte
		err error
	}
	names := slices.Collect(maps.Keys(sums))
	res := make([]result, len(names))
	parallel.All(len(names), len(names), func(i int) {
		res[i].b, res[i].err = s.readVersionFile(ctx, collection, e, names[i], sums[names[i]])
	})
	got := make(map[string]result, len(sums))
	for i, name := range names {
		got[name] = res[i]
	}
	return func(name string, sum fileSum) ([]byte, error) {
		r, ok := got[name]
		if !ok {
			return s.readVersionFile(ctx, collection, e, name, sum)
		}
		return r.b, r.err
	}
}

// SharedRecords keeps small records that every process using a remote
// store must see — API keys, a server's jobs, saved reports, reviews: kind
// groups them, id names one. Records lists every record of a kind, however
// many (or fails): never part of them. Reading or deleting a missing record is an
// error wrapping fs.ErrNotExist. Writes replace a record whole (there is no
// conditional write): a record should have one writer, or writers whose
// changes commute.
type SharedRecords interface {
	Records(ctx context.Context, kind string) (map[string][]byte, error)
	Record(ctx context.Context, kind, id string) ([]byte, error)
	PutRecord(ctx context.Context, kind, id string, data []byte) error
	DeleteRecord(ctx context.Context, kind, id string) error
}

// Shared returns the shared records of a remote store whose Remote keeps
// them, or nil (a directory store keeps such state in its directory).
func (s *Store) Shared() SharedRecords {
	if sr, ok := s.remote.(SharedRecords); ok {
		return sr
	}
	return nil
}

// GCStats says what a garbage collection found and removed.
type GCStats struct {
	Parts   int `json:"parts"`   // file parts stored in the collection
	Young   int `json:"young"`   // unnamed parts left alone: younger than the age threshold
	Removed int `json:"removed"` // unnamed parts removed
}

// Collector is a Remote that can remove the files a cut-short commit left
// behind (files written, document entry never written).
type Collector interface {
	CollectGarbage(ctx context.Context, collection string, minAge time.Duration) (GCStats, error)
}

// DefaultGCMinAge is the age under which unnamed files are never collected:
// they may belong to a commit in progress.
const DefaultGCMinAge = time.Hour

// CollectGarbage removes a collection's files that no document names and
// that are older than minAge. A directory store has nothing to do (Open
// removes what its manifest does not reference) and returns zero stats; so
// does a remote that cannot collect.
func (s *Store) CollectGarbage(ctx context.Context, collection string, minAge time.Duration) (GCStats, error) {
	if err := s.checkOpen(); err != nil {
		return GCStats{}, err
	}
	c, ok := s.remote.(Collector)
	if !ok {
		return GCStats{}, nil
	}
	st, err := c.CollectGarbage(ctx, collection, minAge)
	if err != nil {
		return st, fmt.Errorf("store: collection %q: collect garbage: %w", collection, err)
	}
	return st, nil
}

// Blobs is a Remote that also keeps files derived from a collection that
// every process using the cluster shares — a collection's search index
// segments, written once by one process and read by the others — apart
// from its documents: putting one never changes the collection's stamp,
// and a collection's blobs go with it. A blob is read only after something
// committed names it (the index's commit record), so a blob being written
// is never read. Readers and writers stream: a segment file may be
// hundreds of megabytes.
type Blobs interface {
	PutBlob(ctx context.Context, collection, name string, r io.Reader) error
	// GetBlob writes the blob to w; a missing blob is an error wrapping
	// fs.ErrNotExist.
	GetBlob(ctx context.Context, collection, name string, w io.Writer) error
	DeleteBlob(ctx context.Context, collection, name string) error
}

// Blobs returns the blob store of a remote store whose Remote keeps blobs,
// or nil.
func (s *Store) Blobs() Blobs {
	if b, ok := s.remote.(Blobs); ok {
		return b
	}
	return nil
}
