// Package procstat reads this process's memory figures from
// /proc/self/status, and the calling thread's processor time, for the tests
// and benchmarks that measure memory and CPU.
package procstat

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Bytes returns a field of /proc/self/status given in kB ("VmHWM",
// "RssAnon", "RssFile", …) in bytes, or 0 where it is not available (no
// /proc, no such field).
func Bytes(field string) int64 { return read("/proc/self/status", field) }

// BytesOf returns a field of another process's /proc/PID/status in bytes,
// as Bytes does: for a harness watching a child's memory.
func BytesOf(pid int, field string) int64 {
	return read("/proc/"+strconv.Itoa(pid)+"/status", field)
}

func read(path, field string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// PeakRSS returns the process's peak resident set size (VmHWM) in bytes,
// or 0 where it is not available.
func PeakRSS() int64 { return Bytes("VmHWM") }
