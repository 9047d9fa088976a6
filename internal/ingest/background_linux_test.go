package ingest

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
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

// TestInBackgroundKeepsChildren: a child process started with Pdeathsig
// from a thread that later runs background work is not killed when the
// work ends. Linux sends Pdeathsig when the forking thread exits, so a
// background thread that ended with its work killed such children (a
// browser a test drives, a model server) at random.
func TestInBackgroundKeepsChildren(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	// Start children from many threads, then run background work on many
	// threads, so that some background thread is one a child forked from.
	var children []*exec.Cmd
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cmd := exec.Command(sleep, "30")
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			children = append(children, cmd)
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range children {
			c.Process.Kill()
			c.Wait()
		}
	})
	for range 8 {
		var bg sync.WaitGroup
		for range 16 {
			bg.Add(1)
			go func() {
				defer bg.Done()
				inBackground(1, func() { time.Sleep(time.Millisecond) })
			}()
		}
		bg.Wait()
	}
	time.Sleep(100 * time.Millisecond) // a signal, if sent, has landed
	for _, c := range children {
		if err := c.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("a child started with Pdeathsig died after background work: %v", err)
		}
		var ws syscall.WaitStatus
		if pid, _ := syscall.Wait4(c.Process.Pid, &ws, syscall.WNOHANG, nil); pid != 0 {
			t.Fatalf("a child started with Pdeathsig ended after background work: %v", ws)
		}
	}
}
