package ingest

import "syscall"

// lowerPriority raises the niceness of the calling thread by nice (to 19
// at most). Linux gives each thread its own niceness; an error leaves the
// priority as it was.
func lowerPriority(nice int) {
	tid := syscall.Gettid()
	// The system call answers 20 − niceness.
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(20-raw+nice, 19))
}
