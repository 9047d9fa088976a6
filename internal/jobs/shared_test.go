package jobs

import (
	"context"
	"errors"
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

func (r *memRecords) Records(_ context.Context, kind string) (map[string][]byte, error) {
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

func (r *memRecords) Record(_ context.Context, kind, id string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.m[kind+"\x00"+id]
	if !ok {
		return nil, fmt.Errorf("record %s/%s: %w", kind, id, fs.ErrNotExist)
	}
	return b, nil
}

func (r *memRecords) PutRecord(_ context.Context, kind, id string, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[kind+"\x00"+id] = append([]byte(nil), data...)
	return nil
}

func (r *memRecords) DeleteRecord(_ context.Context, kind, id string) error {
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
	m, err := Open(context.Background(), t.TempDir(), Options{Shared: rs, Owner: owner, Lease: 300 * time.Millisecond})
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
	// Records are written behind the owner's back: B sees the end soon.
	eventually(t, "done seen from B", func() bool {
		g, err := b.Get(j.ID)
		return err == nil && g.State == Done && len(g.Results) == 2
	})

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
	eventually(t, "resumed job done seen from B", func() bool { g, _ := b.Get(d.ID); return g.State == Done })
	if err := b.Remove(d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a2.Get(d.ID); err == nil {
		// a2 still holds it in memory; its record is gone.
		if _, err := rs.Record(ctx, "job", d.ID); err == nil {
			t.Fatal("removed job's record still there")
		}
	}
}

// stuckRecords is memRecords whose writes wait while the gate is shut: a
// cluster that does not answer.
type stuckRecords struct {
	*memRecords
	mu   sync.Mutex
	gate chan struct{} // nil: open
}

func (r *stuckRecords) shut() { r.mu.Lock(); r.gate = make(chan struct{}); r.mu.Unlock() }
func (r *stuckRecords) open() {
	r.mu.Lock()
	if r.gate != nil {
		close(r.gate)
		r.gate = nil
	}
	r.mu.Unlock()
}

func (r *stuckRecords) PutRecord(ctx context.Context, kind, id string, data []byte) error {
	r.mu.Lock()
	g := r.gate
	r.mu.Unlock()
	if g != nil {
		<-g
	}
	return r.memRecords.PutRecord(ctx, kind, id, data)
}

// TestSharedJobsStuckCluster: while the cluster takes no writes, the owner
// still answers for its own jobs (their records are written outside its
// lock), and once writes go through the records catch up.
func TestSharedJobsStuckCluster(t *testing.T) {
	rs := &stuckRecords{memRecords: newMemRecords()}
	step := make(chan struct{})
	a := openTestShared(t, rs, "A", func(ctx context.Context, j Job, r Reporter) error {
		r.Progress(Progress{Done: 1, Total: 2})
		<-step
		r.Progress(Progress{Done: 2, Total: 2})
		r.Result(Result{Name: "x", Status: "added"})
		return nil
	})
	defer a.Close()
	defer rs.open() // before Close, which writes what is left
	j, err := a.Submit("work", "c1", nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "job running", func() bool { g, _ := a.Get(j.ID); return g.State == Running })
	rs.shut()
	close(step)
	answered := make(chan Job)
	go func() {
		for {
			g, _ := a.Get(j.ID)
			if g.State == Done {
				a.List("c1")
				answered <- g
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	select {
	case g := <-answered:
		if len(g.Results) != 1 || g.Progress.Done != 2 {
			t.Fatalf("owner's view: %+v", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the owner's own job API waited for a cluster that takes no writes")
	}
	if raw, _ := rs.Record(t.Context(), "job", j.ID); strings.Contains(string(raw), `"state": "done"`) {
		t.Fatal("record written while the cluster took no writes")
	}
	rs.open()
	eventually(t, "record caught up", func() bool {
		raw, err := rs.Record(t.Context(), "job", j.ID)
		return err == nil && strings.Contains(string(raw), `"state": "done"`)
	})
}

// ctxRecords is memRecords whose reads honour the caller's context, as the
// cluster's do.
type ctxRecords struct{ *memRecords }

func (r ctxRecords) Records(ctx context.Context, kind string) (map[string][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r.memRecords.Records(ctx, kind)
}

// TestOpenSharedHonoursContext: the first read of the shared job records
// runs under the caller's context, so a cancelled open returns at once with
// the context's error instead of a manager.
func TestOpenSharedHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := Open(ctx, "", Options{Shared: ctxRecords{newMemRecords()}, Owner: "a"})
	if err == nil {
		m.Close()
		t.Fatal("Open with a cancelled context gave a manager")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context: %v, want context.Canceled", err)
	}
	m, err = Open(context.Background(), "", Options{Shared: ctxRecords{newMemRecords()}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
}
