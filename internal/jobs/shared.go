package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// DefaultLease is how long a job's heartbeat is trusted by other processes
// on a cluster (Options.Lease).
const DefaultLease = 30 * time.Second

// openShared opens a manager whose jobs live in opt.Shared: it loads this
// process's own jobs (Owner), to be resumed by Start like jobs found on disk.
// ctx bounds that first read of the records.
func openShared(ctx context.Context, opt Options) (*Manager, error) {
	if opt.RecordKind == "" {
		opt.RecordKind = "job"
	}
	if opt.Owner == "" {
		return nil, errors.New("jobs: open: shared jobs need an owner name")
	}
	if opt.Lease <= 0 {
		opt.Lease = DefaultLease
	}
	recs, err := opt.Shared.Records(ctx, opt.RecordKind)
	if err != nil {
		return nil, fmt.Errorf("jobs: open: read jobs: %w", err)
	}
	run, stop := context.WithCancel(context.Background())
	m := &Manager{opt: opt, funcs: map[string]Func{}, ctx: run, stop: stop, jobs: map[string]*entry{}, dirty: make(chan struct{}, 1), running: map[string]int{}, served: map[string]uint64{}}
	m.others, m.keep = otherServers{m}, jobRecords{m}
	m.persistStop, m.persistDone = make(chan struct{}), make(chan struct{})
	go m.persist()
	for id, raw := range recs {
		var j Job
		if err := json.Unmarshal(raw, &j); err != nil || j.ID != id {
			opt.Logger.Warn("jobs: ignoring unreadable job record", "id", id, "err", err)
			continue
		}
		if j.Owner != opt.Owner {
			continue
		}
		m.adopt(j)
	}
	return m, nil
}

// cancelKind is the kind of the records by which another process asks a
// job's owner to cancel it.
func (m *Manager) cancelKind() string { return m.opt.RecordKind + "-cancel" }

// view is a job of another process as this one shows it: unfinished with a
// heartbeat older than the lease, it is failed (interrupted).
func (m *Manager) view(j Job) Job {
	if j.State.Final() || j.Owner == m.opt.Owner {
		return clone(j)
	}
	if m.opt.Now().Sub(j.Heartbeat) > m.opt.Lease {
		j.State = Failed
		j.Error = fmt.Sprintf("interrupted: the server running it (%s) stopped answering at %s; start it again",
			j.Owner, j.Heartbeat.UTC().Format(time.RFC3339))
		j.Finished = j.Heartbeat
	}
	return clone(j)
}

// getShared reads a job of another process.
func (m *Manager) getShared(id string) (Job, error) {
	if !ValidID(id) {
		return Job{}, fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	raw, err := m.opt.Shared.Record(m.ctx, m.opt.RecordKind, id)
	if errors.Is(err, os.ErrNotExist) {
		return Job{}, fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("jobs: read job %s: %w", id, err)
	}
	var j Job
	if err := json.Unmarshal(raw, &j); err != nil || j.ID != id {
		return Job{}, fmt.Errorf("jobs: job %s: damaged record", id)
	}
	return m.view(j), nil
}

// listShared reads every job record (own ones included; List skips them).
func (m *Manager) listShared() []Job {
	recs, err := m.opt.Shared.Records(m.ctx, m.opt.RecordKind)
	if err != nil {
		m.opt.Logger.Warn("jobs: cannot list the jobs of other servers", "err", err)
		return nil
	}
	out := make([]Job, 0, len(recs))
	for id, raw := range recs {
		var j Job
		if json.Unmarshal(raw, &j) != nil || j.ID != id {
			continue
		}
		out = append(out, m.view(j))
	}
	return out
}

// cancelShared asks the owner of another process's job to cancel it; the
// owner does so at its next heartbeat. Called with m.mu held.
func (m *Manager) cancelShared(id string) (Job, error) {
	j, err := m.getShared(id)
	if err != nil || j.State.Final() {
		return j, err
	}
	at, _ := m.opt.Now().UTC().MarshalText()
	if err := m.opt.Shared.PutRecord(m.ctx, m.cancelKind(), id, at); err != nil {
		return Job{}, fmt.Errorf("jobs: cancel %s: %w", id, err)
	}
	return j, nil
}

// removeShared removes another process's finished (or interrupted) job.
// Called with m.mu held.
func (m *Manager) removeShared(id string) error {
	j, err := m.getShared(id)
	if err != nil {
		return err
	}
	if !j.State.Final() {
		return fmt.Errorf("job %q is %s: %w", id, j.State, ErrUnfinished)
	}
	if err := m.opt.Shared.DeleteRecord(m.ctx, m.opt.RecordKind, id); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("jobs: remove %s: %w", id, err)
	}
	m.opt.Shared.DeleteRecord(m.ctx, m.cancelKind(), id)
	return nil
}

