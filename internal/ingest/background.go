package ingest

import "runtime"

// inBackground runs f on an OS thread of its own whose processor priority
// is lowered by nice (where the system allows it, see lowerPriority), and
// returns when f does. The thread is never handed back to the Go runtime:
// its priority cannot be raised again without privileges, so it ends with
// f. Goroutines f starts run at the usual priority; preparing a document
// starts none but OCR's, whose tools inherit the lowered priority.
func inBackground(nice int, f func()) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
		lowerPriority(nice)
		f()
	}()
	if r := <-done; r != nil {
		panic(r)
	}
}
