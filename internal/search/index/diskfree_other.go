//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package index

func freeBytes(string) int64 { return -1 }
