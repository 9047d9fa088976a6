// Package store keeps ingested contracts in one directory on disk: each
// document's canonical text, page map, layout blocks, clause tree, source
// provenance and the opaque artifacts other packages derive from it (retrieval
// units, postings, vectors). Ingest once, query later from other processes.
//
// # Layout
//
//	dir/VERSION                                   store format version ("2")
//	dir/LOCK                                      flock(2) target for writers
//	dir/collections/<name>/manifest.log           live documents + generation (a log)
//	dir/collections/<name>/manifest.ckpt          where the log's live records are, as of a prefix of it
//	dir/collections/<name>/manifest.list          the documents' summaries (List), as of a prefix of it
//	dir/collections/<name>/docs/<id>@<rev>/       one immutable document version
//	    meta.json  text.txt  tree.json  artifacts/<artifact>.bin
//	dir/collections/<name>/cache/<file>           derived files (the search index); see WriteCache
//
// manifest.log is the source of truth: one record per line,
// "<crc32c> <kind> <generation> <id> <json>". The first line (H) carries the
// generation and creation time of a snapshot, followed by one S line per
// document live at that generation; then each Put appends a P line and each
// Delete a D line, at the next generation. A document's current version is
// the directory <id>@<generation of its last P or S line>.
//
// # Crash safety
//
// A document version lives in a directory that is written and fsynced under
// a temporary name, renamed into place under a name no manifest has
// referenced before (<id>@<rev>, rev being the collection's next generation),
// and never modified afterwards. Put commits by appending the document's
// record to the log in one write and fsyncing it, and only then removes the
// previous version's directory. A crash at any point therefore leaves the log
// naming either the old complete directory or the new complete one: a record
// is applied only when its line is complete and its checksum matches, so an
// append cut short is ignored by readers and cut off by the next Open or
// writer. When superseded records outnumber the live documents (and number
// at least 64), the writer compacts the log: it writes a snapshot to a
// temporary file, fsyncs it and renames it over the log, so a crash leaves
// the old log or the new one.
//
// Open removes whatever the log does not reference (temporary files,
// versions whose commit never happened, versions whose removal was cut short)
// and drops, with a slog warning, entries whose directory is missing or whose
// files are missing or of the wrong size (Open only stats files; every read
// verifies SHA-256 checksums). It stats only the entries committed since the
// last completed recovery: when one finishes, it writes the collection's
// generation and the log's creation time to collections/<name>/checked
// (atomically, after the recovered log is durable). Entries at or below that
// generation were checked then, and nothing a crash does can change them
// since: their directories are immutable, were fsynced before their records
// were committed, and are removed only after a later record supersedes them.
// What a crash can leave — a torn last record, temporaries, uncommitted or
// half-removed versions, entries committed since — is found by reading the
// log and listing docs/ (names only) and by statting the newer entries, so
// adding one document to a large collection costs O(documents written since
// the last Open) stats rather than O(collection). A missing, damaged or
// foreign checked file (another creation time, a generation ahead of the
// log), a rebuilt or converted log, all mean every entry is checked, as
// before; damage done behind the store's back to an entry checked earlier is
// caught by the checksums of the reads. A log damaged anywhere but in its last record
// (not something a crash does) is rebuilt from the newest intact version of
// each document, the damaged file kept beside it. A format 1 store (a
// manifest.json rewritten whole on every write) is converted by Open.
//
// PutBatch commits several documents with one log append: their version
// directories are all written, then fsynced, then renamed, then their records
// appended in one write and one fsync. Each record is checked on its own, so
// a crash leaves a prefix of the batch committed, each document whole.
//
// Cost: a Put appends one record of about a kilobyte, so ingesting N
// documents writes O(N) manifest bytes, and a reader in another process
// catches up by reading only the records appended since it last looked (it
// keeps the log open, so a compaction shows as a new file). Records are
// decoded lazily, so opening a large collection to read a few documents does
// not decode the rest. OpenReader skips recovery (and the lock) altogether:
// what a crashed writer leaves is invisible to readers.
//
// A large log (tens of MB at 46,800 documents) would still be read and
// checked whole by every process that opens the collection. Writers keep a
// checkpoint beside it (manifest.ckpt, checkpoint.go): each live document's
// version directory and the offset of its record in the log, as of a prefix
// of the log, replaced atomically (temporary file, fsync, rename) once the
// log has grown by a sixteenth since, and written by a writer's Open when
// missing. A reader uses it only when it is whole and describes the very log
// it opened, then applies every record after the prefix, so it never hides
// one; a record it points at is read and its checksum checked when the
// document is first used. Without a usable checkpoint the log is read whole,
// as before, so a crash while one is written, or a store written before
// checkpoints, changes nothing but the cost.
//
// Listing a large collection decodes every live record's JSON (about a
// second of processor time at 46,800 documents). A writer that listed a
// collection of 1,024 documents or more, decoding more than a sixteenth of
// the summaries, writes them to manifest.list (listing.go), binary and
// described by a prefix of the log as the checkpoint is; the next listing
// reads a summary from it when the log still starts with that prefix and
// the document's live version is the one the summary was made from, and
// decodes the rest from their records. A missing, damaged or foreign file
// changes only the cost, and a store written before it is listed as before.
//
// (Format 1 rewrote a manifest.json on every Put: O(N²) bytes for N
// documents — about 11 GB for 4,680 contracts at ~1 KB per entry — and every reader
// re-read the whole file on each lookup. Before that, the first design sketch
// renamed the old docs/<id> away and the new one in under the same name,
// which has a moment where the manifest names a directory that does not
// exist; versioned directory names remove it.)
//
// # Concurrency
//
// Writers (Put, Delete, CreateCollection, DeleteCollection, and Open's
// recovery) hold an exclusive flock on dir/LOCK plus an in-process mutex, so
// there is one writer at a time across processes and goroutines. Readers take
// no lock: they read a manifest snapshot, then the immutable directory it
// names; if a concurrent writer removed that directory in between, they read
// the manifest again.
package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/filelock"
)

