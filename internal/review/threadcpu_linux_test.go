package review

import (
	"syscall"
	"time"
)

// threadCPU is the processor time the calling thread has used (user +
// system): with the goroutine locked to its thread, the difference over a
// question is that question's own CPU, which a loaded machine does not
// inflate as it does wall time (the garbage collector's share runs on other
// threads and is left out).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
