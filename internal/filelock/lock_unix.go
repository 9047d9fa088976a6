//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filelock

import (
	"os"
	"syscall"
)

// Lock takes an exclusive flock on f, waiting for other holders. flock
// locks belong to the open file description, so two opens in one process
// exclude each other just as two processes do.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// TryLock takes an exclusive flock on f or returns ErrLocked at once.
func TryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EWOULDBLOCK:
			return ErrLocked
		}
		return err
	}
}

// Unlock releases the lock on f.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
