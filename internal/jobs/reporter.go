package jobs

import (
	"slices"
	"time"
)

// reporter updates a running job. Progress is persisted at most every
// progressEvery; results and final states always.
type reporter struct {
	m  *Manager
	en *entry
}

const progressEvery = 500 * time.Millisecond

func (r *reporter) Progress(p Progress) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	r.en.job.Progress = p
	if time.Since(r.en.saved) >= progressEvery {
		r.m.saveLocked(r.en)
	}
}

func (r *reporter) Result(res Result) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	rs := r.en.job.Results
	if i := slices.IndexFunc(rs, func(x Result) bool { return x.Name == res.Name }); i >= 0 {
		rs[i] = res
	} else {
		r.en.job.Results = append(rs, res)
	}
	if time.Since(r.en.saved) >= progressEvery {
		r.m.saveLocked(r.en)
	}
}
