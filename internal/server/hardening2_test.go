package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/pakton/pakton/internal/jobs"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// The review surfaces under hostile or excessive requests.

// TestReviewPlaybookLimits: the numbers and sizes of a review request are
// bounded at the edge with a 400 naming the field; the server keeps
// serving (a keyword window that overflowed used to kill the process).
func TestReviewPlaybookLimits(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxReviewCells = 100 })
	key := e.key("deal")
	e.ingest("deal", key, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"b.txt", contract("Bravo Inc", "one year")},
		file{"c.txt", contract("Charlie LLC", "two years")})
	base := "/api/v1/collections/deal/reviews"
	aliases := "provisions: [&p {name: A, definition: d}" + strings.Repeat(", *p", 1000) + "]\n"
	bad := []struct {
		name string
		req  map[string]any
		want string
	}{
		{"within", map[string]any{"playbook_yaml": "provisions:\n  - name: A\n    definition: d\n    keywords:\n      - {text: the, near: [x], within: 9223372036854775807}\n"}, `field \"within\"`},
		{"boost", map[string]any{"playbook_yaml": "provisions:\n  - name: A\n    definition: d\n    keywords:\n      - {text: the, boost: .nan}\n"}, `field \"boost\"`},
		{"aliases", map[string]any{"playbook_yaml": aliases}, "aliases"},
		// 3 contracts × 51 built-in provisions = 153 cells > 100.
		{"cells", map[string]any{"playbook": "builtin"}, "153 cells, more than the 100"},
	}
	for _, c := range bad {
		code, body := e.json("POST", base, key, c.req)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want 400 with %s", c.name, code, body, c.want)
		}
	}
	// Narrowed under the limit, the same review runs.
	e.startReviewOf("deal", key, map[string]any{"playbook": "builtin", "provisions": []string{"Governing Law", "Parties"}})
	if code, _ := e.json("GET", "/healthz", "", nil); code != http.StatusOK {
		t.Fatalf("server gone: %d", code)
	}
}

// oneLineDefinitions is n bytes of inline definitions on one line, the text
// that made graph extraction quadratic.
func oneLineDefinitions(n int) string {
	var b strings.Builder
	b.WriteString("AGREEMENT\n\n1. Definitions\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "the widget maker (the \"Term%d\") and ", i)
	}
	return b.String()
}

// TestCancelReachesGraphExtraction: cancelling an upload whose file is in
// graph extraction stops it (it ran on, without a context, for minutes).
// Close stops it too: SIGTERM used to leave the process alive.
func TestCancelReachesGraphExtraction(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	big := oneLineDefinitions(2 << 20)
	for _, how := range []string{"cancel", "close"} {
		code, body := e.upload("deal", key, file{"defs-" + how + ".txt", big})
		if code != http.StatusAccepted {
			t.Fatalf("upload: %d %s", code, body)
		}
		id := decode[struct{ Job jobs.Job }](t, body).Job.ID
		// generous: under the race detector on a busy machine the parse
		// and the readers before extraction take tens of seconds
		if !waitFor(2*time.Minute, func() bool { return extracting() }) {
			t.Fatal("the graph extraction never started")
		}
		if how == "close" {
			// Close waits for the job workers; they stop at once, leaving
			// the job unfinished on disk to resume on the next start.
			closed := make(chan struct{})
			go func() { e.srv.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(30 * time.Second):
				t.Fatal("Close still waiting for the graph extraction after 30 s")
			}
			if extracting() {
				t.Fatal("the graph extraction runs on after Close")
			}
			continue
		}
		e.srv.Jobs().Cancel(id)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		j, err := e.srv.Jobs().Wait(ctx, id)
		cancel()
		if err != nil || j.State != jobs.Cancelled {
			t.Fatalf("%s: job %+v %v", how, j, err)
		}
		if !waitFor(30*time.Second, func() bool { return !extracting() }) {
			t.Fatal("the graph extraction still runs 30 s after its job was cancelled")
		}
	}
}

