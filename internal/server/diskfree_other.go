//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package server

// diskFree is unknown on this platform.
func diskFree(string) int64 { return -1 }
