// Package atomicfile replaces files so that a crash at any moment leaves
// either the old content or the new one under the file's name — never a
// mix, a truncated file or an empty one.
//
// One durability rule, used by every writer in pakton (the store's manifest
// and VERSION file and index cache, jobs, keys, reviews, saved reports,
// exports): the new content is written to a temporary file in the same
// directory (a rename is atomic only within one file system), the file is
// fsynced, renamed over the target, and the directory is fsynced so that the
// rename itself survives a power cut. Without the first fsync a crash after
// the rename can leave the new name pointing at blocks never written (ext4
// with delayed allocation shows an empty file); without the second the
// rename may be lost and the old content come back.
//
// Temporary names start with TempPrefix, which no name pakton gives a file
// does, so a recovery pass can remove what a crash left behind
// (store.Open does).
package atomicfile

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TempPrefix starts the name of every temporary file this package (and the
// store, for its temporary directories) creates.
const TempPrefix = ".tmp-"

// TempName returns a fresh name for a temporary file or directory: TempPrefix,
// the process id and 64 random bits, so two processes never collide.
func TempName() string {
	return fmt.Sprintf("%s%d-%016x", TempPrefix, os.Getpid(), rand.Uint64())
}

// RemoveStale removes from dir the temporary files of this package (named
// by TempName) that a process killed mid-write left there and that were
// last modified more than age ago (0: all of them — for a directory no
// other process writes in at the same time), and returns how many it
// removed.
func RemoveStale(dir string, age time.Duration) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() || !isTempName(e.Name()) {
			continue
		}
		if age > 0 {
			if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < age {
				continue
			}
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// isTempName reports whether name has the shape TempName gives: the
// prefix, a process id, "-" and 16 hex digits.
func isTempName(name string) bool {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		return false
	}
	pid, r, ok := strings.Cut(rest, "-")
	if !ok || pid == "" || len(r) != 16 || strings.Trim(pid, "0123456789") != "" {
		return false
	}
	_, err := strconv.ParseUint(r, 16, 64)
	return err == nil
}

// Write replaces path with data, creating it with mode perm (before the
// umask) when it does not exist.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path with what write writes, by the package's rule.
// When write fails nothing is replaced and the temporary file is removed.
// An error from the final directory fsync is returned too, although the new
// content is then already in place for readers.
func WriteFunc(path string, perm os.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, TempName())
	if err := writeSynced(tmp, perm, write); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CreateSynced creates path, which must not exist, with what write writes,
// and fsyncs it (not its directory): for a file inside a temporary directory
// that is renamed into place, and its parent fsynced, afterwards.
func CreateSynced(path string, perm os.FileMode, write func(io.Writer) error) error {
	if err := writeSynced(path, perm, write); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func writeSynced(path string, perm os.FileMode, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	return SyncClose(f, func(f *os.File) error { return write(f) })
}

// SyncClose runs change on an open file, then fsyncs and closes it; the
// file is closed whatever fails, and the first error returned.
func SyncClose(f *os.File, change func(*os.File) error) error {
	if err := change(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SyncDir fsyncs a directory so that entries created, renamed or removed in
// it are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
