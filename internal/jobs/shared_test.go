package jobs

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"
)

// memRecords is a Records in memory: two managers on one stand for two
// server processes on one cluster.
type memRecords struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemRecords() *memRecords { return &memRecords{m: map[string][]byte{}} }

func (r *memRecords) Records(kind string) (map[string][]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]byte{}
	for k, v := range r.m {
		if id, ok := strings.CutPrefix(k, kind+"\x00"); ok {
			out[id] = v
		}
	}
	return out, nil
}

func (r *memRecords) Record(kind, id string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.m[kind+"\x00"+id]
	if !ok {
		return nil, fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	return b, nil
}

func (r *memRecords) PutRecord(kind, id string, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[kind+"\x00"+id] = append([]byte(nil), data...)
	return nil
}

func (r *memRecords) DeleteRecord(kind, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[kind+"\x00"+id]; !ok {
		return fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	delete(r.m, kind+"\x00"+id)
	return nil
}

func openTestShared(t *testing.T, rs Records, owner string, f Func) *Manager {
	t.Helper()
	m, err := Open(t.TempDir(), Options{Shared: rs, Owner: owner, Lease: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m.Handle("work", f)
	m.Start()
	return m
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSharedJobs: a job run by one manager is seen by another on the same
// records — progress while it runs, results when done — is cancelled
// through the other, shows as interrupted once its owner stops beating, and
// is resumed by its owner restarted under the same name.
func TestSharedJobs(t *testing.T) {
	rs := newMemRecords()
	release := make(chan struct{})
	work := func(ctx context.Context, j Job, r Reporter) error {
		r.Progress(Progress{Done: 1, Total: 2, Current: "first"})
		r.Result(Result{Name: "first", Status: "added"})
		if string(j.Params) == `"hold"` {
			<-ctx.Done()
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-release:
		}
		r.Result(Result{Name: "second", Status: "added"})
		return nil
	}
	a := openTestShared(t, rs, "A", work)
	b := openTestShared(t, rs, "B", work)
	defer b.Close()

	j, err := a.Submit("work", "c1", nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "progress seen from B", func() bool {
		g, err := b.Get(j.ID)
		return err == nil && g.State == Running && g.Progress.Done == 1 && g.Owner == "A"
	})
	if l := b.List("c1"); len(l) != 1 || l[0].ID != j.ID {
		t.Fatalf("B lists %+v", l)
	}
	if l := b.List("c2"); len(l) != 0 {
		t.Fatalf("B lists another collection's job: %+v", l)
	}
	if err := b.Remove(j.ID); err == nil {
		t.Fatal("B removed a running job")
	}
	// Past the lease, a live owner's job is still running (heartbeats).
	time.Sleep(500 * time.Millisecond)
	if g, _ := b.Get(j.ID); g.State != Running {
		t.Fatalf("job of a live owner is %s: %s", g.State, g.Error)
	}
	close(release)
	done := wait(t, a, j.ID)
	if done.State != Done {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
	g, err := b.Get(j.ID)
	if err != nil || g.State != Done || len(g.Results) != 2 {
		t.Fatalf("B sees %+v, %v", g, err)
	}

	// Cancelled through B: A acts on it at its next heartbeat.
	c, _ := a.Submit("work", "c1", "hold")
	eventually(t, "second job running", func() bool { g, _ := b.Get(c.ID); return g.State == Running })
	if _, err := b.Cancel(c.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if g, err := b.Wait(ctx, c.ID); err != nil || g.State != Cancelled {
		t.Fatalf("cancel through B: %+v, %v", g, err)
	}

	// A stops (as if killed: its running job stays running in its record).
	d, _ := a.Submit("work", "c1", "hold")
	eventually(t, "third job running", func() bool { g, _ := b.Get(d.ID); return g.State == Running })
	a.Close()
	eventually(t, "job shown interrupted", func() bool {
		g, _ := b.Get(d.ID)
		return g.State == Failed && strings.Contains(g.Error, "interrupted")
	})
	// A restarted under its name resumes it.
	a2 := openTestShared(t, rs, "A", func(ctx context.Context, j Job, r Reporter) error { return nil })
	defer a2.Close()
	if g := wait(t, a2, d.ID); g.State != Done || g.Attempts != 2 {
		t.Fatalf("resumed job: %+v", g)
	}
	if g, _ := b.Get(d.ID); g.State != Done {
		t.Fatalf("B sees the resumed job %s", g.State)
	}
	if err := b.Remove(d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a2.Get(d.ID); err == nil {
		// a2 still holds it in memory; its record is gone.
		if _, err := rs.Record("job", d.ID); err == nil {
			t.Fatal("removed job's record still there")
		}
	}
}
