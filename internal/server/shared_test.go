package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/storetest"
	"github.com/pakton/pakton/internal/store/weaviate"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// sharedEnvs starts two servers on one in-memory cluster (storetest.Remote),
// each with its own local directory: two machines behind a load balancer.
// With real, under the cluster suite (wvtest.RunSuite), they are on the
// Weaviate cluster instead, each with its own client, in a fresh namespace.
func sharedEnvs(t *testing.T, real ...bool) (a, b *env, rs store.SharedRecords) {
	t.Helper()
	mem := storetest.NewRemote()
	ra, rb := store.Remote(mem), store.Remote(mem)
	if len(real) > 0 && real[0] && wvtest.OnCluster() {
		u := os.Getenv(wvtest.EnvStoreURL) + "&namespace=S" + fmt.Sprint(time.Now().UnixNano())
		open := func() store.Remote {
			r, _, err := weaviate.Open(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}
		ra, rb = open(), open()
	}
	var admin string
	mk := func(r store.Remote) *env {
		st, err := store.OpenRemote(r, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		keys, err := auth.OpenRecords(t.Context(), st.Shared())
		if err != nil {
			t.Fatal(err)
		}
		if admin == "" {
			if admin, _, err = keys.Create(t.Context(), "", "test admin", true); err != nil {
				t.Fatal(err)
			}
		}
		e := &env{t: t, st: st, keys: keys, admin: admin, logBuf: &bytes.Buffer{}}
		e.start(t.Context(), Config{Store: st, Keys: keys, Logger: slog.New(slog.NewJSONHandler(lockedWriter{w: e.logBuf}, nil)),
			IngestWorkers: 2, Rate: -1, JobLease: 300 * time.Millisecond})
		return e
	}
	a = mk(ra)
	return a, mk(rb), ra.(store.SharedRecords)
}

// pollJob asks a server for a job until ok, through the API.
func pollJob(t *testing.T, e *env, id string, ok func(jobs.Job) bool) jobs.Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := e.do("GET", "/api/v1/jobs/"+id, e.admin, nil, "")
		var j jobs.Job
		if code == http.StatusOK {
			j = decode[struct{ Job jobs.Job }](t, body).Job
			if ok(j) {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: %d %s", id, code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSharedState: on a cluster, what serve keeps besides documents is
// seen by every server: an upload and a review started through A are
// polled and read through B, a report saved through A is listed through B,
// a decision taken through B shows through A, isolation holds through
// both, a job of a server that stopped shows as interrupted, nothing of it
// lands in a server's local directory, and deleting a collection forgets it.
func TestSharedState(t *testing.T) {
	a, b, rs := sharedEnvs(t)
	if code, body := a.json("POST", "/api/v1/collections", a.admin, map[string]string{"name": "deals"}); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body := a.upload("deals", a.admin, file{"msa.txt", contract("Globex", "two years")}, file{"nda.txt", contract("Initech", "one year")})
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, body)
	}
	up := decode[struct{ Job jobs.Job }](t, body).Job
	j := pollJob(t, b, up.ID, func(j jobs.Job) bool { return j.State.Final() })
	if j.State != jobs.Done || len(j.Results) != 2 || j.Owner == "" {
		t.Fatalf("upload through B: %+v", j)
	}

	// A report saved through A.
	code, body = a.json("POST", "/api/v1/collections/deals/ask", a.admin, map[string]any{"question": "termination notice", "evidence": true})
	var reportID string
	for _, ev := range parseSSE(t, string(body)) {
		if ev.Event == "report" {
			reportID = decode[struct{ ID string }](t, []byte(ev.Data)).ID
		}
	}
	if code != http.StatusOK || reportID == "" {
		t.Fatalf("ask: %d %s", code, body)
	}
	if code, body := b.do("GET", "/api/v1/collections/deals/reports", b.admin, nil, ""); code != http.StatusOK || !strings.Contains(string(body), reportID) {
		t.Fatalf("reports through B: %d %s", code, body)
	}
	if code, body := b.do("GET", "/api/v1/collections/deals/reports/"+reportID, b.admin, nil, ""); code != http.StatusOK || !strings.Contains(string(body), "termination") {
		t.Fatalf("report through B: %d %s", code, body)
	}

	// A review through A, polled and read through B; a decision through B.
	code, body = a.json("POST", "/api/v1/collections/deals/reviews", a.admin, map[string]any{"offline": true})
	if code != http.StatusAccepted {
		t.Fatalf("review: %d %s", code, body)
	}
	rv := decode[struct{ Review reviewJSON }](t, body).Review
	if j := pollJob(t, b, rv.Job, func(j jobs.Job) bool { return j.State.Final() }); j.State != jobs.Done {
		t.Fatalf("review job through B: %+v", j)
	}
	path := "/api/v1/collections/deals/reviews/" + rv.ID
	code, body = b.do("GET", path, b.admin, nil, "")
	got := decode[struct {
		Review reviewJSON
		Table  struct {
			Provisions []string
			Rows       []struct {
				DocID string `json:"doc_id"`
			}
		}
	}](t, body)
	if code != http.StatusOK || got.Review.State != jobs.Done || len(got.Table.Rows) != 2 {
		t.Fatalf("review through B: %d %s", code, body)
	}
	if code, body := b.do("GET", "/api/v1/collections/deals/reviews", b.admin, nil, ""); code != http.StatusOK || !strings.Contains(string(body), rv.ID) {
		t.Fatalf("reviews through B: %d %s", code, body)
	}
	dec := map[string]any{"doc_id": got.Table.Rows[0].DocID, "provision": got.Table.Provisions[0], "verdict": "accepted"}
	if code, body := b.json("POST", path+"/decisions", b.admin, dec); code != http.StatusOK {
		t.Fatalf("decide through B: %d %s", code, body)
	}
	dec2 := map[string]any{"doc_id": got.Table.Rows[1].DocID, "provision": got.Table.Provisions[0], "verdict": "rejected"}
	if code, body := a.json("POST", path+"/decisions", a.admin, dec2); code != http.StatusOK {
		t.Fatalf("decide through A: %d %s", code, body)
	}
	for _, e := range []*env{a, b} {
		if code, body := e.do("GET", path, e.admin, nil, ""); code != http.StatusOK || !strings.Contains(string(body), `"verdict":"accepted"`) || !strings.Contains(string(body), `"verdict":"rejected"`) {
			t.Fatalf("decisions: %d %s", code, body)
		}
	}
	if code, body := b.do("GET", path+"/export/csv", b.admin, nil, ""); code != http.StatusOK || !strings.Contains(string(body), "accepted") {
		t.Fatalf("export through B: %d %s", code, body)
	}
	if code, body := a.do("DELETE", path+"/decisions?doc_id="+got.Table.Rows[0].DocID+"&provision="+url.QueryEscape(got.Table.Provisions[0]), a.admin, nil, ""); code != http.StatusOK {
		t.Fatalf("undecide through A: %d %s", code, body)
	}
	if _, body := b.do("GET", path, b.admin, nil, ""); strings.Contains(string(body), `"verdict":"accepted"`) {
		t.Fatalf("undecided through A, still there through B: %s", body)
	}

	// Isolation through both servers.
	other, _, err := a.keys.Create(t.Context(), "other", "", false)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // B trusts the keys it read for 1 s
	for _, e := range []*env{a, b} {
		for _, p := range []string{"/api/v1/jobs/" + up.ID, "/api/v1/jobs/" + rv.Job, "/api/v1/collections/deals/reports/" + reportID,
			"/api/v1/collections/deals/reports", path, "/api/v1/collections/deals/jobs"} {
			if code, body := e.do("GET", p, other, nil, ""); code != http.StatusNotFound {
				t.Fatalf("key for other on %s: %d %s", p, code, body)
			}
		}
	}

	// Nothing of it in the servers' local directories.
	for _, e := range []*env{a, b} {
		filepath.WalkDir(e.st.Dir(), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.Contains(p, "reports") || strings.HasSuffix(p, "table.json") ||
				strings.HasSuffix(p, "review.json") || strings.Contains(p, string(filepath.Separator)+"jobs"+string(filepath.Separator))) {
				t.Errorf("shared state in a local directory: %s", p)
			}
			return nil
		})
	}

	// A job of a server that stops (its process dies: no final state, no
	// more heartbeats) shows through B as interrupted after the lease.
	a.srv.Jobs().Handle("hold", func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		r.Progress(jobs.Progress{Done: 1, Total: 3})
		<-ctx.Done()
		return ctx.Err()
	})
	hold, err := a.srv.Jobs().Submit("hold", "deals", nil)
	if err != nil {
		t.Fatal(err)
	}
	pollJob(t, b, hold.ID, func(j jobs.Job) bool { return j.State == jobs.Running && j.Progress.Done == 1 })
	time.Sleep(500 * time.Millisecond) // past the lease: A's heartbeats keep it running
	if j := pollJob(t, b, hold.ID, func(jobs.Job) bool { return true }); j.State != jobs.Running {
		t.Fatalf("live server's job through B: %+v", j)
	}
	// Cancelled through B, A stops it.
	if code, body := b.do("POST", "/api/v1/jobs/"+hold.ID+"/cancel", b.admin, nil, ""); code != http.StatusAccepted {
		t.Fatalf("cancel through B: %d %s", code, body)
	}
	pollJob(t, b, hold.ID, func(j jobs.Job) bool { return j.State == jobs.Cancelled })
	hold, _ = a.srv.Jobs().Submit("hold", "deals", nil)
	pollJob(t, b, hold.ID, func(j jobs.Job) bool { return j.State == jobs.Running })
	a.srv.Close()
	j = pollJob(t, b, hold.ID, func(j jobs.Job) bool { return j.State != jobs.Running })
	if j.State != jobs.Failed || !strings.Contains(j.Error, "interrupted") {
		t.Fatalf("stopped server's job through B: %+v", j)
	}
	if code, body := b.do("DELETE", "/api/v1/jobs/"+hold.ID, b.admin, nil, ""); code != http.StatusNoContent {
		t.Fatalf("delete interrupted job through B: %d %s", code, body)
	}

	// Deleting the collection forgets its reports and reviews.
	if code, body := b.do("DELETE", "/api/v1/collections/deals", b.admin, nil, ""); code != http.StatusNoContent {
		t.Fatalf("delete collection: %d %s", code, body)
	}
	recs, _ := rs.Records(t.Context(), reportKind("deals"))
	revs, _ := rs.Records(t.Context(), reviewKind("deals"))
	decs, _ := rs.Records(t.Context(), decisionKind("deals", rv.ID))
	tabs, _ := rs.Records(t.Context(), reviewTableKind("deals"))
	if len(recs)+len(revs)+len(decs)+len(tabs) != 0 {
		t.Fatalf("records of a deleted collection: %d reports, %d reviews, %d decisions, %d tables", len(recs), len(revs), len(decs), len(tabs))
	}
}

