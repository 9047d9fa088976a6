package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// smallCheckpoints makes writers checkpoint logs of any size after every
// write that grows them by a sixteenth.
func smallCheckpoints(t *testing.T) {
	t.Helper()
	minLog, minTail := checkpointMinLog, checkpointMinTail
	t.Cleanup(func() { checkpointMinLog, checkpointMinTail = minLog, minTail })
	checkpointMinLog, checkpointMinTail = 1, 1
}

// noCheckpoints stops writers from writing checkpoints.
func noCheckpoints(t *testing.T) {
	t.Helper()
	minLog := checkpointMinLog
	t.Cleanup(func() { checkpointMinLog = minLog })
	checkpointMinLog = 1 << 62
}

// readerView opens a reader of dir and describes everything it tells of a
// collection, and reports whether it used a checkpoint to open it.
func readerView(t *testing.T, dir, collection string) (string, bool) {
	t.Helper()
	r, err := OpenReader(dir)
	must(t, err)
	defer r.Close()
	cs, err := r.state(collection)
	must(t, err)
	used := cs.ckpt > 0
	var b strings.Builder
	gen, err := r.Generation(t.Context(), collection)
	must(t, err)
	cols, err := r.Collections(t.Context())
	must(t, err)
	fmt.Fprintf(&b, "generation %d, collections %+v\n", gen, cols)
	list := mustList(t, r, collection)
	slices.SortFunc(list, func(a, b DocInfo) int { return strings.Compare(a.ID, b.ID) })
	for _, info := range list {
		j, err := json.Marshal(info)
		must(t, err)
		found, err := r.FindSource(t.Context(), collection, info.Source.SHA256)
		must(t, err)
		fmt.Fprintf(&b, "%s\n  %d with its source, ", j, len(found))
		// A log changed behind the store's back may name versions that
		// are gone: the error is part of what the reader tells.
		if rec, err := r.Get(t.Context(), collection, info.ID); err != nil {
			fmt.Fprintf(&b, "error %v\n", err)
		} else {
			fmt.Fprintf(&b, "text %q, %d artifacts\n", rec.Doc.Text, len(rec.Artifacts))
		}
	}
	return b.String(), used
}

// withoutCheckpoint is readerView with the collection's checkpoint moved
// aside for the time: what the log alone says.
func withoutCheckpoint(t *testing.T, dir, collection string) string {
	t.Helper()
	path := filepath.Join(dir, "collections", collection, checkpointName)
	aside := path + ".aside"
	must(t, os.Rename(path, aside))
	defer func() { must(t, os.Rename(aside, path)) }()
	v, used := readerView(t, dir, collection)
	if used {
		t.Fatal("a checkpoint was used with none there")
	}
	return v
}

func putVersions(t *testing.T, s *Store, collection string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		name := fmt.Sprintf("d%02d.txt", i%11)
		rec := record(name, fmt.Sprint("v", i))
		rec.Source.SHA256 = strings.Repeat(fmt.Sprintf("%02x", i%5), 32)
		must(t, s.Put(t.Context(), collection, rec))
		if i%7 == 3 {
			if err := s.Delete(t.Context(), collection, DocID(fmt.Sprintf("d%02d.txt", (i+4)%11))); err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
		}
	}
}

// TestCheckpointReadsLikeLog checks that a reader opening a collection from
// its checkpoint sees exactly what one reading the whole log sees, and that
// records appended after the checkpoint are never hidden by it.
func TestCheckpointReadsLikeLog(t *testing.T) {
	smallCheckpoints(t)
	s := openTemp(t)
	putVersions(t, s, DefaultCollection, 0, 16)
	if _, err := os.Stat(filepath.Join(s.collectionDir(DefaultCollection), checkpointName)); err != nil {
		t.Fatalf("no checkpoint written: %v", err)
	}
	got, used := readerView(t, s.Dir(), DefaultCollection)
	if !used {
		t.Fatal("the reader did not use the checkpoint")
	}
	if want := withoutCheckpoint(t, s.Dir(), DefaultCollection); got != want {
		t.Fatalf("from the checkpoint:\n%s\nfrom the log:\n%s", got, want)
	}

	// Records after the checkpoint: puts, replacements and deletes.
	noCheckpoints(t)
	before := got
	ckpt, err := os.ReadFile(filepath.Join(s.collectionDir(DefaultCollection), checkpointName))
	must(t, err)
	putVersions(t, s, DefaultCollection, 16, 24)
	must(t, s.Delete(t.Context(), DefaultCollection, DocID("d05.txt")))
	after, err := os.ReadFile(filepath.Join(s.collectionDir(DefaultCollection), checkpointName))
	must(t, err)
	if string(after) != string(ckpt) {
		t.Fatal("the checkpoint was rewritten: this test needs an old one")
	}
	got, used = readerView(t, s.Dir(), DefaultCollection)
	if !used {
		t.Fatal("the reader did not use the older checkpoint")
	}
	want := withoutCheckpoint(t, s.Dir(), DefaultCollection)
	if got != want {
		t.Fatalf("checkpoint + later records:\n%s\nthe whole log:\n%s", got, want)
	}
	if got == before {
		t.Fatal("the later records changed nothing: the test tests nothing")
	}
}

