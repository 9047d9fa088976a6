package jobs

import (
	"context"
	"fmt"
	"time"
)

// others reaches the jobs this process does not run. A manager over a
// directory has none (one process per store: noOthers); on a cluster they
// are the other servers' job records (otherServers, shared.go). The
// manager asks it whenever a job is not its own, and never asks which of
// the two it has.
type others interface {
	// get returns another process's job; none is an error wrapping
	// ErrNotFound.
	get(id string) (Job, error)
	// list returns every job of the store (this process's own included:
	// List skips them).
	list() []Job
	// cancel asks for another process's job to be cancelled (m.mu held).
	cancel(id string) (Job, error)
	// remove deletes another process's finished job (m.mu held).
	remove(id string) error
	// wait returns another process's job once final, or ctx's error.
	wait(ctx context.Context, id string) (Job, error)
	// prune removes the other processes' jobs finished before cutoff and
	// returns how many (m.mu held).
	prune(cutoff time.Time) int
}

// noOthers: a directory's jobs are all this process's.
type noOthers struct{}

func notFound(id string) error { return fmt.Errorf("job %q: %w", id, ErrNotFound) }

func (noOthers) get(id string) (Job, error)                     { return Job{}, notFound(id) }
func (noOthers) list() []Job                                    { return nil }
func (noOthers) cancel(id string) (Job, error)                  { return Job{}, notFound(id) }
func (noOthers) remove(id string) error                         { return notFound(id) }
func (noOthers) wait(_ context.Context, id string) (Job, error) { return Job{}, notFound(id) }
func (noOthers) prune(time.Time) int                            { return 0 }

// otherServers: the jobs of the other servers sharing the cluster's
// records, read and changed through them (shared.go).
type otherServers struct{ m *Manager }

func (o otherServers) get(id string) (Job, error)    { return o.m.getShared(id) }
func (o otherServers) list() []Job                   { return o.m.listShared() }
func (o otherServers) cancel(id string) (Job, error) { return o.m.cancelShared(id) }
func (o otherServers) remove(id string) error        { return o.m.removeShared(id) }
func (o otherServers) wait(ctx context.Context, id string) (Job, error) {
	return o.m.waitShared(ctx, id)
}
func (o otherServers) prune(cutoff time.Time) int { return o.m.pruneSharedLocked(cutoff) }
