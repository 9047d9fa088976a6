package ingest

import (
	"runtime"
	"sync"
)

// inBackground runs f on an OS thread of its own whose processor priority
// is lowered by nice (where the system allows it, see lowerPriority), and
// returns when f does. Goroutines f starts run at the usual priority;
// preparing a document starts none but OCR's, whose tools inherit the
// lowered priority.
//
// A thread's priority cannot be raised again without privileges, so the
// thread is never handed back to the Go runtime; nor does it end, because
// Linux signals a thread's death to the children it started
// (SysProcAttr.Pdeathsig fires when the forking thread exits, not the
// process): a program that embeds pakton and starts a child process with
// Pdeathsig (a browser driver, a model server) would see that child killed
// whenever an ingest thread it happened to fork from ended. Instead the
// thread waits for the next call with the same niceness.
func inBackground(nice int, f func()) {
	w := niced.take(nice)
	done := make(chan any, 1)
	w <- func() {
		defer func() { done <- recover() }()
		f()
	}
	r := <-done
	niced.put(nice, w)
	if r != nil {
		panic(r)
	}
}

// niced holds the idle lowered-priority threads, by niceness: as many as
// ingestion ever ran at once.
var niced = &nicedThreads{idle: map[int][]chan func(){}}

type nicedThreads struct {
	mu   sync.Mutex
	idle map[int][]chan func()
}

// take returns an idle thread of that niceness, starting one if none is
// idle.
func (n *nicedThreads) take(nice int) chan func() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if q := n.idle[nice]; len(q) > 0 {
		w := q[len(q)-1]
		n.idle[nice] = q[:len(q)-1]
		return w
	}
	w := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: its priority stays lowered
		lowerPriority(nice)
		for job := range w {
			job()
		}
	}()
	return w
}

func (n *nicedThreads) put(nice int, w chan func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.idle[nice] = append(n.idle[nice], w)
}
