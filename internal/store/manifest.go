package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
)

// logName is a collection's manifest: an append-only log of the documents
// put and deleted, one record per line (see the package comment).
const logName = "manifest.log"

// legacyManifest is where format 1 kept a collection's manifest, rewritten
// whole on every write. Open converts it to a log.
const legacyManifest = "manifest.json"

// Record kinds, the second field of a log line.
const (
	opHeader   = 'H' // first line: generation of the snapshot that follows, creation time
	opSnapshot = 'S' // a live document as of the header's generation
	opPut      = 'P' // a document put at a new generation
	opDelete   = 'D' // a document deleted at a new generation
)

// compactMinDead is how many superseded records a log may carry before a
// writer compacts it; it compacts only once they also outnumber the live
// ones, so compaction costs O(1) amortized per write. (A variable so tests
// can make compaction frequent.)
var compactMinDead = 64

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// manifest is a collection's state: the documents that exist and the
// directory holding each one's current version.
type manifest struct {
	// Generation changes on every Put and Delete. A new collection starts
	// from the clock in nanoseconds rather than zero, so a collection deleted
	// and created again never repeats a value a reader may have cached.
	Generation uint64
	Created    time.Time
	Docs       map[string]*lazyEntry // by document id; entries are never mutated
	records    int                   // snapshot, put and delete records in the log
	sha        shaIndex              // live documents by source SHA-256, once built (FindSource)
}

// dead is the number of log records that no longer describe a live document.
func (m *manifest) dead() int { return m.records - len(m.Docs) }

// entry is one live document in a manifest.
type entry struct {
	Dir   string  `json:"dir"` // "<id>@<rev>" under docs/
	Info  DocInfo `json:"info"`
	Meta  fileSum `json:"meta"` // meta.json, which cannot list itself in Files
	Files files   `json:"files"`
}

// lazyEntry is a manifest entry whose JSON is decoded on first use: a reader
// that opens a large collection to read a few documents never decodes the
// others.
type lazyEntry struct {
	dir string // from the record's fixed fields, so it is known without decoding
	raw []byte // the entry's JSON (for an entry of a checkpoint, once read)
	// off and n locate the entry's record (the whole line) in the log; off
	// is -1 for an entry not read from a log. An entry loaded from a
	// checkpoint (checkpoint.go) has no raw until first used: src reads its
	// record from the log then, and sha is its source's SHA-256 (32 bytes,
	// or empty) meanwhile.
	off  int64
	n    int32
	src  *logSource
	sha  string
	once sync.Once
	e    *entry
	err  error
}

func decodedEntry(e *entry) *lazyEntry {
	l := &lazyEntry{dir: e.Dir, e: e, off: -1}
	l.once.Do(func() {})
	return l
}

// get returns the decoded entry.
func (l *lazyEntry) get() (*entry, error) {
	l.once.Do(func() {
		if l.src != nil {
			raw, err := l.src.record(l)
			if err != nil {
				l.err = fmt.Errorf("damaged manifest record for %s: %w", l.dir, err)
				return
			}
			l.raw = raw
		}
		var e entry
		if err := json.Unmarshal(l.raw, &e); err != nil {
			l.err = fmt.Errorf("damaged manifest record for %s: %w", l.dir, err)
			return
		}
		e.Dir = l.dir
		l.e = &e
	})
	return l.e, l.err
}

// infos decodes the entries of m's live documents that keep accepts (all,
// when nil) and returns their summaries, in no order (listed).
func (m *manifest) infos(collection string, keep func(id string, l *lazyEntry) bool) ([]DocInfo, error) {
	docs, err := m.listed(collection, keep)
	if err != nil {
		return nil, err
	}
	out := make([]DocInfo, len(docs))
	for i := range docs {
		out[i] = docs[i].info
	}
	return out, nil
}

