package jobs

import (
	"context"
	"slices"
	"time"
)

// Scheduling. A manager runs at most Options.Workers jobs at once: it has
// that many slots. Every job belongs to a group, the tenant it is run for:
// the API key that submitted it (Job.Submitter), else its collection. When a
// slot frees, the waiting job of the group with the fewest running jobs
// goes next, the earliest among equals, so one tenant's ten uploads never
// queue another tenant's one upload behind them.
//
// A long job takes turns. Between its items (a file of an upload, a
// contract of a review) it calls Yield; once it has held its slot for
// Options.Slice and a job of a group with fewer running jobs is waiting, it
// gives the slot up and waits for its turn like a new job, keeping its
// state (it is still "running" to clients). So a review of thousands of
// contracts started first does not hold a slot for hours while another
// tenant's small job waits.
//
// Accounting: free counts the slots not held; running counts, per group,
// the jobs holding one. A job takes a slot when dispatched (new or resumed
// after a yield) and gives it back when it yields or returns.

// DefaultSlice is how long a job holds its slot before it yields to a
// waiting job of another group (Options.Slice).
const DefaultSlice = 2 * time.Second

// TenantOf names the tenant of work for a collection submitted by a key
// (empty: the collection's own), as the scheduler groups jobs.
func TenantOf(collection, submitter string) string {
	return group(Job{Collection: collection, Submitter: submitter})
}

// group returns the scheduling group of a job.
func group(j Job) string {
	if j.Submitter != "" {
		return "key\x00" + j.Submitter
	}
	return "collection\x00" + j.Collection
}

// dispatchLocked gives free slots to waiting jobs, fairest first: new jobs
// start running, yielded jobs resume.
func (m *Manager) dispatchLocked() {
	for m.started && !m.closed && m.free > 0 && len(m.queue) > 0 {
		i := m.pickLocked()
		id := m.queue[i]
		m.queue = slices.Delete(m.queue, i, i+1)
		en := m.jobs[id]
		if en == nil {
			continue
		}
		m.free--
		g := group(en.job)
		m.running[g]++
		m.seq++
		m.served[g] = m.seq
		en.slice = time.Now()
		if en.resume != nil {
			close(en.resume)
			en.resume = nil
			continue
		}
		m.startLocked(en)
	}
}

// pickLocked returns the index in the queue of the job to run next: of the
// group with the fewest running jobs, and among those the group served
// longest ago (round robin), the earliest.
func (m *Manager) pickLocked() int {
	best, bestRun, bestServed := 0, -1, uint64(0)
	for i, id := range m.queue {
		en := m.jobs[id]
		if en == nil {
			return i
		}
		g := group(en.job)
		r, sv := m.running[g], m.served[g]
		if bestRun < 0 || r < bestRun || r == bestRun && sv < bestServed {
			best, bestRun, bestServed = i, r, sv
		}
	}
	return best
}

// releaseLocked gives back the slot a job held.
func (m *Manager) releaseLocked(en *entry) {
	m.free++
	g := group(en.job)
	if m.running[g]--; m.running[g] <= 0 {
		delete(m.running, g)
	}
}

// waitingFewerLocked reports whether a job of a group with fewer running
// jobs than g is waiting: then a job of g should give its slot up.
func (m *Manager) waitingFewerLocked(g string) bool {
	mine := m.running[g]
	for _, id := range m.queue {
		if en := m.jobs[id]; en != nil && group(en.job) != g && m.running[group(en.job)] < mine {
			return true
		}
	}
	return false
}

type yieldKey struct{}

// yielder lets a running job's function reach its manager (Yield); group
// is the job's, fixed when it started (read without the manager's lock).
type yielder struct {
	m     *Manager
	en    *entry
	group string
}

// Yield is called by a job's function between its items. When the job has
// held its slot for the manager's slice and a job of a tenant with fewer
// running jobs waits, Yield gives the slot up and returns once the job's
// turn comes again. It returns ctx's error when the job is cancelled or the
// manager closes meanwhile (the function should then return). Outside a
// job it only returns ctx's error. A job's goroutines may call it at once:
// the first to give the slot up does, the others wait with it.
func Yield(ctx context.Context) error {
	y, _ := ctx.Value(yieldKey{}).(*yielder)
	if y == nil {
		return ctx.Err()
	}
	return y.m.yield(ctx, y.en)
}

func (m *Manager) yield(ctx context.Context, en *entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	g := group(en.job)
	if en.resume != nil {
		// Another goroutine of the job gave the slot up: wait with it.
		resume := en.resume
		m.mu.Unlock()
		select {
		case <-resume:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if m.closed || time.Since(en.slice) < m.opt.Slice || !m.waitingFewerLocked(g) {
		m.mu.Unlock()
		return nil
	}
	m.releaseLocked(en)
	resume := make(chan struct{})
	en.resume = resume
	en.yields++
	m.queue = append(m.queue, en.job.ID)
	m.dispatchLocked()
	m.mu.Unlock()

	select {
	case <-resume:
		return nil
	case <-ctx.Done():
		m.mu.Lock()
		defer m.mu.Unlock()
		if en.resume != nil { // still waiting: leave the queue, and take
			// the slot back on paper, so that returning gives one back
			m.queue = slices.DeleteFunc(m.queue, func(q string) bool { return q == en.job.ID })
			en.resume = nil
			m.free--
			m.running[g]++
		}
		return ctx.Err()
	}
}
