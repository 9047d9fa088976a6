package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"weak"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/filelock"
)

// A Dir is a collection's index on disk, as Lucene keeps one: immutable
// segment files, and a small commit file naming the segments of the current
// state in order, with the documents of each that were deleted since it was
// written (tombstones). Nothing is ever written into a file that a commit
// names:
//
//	dir/COMMIT              the current commit (JSON), replaced atomically
//	dir/LOCK                flock(2) target: one writer of commits at a time
//	dir/seg-<n>-<rand>.pks  a segment (file.go)
//	dir/aux-<commit>-<name> a file derived from one commit (an association table)
//	dir/<temporary>         files being written (atomicfile.TempPrefix)
//
// A change — new segments (Apply), deletions (Apply), a merge of adjacent
// segments into one (Merge) — writes its new files under temporary names,
// fsyncs them, renames them into place, and only then writes a new commit
// (temporary file, fsync, rename, fsync of the directory). A crash at any
// point leaves the old commit or the new one, each naming only complete
// files. Files no commit names are removed by the next writer (gc): segment
// and auxiliary files of older commits, and temporary files whose writer is
// gone (a writer holds a lock on its temporary file while it writes, so a
// merge running in another process is never disturbed).
//
// Readers take no lock: they read the commit and open its segments. A
// segment removed meanwhile by a writer (it was merged away) makes the
// reader read the commit again; a segment already opened stays readable
// until it is unmapped, since its file is only unlinked.
//
// A commit carries a label, the caller's: the store generation it reflects,
// so a loader can tell whether the index is up to date without reading its
// segments.
type Dir struct {
	path string
}

// commitFormat is the version of the commit file's content.
const commitFormat = 1

const (
	commitName = "COMMIT"
	lockName   = "LOCK"
	segPrefix  = "seg-"
	segSuffix  = ".pks"
	auxPrefix  = "aux-"
)

// Commit is one state of a Dir.
type Commit struct {
	Format int `json:"format"`
	// ID increases with every commit of the directory.
	ID uint64 `json:"id"`
	// Label is the caller's (Apply): what the commit reflects.
	Label    uint64          `json:"label"`
	Segments []CommitSegment `json:"segments"`
	NextSeg  uint64          `json:"next_segment"`
}

// CommitSegment is one segment of a commit.
type CommitSegment struct {
	Name  string `json:"name"`
	Docs  int    `json:"docs"`
	Units int    `json:"units"`
	Bytes int64  `json:"bytes"`
	// Deleted lists the segment's deleted documents (by number within it),
	// sorted.
	Deleted []int32 `json:"deleted,omitempty"`
}

// LiveUnits estimates the units of the segment's live documents (in
// proportion to the documents left).
func (cs CommitSegment) LiveUnits() int {
	if cs.Docs == 0 {
		return 0
	}
	return cs.Units * (cs.Docs - len(cs.Deleted)) / cs.Docs
}

// OpenDir returns the index directory at path, creating it (not its
// parents) when missing.
func OpenDir(path string) (*Dir, error) {
	if err := os.Mkdir(path, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("search index %s: %w", path, err)
	}
	return &Dir{path: path}, nil
}

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// Commit reads the current commit; a directory never committed to has the
// zero Commit. A commit of another format is an error wrapping ErrBadIndex.
func (d *Dir) Commit() (Commit, error) {
	data, err := os.ReadFile(filepath.Join(d.path, commitName))
	if errors.Is(err, fs.ErrNotExist) {
		return Commit{Format: commitFormat}, nil
	}
	if err != nil {
		return Commit{}, fmt.Errorf("search index %s: %w", d.path, err)
	}
	var c Commit
	if err := json.Unmarshal(data, &c); err != nil {
		return Commit{}, fmt.Errorf("%w: %s: commit: %v", ErrBadIndex, d.path, err)
	}
	if c.Format != commitFormat {
		return Commit{}, fmt.Errorf("%w: %s: commit of format %d", ErrBadIndex, d.path, c.Format)
	}
	for _, s := range c.Segments {
		if !validSegName(s.Name) || !sort.SliceIsSorted(s.Deleted, func(i, j int) bool { return s.Deleted[i] < s.Deleted[j] }) {
			return Commit{}, fmt.Errorf("%w: %s: commit names %q", ErrBadIndex, d.path, s.Name)
		}
	}
	return c, nil
}

