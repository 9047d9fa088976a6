package server

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/store"
)

// TestDeleteJob: DELETE removes a finished job with its leftover upload;
// another collection's key gets the 404 of a missing job; a running job is
// refused with 409 and kept.
func TestDeleteJob(t *testing.T) {
	e := newEnv(t, nil)
	keyA, keyB := e.key("alpha"), e.key("bravo")
	done := e.ingest("alpha", keyA, file{"a.txt", contract("Alpha Ltd", "a year")})
	// An upload directory its cleanup missed (e.g. cut short by a crash).
	var p ingestParams
	json.Unmarshal(done.Params, &p)
	leftover := filepath.Join(e.st.Dir(), "uploads", p.Upload)
	if err := os.MkdirAll(leftover, 0o700); err != nil {
		t.Fatal(err)
	}

	code, body := e.json("DELETE", "/api/v1/jobs/"+done.ID, keyB, nil)
	mcode, mbody := e.json("DELETE", "/api/v1/jobs/nosuchjob", keyB, nil)
	if code != 404 || mcode != 404 || string(body) != strings.ReplaceAll(string(mbody), "nosuchjob", done.ID) {
		t.Errorf("other collection's key: %d %s; missing job: %d %s", code, body, mcode, mbody)
	}
	if _, err := e.srv.Jobs().Get(done.ID); err != nil {
		t.Fatalf("another collection's key removed the job: %v", err)
	}

	release := make(chan struct{})
	started := make(chan struct{})
	e.srv.Jobs().Handle(kindIngest, func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		close(started)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-release:
			return nil
		}
	})
	code, body = e.upload("alpha", keyA, file{"b.txt", contract("Beta", "a year")})
	if code != 202 {
		t.Fatalf("upload: %d %s", code, body)
	}
	running := decode[struct{ Job jobs.Job }](t, body).Job
	<-started
	if code, body := e.json("DELETE", "/api/v1/jobs/"+running.ID, keyA, nil); code != 409 {
		t.Errorf("running job: %d %s, want 409", code, body)
	}
	if j, err := e.srv.Jobs().Get(running.ID); err != nil || j.State != jobs.Running {
		t.Errorf("running job after DELETE: %+v %v", j, err)
	}
	close(release)

	if code, body := e.json("DELETE", "/api/v1/jobs/"+done.ID, keyA, nil); code != 204 {
		t.Fatalf("finished job: %d %s, want 204", code, body)
	}
	if code, _ := e.json("GET", "/api/v1/jobs/"+done.ID, keyA, nil); code != 404 {
		t.Errorf("GET after DELETE: %d, want 404", code)
	}
	if code, _ := e.json("DELETE", "/api/v1/jobs/"+done.ID, keyA, nil); code != 404 {
		t.Errorf("DELETE twice: %d, want 404", code)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after DELETE: %v", leftover, err)
	}
	if _, err := storedJob(t.Context(), e.st, done.ID); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("job %s still stored after DELETE: %v", done.ID, err)
	}
}

// TestJobRetention: on start the server removes finished jobs older than
// the retention with their leftover uploads, and keeps recent ones and
// every unfinished one; a negative retention keeps them all.
func TestJobRetention(t *testing.T) {
	now := time.Now().UTC()
	seed := func(st *store.Store) {
		dir := st.Dir()
		for _, j := range []jobs.Job{
			{ID: "old1", Kind: kindIngest, Collection: "c", State: jobs.Done, Created: now.Add(-9 * 24 * time.Hour), Finished: now.Add(-8 * 24 * time.Hour)},
			{ID: "old2", Kind: "unknown", Collection: "c", State: jobs.Failed, Created: now.Add(-30 * 24 * time.Hour), Finished: now.Add(-30 * 24 * time.Hour)},
			{ID: "new1", Kind: kindIngest, Collection: "c", State: jobs.Cancelled, Created: now.Add(-6 * 24 * time.Hour), Finished: now.Add(-6 * 24 * time.Hour)},
			{ID: "queued1", Kind: "unknown", Collection: "c", State: jobs.Queued, Created: now.Add(-30 * 24 * time.Hour)},
		} {
			if j.Kind == kindIngest {
				j.Params, _ = json.Marshal(ingestParams{Upload: "up" + j.ID})
				os.MkdirAll(filepath.Join(dir, "uploads", "up"+j.ID), 0o700)
			}
			seedJob(t.Context(), t, st, j)
		}
	}
	ids := func(e *env) map[string]bool {
		out := map[string]bool{}
		for _, j := range e.srv.Jobs().List("") {
			out[j.ID] = true
		}
		return out
	}

	e := newEnv(t, func(c *Config) { seed(c.Store) })
	got := ids(e)
	// queued1's kind is unknown, so it is marked failed now — and kept:
	// it finished just now.
	if got["old1"] || got["old2"] || !got["new1"] || !got["queued1"] || len(got) != 2 {
		t.Errorf("jobs after start with the default retention: %v", got)
	}
	if _, err := storedJob(t.Context(), e.st, "old1"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("expired job left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.st.Dir(), "uploads", "upold1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("expired job's uploads left: %v", err)
	}

	e = newEnv(t, func(c *Config) { seed(c.Store); c.JobRetention = 24 * time.Hour })
	if got := ids(e); len(got) != 1 || !got["queued1"] {
		t.Errorf("jobs after start with a retention of 24h: %v", got)
	}
	e = newEnv(t, func(c *Config) { seed(c.Store); c.JobRetention = -1 })
	if got := ids(e); len(got) != 4 {
		t.Errorf("jobs after start with retention off: %v", got)
	}
}
