package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/review/reviewtest"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

var (
	durations = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?m?s\b`)
	stamps    = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+Z?|\bin [0-9]+:[0-9]{2}\b`)
)

// TestWeaviateCLI runs the commands on a 3-node Weaviate cluster named by
// PAKTON_STORE=weaviate://… and on an embedded store, and requires the same
// output from both: ingest, docs, search (text and JSON), ask (evidence
// report), tree from the store, review (offline), docs rm, collections.
func TestWeaviateCLI(t *testing.T) {
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite")
	}
	c := wvtest.Require(t, 3)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(dir, "small.yaml")
	os.WriteFile(pb, reviewtest.PlaybookYAML, 0o644)
	t.Setenv(config.EnvCollection, "deal-room")
	noModel(t)

	outputs := func(storeLoc, tag string) map[string]string {
		t.Setenv(config.EnvStore, storeLoc)
		got := map[string]string{}
		do := func(name string, fn func([]string) (string, string, error), args ...string) {
			out, _, err := fn(args)
			if err != nil {
				t.Fatalf("%s: %s: %v", tag, name, err)
			}
			out = strings.ReplaceAll(out, storeLoc, "<store>")
			out = durations.ReplaceAllString(out, "Ns")
			got[name] = stamps.ReplaceAllString(out, "TIME")
		}
		cap := func(run func(context.Context, []string) error) func([]string) (string, string, error) {
			return func(args []string) (string, string, error) { return capture(t, run, args...) }
		}
		do("ingest", cap(runIngest), "-q", src)
		do("docs", cap(runDocs))
		do("search", cap(runSearch), "-k", "3", "Does a labour strike at the supplier's own plant count as force majeure under the supply agreement?")
		do("search-json", cap(runSearch), "--json", "--no-route", "-k", "8", "limitation of liability cap")
		do("ask", cap(runAsk), "--json", "--doc", "mutual-nda.md", "-k", "2", "how long does confidentiality survive")
		do("review", cap(runReview), "--playbook", pb, "--offline", "--format", "json", "--out", filepath.Join(dir, "review-"+tag))
		do("rm", cap(runDocs), "rm", "mutual-nda.md")
		do("docs-after", cap(runDocs))
		do("search-after", cap(runSearch), "--json", "-k", "3", "how long does confidentiality survive")
		do("collections", cap(runDocs), "collections")
		return got
	}
	emb := outputs(filepath.Join(dir, "store"), "embedded")
	wv := outputs(c.URL("replicas=3&local="+filepath.Join(dir, "wv-local")), "weaviate")
	for name, want := range emb {
		got := wv[name]
		if name == "review" {
			got = strings.ReplaceAll(got, "review-weaviate", "review-embedded")
		}
		if got != want {
			t.Errorf("%s differs on the cluster:\n--- embedded\n%s\n--- weaviate\n%s", name, want, got)
		}
	}
	if !strings.Contains(wv["search"], "1. Supply Agreement — Ferrand & Østergaard Components / Calloway Kitchen Appliances, 3 March 2025 — 15 > 15.2\n   supply-agreement.docx, [") {
		t.Errorf("search on the cluster:\n%s", wv["search"])
	}
}

