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
