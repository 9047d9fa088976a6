package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/jobs"
)

// Fairness between tenants. Uploads and reviews run as jobs on two
// managers of Config.JobWorkers slots each; a slot goes to the waiting job
// of the key with the fewest running jobs, and a long job gives its slot up
// between files or contracts when another key's job waits (jobs/schedule.go).
// A key may have at most Config.MaxJobsPerKey jobs queued or running, of
// both kinds: past that an upload or review is refused with 429 before its
// body is read, so one key cannot fill the queues or the upload directory.

// Background jobs share Config.JobCPUs processor slots (default: the
// cores): each file being parsed and each contract being reviewed offline
// holds one, and one key's jobs hold at most all but one (jobs.Pool), so
// another key's small upload finds a slot at once instead of waiting for a
// 300-page PDF of the first to be read. However many jobs run, at most
// that many goroutines of theirs compete with searches, asks and page
// views for the processor.

// acquireCPU takes a processor slot for background work, waiting for one;
// slots go to the tenant holding the fewest first (jobs.Pool).
func (s *Server) acquireCPU(ctx context.Context) (func(), error) {
	return s.cpus.Acquire(ctx)
}

// errTooManyJobs is returned by submitJob for a key at its limit.
var errTooManyJobs = errors.New("too many jobs")

// jobLimitMu makes the check of a key's jobs and the submission one step,
// so parallel requests cannot together pass the limit.
var jobLimitMu sync.Mutex

// unfinishedJobs returns the jobs of a key queued or running.
func (s *Server) unfinishedJobs(k auth.Key) int {
	return s.jobs.Unfinished(k.ID) + s.reviewJobs.Unfinished(k.ID)
}

// jobLimitReached answers 429 when the key has its most jobs.
func (s *Server) jobLimitReached(w http.ResponseWriter, k auth.Key) bool {
	n := s.unfinishedJobs(k)
	if n < s.cfg.MaxJobsPerKey {
		return false
	}
	w.Header().Set("Retry-After", "10")
	fail(w, http.StatusTooManyRequests, "this key has %d jobs queued or running, the most a key may have: wait for one to finish, or cancel one (POST /api/v1/jobs/{id}/cancel)", n)
	return true
}

// submitJob submits a job for key k on m, unless k has its most jobs.
func (s *Server) submitJob(m *jobs.Manager, kind, collection string, k auth.Key, params any) (jobs.Job, error) {
	jobLimitMu.Lock()
	defer jobLimitMu.Unlock()
	s.deletingMu.Lock()
	deleting := s.deleting[collection]
	s.deletingMu.Unlock()
	if deleting {
		return jobs.Job{}, fmt.Errorf("%w: %q", errDeleting, collection)
	}
	if n := s.unfinishedJobs(k); n >= s.cfg.MaxJobsPerKey {
		return jobs.Job{}, fmt.Errorf("%w: %d queued or running", errTooManyJobs, n)
	}
	return m.SubmitBy(kind, collection, k.ID, params)
}

// errDeleting is returned by submitJob for a collection being deleted.
var errDeleting = errors.New("collection being deleted")

// submitFailed answers a failed submitJob.
func (s *Server) submitFailed(w http.ResponseWriter, what string, k auth.Key, err error) {
	if errors.Is(err, errTooManyJobs) {
		s.jobLimitReached(w, k)
		return
	}
	if errors.Is(err, errDeleting) {
		fail(w, http.StatusConflict, "the collection is being deleted")
		return
	}
	s.internal(w, what, err)
}
