// Package filelock takes advisory locks on files that hold across
// processes: the store's writers, the key file's writers and the one server
// a store may have use it.
package filelock

import (
	"errors"
	"os"
)

// ErrLocked is returned by TryLock when another holder has the lock.
var ErrLocked = errors.New("locked by another process")

// Open opens (creating it when missing) the lock file at path.
func Open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}
