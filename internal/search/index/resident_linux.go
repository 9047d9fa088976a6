package index

import (
	"bytes"
	"os"
	"strconv"
)

// MappedResident returns how many bytes of file pages this process holds
// mapped in its memory (the index files' pages it has read, and its own
// executable's): the "shared" field of /proc/self/statm, which is what
// RssFile adds to the process's resident size.
func MappedResident() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