func validSegName(n string) bool {
	return strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix) && !strings.ContainsAny(n, `/\`)
}

// segName names the n-th segment of a directory. The random part keeps
// names unique across directories that share segments (the app servers of
// a cluster: docs/SCALE.md), so a name always means one file.
func segName(n uint64) string {
	return fmt.Sprintf("%s%010d-%08x%s", segPrefix, n, rand.Uint32(), segSuffix)
}

// Open reads the current commit and opens its segments.
func (d *Dir) Open() (*Snapshot, Commit, error) {
	for attempt := 0; ; attempt++ {
		c, err := d.Commit()
		if err != nil {
			return nil, c, err
		}
		snap, err := d.Snapshot(c)
		if err == nil {
			return snap, c, nil
		}
		// A segment merged away between reading the commit and opening it:
		// read the commit again.
		if errors.Is(err, fs.ErrNotExist) && attempt < 5 {
			if c2, err2 := d.Commit(); err2 == nil && c2.ID != c.ID {
				continue
			}
		}
		return nil, c, err
	}
}

// segCache holds the segments opened in this process by path, so commits
// that share segments share their mappings. An entry is used only for the
// same file (a directory removed and made again reuses names).
var segCache sync.Map // path → cachedSeg

type cachedSeg struct {
	seg  weak.Pointer[Segment]
	file os.FileInfo
}

// segment opens (or finds already open) the segment file of a commit.
func (d *Dir) segment(name string) (*Segment, error) {
	path := filepath.Join(d.path, name)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if e, ok := segCache.Load(path); ok {
		if c := e.(cachedSeg); os.SameFile(c.file, fi) && c.file.Size() == fi.Size() && c.file.ModTime().Equal(fi.ModTime()) {
			if s := c.seg.Value(); s != nil {
				return s, nil
			}
		}
	}
	s, err := OpenSegment(path)
	if err != nil {
		return nil, err
	}
	s.name = name
	c := cachedSeg{weak.Make(s), fi}
	segCache.Store(path, c)
	runtime.AddCleanup(s, func(path string) { segCache.CompareAndDelete(path, c) }, path)
	return s, nil
}

// Snapshot opens the segments of commit c.
func (d *Dir) Snapshot(c Commit) (*Snapshot, error) { return d.SnapshotWith(c, nil) }

// StatsName names the stats file of a segment (WriteStatsFile) beside it.
func StatsName(segment string) string { return segment + ".stats" }

// SnapshotWith opens the segments of commit c, the stats files of those
// statsOnly says (a shard's snapshot: search.Sharding).
func (d *Dir) SnapshotWith(c Commit, statsOnly func(i int) bool) (*Snapshot, error) {
	segs := make([]*Segment, len(c.Segments))
	del := make([][]int32, len(c.Segments))
	for i, cs := range c.Segments {
		name := cs.Name
		if statsOnly != nil && statsOnly(i) {
			name = StatsName(cs.Name)
		}
		s, err := d.segment(name)
		if err != nil {
			return nil, err
		}
		if s.NumDocs() != cs.Docs {
			return nil, fmt.Errorf("%w: %s: segment %s holds %d documents, the commit says %d", ErrBadIndex, d.path, cs.Name, s.NumDocs(), cs.Docs)
		}
		segs[i], del[i] = s, cs.Deleted
	}
	snap, err := NewSnapshot(segs, del)
	if err != nil {
		return nil, fmt.Errorf("search index %s: %w", d.path, err)
	}
	snap.commit = c.ID
	snap.label = c.Label
	return snap, nil
}

// Lock takes the directory's writer lock, waiting for another writer (in
// this or another process) to finish; unlock releases it.
func (d *Dir) Lock() (unlock func(), err error) {
	f, err := filelock.Open(filepath.Join(d.path, lockName))
	if err != nil {
		return nil, fmt.Errorf("search index %s: lock: %w", d.path, err)
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("search index %s: lock: %w", d.path, err)
	}
	return func() { filelock.Unlock(f); f.Close() }, nil
}

// Apply makes a new commit from base (the current commit, read with the
// lock held): the live documents with the given ids are deleted from the
// segments base has, and segments built in memory are written and
// appended, in order (so a document replaced by a new version is deleted
// in its old place and found in the new). The caller holds the lock. It
// returns the new commit.
func (d *Dir) Apply(base Commit, add []*Segment, deleteIDs []string, label uint64) (Commit, error) {
	c := cloneCommit(base)
	c.Label = label
	var written []string
	fail := func(err error) (Commit, error) {
		for _, n := range written {
			os.Remove(filepath.Join(d.path, n))
		}
		return base, fmt.Errorf("search index %s: %w", d.path, err)
	}
	// Deletions first, from the segments the commit had: a document
	// replaced by one of the new segments is deleted in its old place. (A
	// shard holds some segments as stats files only: they have the
	// documents' ids too.)
	if len(deleteIDs) > 0 {
		snap, err := d.SnapshotWith(c, func(i int) bool { return !d.Has(c.Segments[i].Name) && d.Has(StatsName(c.Segments[i].Name)) })
		if err != nil {
			return fail(err)
		}
		for _, id := range deleteIDs {
			g, ok := snap.LookupDoc(id)
			if !ok {
				continue
			}
			i, doc := snap.SegmentOfDoc(g)
			cs := &c.Segments[i]
			k := sort.Search(len(cs.Deleted), func(k int) bool { return cs.Deleted[k] >= doc })
			if k < len(cs.Deleted) && cs.Deleted[k] == doc {
				continue
			}
			cs.Deleted = append(cs.Deleted, 0)
			copy(cs.Deleted[k+1:], cs.Deleted[k:])
			cs.Deleted[k] = doc
		}
	}
	for _, s := range add {
		if s.NumDocs() == 0 {
			continue
		}
		name := segName(c.NextSeg)
		c.NextSeg++
		size, err := WriteSegmentFile(filepath.Join(d.path, name), s)
		if err != nil {
			return fail(err)
		}
		written = append(written, name)
		c.Segments = append(c.Segments, CommitSegment{Name: name, Docs: s.NumDocs(), Units: s.NumUnits(), Bytes: size})
	}
	if err := d.writeCommit(&c); err != nil {
		return fail(err)
	}
	d.gc(c)
	return c, nil
}

// SetLabel commits base again under a new label (nothing else changes).
// The caller holds the lock.
func (d *Dir) SetLabel(base Commit, label uint64) (Commit, error) {
	c := cloneCommit(base)
	c.Label = label
	if err := d.writeCommit(&c); err != nil {
		return base, fmt.Errorf("search index %s: %w", d.path, err)
	}
	d.gc(c)
	return c, nil
}

// Reset empties the directory's commit (every segment is dropped; the files
// go at the next gc). The caller holds the lock.
func (d *Dir) Reset(base Commit) (Commit, error) {
	c := Commit{Format: commitFormat, ID: base.ID, NextSeg: base.NextSeg}
	if err := d.writeCommit(&c); err != nil {
		return base, fmt.Errorf("search index %s: %w", d.path, err)
	}
	d.gc(c)
	return c, nil
}

func cloneCommit(c Commit) Commit {
	out := c
	out.Format = commitFormat
	out.Segments = make([]CommitSegment, len(c.Segments))
	for i, s := range c.Segments {
		out.Segments[i] = s
		out.Segments[i].Deleted = append([]int32(nil), s.Deleted...)
	}
	return out
}

// writeCommit writes c as the directory's commit, with a new ID: a random
// number, so two directories that share segments (the app servers of a
// cluster) never give one ID to two different commits.
func (d *Dir) writeCommit(c *Commit) error {
	for prev := c.ID; c.ID == prev || c.ID == 0; {
		c.ID = rand.Uint64()
	}
	return d.putCommit(*c)
}

// putCommit writes c, as it is, as the directory's commit.
func (d *Dir) putCommit(c Commit) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(d.path, commitName), data, 0o644)
}

// AuxPath returns the path of a file derived from commit id (an
// association table): valid while that commit is current.
func (d *Dir) AuxPath(commit uint64, name string) string {
	return filepath.Join(d.path, auxPrefix+strconv.FormatUint(commit, 10)+"-"+name)
}

// PutAux writes a file derived from commit id (temporary file, fsync,
// rename). It takes no lock: when the commit is no longer current the file
// is useless and the next writer removes it.
func (d *Dir) PutAux(commit uint64, name string, write func(f *os.File) error) error {
	if err := writeFileAtomic(d.AuxPath(commit, name), write); err != nil {
		return fmt.Errorf("search index %s: %w", d.path, err)
	}
	return nil
}

// gc removes what commit c does not name: segment files, auxiliary files of
// other commits, and temporary files whose writer is gone. Errors are
// ignored: what is left is tried again by the next writer.
func (d *Dir) gc(c Commit) {
	live := map[string]bool{}
	for _, s := range c.Segments {
		live[s.Name] = true
		live[StatsName(s.Name)] = true
	}
	auxLive := auxPrefix + strconv.FormatUint(c.ID, 10) + "-"
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, segPrefix):
			if !live[n] {
				os.Remove(filepath.Join(d.path, n))
			}
		case strings.HasPrefix(n, auxPrefix):
			if !strings.HasPrefix(n, auxLive) {
				os.Remove(filepath.Join(d.path, n))
			}
		case strings.HasPrefix(n, atomicfile.TempPrefix):
			removeAbandoned(filepath.Join(d.path, n))
		}
	}
}

// removeAbandoned removes a temporary file nobody holds a lock on (and
// that is not brand new: its writer locks it right after creating it).
func removeAbandoned(path string) {
	if fi, err := os.Stat(path); err != nil || time.Since(fi.ModTime()) < time.Minute {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if filelock.TryLock(f) != nil {
		return // being written
	}
	os.Remove(path)
	filelock.Unlock(f)
}

// ErrNoSpace reports that a merge was not started, or failed, for want of
// disk space: the segments it would have merged are left as they are.
var ErrNoSpace = errors.New("not enough disk space")

// Merge merges the named segments of the current commit (adjacent, in
// order) into one and commits it. The long part — writing the merged
// segment — runs without the lock, so searches and new commits go on; the
// merged segment replaces its inputs only if the commit still holds them
// (documents deleted from them meanwhile are deleted from it too). A merge
// that fails or dies leaves the commit as it was: its temporary file is
// removed, by itself or, after a crash, by the next writer. It checks
// first that the disk has room for the merged segment. progress, when set,
// is called with the bytes written and the bytes expected.
func (d *Dir) Merge(names []string, progress func(written, total int64)) (Commit, MergeStats, error) {
	c0, err := d.Commit()
	if err != nil {
		return c0, MergeStats{}, err
	}
	lo := runOf(c0, names)
	if lo < 0 {
		return c0, MergeStats{}, fmt.Errorf("search index %s: merge: segments %v are not adjacent in the commit", d.path, names)
	}
	segs := make([]*Segment, len(names))
	dels := make([][]int32, len(names))
	var expect int64
	for k := range names {
		cs := c0.Segments[lo+k]
		s, err := d.segment(cs.Name)
		if err != nil {
			return c0, MergeStats{}, err
		}
		segs[k], dels[k] = s, cs.Deleted
		if cs.Docs > 0 {
			expect += cs.Bytes * int64(cs.Docs-len(cs.Deleted)) / int64(cs.Docs)
		}
	}
	if free := freeBytes(d.path); free >= 0 && free < expect+64<<20 {
		return c0, MergeStats{}, fmt.Errorf("search index %s: merging %d segments needs about %d MB, %d MB are free: %w", d.path, len(names), expect>>20, free>>20, ErrNoSpace)
	}
	var st MergeStats
	var tmp string
	err = func() error {
		f, err := os.CreateTemp(d.path, tmpPrefix+"*")
		if err != nil {
			return err
		}
		tmp = f.Name()
		filelock.TryLock(f) // so another writer's gc leaves it alone
		defer f.Close()
		w := newFileWriter(f, segmentMagic, segmentFormat, numSections)
		if progress != nil {
			w.progress = func(n int64) { progress(n, expect) }
		}
		if st, err = mergeSegments(w, segs, dels); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		return f.Close()
	}()
	if err != nil {
		os.Remove(tmp)
		if errors.Is(err, syscall.ENOSPC) {
			err = fmt.Errorf("%w (%v)", ErrNoSpace, err)
		}
		return c0, st, fmt.Errorf("search index %s: merge of %d segments: %w", d.path, len(names), err)
	}
	unlock, err := d.Lock()
	if err != nil {
		os.Remove(tmp)
		return c0, st, err
	}
	defer unlock()
	c1, err := d.Commit()
	if err != nil {
		os.Remove(tmp)
		return c0, st, err
	}
	lo1 := runOf(c1, names)
	if lo1 < 0 {
		os.Remove(tmp) // another merge took them
		return c1, st, nil
	}
	// Documents deleted from the inputs since the merge began: their new
	// numbers in the merged segment.
	var deleted []int32
	next := int32(0)
	for k := range names {
		was := map[int32]bool{}
		for _, x := range c0.Segments[lo+k].Deleted {
			was[x] = true
		}
		now := map[int32]bool{}
		for _, x := range c1.Segments[lo1+k].Deleted {
			now[x] = true
		}
		for doc := range int32(segs[k].NumDocs()) {
			if was[doc] {
				continue
			}
			if now[doc] {
				deleted = append(deleted, next)
			}
			next++
		}
	}
	c2 := cloneCommit(c1)
	name := segName(c2.NextSeg)
	c2.NextSeg++
	if err := os.Rename(tmp, filepath.Join(d.path, name)); err != nil {
		os.Remove(tmp)
		return c1, st, fmt.Errorf("search index %s: %w", d.path, err)
	}
	merged := CommitSegment{Name: name, Docs: st.Docs, Units: st.Units, Bytes: st.Bytes, Deleted: deleted}
	c2.Segments = append(append(append([]CommitSegment{}, c2.Segments[:lo1]...), merged), c2.Segments[lo1+len(names):]...)
	if err := d.writeCommit(&c2); err != nil {
		os.Remove(filepath.Join(d.path, name))
		return c1, st, fmt.Errorf("search index %s: %w", d.path, err)
	}
	d.gc(c2)
	return c2, st, nil
}

// runOf returns where names stand, adjacent and in order, in c; -1 when
// they do not.
func runOf(c Commit, names []string) int {
	if len(names) == 0 {
		return -1
	}
	for i, s := range c.Segments {
		if s.Name != names[0] {
			continue
		}
		if i+len(names) > len(c.Segments) {
			return -1
		}
		for k, n := range names {
			if c.Segments[i+k].Name != n {
				return -1
			}
		}
		return i
	}
	return -1
}

// Has reports whether the directory holds a file (a segment, its stats
// file, an auxiliary file) by name.
func (d *Dir) Has(name string) bool {
	_, err := os.Stat(filepath.Join(d.path, name))
	return err == nil
}

// PutFile writes a file fetched from elsewhere (a segment another process
// wrote, its stats file) into the directory: temporary file, fsync,
// rename. The name must be one a commit may name.
func (d *Dir) PutFile(name string, write func(w io.Writer) error) error {
	if !validSegName(strings.TrimSuffix(name, ".stats")) && !strings.HasPrefix(name, auxPrefix) || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("search index %s: %q is not an index file name", d.path, name)
	}
	err := writeFileAtomic(filepath.Join(d.path, name), func(f *os.File) error { return write(f) })
	if err != nil {
		return fmt.Errorf("search index %s: %s: %w", d.path, name, err)
	}
	return nil
}

// Open opens a file of the directory for reading (to copy it elsewhere).
func (d *Dir) OpenFile(name string) (*os.File, error) {
	if strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("search index %s: %q is not an index file name", d.path, name)
	}
	return os.Open(filepath.Join(d.path, name))
}

// Adopt makes c — a commit written by another directory whose files this
// one now holds (PutFile) — this directory's commit, as it is. The caller
// holds the lock.
func (d *Dir) Adopt(c Commit) error {
	for _, s := range c.Segments {
		if !validSegName(s.Name) {
			return fmt.Errorf("%w: %s: commit names %q", ErrBadIndex, d.path, s.Name)
		}
	}
	c.Format = commitFormat
	if err := d.putCommit(c); err != nil {
		return fmt.Errorf("search index %s: %w", d.path, err)
	}
	d.gc(c)
	return nil
}

// WriteStats writes the stats file of a segment of the directory beside it
// (when missing).
func (d *Dir) WriteStats(name string) error {
	if d.Has(StatsName(name)) {
		return nil
	}
	s, err := d.segment(name)
	if err != nil {
		return err
	}
	if _, err := WriteStatsFile(filepath.Join(d.path, StatsName(name)), s); err != nil {
		return fmt.Errorf("search index %s: %w", d.path, err)
	}
	return nil
}
