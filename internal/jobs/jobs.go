// Package jobs runs long background work — ingesting an upload, reviewing a
// deal room — as jobs a client can watch, cancel and find again after a
// restart. Each job is one JSON file in the manager's directory, replaced
// atomically on every change, so a crash leaves either the previous state or
// the next one, never half of either. Jobs still queued or running when the
// process stopped are run again on the next start (their functions must be
// idempotent) or, when that is not possible, marked failed. Finished jobs
// are kept for Options.Retention, then removed.
//
// On a cluster (Options.Shared) the jobs live in records every server
// process of the store reads, one record per job, and each job is written
// only by the process that accepted it and runs it (its Owner): there is no
// conditional write to arbitrate two writers, so there is never a second.
// Other processes read it to answer a poll, list it, and ask for its
// cancellation through a record of their own, which the owner acts on. The
// owner rewrites its unfinished jobs every Lease/3 (Job.Heartbeat); a job
// whose heartbeat is older than Lease is shown by the others as failed
// ("interrupted"): its process died, or lost the cluster. The record itself
// is left alone, so an owner restarted with the same identity resumes it as
// it resumes a job after a restart on one machine.
package jobs

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// State is where a job is in its life.
type State string

// Job states. Done, Failed and Cancelled are final.
const (
	Queued    State = "queued"
	Running   State = "running"
	Done      State = "done"
	Failed    State = "failed"
	Cancelled State = "cancelled"
)

// Final reports whether a job in state s will not change any more.
func (s State) Final() bool { return s == Done || s == Failed || s == Cancelled }

// ErrNotFound is returned for a job id the manager does not know.
var ErrNotFound = errors.New("job not found")

// ErrClosed is returned by Submit after Close.
var ErrClosed = errors.New("jobs: manager closed")

// ErrUnfinished is returned by Remove for a job still queued or running.
var ErrUnfinished = errors.New("job not finished")

// Progress is how far a running job has got.
type Progress struct {
	Done    int    `json:"done"`              // items finished
	Total   int    `json:"total"`             // items found (0 while unknown)
	Current string `json:"current,omitempty"` // the item just finished or being worked on
}

// Result is the outcome for one item of a job (a file, a document).
type Result struct {
	Name   string `json:"name"`
	ID     string `json:"id,omitempty"`     // e.g. the document id
	Status string `json:"status"`           // kind-specific, e.g. "added", "failed"
	Reason string `json:"reason,omitempty"` // why, when not plainly successful
}

// Job is one unit of background work and everything a client may see about
// it.
type Job struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Collection string    `json:"collection"`
	State      State     `json:"state"`
	Created    time.Time `json:"created"`
	Started    time.Time `json:"started,omitzero"`
	Finished   time.Time `json:"finished,omitzero"`
	// Attempts counts the runs started, including runs a restart cut short.
	Attempts int      `json:"attempts"`
	Progress Progress `json:"progress"`
	Results  []Result `json:"results"`
	// Error says why a failed job failed.
	Error string `json:"error,omitempty"`
	// Params are the kind-specific inputs given to Submit.
	Params json.RawMessage `json:"params,omitempty"`
	// Submitter identifies who submitted the job (an API key's id), for
	// fair scheduling (schedule.go) and per-key limits; empty: the
	// collection is the tenant.
	Submitter string `json:"submitter,omitempty"`
	// Owner names the server process that runs the job, on a cluster
	// (Options.Owner); Heartbeat is when it last said the job was alive.
	Owner     string    `json:"owner,omitempty"`
	Heartbeat time.Time `json:"heartbeat,omitzero"`
}

// Reporter is how a running job publishes its progress and results.
type Reporter interface {
	// Progress replaces the job's progress.
	Progress(p Progress)
	// Result records the outcome of one item; a later result with the same
	// Name replaces an earlier one (a resumed job reports items again).
	Result(r Result)
}

// Func runs one job. It must return promptly once ctx is cancelled, and must
// be idempotent: a job interrupted by a restart is run again from the start.
// A nil error finishes the job as done, an error as failed (unless ctx was
// cancelled by Cancel: then it is cancelled).
type Func func(ctx context.Context, j Job, r Reporter) error

