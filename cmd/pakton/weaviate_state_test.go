package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// TestWeaviateSharedState runs two `pakton serve` processes on one cluster,
// each with its own local directory (two machines behind a load balancer),
// and checks that what serve keeps besides documents is shared: an upload
// job and a review job started through A are polled and their results
// fetched through B; a report saved by an ask through A is listed and read
// through both; a decision taken through B shows through A; a collection
// key for another collection sees none of it; a review running on A when A
// is killed -9 shows through B as failed ("interrupted") once A's lease
// runs out; deleting the collection forgets its reports.
func TestWeaviateSharedState(t *testing.T) {
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite")
	}
	c := wvtest.Require(t, 3)
	dir := t.TempDir()
	bin := filepath.Join(dir, "pakton")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	// A model server that never answers a chat: a review's model pass
	// then runs until its server dies. Asks ask for evidence reports and
	// the first review is offline, so they never call it.
	hang := make(chan struct{})
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"slow","object":"model"}]}`)
			return
		}
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	}))
	defer llm.Close()
	defer close(hang)

	url := func(local string) string { return c.URL("replicas=3&local=" + filepath.Join(dir, local)) }
	keyOut := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"keys"}, append(args, "--store", url("cli"))...)...).Output()
		if err != nil {
			t.Fatalf("keys %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	admin := keyOut("create", "--admin", "--name", "ops")
	otherKey := keyOut("create", "--collection", "other", "--name", "other-only")
	start := func(i int) (*exec.Cmd, string) {
		port := freePort(t)
		cmd := exec.Command(bin, "serve", "--store", url(fmt.Sprintf("local%d", i)), "--addr", "127.0.0.1:"+port, "--job-lease", "3s")
		cmd.Env = append(os.Environ(), "PAKTON_LLM_URL="+llm.URL+"/v1", "PAKTON_LLM_MODEL=slow", "PAKTON_EMBED_URL=",
			"XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
		logf, _ := os.Create(filepath.Join(dir, fmt.Sprintf("serve%d.log", i)))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("serve %d log:\n%s", i, b)
			}
		})
		base := "http://127.0.0.1:" + port
		waitHTTP(t, base+"/readyz")
		return cmd, base
	}
	procA, a := start(0)
	_, b := start(1)

	call := func(key, method, url string, body io.Reader, ctype string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, body)
		req.Header.Set("Authorization", "Bearer "+key)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(out)
	}
	post := func(base, path, body string) (int, string) {
		t.Helper()
		return call(admin, "POST", base+path, strings.NewReader(body), "application/json")
	}
	get := func(base, path string) (int, string) {
		t.Helper()
		return call(admin, "GET", base+path, nil, "")
	}
	for _, name := range []string{"deals", "other"} {
		if code, out := post(a, "/api/v1/collections", `{"name":"`+name+`"}`); code != 201 {
			t.Fatalf("create collection %s: %d %s", name, code, out)
		}
	}

	type jobView struct {
		ID       string `json:"id"`
		State    string `json:"state"`
		Error    string `json:"error"`
		Owner    string `json:"owner"`
		Progress struct {
			Done  int `json:"done"`
			Total int `json:"total"`
		} `json:"progress"`
		Results []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"results"`
	}
	jobVia := func(base, id string) (int, jobView) {
		t.Helper()
		code, out := get(base, "/api/v1/jobs/"+id)
		var v struct {
			Job jobView `json:"job"`
		}
		json.Unmarshal([]byte(out), &v)
		return code, v.Job
	}
	pollVia := func(base, id string, want func(jobView) bool) jobView {
		t.Helper()
		var j jobView
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var code int
			code, j = jobVia(base, id)
			if code == 200 && want(j) {
				return j
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s through %s: %d %+v", id, base, code, j)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// 1. An upload through A, polled through B to the end, with its results.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		fw, _ := mw.CreateFormFile("file", e.Name())
		data, _ := os.ReadFile(filepath.Join(src, e.Name()))
		fw.Write(data)
	}
	mw.Close()
	code, out := call(admin, "POST", a+"/api/v1/collections/deals/documents", &buf, mw.FormDataContentType())
	if code != 202 {
		t.Fatalf("upload: %d %s", code, out)
	}
	var up struct {
		Job jobView `json:"job"`
	}
	json.Unmarshal([]byte(out), &up)
	j := pollVia(b, up.Job.ID, func(j jobView) bool { return j.State == "done" || j.State == "failed" })
	if j.State != "done" || len(j.Results) != len(ents) {
		t.Fatalf("upload job through B: %+v", j)
	}
	if code, out := get(b, "/api/v1/collections/deals/jobs"); code != 200 || !strings.Contains(out, up.Job.ID) {
		t.Fatalf("B's job list lacks A's upload: %d %s", code, out)
	}

	// 2. A report saved by an ask through A: listed and read through both.
	code, out = post(a, "/api/v1/collections/deals/ask", `{"question":"how long does confidentiality survive","evidence":true}`)
	var rep struct {
		ID string `json:"id"`
	}
	if m := regexp.MustCompile(`event: report\ndata: (.*)`).FindStringSubmatch(out); m != nil {
		json.Unmarshal([]byte(m[1]), &rep)
	}
	if code != 200 || rep.ID == "" {
		t.Fatalf("ask through A: %d %.300s", code, out)
	}
	reportID := rep.ID
	for _, base := range []string{a, b} {
		if code, out := get(base, "/api/v1/collections/deals/reports"); code != 200 || !strings.Contains(out, reportID) {
			t.Fatalf("reports through %s: %d %s", base, code, out)
		}
		if code, out := get(base, "/api/v1/collections/deals/reports/"+reportID); code != 200 || !strings.Contains(out, "confidential") {
			t.Fatalf("report through %s: %d %.300s", base, code, out)
		}
	}

	// 3. An offline review through A: its job polled through B, its table
	// read and exported through B, a decision through B seen through A.
	code, out = post(a, "/api/v1/collections/deals/reviews", `{"offline":true,"title":"shared"}`)
	var rv struct {
		Review struct {
			ID string `json:"id"`
		} `json:"review"`
		Job jobView `json:"job"`
	}
	json.Unmarshal([]byte(out), &rv)
	if code != 202 || rv.Review.ID == "" {
		t.Fatalf("review through A: %d %s", code, out)
	}
	j = pollVia(b, rv.Job.ID, func(j jobView) bool { return j.State == "done" || j.State == "failed" })
	if j.State != "done" {
		t.Fatalf("review job through B: %+v", j)
	}
	revPath := "/api/v1/collections/deals/reviews/" + rv.Review.ID
	code, out = get(b, revPath)
	var table struct {
		Review struct {
			State string `json:"state"`
		} `json:"review"`
		Table struct {
			Provisions []string `json:"provisions"`
			Rows       []struct {
				DocID string `json:"doc_id"`
			} `json:"rows"`
		} `json:"table"`
	}
	json.Unmarshal([]byte(out), &table)
	if code != 200 || table.Review.State != "done" || len(table.Table.Rows) != len(ents) {
		t.Fatalf("review through B: %d %.500s", code, out)
	}
	for _, base := range []string{a, b} {
		if code, out := get(base, "/api/v1/collections/deals/reviews"); code != 200 || !strings.Contains(out, rv.Review.ID) {
			t.Fatalf("reviews through %s: %d %.300s", base, code, out)
		}
	}
	if code, out := get(b, revPath+"/export/csv"); code != 200 || !strings.Contains(out, table.Table.Provisions[0]) {
		t.Fatalf("export through B: %d %.300s", code, out)
	}
	d := fmt.Sprintf(`{"doc_id":%q,"provision":%q,"verdict":"accepted"}`, table.Table.Rows[0].DocID, table.Table.Provisions[0])
	if code, out := post(b, revPath+"/decisions", d); code != 200 {
		t.Fatalf("decision through B: %d %s", code, out)
	}
	if code, out := get(a, revPath); code != 200 || !strings.Contains(out, `"verdict":"accepted"`) {
		t.Fatalf("decision through A: %d %.300s", code, out)
	}

	// 4. Isolation: a key for collection other sees none of deals' state,
	// through either server.
	for _, base := range []string{a, b} {
		for _, path := range []string{"/api/v1/jobs/" + rv.Job.ID, "/api/v1/jobs/" + up.Job.ID,
			"/api/v1/collections/deals/reports/" + reportID, revPath, "/api/v1/collections/deals/reports"} {
			if code, out := call(otherKey, "GET", base+path, nil, ""); code != 404 {
				t.Fatalf("key for other on %s through %s: %d %s", path, base, code, out)
			}
		}
		if code, out := call(otherKey, "GET", base+"/api/v1/collections/other/reports", nil, ""); code != 200 || strings.Contains(out, reportID) {
			t.Fatalf("other's reports through %s: %d %s", base, code, out)
		}
		if code, out := call(otherKey, "GET", base+"/api/v1/collections/other/jobs", nil, ""); code != 200 || strings.Contains(out, up.Job.ID) {
			t.Fatalf("other's jobs through %s: %d %s", base, code, out)
		}
	}

	// 5. A review with the model pass through A (the model never answers):
	// running, seen so through B; A killed -9; B shows it interrupted.
	code, out = post(a, "/api/v1/collections/deals/reviews", `{"title":"slow"}`)
	json.Unmarshal([]byte(out), &rv)
	if code != 202 {
		t.Fatalf("slow review through A: %d %s", code, out)
	}
	j = pollVia(b, rv.Job.ID, func(j jobView) bool { return j.State == "running" })
	if j.Owner == "" {
		t.Fatalf("running job through B names no owner: %+v", j)
	}
	time.Sleep(4 * time.Second) // past the lease: A's heartbeats keep it running
	if _, j := jobVia(b, rv.Job.ID); j.State != "running" {
		t.Fatalf("a live server's job through B: %+v", j)
	}
	killed := time.Now()
	procA.Process.Signal(syscall.SIGKILL)
	j = pollVia(b, rv.Job.ID, func(j jobView) bool { return j.State != "running" })
	took := time.Since(killed)
	if j.State != "failed" || !strings.Contains(j.Error, "interrupted") {
		t.Fatalf("job of a killed server through B: %+v", j)
	}
	t.Logf("killed server's job shown interrupted through B after %s (lease 3s): %s", took.Round(100*time.Millisecond), j.Error)
	if code, out := get(b, "/api/v1/collections/deals/reviews/"+rv.Review.ID); code != 200 || !strings.Contains(out, `"state":"failed"`) {
		t.Fatalf("review of a killed server through B: %d %.300s", code, out)
	}
	// Interrupted, it may be removed through B.
	if code, out := call(admin, "DELETE", b+"/api/v1/jobs/"+rv.Job.ID, nil, ""); code != 204 {
		t.Fatalf("delete interrupted job through B: %d %s", code, out)
	}

	// 6. Deleting the collection through B forgets its reports and reviews:
	// re-created, it holds none.
	if code, out := call(admin, "DELETE", b+"/api/v1/collections/deals", nil, ""); code != 204 {
		t.Fatalf("delete collection: %d %s", code, out)
	}
	if code, out := post(b, "/api/v1/collections", `{"name":"deals"}`); code != 201 {
		t.Fatalf("re-create collection: %d %s", code, out)
	}
	if code, out := get(b, "/api/v1/collections/deals/reports"); code != 200 || strings.Contains(out, reportID) {
		t.Fatalf("reports of a re-created collection: %d %s", code, out)
	}
	if code, out := get(b, "/api/v1/collections/deals/reviews"); code != 200 || strings.Contains(out, "shared") {
		t.Fatalf("reviews of a re-created collection: %d %.300s", code, out)
	}

	// 7. "docs gc" on the cluster: every collection looked at, nothing
	// unnamed (every commit here finished).
	gc, err := exec.Command(bin, "docs", "gc", "--store", url("cli")).CombinedOutput()
	if err != nil || !strings.Contains(string(gc), "deals: ") || !strings.Contains(string(gc), "0 unnamed removed") {
		t.Fatalf("docs gc: %v\n%s", err, gc)
	}
	t.Logf("docs gc: %s", strings.TrimSpace(string(gc)))
}