// covered returns how much of the log checkpoint ckpt covers.
func covered(ckpt []byte) int {
	return int(binary.LittleEndian.Uint64(ckpt[len(checkpointMagic):]))
}

// lastCovered reads the default collection's log and returns where the last
// record checkpoint ckpt covers starts and ends.
func lastCovered(t *testing.T, s *Store, ckpt []byte) (path string, lg []byte, start, end int) {
	t.Helper()
	path = filepath.Join(s.collectionDir(DefaultCollection), logName)
	lg, err := os.ReadFile(path)
	must(t, err)
	end = covered(ckpt)
	return path, lg, strings.LastIndexByte(string(lg[:end-1]), '\n') + 1, end
}

// TestCheckpointDoubtFallsBackToLog checks that a checkpoint that is torn,
// damaged, of another log (the log compacted or replaced since) or of a
// longer log is not used, and the reader reads the whole log instead.
func TestCheckpointDoubtFallsBackToLog(t *testing.T) {
	cases := map[string]func(t *testing.T, s *Store, ckpt []byte) []byte{
		"torn":  func(t *testing.T, s *Store, ckpt []byte) []byte { return ckpt[:len(ckpt)*2/3] },
		"empty": func(t *testing.T, s *Store, ckpt []byte) []byte { return nil },
		"damaged": func(t *testing.T, s *Store, ckpt []byte) []byte {
			b := slices.Clone(ckpt)
			b[len(b)/2] ^= 0x20
			return b
		},
		"other log": func(t *testing.T, s *Store, ckpt []byte) []byte {
			// Compaction replaces the log: the checkpoint no longer
			// describes it.
			defer func(n int) { compactMinDead = n }(compactMinDead)
			compactMinDead = 1
			putVersions(t, s, DefaultCollection, 50, 66)
			return ckpt
		},
		"log cut shorter": func(t *testing.T, s *Store, ckpt []byte) []byte {
			// As if the log were restored from an older copy: it ends
			// before the checkpoint's end.
			path, _, start, _ := lastCovered(t, s, ckpt)
			must(t, os.Truncate(path, int64(start)))
			return ckpt
		},
		"log changed before its end": func(t *testing.T, s *Store, ckpt []byte) []byte {
			// The same header and length, another last record before the
			// checkpoint's end (an id changed, the checksum recomputed).
			path, lg, start, covered := lastCovered(t, s, ckpt)
			last := string(lg[start : covered-1])
			f := strings.SplitN(last[9:], " ", 4)
			id := []byte(f[2])
			id[0] ^= 1
			var gen uint64
			fmt.Sscan(f[1], &gen)
			line := logLine(f[0][0], gen, string(id), []byte(f[3]))
			changed := slices.Concat(lg[:start], line, lg[covered:])
			if len(changed) != len(lg) {
				t.Fatal("the changed record is not as long")
			}
			must(t, os.WriteFile(path, changed, 0o644))
			return ckpt
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			smallCheckpoints(t)
			s := openTemp(t)
			putVersions(t, s, DefaultCollection, 0, 16)
			noCheckpoints(t)
			path := filepath.Join(s.collectionDir(DefaultCollection), checkpointName)
			ckpt, err := os.ReadFile(path)
			must(t, err)
			b := change(t, s, ckpt)
			must(t, os.WriteFile(path, b, 0o644))
			got, used := readerView(t, s.Dir(), DefaultCollection)
			if used {
				t.Fatal("the reader used a checkpoint it should doubt")
			}
			if want := withoutCheckpoint(t, s.Dir(), DefaultCollection); got != want {
				t.Fatalf("with the checkpoint:\n%s\nwithout:\n%s", got, want)
			}
		})
	}
}

