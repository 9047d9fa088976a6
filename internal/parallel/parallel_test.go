package parallel

import (
	"context"
	"errors"
	"sort"
	"sync/atomic"
	"testing"
)

func TestEach(t *testing.T) {
	for _, tt := range []struct{ n, limit int }{{0, 4}, {1, 4}, {10, 1}, {10, 3}, {100, 0}, {5, 50}} {
		seen := make([]int32, tt.n)
		var running, most atomic.Int32
		err := Each(context.Background(), tt.n, tt.limit, func(i int) {
			r := running.Add(1)
			for {
				m := most.Load()
				if r <= m || most.CompareAndSwap(m, r) {
					break
				}
			}
			atomic.AddInt32(&seen[i], 1)
			running.Add(-1)
		})
		if err != nil {
			t.Fatalf("n=%d: %v", tt.n, err)
		}
		for i, c := range seen {
			if c != 1 {
				t.Errorf("n=%d limit=%d: index %d called %d times", tt.n, tt.limit, i, c)
			}
		}
		if lim := int32(max(1, tt.limit)); most.Load() > lim {
			t.Errorf("n=%d limit=%d: %d calls at once", tt.n, tt.limit, most.Load())
		}
	}
}

func TestEachCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	err := Each(ctx, 1000, 2, func(i int) {
		if calls.Add(1) == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if c := calls.Load(); c >= 1000 {
		t.Errorf("%d calls after cancelling", c)
	}
}

func TestStream(t *testing.T) {
	var got []int
	for v := range Stream(context.Background(), 50, 4, 2, func(i int) int { return i * i }) {
		got = append(got, v)
	}
	sort.Ints(got)
	if len(got) != 50 {
		t.Fatalf("%d results, want 50", len(got))
	}
	for i, v := range got {
		if v != i*i {
			t.Fatalf("result %d = %d", i, v)
		}
	}
}

func TestAllOrderIndependent(t *testing.T) {
	out := make([]int, 1000)
	All(len(out), 8, func(i int) { out[i] = 2 * i })
	for i, v := range out {
		if v != 2*i {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
}