// extracting reports whether some goroutine is extracting a graph.
func extracting() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Contains(string(buf[:n]), "pakton/internal/graph.Extract")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// waitFor polls cond until it holds or the time is up.
func waitFor(limit time.Duration, cond func() bool) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestReviewListingsReadNoTable: listing reviews, their progress and
// decisions read each review's small summary, never its table (a listing
// used to parse every finished table: 6 parallel listings of large reviews
// took 21 s each and 6 GB). A review finished before summaries existed gets
// one from its table once; a finished review's table is served as stored.
func TestReviewListingsReadNoTable(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	e.ingest("deal", key, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"b.txt", contract("Bravo Inc", "one year")})
	base := "/api/v1/collections/deal/reviews"
	rv := e.startReviewOf("deal", key, map[string]any{"playbook_yaml": string(reviewtest.PlaybookYAML)})
	// The stored table and summary: files, or records on a cluster.
	dir := e.srv.reviewDir("deal", rv.ID)
	rs := e.st.Shared()
	putTable := func(raw []byte) {
		t.Helper()
		var err error
		if rs != nil {
			err = rs.PutRecord(context.Background(), reviewTableKind("deal"), rv.ID, raw)
		} else {
			err = os.WriteFile(filepath.Join(dir, "table.json"), raw, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	hasSummary := func() bool {
		if rs != nil {
			_, err := rs.Record(context.Background(), reviewSummaryKind("deal"), rv.ID)
			return err == nil
		}
		_, err := os.Stat(filepath.Join(dir, "summary.json"))
		return err == nil
	}
	removeSummary := func() {
		t.Helper()
		var err error
		if rs != nil {
			err = rs.DeleteRecord(context.Background(), reviewSummaryKind("deal"), rv.ID)
		} else {
			err = os.Remove(filepath.Join(dir, "summary.json"))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	table, err := e.srv.state.reviewTable(context.Background(), "deal", rv.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The finished review is served with its table as stored.
	code, body := e.json("GET", base+"/"+rv.ID, key, nil)
	if code != http.StatusOK || !bytes.Contains(body, append([]byte(`"table":`), table...)) {
		t.Fatalf("get: %d %.300s", code, body)
	}
	got := decode[struct {
		Review    reviewJSON
		Table     review.Table
		Decisions review.Decisions
	}](t, body)
	if got.Review.State != jobs.Done || len(got.Table.Rows) != 2 || got.Decisions == nil {
		t.Fatalf("get: %s", body)
	}

	// With the table unreadable, listings and decisions still work: they
	// do not read it.
	putTable([]byte("not json"))
	code, body = e.json("GET", base+"?limit=1", key, nil)
	list := decode[struct{ Reviews []reviewJSON }](t, body)
	if code != http.StatusOK || len(list.Reviews) != 1 || list.Reviews[0].State != jobs.Done || list.Reviews[0].Stats == nil || list.Reviews[0].Stats.Contracts != 2 {
		t.Fatalf("listing with an unreadable table: %d %s", code, body)
	}
	d := map[string]any{"doc_id": got.Table.Rows[0].DocID, "provision": got.Table.Provisions[0], "verdict": "accepted"}
	if code, body := e.json("POST", base+"/"+rv.ID+"/decisions", key, d); code != http.StatusOK {
		t.Fatalf("decision with an unreadable table: %d %s", code, body)
	}
	d["provision"] = "No Such Provision"
	if code, body := e.json("POST", base+"/"+rv.ID+"/decisions", key, d); code != http.StatusBadRequest {
		t.Fatalf("decision on no cell: %d %s", code, body)
	}

	// A review kept in the old layout ({"table", "stats", "finished"}, no
	// summary) is listed, served and exported, and gets its summary.
	var legacy struct {
		Table    json.RawMessage `json:"table"`
		Stats    review.RunStats `json:"stats"`
		Finished time.Time       `json:"finished"`
	}
	legacy.Table, legacy.Stats, legacy.Finished = table, *got.Review.Stats, got.Review.Finished
	old, _ := json.Marshal(legacy)
	putTable(old)
	removeSummary()
	code, body = e.json("GET", base, key, nil)
	list = decode[struct{ Reviews []reviewJSON }](t, body)
	if code != http.StatusOK || len(list.Reviews) != 1 || list.Reviews[0].State != jobs.Done || list.Reviews[0].Stats.Contracts != 2 {
		t.Fatalf("listing a legacy review: %d %s", code, body)
	}
	if !hasSummary() {
		t.Error("legacy review got no summary")
	}
	if code, body := e.do("GET", base+"/"+rv.ID+"/export/csv", key, nil, ""); code != http.StatusOK || !bytes.Contains(body, []byte("a.txt")) {
		t.Errorf("export of a legacy review: %d %.200s", code, body)
	}
	code, body = e.json("GET", base+"/"+rv.ID, key, nil)
	if code != http.StatusOK || len(decode[struct{ Table review.Table }](t, body).Table.Rows) != 2 {
		t.Errorf("get a legacy review: %d %.300s", code, body)
	}
}

// TestJobsPerKeyLimit: a key may have MaxJobsPerKey uploads and reviews
// queued or running; past that it gets 429 with Retry-After before its
// upload is read, and another key is not affected.
func TestJobsPerKeyLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxJobsPerKey = 2 })
	a, b := e.key("deal"), e.key("other")
	e.ingest("deal", a, file{"seed.txt", contract("Seed Co", "one year")})
	hold := make(chan struct{})
	e.srv.Jobs().Handle(kindIngest, func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return nil
	})
	defer close(hold)
	for i := range 2 {
		if code, body := e.upload("deal", a, file{fmt.Sprintf("f%d.txt", i), contract("Alpha", "one year")}); code != http.StatusAccepted {
			t.Fatalf("upload %d: %d %s", i, code, body)
		}
	}
	code, body := e.upload("deal", a, file{"f3.txt", contract("Alpha", "one year")})
	if code != http.StatusTooManyRequests || !strings.Contains(string(body), "2 jobs queued or running") {
		t.Fatalf("third upload: %d %s, want 429", code, body)
	}
	code, body = e.json("POST", "/api/v1/collections/deal/reviews", a, map[string]any{"provisions": []string{"Governing Law"}})
	if code != http.StatusTooManyRequests {
		t.Fatalf("review past the limit: %d %s, want 429", code, body)
	}
	if code, body := e.upload("other", b, file{"g.txt", contract("Beta", "one year")}); code != http.StatusAccepted {
		t.Fatalf("another key: %d %s", code, body)
	}
	// The job listing does not show who submitted a job.
	if _, body := e.json("GET", "/api/v1/collections/deal/jobs", a, nil); strings.Contains(string(body), "submitter") {
		t.Errorf("jobs show their submitter: %s", body)
	}
}

// TestFairUploads: with one upload worker, another key's small upload
// submitted while a large upload runs finishes first: the large job gives
// its worker up between files (it used to wait for the whole of it).
func TestFairUploads(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.JobWorkers, c.JobSlice = 1, 5*time.Millisecond })
	a, b := e.key("big"), e.key("small")
	var files []file
	for i := range 60 {
		files = append(files, file{fmt.Sprintf("c%02d.txt", i), strings.Repeat(contract(fmt.Sprintf("Party %d", i), "two years"), 20)})
	}
	code, body := e.upload("big", a, files...)
	if code != http.StatusAccepted {
		t.Fatalf("big upload: %d %s", code, body)
	}
	big := decode[struct{ Job jobs.Job }](t, body).Job.ID
	if !waitFor(2*time.Minute, func() bool { j, _ := e.srv.Jobs().Get(big); return j.Progress.Done > 0 }) {
		t.Fatal("the big upload never started")
	}
	small := e.ingest("small", b, file{"one.txt", contract("Solo", "one year")})
	if small.State != jobs.Done {
		t.Fatalf("small upload: %+v", small)
	}
	if j, _ := e.srv.Jobs().Get(big); j.State.Final() && !j.Finished.After(small.Finished) {
		t.Fatalf("the big upload finished (%s) before the small one: it was not made to share", j.State)
	}
	// the bound catches a job that never gives its worker back, not a
	// slow machine: 60 contracts under the race detector on a busy
	// machine take over a minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if j, err := e.srv.Jobs().Wait(ctx, big); err != nil || j.State != jobs.Done || j.Progress.Done != 60 {
		t.Fatalf("big upload after sharing: %+v %v", j, err)
	}
}