// listed decodes the entries of m's live documents that keep accepts (all,
// when nil) and returns them with their ids and version directories, in no
// order. A large collection's records are decoded on every core the process
// may use (each entry decodes once, whoever asks first); the error returned
// is that of the first failing entry in the order they were taken, as one
// decoder would meet it.
func (m *manifest) listed(collection string, keep func(id string, l *lazyEntry) bool) ([]listed, error) {
	type item struct {
		id string
		l  *lazyEntry
	}
	items := make([]item, 0, len(m.Docs))
	for id, l := range m.Docs {
		if keep == nil || keep(id, l) {
			items = append(items, item{id, l})
		}
	}
	out := make([]listed, len(items))
	errs := make([]error, len(items))
	decode := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e, err := items[i].l.in(collection, items[i].id)
			if err != nil {
				errs[i] = err
				continue
			}
			out[i] = listed{id: items[i].id, dir: items[i].l.dir, info: e.info()}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(items)/parallelInfos)
	if workers < 2 {
		decode(0, len(items))
	} else {
		var wg sync.WaitGroup
		per := (len(items) + workers - 1) / workers
		for lo := 0; lo < len(items); lo += per {
			wg.Go(func() { decode(lo, min(lo+per, len(items))) })
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parallelInfos is how many records a decoder of infos takes at least: a
// collection smaller than two of these is decoded on one core.
const parallelInfos = 2048

// in is get for document id of collection, its error saying which.
func (l *lazyEntry) in(collection, id string) (*entry, error) {
	e, err := l.get()
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: document %q: %w", collection, id, err)
	}
	return e, nil
}

// encoded returns the entry's JSON.
func (l *lazyEntry) encoded() ([]byte, error) {
	if l.src != nil {
		if _, err := l.get(); err != nil {
			return nil, err
		}
	}
	if l.raw != nil {
		return l.raw, nil
	}
	return json.Marshal(l.e)
}

// files lists the checksums of a document version's files, so reads can
// verify them without parsing meta.json.
type files struct {
	Text      fileSum            `json:"text"`
	Tree      *fileSum           `json:"tree,omitempty"` // nil when stored without a tree
	Artifacts map[string]fileSum `json:"artifacts,omitempty"`
}

type fileSum struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

func newManifest() *manifest {
	return &manifest{
		Generation: uint64(time.Now().UnixNano()),
		Created:    time.Now().UTC(),
		Docs:       map[string]*lazyEntry{},
	}
}

// logLine encodes one record: "<crc32c> <op> <gen> <id> <json>\n", the
// checksum (8 hex digits) covering everything after it up to the newline.
func logLine(op byte, gen uint64, id string, body []byte) []byte {
	rest := make([]byte, 0, len(body)+len(id)+24)
	rest = append(rest, op, ' ')
	rest = strconv.AppendUint(rest, gen, 10)
	rest = append(rest, ' ')
	rest = append(rest, id...)
	rest = append(rest, ' ')
	rest = append(rest, body...)
	line := fmt.Appendf(nil, "%08x ", crc32.Checksum(rest, crcTable))
	line = append(line, rest...)
	return append(line, '\n')
}

// header is the JSON of a log's first record.
type header struct {
	Format  int       `json:"format"`
	Created time.Time `json:"created"`
}

// errTorn marks a log whose last record is incomplete or fails its checksum
// with nothing after it: what a writer that died while appending leaves.
var errTorn = errors.New("torn last record")

// applyLog applies the complete records of data to m (a nil m starts from
// the header record, which data must then begin with) and returns the state
// and how many bytes it consumed. An incomplete last line is left unconsumed
// without error: a writer may be appending it. A complete last line that
// fails its checksum is left unconsumed with errTorn. Any other malformed
// record is an error: the log is damaged. The entries of m keep pieces of
// data, which must not be changed afterwards. base is the offset of data in
// the log, recorded in the entries (a checkpoint lists them).
func applyLog(m *manifest, data []byte, base int64) (*manifest, int, error) {
	off := 0
	for off < len(data) {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return m, off, nil
		}
		line := data[off : off+nl]
		err := applyLine(&m, line, base+int64(off))
		if err != nil {
			if off+nl+1 == len(data) && errors.Is(err, errChecksum) {
				return m, off, errTorn
			}
			return m, off, fmt.Errorf("record at byte %d: %w", off, err)
		}
		off += nl + 1
	}
	if m == nil {
		return nil, 0, nil
	}
	return m, off, nil
}

var errChecksum = errors.New("checksum mismatch")

// parseLine checks one record's checksum and splits it into its fields.
func parseLine(line []byte) (op byte, gen uint64, id []byte, body []byte, err error) {
	if len(line) < 9 || line[8] != ' ' {
		return 0, 0, nil, nil, errChecksum
	}
	want, err := strconv.ParseUint(string(line[:8]), 16, 32)
	rest := line[9:]
	if err != nil || uint32(want) != crc32.Checksum(rest, crcTable) {
		return 0, 0, nil, nil, errChecksum
	}
	f := bytes.SplitN(rest, []byte{' '}, 4)
	if len(f) != 4 || len(f[0]) != 1 {
		return 0, 0, nil, nil, errors.New("malformed record")
	}
	gen, err = strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0, 0, nil, nil, errors.New("malformed generation")
	}
	return f[0][0], gen, f[2], f[3], nil
}

