package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// tmpPrefix starts the name of every temporary file and directory the store
// creates; valid collection names, document ids and version directories never
// start with a dot, so recovery can tell them apart.
const tmpPrefix = ".tmp-"

// tmpName returns a fresh temporary name for use in one directory.
func tmpName() string {
	return fmt.Sprintf("%s%d-%016x", tmpPrefix, os.Getpid(), rand.Uint64())
}

// writeFileSync creates path (which must not exist), writes data and fsyncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir fsyncs a directory so that entries created, renamed or removed in
// it are durable.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// replaceFile atomically replaces path with data: write a temporary file in
// the same directory, fsync it, rename it over path, fsync the directory.
// committed reports whether the rename happened, after which readers see the
// new content even if err is non-nil (the directory fsync failed).
func replaceFile(path string, data []byte) (committed bool, err error) {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, tmpName())
	if err := writeFileSync(tmp, data); err != nil {
		os.Remove(tmp)
		return false, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, err
	}
	return true, syncDir(dir)
}
