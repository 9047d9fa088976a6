package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFairOrder: when a slot frees, the waiting job of the tenant with the
// fewest running jobs goes first, not the oldest: tenant A's three uploads
// do not queue tenant B's one behind them.
func TestFairOrder(t *testing.T) {
	m, err := Open(context.Background(), t.TempDir(), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var mu sync.Mutex
	var order []string
	release := make(chan struct{})
	m.Handle("work", func(ctx context.Context, j Job, r Reporter) error {
		var name string
		json.Unmarshal(j.Params, &name)
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		if name == "a1" {
			<-release
		}
		return nil
	})
	m.Start()
	var ids []string
	for _, s := range []struct{ name, key string }{{"a1", "A"}, {"a2", "A"}, {"a3", "A"}, {"b1", "B"}} {
		j, err := m.SubmitBy("work", "c-"+s.key, s.key, s.name)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	if n := m.Unfinished("A"); n != 3 {
		t.Errorf("A has %d unfinished jobs, want 3", n)
	}
	close(release)
	for _, id := range ids {
		wait(t, m, id)
	}
	if want := []string{"a1", "b1", "a2", "a3"}; !slices.Equal(order, want) {
		t.Errorf("ran %v, want %v", order, want)
	}
}

// TestYield: a long job of tenant A, holding the only slot, gives it to
// tenant B's job at its next Yield after the slice, and resumes after it.
// Without yielding B's job waited for all of A's.
func TestYield(t *testing.T) {
	m, err := Open(context.Background(), t.TempDir(), Options{Workers: 1, Slice: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	bDone := make(chan struct{})
	var yieldsWithoutRival int
	m.Handle("long", func(ctx context.Context, j Job, r Reporter) error {
		for i := 0; ; i++ {
			select {
			case <-bDone:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
			if err := Yield(ctx); err != nil {
				return err
			}
		}
	})
	m.Handle("short", func(ctx context.Context, j Job, r Reporter) error {
		close(bDone)
		return nil
	})
	m.Start()
	a, _ := m.SubmitBy("long", "ca", "A", nil)
	time.Sleep(30 * time.Millisecond) // A runs alone: Yield keeps its slot
	m.mu.Lock()
	yieldsWithoutRival = m.jobs[a.ID].yields
	m.mu.Unlock()
	if yieldsWithoutRival != 0 {
		t.Errorf("A gave up its slot %d times with no one waiting", yieldsWithoutRival)
	}
	b, _ := m.SubmitBy("short", "cb", "B", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if j, err := m.Wait(ctx, b.ID); err != nil || j.State != Done {
		t.Fatalf("B's job did not run while A's long job held the slot: %+v %v", j, err)
	}
	if j := wait(t, m, a.ID); j.State != Done {
		t.Errorf("A's job after yielding: %+v", j)
	}
}

// TestYieldCancel: a job waiting for its turn after yielding is cancelled
// at once, and its slot accounting stays right (the next job runs).
func TestYieldCancel(t *testing.T) {
	m, err := Open(context.Background(), t.TempDir(), Options{Workers: 1, Slice: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	hold := make(chan struct{})
	m.Handle("long", func(ctx context.Context, j Job, r Reporter) error {
		for {
			time.Sleep(2 * time.Millisecond)
			if err := Yield(ctx); err != nil {
				return err
			}
		}
	})
	m.Handle("hold", func(ctx context.Context, j Job, r Reporter) error {
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return nil
	})
	m.Start()
	a, _ := m.SubmitBy("long", "ca", "A", nil)
	time.Sleep(10 * time.Millisecond)
	b, _ := m.SubmitBy("hold", "cb", "B", nil) // A yields to it, then waits
	for {
		m.mu.Lock()
		waiting := m.jobs[a.ID].resume != nil
		m.mu.Unlock()
		if waiting {
			break
		}
		time.Sleep(time.Millisecond)
	}
	m.Cancel(a.ID)
	if j := wait(t, m, a.ID); j.State != Cancelled {
		t.Errorf("cancelled while waiting its turn: %+v", j)
	}
	close(hold)
	wait(t, m, b.ID)
	c, _ := m.SubmitBy("hold", "cc", "C", nil)
	if j := wait(t, m, c.ID); j.State != Done {
		t.Errorf("after a cancelled yielded job, the next job: %+v", j)
	}
	m.mu.Lock()
	free := m.free
	m.mu.Unlock()
	if free != 1 {
		t.Errorf("%d free slots after everything finished, want 1", free)
	}
}

// TestPoolFair: a tenant waiting for a processor slot behind many callers
// of another tenant gets the next one that frees. The first caller to get
// the slot holds it until every other caller waits, so the order does not
// depend on how fast the machine schedules the test.
func TestPoolFair(t *testing.T) {
	p := NewPool(1, 1)
	m, err := Open(context.Background(), t.TempDir(), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var mu sync.Mutex
	var order []string
	gate := make(chan struct{}) // B asks once A's callers all wait
	hold := make(chan struct{}) // the first holder lets go once B waits too
	m.Handle("work", func(ctx context.Context, j Job, r Reporter) error {
		var n int
		json.Unmarshal(j.Params, &n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if j.Submitter == "B" {
					<-gate
				}
				release, err := p.Acquire(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, fmt.Sprintf("%s%d", j.Submitter, i))
				first := len(order) == 1
				mu.Unlock()
				if first {
					<-hold
				}
				release()
			}()
		}
		wg.Wait()
		return nil
	})
	m.Start()
	waiting := func(want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			p.mu.Lock()
			n := len(p.waiting)
			p.mu.Unlock()
			if n >= want {
				return
			}
			if time.Now().After(deadline) {
				close(hold)
				t.Fatalf("%d callers wait for the slot after 10 s, want %d", n, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	a, _ := m.SubmitBy("work", "ca", "A", 6)
	b, _ := m.SubmitBy("work", "cb", "B", 1)
	waiting(5) // one of A's callers holds the slot, five wait
	close(gate)
	waiting(6) // and B's caller waits behind them
	close(hold)
	wait(t, m, a.ID)
	wait(t, m, b.ID)
	if i := slices.Index(order, "B0"); i != 1 {
		t.Errorf("B got a slot at turn %d of %v; want the next free one (1)", i, order)
	}
}

// TestPoolShare: with two slots and a share of one, a tenant with many
// callers holds one slot, and another tenant's caller gets the other at
// once, without waiting for the first tenant's long items.
func TestPoolShare(t *testing.T) {
	p := NewPool(2, 1)
	ctxA := context.WithValue(context.Background(), yieldKey{}, &yielder{group: group(Job{Submitter: "A"})})
	ctxB := context.WithValue(context.Background(), yieldKey{}, &yielder{group: group(Job{Submitter: "B"})})
	relA, err := p.Acquire(ctxA)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan func())
	go func() { r, _ := p.Acquire(ctxA); second <- r }() // waits: A has its share
	select {
	case <-second:
		t.Fatal("A took both slots")
	case <-time.After(20 * time.Millisecond):
	}
	ctx, cancel := context.WithTimeout(ctxB, 5*time.Second)
	defer cancel()
	relB, err := p.Acquire(ctx)
	if err != nil {
		t.Fatalf("B waited for A's long item: %v", err)
	}
	relB()
	relA()
	(<-second)()
}

// TestYieldJoin: the goroutines of one job (a review's workers) may call
// Yield at once; they give the one slot up together and resume together.
func TestYieldJoin(t *testing.T) {
	m, err := Open(context.Background(), t.TempDir(), Options{Workers: 1, Slice: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	bDone := make(chan struct{})
	var during atomic.Int32 // A's goroutines working while B held the slot
	var bRunning atomic.Bool
	m.Handle("long", func(ctx context.Context, j Job, r Reporter) error {
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				for {
					select {
					case <-bDone:
						return
					case <-ctx.Done():
						return
					default:
					}
					if Yield(ctx) != nil {
						return
					}
					if bRunning.Load() {
						during.Add(1)
					}
					time.Sleep(time.Millisecond)
				}
			})
		}
		wg.Wait()
		return nil
	})
	m.Handle("short", func(ctx context.Context, j Job, r Reporter) error {
		bRunning.Store(true)
		time.Sleep(20 * time.Millisecond)
		bRunning.Store(false)
		close(bDone)
		return nil
	})
	m.Start()
	a, _ := m.SubmitBy("long", "ca", "A", nil)
	time.Sleep(20 * time.Millisecond)
	b, _ := m.SubmitBy("short", "cb", "B", nil)
	wait(t, m, b.ID)
	wait(t, m, a.ID)
	if n := during.Load(); n > 3 {
		t.Errorf("A's goroutines worked %d times while B held the only slot", n)
	}
	m.mu.Lock()
	free := m.free
	m.mu.Unlock()
	if free != 1 {
		t.Errorf("%d free slots at the end, want 1", free)
	}
}
