package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The merges and the association pass run under a limit set from what the
// process holds after indexing, below the indexing's own limit, and the
// indexing's limit comes back after them.
func TestLimitMaintainHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(indexMemoryLimit)
	defer debug.SetMemoryLimit(before)
	restore := limitMaintainHeap()
	got := debug.SetMemoryLimit(-1)
	if got < maintainHeadroom || got >= indexMemoryLimit {
		t.Errorf("limit during maintenance %d MiB, want at least the headroom (%d MiB) and below the indexing limit (%d MiB)", got>>20, maintainHeadroom>>20, indexMemoryLimit>>20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != indexMemoryLimit {
		t.Errorf("limit after maintenance %d, want the indexing limit %d back", got, indexMemoryLimit)
	}
	// GOMEMLIMIT set by the user: left alone.
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(math.MaxInt64)
	limitMaintainHeap()()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit changed to %d with GOMEMLIMIT set", got)
	}
}
