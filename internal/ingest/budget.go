package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Budget is the memory that documents being ingested may take together in
// one process: every Ingest of a server, whatever tenant it runs for,
// reserves from the same Budget before it reads a file and again before
// it analyzes the text it got, and gives the memory back once the document
// is stored or has failed. A reservation that does not fit waits its turn
// (first come, first served), so a burst of large uploads queues instead
// of growing the process; a document whose need alone passes the whole
// budget fails, with an error naming the budget, and the others go on.
//
// What a document needs is estimated from what is known at each step (the
// file's format and size, then the text parsed from it), with factors
// measured on the bomb kit (internal/parse/bombtest) — an estimate, not a
// measurement, which is why the hard limits of internal/parse stay: they
// bound what any document can cost, the budget shares that between them.
// docs/decisions/0023-ingestion-memory-budget.md tells the design.
type Budget struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

// DefaultMemory is the memory budget of ingestion unless one is given:
// what the documents being read and analyzed at once may take together.
const DefaultMemory = 512 << 20

// NewBudget returns a budget of limit bytes (DefaultMemory when ≤ 0).
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultMemory
	}
	return &Budget{limit: limit}
}

// processBudget is the budget of every Ingest that is given none.
var processBudget = sync.OnceValue(func() *Budget { return NewBudget(0) })

// Limit returns the budget's size in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// InUse returns the bytes reserved now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// ErrOverBudget is wrapped by the error of a document that needs more
// memory than the whole budget.
var ErrOverBudget = errors.New("needs more memory than ingestion may use")

// overBudget is the error of a document needing n bytes of b.
func (b *Budget) overBudget(n int64, what string) error {
	return fmt.Errorf("%w: %s needs about %s, more than the ingestion memory budget of %s (--ingest-memory)",
		ErrOverBudget, what, sizeName(n), sizeName(b.limit))
}

// reserve takes n bytes, waiting while they do not fit, in the order the
// reservations were asked for. It fails when n is larger than the whole
// budget, or with ctx's error once ctx is done.
func (b *Budget) reserve(ctx context.Context, n int64, what string) error {
	if n > b.limit {
		return b.overBudget(n, what)
	}
	b.mu.Lock()
	if len(b.waiters) == 0 && b.used+n <= b.limit {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.used -= n
			b.wake()
		default:
			for i, x := range b.waiters {
				if x == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
			b.wake() // the next one may fit now
		}
		return ctx.Err()
	}
}

// force takes n bytes without waiting.
func (b *Budget) force(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// release gives n bytes back and lets waiting reservations in.
func (b *Budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.wake()
	b.mu.Unlock()
}

// wake grants waiting reservations in order while they fit; b.mu is held.
func (b *Budget) wake() {
	for len(b.waiters) > 0 && b.used+b.waiters[0].n <= b.limit {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.used += w.n
		close(w.ready)
	}
}

// claim is what one item of an Ingest (a file, or an e-mail with its
// attachments, which are stored together) holds of the budget: memory
// being used to read or analyze one document, and memory held by the
// documents prepared and waiting to be stored.
type claim struct {
	b       *Budget
	working int64 // reading or analyzing the current document
	held    int64 // prepared documents waiting to be stored
}

// need sets the working memory of the current document to n bytes. The
// item's first reservation waits its turn; an item already holding
// prepared documents (an e-mail's attachments) does not wait, since what
// it holds goes back only once the whole item is stored, but the item
// fails when it would hold more than the whole budget.
func (c *claim) need(ctx context.Context, n int64, what string) error {
	c.b.release(c.working)
	c.working = 0
	if c.held > 0 {
		if c.held+n > c.b.limit {
			return c.b.overBudget(c.held+n, what+" with the message's other documents")
		}
		c.b.force(n)
	} else if err := c.b.reserve(ctx, n, what); err != nil {
		return err
	}
	c.working = n
	return nil
}

// keep turns the working memory into memory held by a prepared document
// of n bytes, waiting to be stored.
func (c *claim) keep(n int64) {
	c.b.release(c.working)
	c.working = 0
	c.b.force(n)
	c.held += n
}

// done gives back everything the item holds: it was stored, or failed.
func (c *claim) done() {
	c.b.release(c.working + c.held)
	c.working, c.held = 0, 0
}

// sizeName writes a byte count as "512 MiB".
func sizeName(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
}