// TestWeaviateTwoServers runs two `pakton serve` processes on one cluster
// (each with its own local directory, as on two machines): a contract
// uploaded through one is searchable through the other, deleting it through
// one removes it from both, and a collection made through one is isolated
// from the other collections in both.
func TestWeaviateTwoServers(t *testing.T) {
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
	// Keys live in the cluster: one made with the CLI works on both servers.
	keyOut := func(args ...string) string {
		t.Helper()
		url := c.URL("replicas=3&local=" + filepath.Join(dir, "cli"))
		out, err := exec.Command(bin, append([]string{"keys"}, append(args, "--store", url)...)...).Output()
		if err != nil {
			t.Fatalf("keys %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	admin := keyOut("create", "--admin", "--name", "ops")
	var bases []string
	for i := range 2 {
		port := freePort(t)
		url := c.URL("replicas=3&local=" + filepath.Join(dir, fmt.Sprintf("local%d", i)))
		cmd := exec.Command(bin, "serve", "--store", url, "--addr", "127.0.0.1:"+port)
		cmd.Env = append(os.Environ(), "PAKTON_LLM_URL=", "PAKTON_LLM_MODEL=", "PAKTON_EMBED_URL=")
		logf, _ := os.Create(filepath.Join(dir, fmt.Sprintf("serve%d.log", i)))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); logf.Close() })
		base := "http://127.0.0.1:" + port
		bases = append(bases, base)
		waitHTTP(t, base+"/readyz")
	}
	a, b := bases[0], bases[1]
	key := admin
	call := func(method, url string, body io.Reader, ctype string) (int, string) {
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
	if code, out := call("POST", a+"/api/v1/collections", strings.NewReader(`{"name":"deals"}`), "application/json"); code != 201 {
		t.Fatalf("create collection: %d %s", code, out)
	}
	if code, out := call("POST", b+"/api/v1/collections", strings.NewReader(`{"name":"other"}`), "application/json"); code != 201 {
		t.Fatalf("create collection: %d %s", code, out)
	}
	// Upload through A.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "supply-agreement.docx")
	data, _ := os.ReadFile(filepath.Join(src, "supply-agreement.docx"))
	fw.Write(data)
	mw.Close()
	code, out := call("POST", a+"/api/v1/collections/deals/documents", &buf, mw.FormDataContentType())
	if code != 202 {
		t.Fatalf("upload: %d %s", code, out)
	}
	var job struct {
		Job struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"job"`
	}
	json.Unmarshal([]byte(out), &job)
	deadline := time.Now().Add(2 * time.Minute)
	for job.Job.State != "done" {
		if time.Now().After(deadline) || job.Job.State == "failed" {
			t.Fatalf("ingest job: %s", out)
		}
		time.Sleep(200 * time.Millisecond)
		_, out = call("GET", a+"/api/v1/jobs/"+job.Job.ID, nil, "")
		json.Unmarshal([]byte(out), &job)
	}
	search := func(base, coll string) string {
		_, out := call("POST", base+"/api/v1/collections/"+coll+"/search", strings.NewReader(`{"query":"labour strike force majeure","k":3}`), "application/json")
		return out
	}
	// Searchable through B (B notices the new generation; its first request
	// may still be served by the index it had, so poll).
	waitFor(t, "upload through A searchable through B", func() bool { return strings.Contains(search(b, "deals"), "supply-agreement.docx") })
	if out := search(b, "other"); strings.Contains(out, "supply-agreement.docx") {
		t.Fatalf("isolation: collection other finds the upload: %s", out)
	}
	var docs struct {
		Documents []struct {
			ID string `json:"id"`
		} `json:"documents"`
	}
	_, out = call("GET", b+"/api/v1/collections/deals/documents", nil, "")
	json.Unmarshal([]byte(out), &docs)
	if len(docs.Documents) != 1 {
		t.Fatalf("B lists %s", out)
	}
	// A collection key made with the CLI: its collection on both servers,
	// no other; revoked, refused by both.
	for _, base := range []string{a, b} {
		if code, out := call("GET", base+"/api/v1/collections/other/documents", nil, ""); code != 200 {
			t.Fatalf("admin key on collection other through %s: %d %s", base, code, out)
		}
	}
	dealsKey := keyOut("create", "--collection", "deals", "--name", "deals-only")
	key = dealsKey
	for _, base := range []string{a, b} {
		waitFor(t, "collection key accepted by "+base, func() bool {
			code, _ := call("GET", base+"/api/v1/collections/deals/documents", nil, "")
			return code == 200
		})
		if code, out := call("GET", base+"/api/v1/collections/other/documents", nil, ""); code != 404 || !strings.Contains(out, `collection \"other\" not found`) {
			t.Fatalf("a deals key on collection other through %s: %d %s", base, code, out)
		}
	}
	var listed []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(keyOut("list", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	for _, k := range listed {
		if k.Name == "deals-only" {
			keyOut("revoke", k.ID)
		}
	}
	for _, base := range []string{a, b} {
		waitFor(t, "revoked key refused by "+base, func() bool {
			code, _ := call("GET", base+"/api/v1/collections/deals/documents", nil, "")
			return code == 401
		})
	}
	key = admin

	// Delete through B: gone from both.
	if code, out := call("DELETE", b+"/api/v1/collections/deals/documents/"+docs.Documents[0].ID, nil, ""); code != 204 {
		t.Fatalf("delete: %d %s", code, out)
	}
	for _, base := range []string{a, b} {
		waitFor(t, "deletion visible through "+base, func() bool {
			_, out := call("GET", base+"/api/v1/collections/deals/documents", nil, "")
			return strings.Contains(out, `"documents":[]`) && !strings.Contains(search(base, "deals"), "supply-agreement.docx")
		})
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func waitHTTP(t *testing.T, url string) {
	t.Helper()
	waitFor(t, url, func() bool {
		res, err := http.Get(url)
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestWeaviateMigrate moves an embedded store's collection to the cluster
// without re-parsing, verifies it, resumes idempotently, and the cluster
// then answers as the embedded store did; keys for a cluster store live in
// its local directory.
func TestWeaviateMigrate(t *testing.T) {
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite")
	}
	c := wvtest.Require(t, 3)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	noModel(t)
	emb := filepath.Join(dir, "store")
	url := c.URL("replicas=3&local=" + filepath.Join(dir, "local"))
	t.Setenv(config.EnvCollection, "deals")
	t.Setenv(config.EnvStore, emb)
	if _, _, err := capture(t, runIngest, "-q", src); err != nil {
		t.Fatal(err)
	}
	q := []string{"--json", "-k", "5", "Does a labour strike at the supplier's own plant count as force majeure?"}
	want, _, err := capture(t, runSearch, q...)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := capture(t, runMigrate, "-q", "--from", emb, "--to", url)
	if err != nil || !strings.Contains(out, "deals: 5 documents") || !strings.Contains(out, "verified") || !strings.Contains(out, "5 copied, 0 already there") {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	out, _, err = capture(t, runMigrate, "-q", "--from", emb, "--to", url)
	if err != nil || !strings.Contains(out, "0 copied, 5 already there") {
		t.Fatalf("migrate again: %v\n%s", err, out)
	}
	t.Setenv(config.EnvStore, url)
	got, _, err := capture(t, runSearch, q...)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("search after migrate differs:\n--- embedded\n%s\n--- cluster\n%s", want, got)
	}
	if _, _, err := capture(t, runKeys, "create", "--admin", "--name", "ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "local", "auth", "keys.json")); err == nil {
		t.Errorf("a cluster store's keys were written to its local directory")
	}
	if out, _, err := capture(t, runKeys, "list"); err != nil || !strings.Contains(out, "ops") {
		t.Errorf("keys list: %v\n%s", err, out)
	}
}