// applyLine applies one record, the line at offset off of the log, to *mp.
func applyLine(mp **manifest, line []byte, off int64) error {
	op, gen, idb, body, err := parseLine(line)
	if err != nil {
		return err
	}
	id := string(idb)
	m := *mp
	if op == opHeader {
		if m != nil {
			return errors.New("second header")
		}
		var h header
		if err := json.Unmarshal(body, &h); err != nil {
			return fmt.Errorf("header: %w", err)
		}
		if h.Format < 2 || h.Format > FormatVersion {
			return fmt.Errorf("unsupported manifest format %d", h.Format)
		}
		*mp = &manifest{Generation: gen, Created: h.Created, Docs: map[string]*lazyEntry{}}
		return nil
	}
	if m == nil {
		return errors.New("no header")
	}
	if !validName(id, 128) {
		return fmt.Errorf("bad document id %q", id)
	}
	switch op {
	case opSnapshot:
		if gen > m.Generation {
			return fmt.Errorf("document %q: revision %d above the snapshot's generation", id, gen)
		}
	case opPut, opDelete:
		if gen <= m.Generation {
			return fmt.Errorf("document %q: generation %d does not follow %d", id, gen, m.Generation)
		}
		m.Generation = gen
	default:
		return fmt.Errorf("unknown record kind %q", op)
	}
	m.records++
	if op == opDelete {
		m.replaced(id, m.Docs[id], nil)
		delete(m.Docs, id)
		return nil
	}
	// The entry keeps its piece of the caller's buffer, not a copy (a large
	// collection's log is megabytes: copying it doubled a reader's cost of
	// opening it); callers pass a buffer read for the purpose and never
	// change it (applyLog).
	l := &lazyEntry{dir: versionDir(id, gen), raw: body[:len(body):len(body)], off: off, n: int32(len(line) + 1)}
	if len(line) >= math.MaxInt32 {
		l.off, l.n = -1, 0 // too long to list in a checkpoint
	}
	m.replaced(id, m.Docs[id], l)
	m.Docs[id] = l
	return nil
}

// snapshot encodes m as a complete log: a header and one record per live
// document, sorted by id.
func snapshot(m *manifest) ([]byte, error) {
	hb, err := json.Marshal(header{Format: FormatVersion, Created: m.Created})
	if err != nil {
		return nil, err
	}
	out := logLine(opHeader, m.Generation, "-", hb)
	for _, id := range slices.Sorted(maps.Keys(m.Docs)) {
		l := m.Docs[id]
		rev, ok := dirRev(id, l.dir)
		if !ok {
			return nil, fmt.Errorf("document %q: bad directory %q", id, l.dir)
		}
		body, err := l.encoded()
		if err != nil {
			return nil, err
		}
		out = append(out, logLine(opSnapshot, rev, id, body)...)
	}
	return out, nil
}

// versionDir names the directory of document id's version rev.
func versionDir(id string, rev uint64) string { return id + "@" + strconv.FormatUint(rev, 10) }

// dirRev parses a version directory name made by versionDir for id.
func dirRev(id, dir string) (uint64, bool) {
	rest, ok := strings.CutPrefix(dir, id+"@")
	if !ok || rest == "" || rest[0] == '0' && len(rest) > 1 {
		return 0, false
	}
	rev, err := strconv.ParseUint(rest, 10, 64)
	return rev, err == nil
}

// collState is what this process knows of one collection's log: the open
// file and the state its first off bytes describe. Readers bring it up to
// date by reading only what was appended since (a compaction replaces the
// file, which they notice by its identity: the open descriptor keeps the old
// inode alive, so its number cannot be reused meanwhile).
type collState struct {
	mu  sync.RWMutex
	f   *os.File // nil once replaced
	fi  os.FileInfo
	off int64
	m   *manifest
	// ckpt is how much of the log the collection's checkpoint covers, as
	// far as this process knows (0: none known).
	ckpt int64

	// listed is the collection's sorted listing (List) as of log offset
	// listedAt and generation listedGen: listing 46,800 documents costs
	// about a second of processor time, and the faces list a collection
	// on every document list and whole-collection question. The copies
	// handed out share the summaries' Artifacts and ArtifactSums.
	listMu    sync.Mutex
	listed    []DocInfo
	listedAt  int64
	listedGen uint64
	// making is held while a listing is made, so listings asked at once
	// (a server's opening and its first document list) make it once.
	making sync.Mutex
}

