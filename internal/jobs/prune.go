package jobs

import (
	"fmt"
	"time"
)

// pruneEvery removes expired jobs every PruneEvery until Close.
func (m *Manager) pruneEvery() {
	defer m.wg.Done()
	t := time.NewTicker(m.opt.PruneEvery)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
			m.Prune()
		}
	}
}

// Prune removes the finished jobs that finished more than the retention
// ago and returns how many it removed. It does nothing when the retention
// is zero. Start and the periodic removal call it; so may tests.
func (m *Manager) Prune() int {
	if m.opt.Retention <= 0 {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cutoff := m.opt.Now().Add(-m.opt.Retention)
	n := 0
	for _, en := range m.jobs {
		j := en.job
		end := j.Finished
		if end.IsZero() {
			end = j.Created
		}
		if !j.State.Final() || !end.Before(cutoff) {
			continue
		}
		if err := m.removeLocked(en); err != nil {
			m.opt.Logger.Warn("jobs: cannot remove expired job; will retry", "id", j.ID, "err", err)
			continue
		}
		n++
	}
	n += m.others.prune(cutoff)
	if n > 0 {
		m.opt.Logger.Info("jobs: removed expired jobs", "count", n, "retention", m.opt.Retention.String())
	}
	return n
}

// Remove deletes a finished job with what it left behind. It returns
// ErrNotFound for an unknown job and ErrUnfinished for one queued or
// running (cancel it first).
func (m *Manager) Remove(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	en := m.jobs[id]
	if en == nil {
		return m.others.remove(id)
	}
	if !en.job.State.Final() {
		return fmt.Errorf("job %q is %s: %w", id, en.job.State, ErrUnfinished)
	}
	return m.removeLocked(en)
}

// removeLocked removes a finished job: first what it left behind
// (Options.Removing), then its file, then the job in memory. A crash at any
// point leaves the job's file whole and final, so the job is never run
// again, and the next Prune or Remove finishes the work.
func (m *Manager) removeLocked(en *entry) error {
	id := en.job.ID
	if m.opt.Removing != nil {
		if err := m.opt.Removing(clone(en.job)); err != nil {
			return fmt.Errorf("jobs: remove %s: %w", id, err)
		}
	}
	return m.keep.forget(en)
}