// waitShared polls another process's job until it is final or ctx is done.
func (m *Manager) waitShared(ctx context.Context, id string) (Job, error) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		j, err := m.getShared(id)
		if err != nil || j.State.Final() {
			return j, err
		}
		select {
		case <-ctx.Done():
			return Job{}, ctx.Err()
		case <-t.C:
		}
	}
}

// pruneSharedLocked removes the records of other processes' jobs that
// finished — or were interrupted — before cutoff: a process gone for good
// leaves its jobs to the others.
func (m *Manager) pruneSharedLocked(cutoff time.Time) int {
	n := 0
	for _, j := range m.listShared() {
		if m.jobs[j.ID] != nil || !j.State.Final() || !j.Finished.Before(cutoff) {
			continue
		}
		if err := m.opt.Shared.DeleteRecord(m.ctx, m.opt.RecordKind, j.ID); err != nil && !errors.Is(err, os.ErrNotExist) {
			m.opt.Logger.Warn("jobs: cannot remove an expired job of another server; will retry", "id", j.ID, "err", err)
			continue
		}
		m.opt.Shared.DeleteRecord(m.ctx, m.cancelKind(), j.ID)
		n++
	}
	return n
}

// heartbeat rewrites this process's unfinished jobs every Lease/3, and
// looks for the cancellations other processes asked for every
// cancelPoll (or Lease/3 when shorter), until Close.
func (m *Manager) heartbeat() {
	defer m.wg.Done()
	beat := m.opt.Lease / 3
	t := time.NewTicker(min(beat, cancelPoll))
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		}
		write := time.Since(last) >= beat-beat/10
		if write {
			last = time.Now()
		}
		m.mu.Lock()
		var live []string
		for id, en := range m.jobs {
			if !en.job.State.Final() {
				if write {
					m.saveLocked(en)
				}
				live = append(live, id)
			}
		}
		m.mu.Unlock()
		for _, id := range live {
			if _, err := m.opt.Shared.Record(m.ctx, m.cancelKind(), id); err == nil {
				m.Cancel(id)
				m.opt.Shared.DeleteRecord(m.ctx, m.cancelKind(), id)
			}
		}
	}
}

// cancelPoll is how often an owner looks for cancellations asked through
// another process.
const cancelPoll = 2 * time.Second

// persist writes the records of the jobs saveLocked marked, each with its
// latest state, until Close has stopped everything else; then it writes
// what is left once more.
func (m *Manager) persist() {
	defer close(m.persistDone)
	for {
		select {
		case <-m.dirty:
			m.writeUnsaved()
		case <-m.persistStop:
			m.writeUnsaved()
			return
		}
	}
}

// writeUnsaved writes the record of every job whose record lags it. A
// failed write is logged and the job left marked, so the next save (at
// the latest the next heartbeat) tries again.
func (m *Manager) writeUnsaved() {
	type pending struct {
		en *entry
		j  Job
	}
	var todo []pending
	m.mu.Lock()
	for _, en := range m.jobs {
		if en.unsaved {
			en.unsaved = false
			todo = append(todo, pending{en, clone(en.job)})
		}
	}
	m.mu.Unlock()
	slices.SortFunc(todo, func(a, b pending) int { return cmpJobs(a.j, b.j) })
	m.wmu.Lock()
	var failed []*entry
	for _, p := range todo {
		if p.en.removed {
			continue
		}
		if err := m.write(p.j); err != nil {
			m.opt.Logger.Error("jobs: cannot persist job", "id", p.j.ID, "err", err)
			failed = append(failed, p.en)
		}
	}
	m.wmu.Unlock()
	if len(failed) > 0 {
		m.mu.Lock()
		for _, en := range failed {
			en.unsaved = true
		}
		m.mu.Unlock()
	}
}
