package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func wait(t *testing.T, m *Manager, id string) Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	j, err := m.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestLifecycle: done, failed, cancelled (queued and running), progress and
// results, and every state persisted as complete JSON.
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	var finished atomic.Int32
	m, err := Open(context.Background(), dir, Options{Finished: func(Job) { finished.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	block := make(chan struct{})
	m.Handle("work", func(ctx context.Context, j Job, r Reporter) error {
		var p struct{ Mode string }
		json.Unmarshal(j.Params, &p)
		r.Progress(Progress{Done: 0, Total: 2})
		r.Result(Result{Name: "a", Status: "ok"})
		r.Result(Result{Name: "a", Status: "redone"})
		r.Progress(Progress{Done: 1, Total: 2, Current: "a"})
		switch p.Mode {
		case "fail":
			return errors.New("boom")
		case "panic":
			panic("oops")
		case "block":
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-block:
			}
		}
		return nil
	})
	m.Start()
	ok, _ := m.Submit("work", "c1", map[string]string{"mode": "ok"})
	if j := wait(t, m, ok.ID); j.State != Done || len(j.Results) != 1 || j.Results[0].Status != "redone" || j.Progress.Done != 1 || j.Attempts != 1 {
		t.Errorf("done job %+v", j)
	}
	bad, _ := m.Submit("work", "c1", map[string]string{"mode": "fail"})
	if j := wait(t, m, bad.ID); j.State != Failed || j.Error != "boom" {
		t.Errorf("failed job %+v", j)
	}
	pan, _ := m.Submit("work", "c1", map[string]string{"mode": "panic"})
	if j := wait(t, m, pan.ID); j.State != Failed || !strings.Contains(j.Error, "oops") {
		t.Errorf("panicking job %+v", j)
	}
	run, _ := m.Submit("work", "c2", map[string]string{"mode": "block"})
	queued, _ := m.Submit("work", "c2", map[string]string{"mode": "ok"})
	for { // wait until the first is running
		if j, _ := m.Get(run.ID); j.State == Running {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if j, _ := m.Cancel(queued.ID); j.State != Cancelled {
		t.Errorf("cancelled queued job %+v", j)
	}
	m.Cancel(run.ID)
	if j := wait(t, m, run.ID); j.State != Cancelled {
		t.Errorf("cancelled running job %+v", j)
	}
	if n := len(m.List("c2")); n != 2 {
		t.Errorf("List(c2) = %d jobs", n)
	}
	if n := len(m.List("")); n != 5 {
		t.Errorf("List() = %d jobs", n)
	}
	if finished.Load() != 5 {
		t.Errorf("Finished called %d times", finished.Load())
	}
	if _, err := m.Submit("nope", "c", nil); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := m.Get("nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(nosuch) = %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		raw, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		var j Job
		if err := json.Unmarshal(raw, &j); err != nil || !j.State.Final() {
			t.Errorf("%s on disk: %v %s", e.Name(), err, raw)
		}
	}
}

// TestResume: jobs a stopped manager left running are run again by the next
// one; unknown kinds and jobs interrupted too often are marked failed; a
// stray temporary file and a damaged file are ignored.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	m, _ := Open(context.Background(), dir, Options{MaxAttempts: 2})
	started := make(chan struct{}, 1)
	m.Handle("work", func(ctx context.Context, j Job, r Reporter) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	m.Start()
	j, _ := m.Submit("work", "c", nil)
	<-started
	queued, _ := m.Submit("work", "c", nil)
	m.Close()
	if _, err := m.Submit("work", "c", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ".tmp-123"), []byte("{half"), 0o600)
	os.WriteFile(filepath.Join(dir, "zzzz.json"), []byte("{half"), 0o600)
	orphan := Job{ID: "orphan1", Kind: "gone", Collection: "c", State: Running, Created: time.Now()}
	raw, _ := json.Marshal(orphan)
	os.WriteFile(filepath.Join(dir, "orphan1.json"), raw, 0o600)

	// Second run: the job resumes (attempt 2) and finishes.
	m2, err := Open(context.Background(), dir, Options{MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	m2.Handle("work", func(ctx context.Context, j Job, r Reporter) error { return nil })
	m2.Start()
	if got := wait(t, m2, j.ID); got.State != Done || got.Attempts != 2 {
		t.Errorf("resumed job %+v", got)
	}
	if got := wait(t, m2, queued.ID); got.State != Done || got.Attempts != 1 {
		t.Errorf("queued job %+v", got)
	}
	if got := wait(t, m2, "orphan1"); got.State != Failed || !strings.Contains(got.Error, "cannot run") {
		t.Errorf("unknown kind %+v", got)
	}
	m2.Close()
	if _, err := os.Stat(filepath.Join(dir, ".tmp-123")); err == nil {
		t.Error("temporary file not removed")
	}

	// A job interrupted MaxAttempts times is not run again.
	tired := Job{ID: "tired1", Kind: "work", Collection: "c", State: Running, Attempts: 2, Created: time.Now()}
	raw, _ = json.Marshal(tired)
	os.WriteFile(filepath.Join(dir, "tired1.json"), raw, 0o600)
	m3, _ := Open(context.Background(), dir, Options{MaxAttempts: 2})
	m3.Handle("work", func(ctx context.Context, j Job, r Reporter) error { return nil })
	m3.Start()
	defer m3.Close()
	if got := wait(t, m3, "tired1"); got.State != Failed {
		t.Errorf("job interrupted twice: %+v", got)
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{NewID(), "abc123"} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
	for _, id := range []string{"", "../x", "A", "a.b", strings.Repeat("a", 65)} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}

// clock is a fake time source tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestRetention: finished jobs are removed once older than the retention —
// at Start and by Prune — with what they left behind first; queued and
// running jobs are kept however old; zero retention keeps everything.
func TestRetention(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var removed []string
	var mu sync.Mutex
	opt := Options{Retention: 7 * 24 * time.Hour, Now: clk.Now, Removing: func(j Job) error {
		mu.Lock()
		defer mu.Unlock()
		removed = append(removed, j.ID)
		return nil
	}}
	m, err := Open(context.Background(), dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	m.Handle("work", func(ctx context.Context, j Job, r Reporter) error {
		var p struct{ Block bool }
		json.Unmarshal(j.Params, &p)
		if p.Block {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-release:
			}
		}
		return nil
	})
	m.Start()
	defer m.Close()
	old, _ := m.Submit("work", "c", nil)
	wait(t, m, old.ID)
	running, _ := m.Submit("work", "c", map[string]bool{"block": true})
	queued, _ := m.Submit("work", "c", nil) // one worker: stays queued behind running
	for {
		if j, _ := m.Get(running.ID); j.State == Running {
			break
		}
		time.Sleep(time.Millisecond)
	}
	clk.Advance(6 * 24 * time.Hour)
	if n := m.Prune(); n != 0 {
		t.Fatalf("Prune after 6 days removed %d jobs", n)
	}
	clk.Advance(2 * 24 * time.Hour) // old finished 8 days ago
	if n := m.Prune(); n != 1 {
		t.Fatalf("Prune after 8 days removed %d jobs, want 1", n)
	}
	if _, err := m.Get(old.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("expired job still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, old.ID+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("expired job's file still there: %v", err)
	}
	mu.Lock()
	if len(removed) != 1 || removed[0] != old.ID {
		t.Errorf("Removing called for %v", removed)
	}
	mu.Unlock()
	for _, id := range []string{running.ID, queued.ID} {
		if j, err := m.Get(id); err != nil || j.State.Final() {
			t.Errorf("unfinished job %s: %+v %v", id, j, err)
		}
	}
	// Once finished, they wait their own retention from when they finished.
	close(release)
	wait(t, m, running.ID)
	wait(t, m, queued.ID)
	clk.Advance(7*24*time.Hour - time.Minute)
	if n := m.Prune(); n != 0 {
		t.Errorf("jobs finished less than 7 days ago removed: %d", n)
	}
	m.Close()

	// A new manager removes expired jobs at Start.
	clk.Advance(time.Hour)
	m2, err := Open(context.Background(), dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m2.List("")); n != 2 {
		t.Fatalf("reopened with %d jobs", n)
	}
	m2.Start()
	defer m2.Close()
	if n := len(m2.List("")); n != 0 {
		t.Errorf("Start left %d expired jobs", n)
	}

	// Zero retention keeps finished jobs forever.
	keep, _ := Open(context.Background(), t.TempDir(), Options{Now: clk.Now})
	keep.Handle("work", func(context.Context, Job, Reporter) error { return nil })
	keep.Start()
	defer keep.Close()
	j, _ := keep.Submit("work", "c", nil)
	wait(t, keep, j.ID)
	clk.Advance(10 * 365 * 24 * time.Hour)
	if n := keep.Prune(); n != 0 {
		t.Errorf("zero retention removed %d jobs", n)
	}
}

// TestRemove: Remove deletes a finished job but refuses an unfinished one;
// when what the job left behind cannot be deleted, the job stays, whole and
// final — a later manager neither loses nor runs it again.
func TestRemove(t *testing.T) {
	dir := t.TempDir()
	failing := true
	opt := Options{Removing: func(Job) error {
		if failing {
			return errors.New("disk says no")
		}
		return nil
	}}
	m, _ := Open(context.Background(), dir, opt)
	release := make(chan struct{})
	var runs atomic.Int32
	m.Handle("work", func(ctx context.Context, j Job, r Reporter) error {
		runs.Add(1)
		var p struct{ Block bool }
		json.Unmarshal(j.Params, &p)
		if p.Block {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-release:
			}
		}
		return nil
	})
	m.Start()
	done, _ := m.Submit("work", "c", nil)
	wait(t, m, done.ID)
	running, _ := m.Submit("work", "c", map[string]bool{"block": true})
	for {
		if j, _ := m.Get(running.ID); j.State == Running {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := m.Remove(running.ID); !errors.Is(err, ErrUnfinished) {
		t.Errorf("Remove(running) = %v, want ErrUnfinished", err)
	}
	if err := m.Remove("nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Remove(nosuch) = %v", err)
	}
	// Removing fails: the job stays in memory and on disk.
	if err := m.Remove(done.ID); err == nil {
		t.Fatal("Remove succeeded although Removing failed")
	}
	if _, err := m.Get(done.ID); err != nil {
		t.Errorf("job lost after a failed removal: %v", err)
	}
	close(release)
	wait(t, m, running.ID)
	m.Close()

	m2, _ := Open(context.Background(), dir, opt)
	m2.Handle("work", func(context.Context, Job, Reporter) error { runs.Add(1); return nil })
	m2.Start()
	defer m2.Close()
	if j, err := m2.Get(done.ID); err != nil || j.State != Done {
		t.Fatalf("half-removed job after restart: %+v %v", j, err)
	}
	failing = false // Close and Start synchronise with the Removing calls
	if err := m2.Remove(done.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Get(done.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("removed job still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, done.ID+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("removed job's file still there: %v", err)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("jobs ran %d times, want 2 (a finished job was run again)", n)
	}
}