// FormatVersion is the on-disk format this package reads and writes. Open
// refuses a store whose VERSION file names a newer one.
const FormatVersion = 2

// DefaultCollection exists implicitly in every store.
const DefaultCollection = "default"

// ErrNotFound reports a missing collection, document or artifact. Errors that
// wrap it name the collection and document.
var ErrNotFound = errors.New("not found")

// ErrInvalidName reports a collection name, document id or artifact name that
// is not 1-64 (ids: 1-128) characters of [a-z0-9._-], or starts with a dot.
var ErrInvalidName = errors.New("invalid name")

// recoveredLogsGC is how many bytes of logs Open's recovery reads before
// Open collects them.
const recoveredLogsGC = 16 << 20

// ErrClosed is returned by methods of a closed Store.
var ErrClosed = errors.New("store: closed")

// Source records where a document came from.
type Source struct {
	Path       string    `json:"path"`        // as given at ingest
	SHA256     string    `json:"sha256"`      // lowercase hex of the file bytes
	Size       int64     `json:"size"`        // file size in bytes
	ModTime    time.Time `json:"mod_time"`    // file modification time
	IngestedAt time.Time `json:"ingested_at"` // set by Put when zero
	// Archive and Entry, for a document read out of a ZIP archive: the
	// archive's name as ingested ("room.zip") and the document's path inside
	// it ("01 Corporate/1.1 Supply Agreement.rtf", through nested archives).
	Archive string `json:"archive,omitempty"`
	Entry   string `json:"entry,omitempty"`
	// Folder is the folder the document was filed in, relative to the
	// directory or archive ingested ("01 Corporate/1.1 Supply"); "" at the
	// top. An e-mail's attachments are filed where the e-mail is.
	Folder string `json:"folder,omitempty"`
	// Parent is the name of the e-mail document this one is attached to.
	Parent string `json:"parent,omitempty"`
}

// Record is everything the store keeps about one document.
type Record struct {
	// Doc is the document, including its canonical text (stored as a plain
	// UTF-8 file beside the rest), page map and layout blocks. Doc.ID names
	// the record within its collection.
	Doc *document.Document
	// Tree is the clause tree; it may be nil.
	Tree *clause.Tree
	// Source is the document's provenance.
	Source Source
	// Artifacts are opaque blobs owned by other packages, keyed by a name
	// such as "units" or "postings", stored and returned verbatim. Get
	// returns a non-nil map.
	Artifacts map[string][]byte
}

