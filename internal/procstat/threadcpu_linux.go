package procstat

import (
	"syscall"
	"time"
	"unsafe"
)

// ThreadCPU is the processor time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID, to the nanosecond): with the goroutine locked to
// its thread, the difference over a question is that question's own CPU,
// which a loaded machine does not inflate as it does wall time (the garbage
// collector's share runs on other threads and is left out).
func ThreadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
