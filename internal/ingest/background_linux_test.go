package ingest

import (
	"runtime"
	"syscall"
	"testing"
)

// TestInBackground checks that f runs on a thread whose niceness was
// raised (Linux), that the caller's thread keeps its own, and that a panic
// in f reaches the caller.
func TestInBackground(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	niceOf := func() int {
		raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		if err != nil {
			t.Fatal(err)
		}
		return 20 - raw
	}
	before := niceOf()
	var inside int
	inBackground(3, func() { inside = niceOf() })
	if want := min(before+3, 19); inside != want {
		t.Errorf("niceness inside %d, want %d", inside, want)
	}
	if after := niceOf(); after != before {
		t.Errorf("the caller's niceness went from %d to %d", before, after)
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the panic of f", r)
		}
	}()
	inBackground(3, func() { panic("boom") })
}
