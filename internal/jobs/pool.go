package jobs

import (
	"context"
	"slices"
	"sync"
)

// Pool is a fixed number of slots shared by the jobs of several managers —
// a server's processor slots for background work — handed out fairly
// between tenants as the managers schedule jobs (schedule.go): when a slot
// frees, the waiting caller whose tenant holds the fewest slots gets it;
// among equals, the tenant served longest ago (round robin), and its
// earliest caller. A caller's tenant is the group of the job
// whose context it passes (Yield's context); work outside a job is its own
// tenant. A tenant holds at most PerTenant slots at once, so with slots to
// spare a tenant's work never waits for another tenant's long item (a
// 300-page PDF, a long contract) to finish: the slot kept free is there the
// moment it asks.
type Pool struct {
	mu        sync.Mutex
	perTenant int
	free      int
	held      map[string]int
	served    map[string]uint64 // per tenant, when it last got a slot (seq)
	seq       uint64
	waiting   []*poolWaiter
}

type poolWaiter struct {
	group string
	ready chan struct{}
}

// NewPool returns a pool of n slots (at least one) of which one tenant
// holds at most perTenant (at least one, at most n).
func NewPool(n, perTenant int) *Pool {
	n = max(n, 1)
	return &Pool{free: n, perTenant: min(max(perTenant, 1), n), held: map[string]int{}, served: map[string]uint64{}}
}

// groupOf returns the scheduling group of the job ctx belongs to.
func groupOf(ctx context.Context) string {
	if t, ok := ctx.Value(tenantKey{}).(string); ok {
		return t
	}
	if y, _ := ctx.Value(yieldKey{}).(*yielder); y != nil {
		return y.group
	}
	return ""
}

type tenantKey struct{}

// WithTenant returns a context whose work a Pool attributes to tenant: for
// background work done outside a job (an index's maintenance after an
// upload), which then shares the slots like the tenant's jobs.
func WithTenant(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// Acquire waits for a slot and returns the function that gives it back,
// or ctx's error when ctx is done first.
func (p *Pool) Acquire(ctx context.Context) (release func(), err error) {
	g := groupOf(ctx)
	p.mu.Lock()
	if p.free > 0 && p.held[g] < p.perTenant && !p.eligibleLocked() {
		p.takeLocked(g)
		p.mu.Unlock()
		return p.releaser(g), nil
	}
	w := &poolWaiter{group: g, ready: make(chan struct{})}
	p.waiting = append(p.waiting, w)
	p.mu.Unlock()
	select {
	case <-w.ready:
		return p.releaser(g), nil
	case <-ctx.Done():
		p.mu.Lock()
		i := slices.Index(p.waiting, w)
		if i >= 0 {
			p.waiting = slices.Delete(p.waiting, i, i+1)
		}
		p.mu.Unlock()
		if i < 0 { // handed a slot meanwhile: give it back
			p.releaser(g)()
		}
		return nil, ctx.Err()
	}
}

func (p *Pool) releaser(g string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.held[g]--; p.held[g] <= 0 {
				delete(p.held, g)
			}
			p.free++
			p.handOutLocked()
		})
	}
}

// takeLocked gives a slot to tenant g.
func (p *Pool) takeLocked(g string) {
	p.free--
	p.held[g]++
	p.seq++
	p.served[g] = p.seq
}

// eligibleLocked reports whether a waiter could take a slot now (its
// tenant is under its share).
func (p *Pool) eligibleLocked() bool {
	for _, w := range p.waiting {
		if p.held[w.group] < p.perTenant {
			return true
		}
	}
	return false
}

// handOutLocked gives free slots to waiters under their tenant's share: of
// the tenant holding the fewest slots and, among those, served longest
// ago, the earliest.
func (p *Pool) handOutLocked() {
	for p.free > 0 {
		best := -1
		for i, w := range p.waiting {
			h := p.held[w.group]
			if h >= p.perTenant {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			b := p.waiting[best]
			if hb := p.held[b.group]; h < hb || h == hb && p.served[w.group] < p.served[b.group] {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := p.waiting[best]
		p.waiting = slices.Delete(p.waiting, best, best+1)
		p.takeLocked(w.group)
		close(w.ready)
	}
}
