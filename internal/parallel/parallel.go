// Package parallel runs a function over the indexes 0…n-1 on a bounded
// number of goroutines: parsing files, decoding segments, reviewing
// contracts, training detectors, reading records from cluster nodes.
//
// Results are the caller's to place: f receives the index, so a caller that
// writes f's result to slot i of a slice gets the same output however the
// calls were scheduled — which is what keeps an index built in parallel
// identical from run to run. Indexes are handed out in increasing order,
// each exactly once; once the context is done no new index is handed out,
// and every function returns only after each call it started has returned,
// so no goroutine outlives the call.
package parallel

import (
	"context"
	"sync"
)

// Each calls f(i) for every i in [0, n) on at most limit goroutines (at
// least one). It stops handing out indexes once ctx is done, waits for the
// calls under way, and returns ctx's error if some index was never handed
// out.
func Each(ctx context.Context, n, limit int, f func(i int)) error {
	if n <= 0 {
		return nil
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(limit, n)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return err
}

// All calls f(i) for every i in [0, n) on at most limit goroutines: Each
// for work that is not cancelled (a computation over data in memory).
func All(n, limit int, f func(i int)) {
	Each(context.Background(), n, limit, f)
}

// Stream calls f(i) for every i in [0, n) on at most limit goroutines, as
// Each does, and sends each call's result on the returned channel as it
// finishes (in the order calls finish, not the order of i); the channel
// holds up to buffer results and is closed after the last call has
// returned. The caller must receive until the channel is closed. Once ctx
// is done no new index is handed out.
func Stream[T any](ctx context.Context, n, limit, buffer int, f func(i int) T) <-chan T {
	out := make(chan T, buffer)
	go func() {
		defer close(out)
		Each(ctx, n, limit, func(i int) { out <- f(i) })
	}()
	return out
}
