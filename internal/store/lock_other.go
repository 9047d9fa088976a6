//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import (
	"errors"
	"os"
)

// Without flock the store cannot keep writers in different processes apart,
// and silently risking that is worse than refusing to open.
func lockFile(*os.File) error {
	return errors.New("cross-process file locking is not implemented on this platform")
}

func unlockFile(*os.File) error { return nil }
