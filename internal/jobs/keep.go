package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
)

// keeper persists this process's own jobs: one file each in the manager's
// directory (jobFiles), or, on a cluster, one record each, written in the
// background and refreshed by a heartbeat (jobRecords). The manager calls
// it and never asks which of the two it has.
type keeper interface {
	// claim marks a new job, before its first write, as this process's.
	claim(j *Job)
	// save persists a job whose state changed (m.mu held), logging a
	// failure: the in-memory state stays authoritative for this process.
	save(en *entry)
	// put writes a job's encoded state now.
	put(id string, raw []byte) error
	// forget removes a finished job's file or record, then the job in
	// memory (m.mu held).
	forget(en *entry) error
	// start begins the keeper's background work (Start).
	start()
}

// jobFiles keeps each job as a JSON file of the manager's directory,
// replaced atomically on every change.
type jobFiles struct{ m *Manager }

func (jobFiles) claim(*Job) {}

func (k jobFiles) save(en *entry) {
	if err := k.m.write(en.job); err != nil {
		k.m.opt.Logger.Error("jobs: cannot persist job", "id", en.job.ID, "err", err)
	}
}

// put replaces the job's file atomically: a temporary file is written and
// synced, then renamed over the old one, and the directory synced.
func (k jobFiles) put(id string, raw []byte) error {
	return atomicfile.Write(filepath.Join(k.m.dir, id+".json"), raw, 0o600)
}

func (k jobFiles) forget(en *entry) error {
	m, id := k.m, en.job.ID
	if err := os.Remove(filepath.Join(m.dir, id+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("jobs: remove %s: %w", id, err)
	}
	atomicfile.SyncDir(m.dir)
	delete(m.jobs, id)
	return nil
}

func (jobFiles) start() {}

// jobRecords keeps each job as a record shared by the processes of a
// cluster (Options.Shared), owned by this process (shared.go).
type jobRecords struct{ m *Manager }

func (k jobRecords) claim(j *Job) { j.Owner, j.Heartbeat = k.m.opt.Owner, j.Created }

// save marks the job for the background writer (persist), with a fresh
// heartbeat while it is unfinished.
func (k jobRecords) save(en *entry) {
	m := k.m
	if !en.job.State.Final() {
		en.job.Heartbeat = m.opt.Now().UTC()
	}
	en.unsaved = true
	select {
	case m.dirty <- struct{}{}:
	default:
	}
}

// recordWriteTimeout bounds one write of a job's record to a shared store.
const recordWriteTimeout = 30 * time.Second

func (k jobRecords) put(id string, raw []byte) error {
	m := k.m
	// Not m.ctx: Close cancels it before the last flush of the records,
	// which must still be written. Each write is bounded instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(m.ctx), recordWriteTimeout)
	defer cancel()
	if err := m.opt.Shared.PutRecord(ctx, m.opt.RecordKind, id, raw); err != nil {
		return fmt.Errorf("jobs: store job %s: %w", id, err)
	}
	return nil
}

func (k jobRecords) forget(en *entry) error {
	m, id := k.m, en.job.ID
	// After a record write in flight, and so that none follows.
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.opt.Shared.DeleteRecord(m.ctx, m.opt.RecordKind, id); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("jobs: remove %s: %w", id, err)
	}
	en.removed = true
	delete(m.jobs, id)
	return nil
}

// start begins the heartbeat: this process's unfinished jobs rewritten,
// and the cancellations other processes asked for looked up.
func (k jobRecords) start() {
	k.m.wg.Add(1)
	go k.m.heartbeat()
}