// TestDeleteCollectionDuringReview: deleting a collection while a review of
// it runs stops the review first and removes everything: no row file comes
// back, a collection re-created under the same name starts empty, takes
// uploads, and shows none of the old jobs or reviews (row files left behind would
// make re-creating it fail).
func TestDeleteCollectionDuringReview(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	var files []file
	for i := range 40 {
		files = append(files, file{fmt.Sprintf("c%02d.txt", i), contract(fmt.Sprintf("Party %d Inc", i), "three years")})
	}
	e.ingest("deal", key, files...)
	code, body := e.json("POST", "/api/v1/collections/deal/reviews", key, map[string]any{"playbook": "builtin"})
	if code != http.StatusAccepted {
		t.Fatalf("start review: %d %s", code, body)
	}
	rv := decode[struct{ Review reviewJSON }](t, body).Review
	if !waitFor(60*time.Second, func() bool { j, _ := e.srv.ReviewJobs().Get(rv.Job); return j.Progress.Done > 0 || j.State.Final() }) {
		t.Fatal("the review never started")
	}
	if j, _ := e.srv.ReviewJobs().Get(rv.Job); j.State.Final() {
		t.Fatalf("the review finished before the deletion; make it longer: %+v", j)
	}
	if code, body := e.do("DELETE", "/api/v1/collections/deal", e.admin, nil, ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", code, body)
	}
	// Whatever the old job still does, it does it now.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	e.srv.ReviewJobs().Wait(ctx, rv.Job)
	cancel()
	if e.st.Shared() == nil {
		if _, err := os.Stat(filepath.Join(e.st.Dir(), "collections", "deal")); !os.IsNotExist(err) {
			var left []string
			filepath.WalkDir(filepath.Join(e.st.Dir(), "collections", "deal"), func(p string, d os.DirEntry, err error) error {
				left = append(left, p)
				return nil
			})
			t.Fatalf("the deleted collection's directory is back: %v", left[:min(len(left), 5)])
		}
	}
	if code, body := e.json("POST", "/api/v1/collections", e.admin, map[string]any{"name": "deal"}); code != http.StatusCreated {
		t.Fatalf("re-create: %d %s", code, body)
	}
	j := e.ingest("deal", e.admin, file{"new.txt", contract("Newco", "one year")})
	if j.State != jobs.Done {
		t.Fatalf("upload into the re-created collection: %+v", j)
	}
	_, body = e.json("GET", "/api/v1/collections/deal/jobs", e.admin, nil)
	if got := decode[struct{ Jobs []jobs.Job }](t, body).Jobs; len(got) != 1 || got[0].ID != j.ID {
		t.Errorf("the re-created collection's jobs: %s", body)
	}
	_, body = e.json("GET", "/api/v1/collections/deal/reviews", e.admin, nil)
	if got := decode[struct{ Reviews []reviewJSON }](t, body).Reviews; len(got) != 0 {
		t.Errorf("the re-created collection's reviews: %s", body)
	}
	_, body = e.json("GET", "/api/v1/collections/deal/documents", e.admin, nil)
	if got := decode[struct{ Documents []docJSON }](t, body).Documents; len(got) != 1 {
		t.Errorf("the re-created collection's documents: %s", body)
	}
}