// listing returns a copy of the listing kept for the state as it is (cs.mu
// held), if any.
func (cs *collState) listing() ([]DocInfo, bool) {
	cs.listMu.Lock()
	defer cs.listMu.Unlock()
	if cs.listed == nil || cs.listedAt != cs.off || cs.listedGen != cs.m.Generation {
		return nil, false
	}
	return slices.Clone(cs.listed), true
}

// keepListing keeps a copy of the listing made at log offset off and
// generation gen.
func (cs *collState) keepListing(off int64, gen uint64, infos []DocInfo) {
	cs.listMu.Lock()
	defer cs.listMu.Unlock()
	cs.listed, cs.listedAt, cs.listedGen = slices.Clone(infos), off, gen
}

// state returns the current state of a collection, reading what was
// appended to its log since the last call. A default collection nobody has
// written to yields an empty state with generation 0; any other missing
// collection yields an error wrapping ErrNotFound.
func (s *Store) state(collection string) (*collState, error) {
	path := filepath.Join(s.collectionDir(collection), logName)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.dropState(collection)
		if collection == DefaultCollection {
			return &collState{m: &manifest{Docs: map[string]*lazyEntry{}}}, nil
		}
		return nil, fmt.Errorf("store: collection %q: %w", collection, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: %w", collection, err)
	}
	if cs, ok, err := s.cachedState(collection, fi); ok || err != nil {
		return cs, err
	}
	// One opening of a collection at a time: requests that find it closed
	// at once (a server's opening and its first document list) share it
	// rather than each read the whole log.
	mu, _ := s.opening.LoadOrStore(collection, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	cs, err := s.openState(collection, path)
	mu.(*sync.Mutex).Unlock()
	if errors.Is(err, fs.ErrNotExist) { // deleted or replaced meanwhile
		return s.state(collection)
	}
	return cs, err
}

// cachedState returns the kept state of a collection whose log is fi,
// brought up to date, when there is one that can be.
func (s *Store) cachedState(collection string, fi os.FileInfo) (*collState, bool, error) {
	s.cmu.Lock()
	cs := s.cache[collection]
	s.cmu.Unlock()
	if cs != nil {
		// Nothing appended since: the state as it is, without waiting
		// for the write lock behind a long read (listing a large
		// collection).
		cs.mu.RLock()
		current := cs.f != nil && os.SameFile(cs.fi, fi) && fi.Size() == cs.off
		cs.mu.RUnlock()
		if current {
			return cs, true, nil
		}
		cs.mu.Lock()
		// A log rewritten in place (recovery cutting off a torn record, or
		// something outside the store) is read again from the start.
		if cs.f != nil && os.SameFile(cs.fi, fi) && fi.Size() >= cs.off {
			err := cs.catchUp(fi.Size())
			cs.mu.Unlock()
			if err != nil {
				return nil, false, fmt.Errorf("store: collection %q: damaged %s (reopen the store to recover): %w", collection, logName, err)
			}
			return cs, true, nil
		}
		cs.mu.Unlock()
	}
	return nil, false, nil
}

// openState reads a collection's log at path into a new state and keeps
// it, unless an opening it waited for kept a current one; an error
// wrapping fs.ErrNotExist when the log is gone.
func (s *Store) openState(collection, path string) (*collState, error) {
	if fi, err := os.Stat(path); err == nil {
		if cs, ok, err := s.cachedState(collection, fi); ok || err != nil {
			return cs, err
		}
	}
	flag := os.O_RDWR | os.O_APPEND
	if s.readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("store: collection %q: %w", collection, err)
	}
	ffi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: collection %q: %w", collection, err)
	}
	ncs := &collState{f: f, fi: ffi}
	// A checkpoint saves reading (and checking) the log up to where it
	// covers; the records after that are read as usual. Any doubt about it
	// and the whole log is read, as without one.
	if m, covered, ok := readCheckpoint(s.collectionDir(collection), f, ffi.Size()); ok {
		if m, used, err := tail(f, m, covered, ffi.Size()); err == nil || errors.Is(err, errTorn) {
			ncs.m, ncs.off, ncs.ckpt = m, covered+int64(used), covered
		}
	}
	if err := ncs.catchUp(ffi.Size()); err != nil {
		f.Close()
		return nil, fmt.Errorf("store: collection %q: damaged %s (reopen the store to recover): %w", collection, logName, err)
	}
	if ncs.m == nil {
		f.Close()
		return nil, fmt.Errorf("store: collection %q: damaged %s (reopen the store to recover): no header", collection, logName)
	}
	s.cmu.Lock()
	old := s.cache[collection]
	s.cache[collection] = ncs
	s.cmu.Unlock()
	if old != nil {
		old.close()
	}
	return ncs, nil
}

