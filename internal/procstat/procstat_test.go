package procstat

import (
	"runtime"
	"testing"
)

func TestBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/status is Linux's")
	}
	rss := Bytes("VmRSS")
	peak := PeakRSS() // read after: the peak is at least the RSS read before it
	if rss <= 0 || peak < rss {
		t.Fatalf("VmHWM %d, VmRSS %d bytes: want 0 < VmRSS <= VmHWM", peak, rss)
	}
	if rss%1024 != 0 {
		t.Fatalf("VmRSS %d is not in whole kB", rss)
	}
	if n := Bytes("NoSuchField"); n != 0 {
		t.Fatalf("a missing field gave %d", n)
	}
	// A field's prefix ("Vm" of "VmRSS") is not the field.
	if n := Bytes("Vm"); n != 0 {
		t.Fatalf("a field's prefix gave %d", n)
	}
}

// ThreadCPU grows while the calling thread works (Linux; 0 elsewhere).
func TestThreadCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := ThreadCPU()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := ThreadCPU(); after <= before || x == 0 {
		t.Fatalf("thread CPU %v then %v after a busy loop", before, after)
	}
}