// TestSharedReviewRows: on a cluster a review's finished rows are records,
// not files of the server running it: another server shows them while the
// review has no table yet (?partial=1), and a review whose server died
// before finishing is resumed through another server without reviewing
// those contracts again. Removing the review removes its rows.
//
// It runs on the Weaviate cluster too, in the cluster suite.
func TestSharedReviewRows(t *testing.T) {
	a, b, rs := sharedEnvs(t, true)
	if code, body := a.json("POST", "/api/v1/collections", a.admin, map[string]string{"name": "deals"}); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body := a.upload("deals", a.admin, file{"msa.txt", contract("Globex", "two years")},
		file{"nda.txt", contract("Initech", "one year")}, file{"dpa.txt", contract("Hooli", "three years")})
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, body)
	}
	if j := pollJob(t, a, decode[struct{ Job jobs.Job }](t, body).Job.ID, func(j jobs.Job) bool { return j.State.Final() }); j.State != jobs.Done {
		t.Fatalf("upload: %+v", j)
	}
	code, body = a.json("POST", "/api/v1/collections/deals/reviews", a.admin, map[string]any{"offline": true})
	if code != http.StatusAccepted {
		t.Fatalf("review: %d %s", code, body)
	}
	rv := decode[struct{ Review reviewJSON }](t, body).Review
	if j := pollJob(t, a, rv.Job, func(j jobs.Job) bool { return j.State.Final() }); j.State != jobs.Done {
		t.Fatalf("review job: %+v", j)
	}
	rows, err := rs.Records(t.Context(), reviewRowKind("deals", rv.ID))
	if err != nil || len(rows) != 3 {
		t.Fatalf("row records: %d, %v; want 3", len(rows), err)
	}
	filepath.WalkDir(a.st.Dir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(p, string(filepath.Separator)+"rows"+string(filepath.Separator)) {
			t.Errorf("a review row in A's local directory: %s", p)
		}
		return nil
	})

	// As if A died after two of the three contracts: no table, one row
	// missing; A is gone.
	var lost string
	for id := range rows {
		lost = id
		break
	}
	for _, kind := range []string{reviewSummaryKind("deals"), reviewTableKind("deals")} {
		if err := rs.DeleteRecord(t.Context(), kind, rv.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.DeleteRecord(t.Context(), reviewRowKind("deals", rv.ID), lost); err != nil {
		t.Fatal(err)
	}
	a.srv.Close()
	path := "/api/v1/collections/deals/reviews/" + rv.ID
	code, body = b.do("GET", path+"?partial=1", b.admin, nil, "")
	partial := decode[struct{ Partial *review.Table }](t, body).Partial
	if code != http.StatusOK || partial == nil || len(partial.Rows) != 2 {
		t.Fatalf("partial table through B: %d %s", code, body)
	}
	for _, row := range partial.Rows {
		if row.DocID == lost {
			t.Fatalf("partial table through B holds the lost row: %s", body)
		}
	}
	code, body = b.do("POST", path+"/resume", b.admin, nil, "")
	if code != http.StatusAccepted {
		t.Fatalf("resume through B: %d %s", code, body)
	}
	resumed := decode[struct{ Review reviewJSON }](t, body).Review
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if j, err := b.srv.ReviewJobs().Wait(ctx, resumed.Job); err != nil || j.State != jobs.Done {
		t.Fatalf("resumed through B: %+v %v", j, err)
	}
	code, body = b.do("GET", path, b.admin, nil, "")
	after := decode[struct {
		Review reviewJSON
		Table  review.Table
	}](t, body)
	if s := after.Review.Stats; code != http.StatusOK || s == nil || s.Reused != 2 || s.Reviewed != 1 || len(after.Table.Rows) != 3 {
		t.Fatalf("resumed through B: %d, stats %+v, %d rows; want 2 reused, 1 reviewed, 3 rows", code, after.Review.Stats, len(after.Table.Rows))
	}

	// A deal room's worth of decisions (500 contracts × 25 provisions:
	// more than one Weaviate query answers) is shown whole; on the cluster
	// 1,500 (listed in parts: TestWeaviateRecordsMany lists 12,000).
	n := 12500
	if wvtest.OnCluster() {
		n = 1500
	}
	at := time.Now().UTC()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for i := range n {
		doc, prov := fmt.Sprintf("contract-%03d", i/25), fmt.Sprintf("provision %02d", i%25)
		raw, _ := json.Marshal(review.Decision{DocID: doc, Provision: prov, Verdict: "accepted", At: at})
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := rs.PutRecord(t.Context(), decisionKind("deals", rv.ID), decisionID(doc, prov), raw); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	code, body = b.do("GET", path, b.admin, nil, "")
	if ds := decode[struct{ Decisions review.Decisions }](t, body).Decisions; code != http.StatusOK || len(ds) != n {
		t.Fatalf("decisions through B: %d, %d decisions; want %d", code, len(ds), n)
	}
	if code, body := b.do("DELETE", path, b.admin, nil, ""); code != http.StatusNoContent && code != http.StatusOK {
		t.Fatalf("delete review: %d %s", code, body)
	}
	rows, _ = rs.Records(t.Context(), reviewRowKind("deals", rv.ID))
	decs, _ := rs.Records(t.Context(), decisionKind("deals", rv.ID))
	if len(rows)+len(decs) != 0 {
		t.Fatalf("%d rows and %d decisions of a removed review left", len(rows), len(decs))
	}
}