// Options tune a Manager. The zero value is the default.
type Options struct {
	// Workers is the number of jobs run at once (default 1); see
	// schedule.go for which job runs next.
	Workers int
	// Slice is how long a running job keeps its slot before Yield gives it
	// to a waiting job of another group (DefaultSlice).
	Slice time.Duration
	// MaxAttempts bounds the runs of a job interrupted by restarts; a job
	// that already started this many runs is marked failed on the next start
	// rather than run again (default 3).
	MaxAttempts int
	// Finished, when set, is called once when a job reaches a final state
	// (e.g. to remove its uploaded files), before Wait returns it. It runs
	// with the manager locked: it must be quick and must not call the
	// Manager.
	Finished func(Job)
	// Retention is how long a finished job is kept after it finished; older
	// ones are removed by Start and then every PruneEvery until Close.
	// Zero keeps finished jobs forever. Queued and running jobs are never
	// removed.
	Retention time.Duration
	// PruneEvery is the period of the removal of expired jobs (default one
	// hour).
	PruneEvery time.Duration
	// Removing, when set, is called before a finished job is removed, to
	// delete what it left behind (e.g. its uploaded files). An error keeps
	// the job, to be removed on a later try. It runs with the manager
	// locked: it must be quick and must not call the Manager.
	Removing func(Job) error
	// Now is the clock for the jobs' timestamps and their retention
	// (default time.Now).
	Now func() time.Time
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger

	// Shared, when set, keeps the jobs in records shared by every process
	// of a store on a cluster, instead of files in the manager's directory
	// (see the package comment). RecordKind names their kind (default
	// "job"; two managers on one store need two kinds), Owner this process
	// (stable across its restarts, unique among the processes), Lease how
	// long another process trusts a job's heartbeat (default 30 s).
	Shared     Records
	RecordKind string
	Owner      string
	Lease      time.Duration
}

// Records keeps small records shared by the processes of a store on a
// cluster (store.SharedRecords). Reading or deleting a missing record is an
// error wrapping fs.ErrNotExist.
type Records interface {
	Records(ctx context.Context, kind string) (map[string][]byte, error)
	Record(ctx context.Context, kind, id string) ([]byte, error)
	PutRecord(ctx context.Context, kind, id string, data []byte) error
	DeleteRecord(ctx context.Context, kind, id string) error
}

// Manager queues, runs and persists jobs.
type Manager struct {
	dir   string
	opt   Options
	funcs map[string]Func
	// others reaches the jobs other processes run (others.go).
	others others
	// keep persists this process's jobs (keep.go).
	keep keeper

	ctx    context.Context // cancelled by Close
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	jobs   map[string]*entry
	queue  []string // waiting jobs, new or yielded (schedule.go)
	closed bool
	start  sync.Once
	// Slots (schedule.go): started once Start ran; free slots; per
	// group, the jobs holding one.
	started bool
	free    int
	running map[string]int
	served  map[string]uint64 // per group, when it last took a slot (seq)
	seq     uint64

	// On a cluster, job records are written by one goroutine (persist),
	// outside mu: a slow or unreachable cluster delays other processes'
	// view of a job, never this process's own API. dirty says it has a job
	// to write; wmu is held while records are written.
	dirty       chan struct{}
	wmu         sync.Mutex
	persistStop chan struct{} // closed by Close once workers are done
	persistDone chan struct{} // closed by persist when it returns
	closeOnce   sync.Once
}

type entry struct {
	job       Job
	cancel    context.CancelFunc // set while running
	cancelled bool               // Cancel was called
	done      chan struct{}      // closed when final
	saved     time.Time          // last persisted progress
	// Scheduling (schedule.go): when the job last took its slot; resume,
	// while it waits in the queue after yielding, is closed when its turn
	// comes; yields counts its turns given up.
	slice  time.Time
	resume chan struct{}
	yields int
	// On a cluster: unsaved says the record lags the job; removed (set
	// under wmu) that the record was deleted and must not be written again.
	unsaved bool
	removed bool
}

