//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package index

import "syscall"

// freeBytes returns the bytes available to this user on the file system of
// path, or -1 when unknown.
func freeBytes(path string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
