//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package filelock

import (
	"errors"
	"os"
)

// errUnsupported: without flock, writers in different processes cannot be
// kept apart, and silently risking that is worse than refusing.
var errUnsupported = errors.New("cross-process file locking is not implemented on this platform")

// Lock is not implemented on this platform.
func Lock(*os.File) error { return errUnsupported }

// TryLock is not implemented on this platform.
func TryLock(*os.File) error { return errUnsupported }

// Unlock is a no-op on this platform.
func Unlock(*os.File) error { return nil }