// Open loads the jobs persisted in dir (creating it if needed), or with
// opt.Shared this process's jobs among the shared records. ctx bounds the
// opening only (the first read of the shared records); the jobs run until
// Close. Register the job kinds with Handle, then call Start to resume
// unfinished jobs and begin running new ones.
func Open(ctx context.Context, dir string, opt Options) (*Manager, error) {
	if opt.Workers <= 0 {
		opt.Workers = 1
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = 3
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.PruneEvery <= 0 {
		opt.PruneEvery = time.Hour
	}
	if opt.Slice <= 0 {
		opt.Slice = DefaultSlice
	}
	if opt.Shared != nil {
		return openShared(ctx, opt)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("jobs: open %s: %w", dir, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	m := &Manager{dir: dir, opt: opt, funcs: map[string]Func{}, ctx: ctx, stop: stop, jobs: map[string]*entry{}, running: map[string]int{}, served: map[string]uint64{}, others: noOthers{}}
	m.keep = jobFiles{m}
	ents, err := os.ReadDir(dir)
	if err != nil {
		stop()
		return nil, fmt.Errorf("jobs: open %s: %w", dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".tmp-") {
			os.Remove(path) // a write a crash interrupted; the previous file is intact
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !ValidID(id) {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			stop()
			return nil, fmt.Errorf("jobs: open %s: %w", dir, err)
		}
		var j Job
		if err := json.Unmarshal(raw, &j); err != nil || j.ID != id {
			opt.Logger.Warn("jobs: ignoring unreadable job file", "path", path, "err", err)
			continue
		}
		m.adopt(j)
	}
	return m, nil
}

// adopt enters a job read back from its record (Open, OpenShared).
func (m *Manager) adopt(j Job) {
	en := &entry{job: j, done: make(chan struct{})}
	if j.State.Final() {
		close(en.done)
	}
	m.jobs[j.ID] = en
}

// Handle registers the function that runs jobs of a kind. Call it before
// Start.
func (m *Manager) Handle(kind string, f Func) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.funcs[kind] = f
}

// Start resumes the jobs a previous process left queued or running — or
// marks them failed when their kind is unknown or they were interrupted
// MaxAttempts times — removes the finished jobs older than the retention,
// and starts the workers and the periodic removal. Calls after the first
// do nothing.
func (m *Manager) Start() {
	m.start.Do(func() {
		m.mu.Lock()
		var unfinished []*entry
		for _, en := range m.jobs {
			if !en.job.State.Final() {
				unfinished = append(unfinished, en)
			}
		}
		slices.SortFunc(unfinished, func(a, b *entry) int { return cmpJobs(a.job, b.job) })
		for _, en := range unfinished {
			switch {
			case m.funcs[en.job.Kind] == nil:
				m.finishLocked(en, Failed, fmt.Sprintf("interrupted by a restart, and this server cannot run %q jobs", en.job.Kind))
			case en.job.Attempts >= m.opt.MaxAttempts:
				m.finishLocked(en, Failed, fmt.Sprintf("interrupted by a restart %d times; not retried again", en.job.Attempts))
			default:
				en.job.State = Queued
				m.saveLocked(en)
				m.queue = append(m.queue, en.job.ID)
			}
		}
		m.mu.Unlock()
		if m.opt.Retention > 0 {
			m.Prune()
			m.wg.Add(1)
			go m.pruneEvery()
		}
		m.keep.start()
		m.mu.Lock()
		m.started, m.free = true, m.opt.Workers
		m.dispatchLocked()
		m.mu.Unlock()
	})
}

func cmpJobs(a, b Job) int {
	return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
}

// Submit persists a new queued job of a kind for a collection and returns
// it. params is encoded as JSON and handed back to the job's function.
func (m *Manager) Submit(kind, collection string, params any) (Job, error) {
	return m.SubmitBy(kind, collection, "", params)
}

// SubmitBy is Submit for a job submitted by submitter (an API key's id):
// the job is scheduled fairly among submitters rather than collections
// (schedule.go), and counted by Unfinished.
func (m *Manager) SubmitBy(kind, collection, submitter string, params any) (Job, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return Job{}, fmt.Errorf("jobs: submit %s: encode params: %w", kind, err)
	}
	m.mu.Lock()
	closed, known := m.closed, m.funcs[kind] != nil
	m.mu.Unlock()
	if closed {
		return Job{}, ErrClosed
	}
	if !known {
		return Job{}, fmt.Errorf("jobs: submit: unknown kind %q", kind)
	}
	j := Job{ID: NewID(), Kind: kind, Collection: collection, Submitter: submitter, State: Queued, Created: m.opt.Now().UTC(), Params: raw}
	m.keep.claim(&j)
	// Persisted before it is accepted, outside the lock: a slow store
	// delays this submission only.
	if err := m.write(j); err != nil {
		return Job{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Job{}, ErrClosed
	}
	en := &entry{job: j, done: make(chan struct{})}
	m.jobs[j.ID] = en
	m.queue = append(m.queue, j.ID)
	m.dispatchLocked()
	return clone(j), nil
}

// Get returns a job by id: on a cluster, a job of another process too.
func (m *Manager) Get(id string) (Job, error) {
	m.mu.Lock()
	en := m.jobs[id]
	var j Job
	if en != nil {
		j = clone(en.job)
	}
	m.mu.Unlock()
	if en == nil {
		return m.others.get(id)
	}
	return j, nil
}

// List returns the jobs of a collection ("" for all), newest first: on a
// cluster, those of every process.
func (m *Manager) List(collection string) []Job {
	m.mu.Lock()
	var out []Job
	own := map[string]bool{}
	for _, en := range m.jobs {
		own[en.job.ID] = true
		if collection == "" || en.job.Collection == collection {
			out = append(out, clone(en.job))
		}
	}
	m.mu.Unlock()
	for _, j := range m.others.list() {
		if !own[j.ID] && (collection == "" || j.Collection == collection) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b Job) int { return cmpJobs(b, a) })
	return out
}

// Unfinished returns how many of this process's jobs submitted by
// submitter are queued or running.
func (m *Manager) Unfinished(submitter string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, en := range m.jobs {
		if en.job.Submitter == submitter && !en.job.State.Final() {
			n++
		}
	}
	return n
}

// Cancel stops a job: a queued job is cancelled at once, a running one as
// soon as its function returns. Cancelling a finished job changes nothing.
func (m *Manager) Cancel(id string) (Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	en := m.jobs[id]
	if en == nil {
		return m.others.cancel(id)
	}
	switch en.job.State {
	case Queued:
		m.queue = slices.DeleteFunc(m.queue, func(q string) bool { return q == id })
		m.finishLocked(en, Cancelled, "")
	case Running:
		en.cancelled = true
		en.cancel()
	}
	return clone(en.job), nil
}

// CancelCollection cancels every unfinished job of a collection.
func (m *Manager) CancelCollection(collection string) {
	for _, j := range m.List(collection) {
		if !j.State.Final() {
			m.Cancel(j.ID)
		}
	}
}

// Wait blocks until the job is final or ctx is done, and returns it.
func (m *Manager) Wait(ctx context.Context, id string) (Job, error) {
	m.mu.Lock()
	en := m.jobs[id]
	m.mu.Unlock()
	if en == nil {
		return m.others.wait(ctx, id)
	}
	select {
	case <-en.done:
	case <-ctx.Done():
		return Job{}, ctx.Err()
	}
	return m.Get(id)
}

// Close stops the workers. Running jobs are interrupted without being
// marked final, so the next Start runs them again; queued jobs stay queued.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.stop()
	m.wg.Wait()
	if m.persistStop != nil {
		m.closeOnce.Do(func() { close(m.persistStop) })
		<-m.persistDone
	}
	return nil
}

// startLocked starts a dispatched job: it holds a slot, and runs in its own
// goroutine until its function returns.
func (m *Manager) startLocked(en *entry) {
	f := m.funcs[en.job.Kind]
	ctx, cancel := context.WithCancel(m.ctx)
	ctx = context.WithValue(ctx, yieldKey{}, &yielder{m: m, en: en, group: group(en.job)})
	en.cancel = cancel
	en.job.State = Running
	en.job.Attempts++
	en.job.Started = m.opt.Now().UTC()
	m.saveLocked(en)
	j := clone(en.job)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		err := m.run(ctx, f, j, &reporter{m: m, en: en})
		cancel()

		m.mu.Lock()
		defer m.mu.Unlock()
		en.cancel = nil
		m.releaseLocked(en)
		switch {
		case en.cancelled:
			m.finishLocked(en, Cancelled, "")
		case m.ctx.Err() != nil:
			// Shutting down: leave the job running on disk so the next
			// start runs it again.
		case err != nil:
			m.finishLocked(en, Failed, err.Error())
		default:
			m.finishLocked(en, Done, "")
		}
		m.dispatchLocked()
	}()
}