// TestUploadNamesNormalised: an uploaded name is put in Unicode NFC, and
// bidirectional and invisible formatting characters are replaced (with a
// hash, as other replaced characters are), so names that look the same are
// one document and no name displays as another.
func TestUploadNamesNormalised(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Vertrag Mu\u0308ller.txt", "Vertrag Müller.txt"}, // NFD → NFC
		{"Vertrag Müller.txt", "Vertrag Müller.txt"},
		{"invoice\u202Etxt.pdf", ""}, // right-to-left override
		{"con\u200Btract.txt", ""},   // zero-width space
		{"\uFEFFmemo.txt", ""},       // byte order mark
		{"a\u2066b\u2069.txt", ""},   // bidi isolates
		{"\u0642\u0631\u0627\u0631\u200C\u062F\u0627\u062F.txt", "\u0642\u0631\u0627\u0631\u200C\u062F\u0627\u062F.txt"}, // ZWNJ inside a Persian word
	}
	for _, c := range cases {
		got, err := SafeName(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		for _, r := range got {
			if r == 0x200C && c.want != "" {
				continue
			}
			if unicode.Is(unicode.Cf, r) {
				t.Errorf("%q → %q keeps the invisible character %U", c.in, got, r)
			}
		}
		if c.want != "" && got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
	if a, _ := SafeName("a\u202Eb.txt"); a == "a_b.txt" {
		t.Errorf("a replaced override gives %q, the name of another upload", a)
	}

	// Through the API: the two spellings of Müller are one document.
	e := newEnv(t, nil)
	key := e.key("deal")
	e.ingest("deal", key, file{"Vertrag Mu\u0308ller.txt", contract("Erste GmbH", "one year")})
	e.ingest("deal", key, file{"Vertrag Müller.txt", contract("Zweite GmbH", "two years")})
	_, body := e.json("GET", "/api/v1/collections/deal/documents", key, nil)
	docs := decode[struct{ Documents []docJSON }](t, body).Documents
	if len(docs) != 1 || docs[0].Name != "Vertrag Müller.txt" {
		t.Errorf("documents: %s", body)
	}
}