// DocInfo summarises a stored document without reading its text.
type DocInfo struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Format string `json:"format"`
	Runes  int    `json:"runes"` // length of the canonical text in code points
	Pages  int    `json:"pages"` // 0 for unpaginated formats
	Nodes  int    `json:"nodes"` // clause tree nodes, 0 without a tree
	Source Source `json:"source"`
	// Artifacts names the document's stored artifacts, sorted (filled in by
	// List and Info from the manifest, so a reader can skip asking for an
	// artifact a document does not have).
	Artifacts []string `json:"artifacts,omitempty"`
	// ArtifactSums holds the SHA-256 (lowercase hex) of each artifact, so a
	// reader can tell whether what it derived from an artifact is current
	// without reading it (the search index does).
	ArtifactSums map[string]string `json:"-"`
}

// CollectionInfo summarises a collection.
type CollectionInfo struct {
	Name    string    `json:"name"`
	Docs    int       `json:"docs"`    // number of live documents
	Created time.Time `json:"created"` // zero for a default collection never written to
}

// Store is an open store directory. Its methods are safe for concurrent use
// by multiple goroutines, and several processes may open the same directory.
type Store struct {
	dir  string
	lock *os.File // dir/LOCK, flocked by writers

	listingsMade atomic.Int64 // listings made rather than copied from the kept one (for tests)

	wmu    sync.Mutex // one writer per process; flock serialises processes
	closed bool       // guarded by wmu

	readOnly bool // opened by OpenReader: no recovery, writes refused

	recoveredLogs int64 // bytes of logs Open's recovery read

	// engine keeps the documents: the directory, or a Remote (engine.go).
	engine engine
	// remote, when set, holds the documents (OpenRemote); dir is then only
	// the local directory for derived files and process state. Its optional
	// capabilities (SharedRecords, Blobs, Collector, Ping) are asked of it.
	remote Remote

	cmu   sync.Mutex
	cache map[string]*collState // collection -> its log as last read
	// opening holds a mutex per collection, held while its log is read
	// into a new state
	opening sync.Map
}