// run calls f, turning a panic into an error so one job cannot stop the
// workers.
func (m *Manager) run(ctx context.Context, f Func, j Job, r Reporter) (err error) {
	defer func() {
		if p := recover(); p != nil {
			m.opt.Logger.Error("jobs: job panicked", "id", j.ID, "kind", j.Kind, "panic", p)
			err = fmt.Errorf("internal error (please report): %v", p)
		}
	}()
	return f(ctx, j, r)
}

// finishLocked moves a job to a final state, persists it and notifies.
func (m *Manager) finishLocked(en *entry, st State, msg string) {
	en.job.State = st
	en.job.Error = msg
	en.job.Finished = m.opt.Now().UTC()
	m.saveLocked(en)
	if m.opt.Finished != nil {
		m.opt.Finished(clone(en.job))
	}
	close(en.done)
}

// saveLocked persists a job, logging a failure: the in-memory state stays
// authoritative for this process.
func (m *Manager) saveLocked(en *entry) {
	en.saved = time.Now()
	m.keep.save(en)
}

// write persists a job's state now.
func (m *Manager) write(j Job) error {
	raw, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return fmt.Errorf("jobs: encode job %s: %w", j.ID, err)
	}
	return m.keep.put(j.ID, raw)
}

func clone(j Job) Job {
	j.Results = slices.Clone(j.Results)
	if j.Results == nil {
		j.Results = []Result{}
	}
	return j
}

// NewID returns a new job id: a time prefix (so ids sort roughly by
// creation) and 48 random bits.
func NewID() string {
	var b [6]byte
	rand.Read(b[:])
	return strconv.FormatInt(time.Now().UnixMilli(), 36) + hex.EncodeToString(b[:])
}

// ValidID reports whether id has the form NewID produces (lowercase letters
// and digits only), so it is safe as a file name.
func ValidID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