// catchUp applies the records between cs.off and size. Called with cs.mu
// held.
func (cs *collState) catchUp(size int64) error {
	if size <= cs.off {
		return nil
	}
	m, used, err := tail(cs.f, cs.m, cs.off, size)
	if err != nil && !errors.Is(err, errTorn) {
		// Some records may have been applied: read the whole log again
		// next time rather than continue from a state that is not at off.
		cs.f.Close()
		cs.f = nil
		return err
	}
	cs.m = m
	cs.off += int64(used)
	return nil
}

// tail applies to m the records of f between off and size, as applyLog.
func tail(f *os.File, m *manifest, off, size int64) (*manifest, int, error) {
	buf := make([]byte, size-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return m, 0, err
	}
	return applyLog(m, buf[:n], off)
}

func (cs *collState) close() {
	cs.mu.Lock()
	if cs.f != nil {
		cs.f.Close()
		cs.f = nil
	}
	cs.mu.Unlock()
}

// Forget drops what this process keeps in memory of a collection's state
// (its manifest: about 180 MB at 46,800 documents once all are listed), for
// a long task that no longer needs it, such as the merges after indexing.
// The next use reads it again from disk (through the checkpoint, which
// decodes only what is asked for).
func (s *Store) Forget(collection string) {
	if checkCollection(collection) == nil {
		s.dropState(collection)
	}
}

// dropState forgets a collection's cached state.
func (s *Store) dropState(collection string) {
	s.cmu.Lock()
	cs := s.cache[collection]
	delete(s.cache, collection)
	s.cmu.Unlock()
	if cs != nil {
		cs.close()
	}
}

// view calls fn with the current manifest of a collection, which fn must
// not change or keep; writers to the collection in this process wait until
// fn returns.
func (s *Store) view(collection string, fn func(m *manifest) error) error {
	return s.viewState(collection, func(cs *collState) error { return fn(cs.m) })
}

// viewState is view with the collection's state.
func (s *Store) viewState(collection string, fn func(cs *collState) error) error {
	cs, err := s.state(collection)
	if err != nil {
		return err
	}
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return fn(cs)
}

// appendRecord appends one record to a collection's log and fsyncs it.
// committed reports whether the record may have become visible to readers;
// a record that could not be written whole is cut off again. Called with the
// write lock held.
func (s *Store) appendRecord(collection string, line []byte) (committed bool, err error) {
	if err := fault("manifest"); err != nil {
		return false, err
	}
	cs, err := s.state(collection)
	if err != nil {
		return false, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.f == nil {
		return false, errors.New("manifest replaced during a write")
	}
	// The state is current (the write lock is held), so cs.off is the end of
	// the last complete record: anything after it is a torn record of a
	// writer that died, which this append replaces.
	if err := cs.f.Truncate(cs.off); err != nil {
		return false, err
	}
	if _, err := cs.f.Write(line); err != nil {
		if terr := cs.f.Truncate(cs.off); terr != nil {
			return true, errors.Join(err, terr)
		}
		return false, err
	}
	if err := cs.f.Sync(); err != nil {
		return true, err
	}
	return true, nil
}

// writeSnapshot replaces a collection's log by a snapshot of m. Called with
// the write lock held.
func (s *Store) writeSnapshot(collection string, m *manifest) error {
	data, err := snapshot(m)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(s.collectionDir(collection), logName), data, 0o644); err != nil {
		return err
	}
	s.dropState(collection)
	s.maybeCheckpoint(collection)
	return nil
}

// maybeCompact rewrites a collection's log as a snapshot once superseded
// records outnumber live ones. Called with the write lock held.
func (s *Store) maybeCompact(collection string) error {
	var data []byte
	if err := s.view(collection, func(m *manifest) (err error) {
		if m.dead() >= compactMinDead && m.dead() > len(m.Docs) {
			data, err = snapshot(m)
		}
		return err
	}); err != nil {
		return err
	}
	if data == nil {
		s.maybeCheckpoint(collection)
		return nil
	}
	if err := atomicfile.Write(filepath.Join(s.collectionDir(collection), logName), data, 0o644); err != nil {
		return err
	}
	s.dropState(collection)
	s.maybeCheckpoint(collection)
	return nil
}