// Open opens the store in dir, creating it if needed, and recovers from any
// writer that crashed: it removes temporary and unreferenced files and drops
// manifest entries whose documents are missing or damaged. Open waits while
// another process is writing.
func Open(dir string) (*Store, error) {
	abs, err := absDir(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	lf, err := os.OpenFile(filepath.Join(abs, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	s := &Store{dir: abs, lock: lf, cache: map[string]*collState{}}
	s.engine = dirEngine{s}
	if err := s.withWriteLock(func() error {
		if err := s.checkFormat(); err != nil {
			return err
		}
		if err := os.MkdirAll(s.collectionsDir(), 0o755); err != nil {
			return err
		}
		if err := s.recover(); err != nil {
			return err
		}
		return s.upgradeFormat()
	}); err != nil {
		lf.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	// Recovery read each collection's log whole (70 MB at 46,800
	// documents), garbage now. Collected here, the garbage collector's next
	// goal is twice what the process holds rather than twice the logs: a
	// command that then adds or deletes one contract does not grow its heap
	// past them before its first collection.
	if s.recoveredLogs >= recoveredLogsGC {
		runtime.GC()
	}
	return s, nil
}

// Close releases the store. Methods called afterwards return ErrClosed.
func (s *Store) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.cmu.Lock()
	for _, cs := range s.cache {
		cs.close()
	}
	clear(s.cache)
	s.cmu.Unlock()
	return s.engine.close()
}

// ErrReadOnly is returned by the writing methods of a store opened with
// OpenReader.
var ErrReadOnly = errors.New("store: opened read-only")

// OpenReader opens an existing store for reading only, without taking the
// writers' lock and without recovery, so it is cheap even for a large
// store: what a crashed writer leaves behind (temporary files, versions it
// never committed, a torn last manifest record) is invisible to readers
// anyway, and every read verifies checksums. Writing methods return
// ErrReadOnly. A directory that holds no store is an error wrapping
// ErrNotFound.
func OpenReader(dir string) (*Store, error) {
	abs, err := absDir(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(abs, "VERSION"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("store: open %s: no store here: %w", dir, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || v != FormatVersion {
		// An older store is converted by Open, which needs the lock.
		return nil, fmt.Errorf("store: open %s: store format %q, not %d: open it for writing once to convert it", dir, strings.TrimSpace(string(b)), FormatVersion)
	}
	s := &Store{dir: abs, readOnly: true, cache: map[string]*collState{}}
	s.engine = dirEngine{s}
	return s, nil
}

// Dir returns the store's directory as an absolute path.
func (s *Store) Dir() string { return s.dir }

// DocID returns a stable document id for a document name: the lowercase hex
// of the first 8 bytes of its SHA-256 (16 characters).
func DocID(name string) string {
	h := sha256.Sum256([]byte(name))
	return hex.EncodeToString(h[:8])
}

// checkFormat writes dir/VERSION for a new store and refuses one written by
// a newer format. Called with the write lock held.
func (s *Store) checkFormat() error {
	p := filepath.Join(s.dir, "VERSION")
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		err := atomicfile.Write(p, []byte(strconv.Itoa(FormatVersion)+"\n"), 0o644)
		return err
	}
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || v < 1 {
		return fmt.Errorf("%s: unreadable store format version %q", p, strings.TrimSpace(string(b)))
	}
	if v > FormatVersion {
		return fmt.Errorf("store format version %d is newer than this pakton supports (%d); upgrade pakton to open it", v, FormatVersion)
	}
	return nil
}

// upgradeFormat records the current format version once recovery has
// converted every collection. Called with the write lock held.
func (s *Store) upgradeFormat() error {
	p := filepath.Join(s.dir, "VERSION")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(b)) == strconv.Itoa(FormatVersion) {
		return nil
	}
	err = atomicfile.Write(p, []byte(strconv.Itoa(FormatVersion)+"\n"), 0o644)
	return err
}

// withWriteLock runs fn as the only writer across goroutines and processes.
func (s *Store) withWriteLock(fn func() error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.readOnly {
		return ErrReadOnly
	}
	if err := filelock.Lock(s.lock); err != nil {
		return fmt.Errorf("lock %s: %w", s.lock.Name(), err)
	}
	defer filelock.Unlock(s.lock)
	return fn()
}

func (s *Store) checkOpen() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

func (s *Store) collectionsDir() string { return filepath.Join(s.dir, "collections") }

func (s *Store) collectionDir(name string) string {
	return filepath.Join(s.dir, "collections", name)
}

func (s *Store) docsDir(collection string) string {
	return filepath.Join(s.dir, "collections", collection, "docs")
}

// validName reports whether name is 1-max characters of [a-z0-9._-] and does
// not start with a dot (dot names are reserved for temporary files, and this
// also rules out "." and "..").
func validName(name string, max int) bool {
	if len(name) == 0 || len(name) > max || name[0] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// absDir returns the absolute name of a store's directory (Open, OpenReader).
func absDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("store: open: empty directory name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("store: open %s: %w", dir, err)
	}
	return abs, nil
}

// ValidCollection reports whether name is a valid collection name: 1-64
// characters of [a-z0-9._-], not starting with '.', and not a trash's name
// (TrashCollection).
func ValidCollection(name string) bool { return validName(name, 64) && !IsTrash(name) }

func checkCollection(name string) error {
	if !validName(name, 64) {
		return fmt.Errorf("store: collection %q: %w (want 1-64 characters of [a-z0-9._-], not starting with '.')", name, ErrInvalidName)
	}
	return nil
}

func checkDocID(collection, id string) error {
	if err := checkCollection(collection); err != nil {
		return err
	}
	if !validName(id, 128) {
		return fmt.Errorf("store: collection %q: document id %q: %w (want 1-128 characters of [a-z0-9._-], not starting with '.'; see DocID)", collection, id, ErrInvalidName)
	}
	return nil
}

func checkArtifactName(collection, id, name string) error {
	if !validName(name, 64) {
		return fmt.Errorf("store: collection %q: document %q: artifact %q: %w (want 1-64 characters of [a-z0-9._-], not starting with '.')", collection, id, name, ErrInvalidName)
	}
	return nil
}

// Exists reports whether dir holds a store (its VERSION file), without
// creating anything: commands that only read use it to tell a mistyped
// directory from an empty store.
func Exists(dir string) (bool, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("store: %s: %w", dir, err)
	}
	_, err := os.Stat(filepath.Join(dir, "VERSION"))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: %s: %w", dir, err)
	}
	return true, nil
}