// TestCheckpointedRecordDamaged checks that a record the checkpoint points
// at is still checked when read: damage inside the log yields an error for
// that document, never other bytes.
func TestCheckpointedRecordDamaged(t *testing.T) {
	smallCheckpoints(t)
	s := openTemp(t)
	putVersions(t, s, DefaultCollection, 0, 16)
	noCheckpoints(t)
	lpath := filepath.Join(s.collectionDir(DefaultCollection), logName)
	lg, err := os.ReadFile(lpath)
	must(t, err)
	ckpt, err := os.ReadFile(filepath.Join(s.collectionDir(DefaultCollection), checkpointName))
	must(t, err)
	cs, err := s.state(DefaultCollection)
	must(t, err)
	// Two documents whose records the checkpoint covers.
	var in []string
	for _, id := range slices.Sorted(maps.Keys(cs.m.Docs)) {
		if l := cs.m.Docs[id]; l.off > 0 && l.off+int64(l.n) <= int64(covered(ckpt)) {
			in = append(in, id)
		}
	}
	if len(in) < 2 {
		t.Fatalf("the checkpoint covers %d records", len(in))
	}
	l := cs.m.Docs[in[0]]
	i := int(l.off) + int(l.n)/2
	lg[i] ^= 0x01
	must(t, os.WriteFile(lpath, lg, 0o644))
	r, err := OpenReader(s.Dir())
	must(t, err)
	defer r.Close()
	rcs, err := r.state(DefaultCollection)
	must(t, err)
	if rcs.ckpt == 0 {
		t.Fatal("the reader did not use the checkpoint")
	}
	if _, err := r.Get(t.Context(), DefaultCollection, in[0]); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged record read: %v", err)
	}
	if _, err := r.Get(t.Context(), DefaultCollection, in[1]); err != nil {
		t.Fatalf("a whole record: %v", err)
	}
}

// TestRecoveryWritesCheckpoint checks that a writer's Open checkpoints a
// large log that has none (a store written before checkpoints), and that a
// writer keeps using and rewriting it.
func TestRecoveryWritesCheckpoint(t *testing.T) {
	noCheckpoints(t)
	s := openTemp(t)
	putVersions(t, s, DefaultCollection, 0, 16)
	path := filepath.Join(s.collectionDir(DefaultCollection), checkpointName)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("checkpoint written without need: %v", err)
	}
	want, _ := readerView(t, s.Dir(), DefaultCollection)
	must(t, s.Close())
	smallCheckpoints(t)
	s2, err := Open(s.Dir())
	must(t, err)
	defer s2.Close()
	got, used := readerView(t, s2.Dir(), DefaultCollection)
	if !used || got != want {
		t.Fatalf("used %v:\n%s\nwant:\n%s", used, got, want)
	}
	putVersions(t, s2, DefaultCollection, 16, 32)
	got, used = readerView(t, s2.Dir(), DefaultCollection)
	if want := withoutCheckpoint(t, s2.Dir(), DefaultCollection); !used || got != want {
		t.Fatalf("used %v:\n%s\nwant:\n%s", used, got, want)
	}
}

// TestForgetReadsAgain checks that a writer that forgot a collection's state
// tells the same as before, from disk, and goes on writing to it.
func TestForgetReadsAgain(t *testing.T) {
	smallCheckpoints(t)
	s := openTemp(t)
	putVersions(t, s, DefaultCollection, 0, 16)
	describe := func() string {
		list := mustList(t, s, DefaultCollection)
		slices.SortFunc(list, func(a, b DocInfo) int { return strings.Compare(a.ID, b.ID) })
		j, err := json.Marshal(list)
		must(t, err)
		gen, err := s.Generation(t.Context(), DefaultCollection)
		must(t, err)
		return fmt.Sprint(gen, string(j))
	}
	before := describe()
	s.Forget(DefaultCollection)
	s.cmu.Lock()
	_, cached := s.cache[DefaultCollection]
	s.cmu.Unlock()
	if cached {
		t.Fatal("the state is still cached")
	}
	if got := describe(); got != before {
		t.Fatalf("after Forget:\n%s\nbefore:\n%s", got, before)
	}
	s.Forget(DefaultCollection)
	putVersions(t, s, DefaultCollection, 16, 20)
	after := describe()
	if after == before {
		t.Fatal("the writes after Forget changed nothing")
	}
	s.Forget(DefaultCollection)
	if got := describe(); got != after {
		t.Fatalf("after the writes and Forget:\n%s\nbefore it:\n%s", got, after)
	}
	s.Forget("no such/collection") // an invalid name is ignored
}
