//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package server

import "syscall"

// diskFree returns the bytes available to this user in dir's file system,
// or -1 when statfs fails.
func diskFree(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
