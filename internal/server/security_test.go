package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/pakton/pakton/internal/parse/pdftest"
	"github.com/pakton/pakton/internal/review"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/jobs"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// TestIsolation runs every route with no key, a bad key, a key for another
// collection, and the right key. A key for collection B must never see
// anything of collection A: it gets exactly the answer a missing
// collection gets (404, same body), and admin routes answer it 403.
func TestIsolation(t *testing.T) {
	e := newEnv(t, nil)
	keyA, keyB := e.key("alpha"), e.key("bravo")
	j := e.ingest("alpha", keyA, file{"a.txt", contract("Alpha Ltd", "three years")}, file{"z.pdf", string(pdftest.OnePage("Alpha Ltd lease"))})
	pdfID := e.docIDOf("alpha", keyA, "z.pdf")
	e.ingest("bravo", keyB, file{"b.txt", contract("Bravo Inc", "one year")})
	_, body := e.json("GET", "/api/v1/collections/alpha/documents", keyA, nil)
	docID := decode[struct{ Documents []docJSON }](t, body).Documents[0].ID
	_, body = e.json("POST", "/api/v1/collections/alpha/ask", keyA, map[string]any{"question": "who may assign?"})
	var reportID string
	for _, ev := range parseSSE(t, string(body)) {
		if ev.Event == "report" {
			reportID = decode[struct{ ID string }](t, []byte(ev.Data)).ID
		}
	}
	if reportID == "" {
		t.Fatalf("no report: %s", body)
	}

	rv := e.startReviewOf("alpha", keyA, map[string]any{"playbook": "builtin", "provisions": []string{"Governing Law"}})
	reviews := "/api/v1/collections/alpha/reviews/" + rv.ID
	_, body = e.json("GET", reviews, keyA, nil)
	cellDoc := decode[struct{ Table review.Table }](t, body).Table.Rows[0].DocID

	type route struct {
		method, path string
		body         func() (*bytes.Buffer, string)
		ok           int  // status with the right key
		admin        bool // admin-only route
	}
	jsonBody := func(v any) func() (*bytes.Buffer, string) {
		return func() (*bytes.Buffer, string) {
			b, _ := json.Marshal(v)
			return bytes.NewBuffer(b), "application/json"
		}
	}
	upload := func() (*bytes.Buffer, string) {
		return multipartBody(t, []file{{"new.txt", contract("New Co", "a year")}})
	}
	routes := []route{
		{"GET", "/api/v1/collections/alpha/documents", nil, 200, false},
		{"GET", "/api/v1/collections/alpha/documents/" + docID, nil, 200, false},
		{"GET", "/api/v1/collections/alpha/documents/" + pdfID + "/layout", nil, 200, false},
		{"GET", "/api/v1/collections/alpha/documents/" + docID + "/graph", nil, 200, false},
		{"GET", "/api/v1/collections/alpha/graph", nil, 200, false},
		{"GET", "/api/v1/collections/alpha/documents/" + pdfID + "/pages/1.png", nil, 200, false},
		{"POST", "/api/v1/collections/alpha/search", jsonBody(map[string]any{"query": "assignment"}), 200, false},
		{"POST", "/api/v1/collections/alpha/ask", jsonBody(map[string]any{"question": "who may assign?"}), 200, false},
		{"GET", "/api/v1/collections/alpha/reports", nil, 200, false},
		{"GET", "/api/v1/collections/alpha/reports/" + reportID, nil, 200, false},
		{"GET", "/api/v1/collections/alpha/reviews", nil, 200, false},
		{"GET", reviews, nil, 200, false},
		{"GET", reviews + "/events", nil, 200, false},
		{"GET", reviews + "/export/csv", nil, 200, false},
		{"POST", reviews + "/resume", nil, 409, false},
		{"GET", reviews + "/export/html", nil, 200, false},
		{"POST", reviews + "/decisions", jsonBody(map[string]any{"doc_id": cellDoc, "provision": "Governing Law", "verdict": "accepted"}), 200, false},
		{"DELETE", reviews + "/decisions?doc_id=" + cellDoc + "&provision=Governing+Law", nil, 200, false},
		{"POST", "/api/v1/collections/alpha/reviews", jsonBody(map[string]any{"playbook": "builtin"}), 202, false},
		{"DELETE", reviews, nil, 204, false},
		{"GET", "/api/v1/collections/alpha/jobs", nil, 200, false},
		{"GET", "/api/v1/jobs/" + j.ID, nil, 200, false},
		{"POST", "/api/v1/jobs/" + j.ID + "/cancel", nil, 202, false},
		{"DELETE", "/api/v1/jobs/" + j.ID, nil, 204, false},
		{"POST", "/api/v1/collections/alpha/documents", upload, 202, false},
		{"DELETE", "/api/v1/collections/alpha/documents/" + docID, nil, 204, false},
		{"POST", "/api/v1/collections", jsonBody(map[string]string{"name": "charlie"}), 201, true},
		{"DELETE", "/api/v1/collections/alpha", nil, 204, true},
	}
	send := func(r route, key string) (int, string) {
		var b *bytes.Buffer
		ct := ""
		if r.body != nil {
			b, ct = r.body()
		} else {
			b = &bytes.Buffer{}
		}
		code, body := e.do(r.method, r.path, key, b, ct)
		return code, string(body)
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			if code, _ := send(r, ""); code != 401 {
				t.Errorf("no key: %d, want 401", code)
			}
			if code, _ := send(r, "pk_notakey"); code != 401 {
				t.Errorf("bad key: %d, want 401", code)
			}
			code, body := send(r, keyB)
			switch {
			case r.admin:
				if code != 403 {
					t.Errorf("collection key on an admin route: %d, want 403", code)
				}
			case code != 404:
				t.Errorf("other collection's key: %d %s, want 404", code, body)
			case r.method == "POST" && strings.HasSuffix(r.path, "/documents"):
				// Uploading with a collection's own key creates it, so a
				// missing collection is no comparison here.
			default:
				// The answer must be the one a missing collection or job gets.
				miss := fmt.Sprintf("missing%d", len(r.path))
				missing := strings.ReplaceAll(r.path, "alpha", miss)
				missing = strings.ReplaceAll(missing, j.ID, "nosuchjob")
				mcode, mbody := send(route{r.method, missing, r.body, 0, false}, e.key(miss))
				mbody = strings.ReplaceAll(strings.ReplaceAll(mbody, miss, "alpha"), "nosuchjob", j.ID)
				if mcode != code || mbody != body {
					t.Errorf("other collection's key: %d %q; a missing one: %d %q — existence leaks", code, body, mcode, mbody)
				}
			}
			if strings.Contains(body, "Alpha Ltd") || strings.Contains(body, "a.txt") {
				t.Errorf("other collection's key saw alpha's data: %s", body)
			}
			key := keyA
			if r.admin {
				key = e.admin
			}
			if code, body := send(r, key); code != r.ok {
				t.Errorf("right key: %d %.200s, want %d", code, body, r.ok)
			}
		})
	}

	// Listing collections shows a collection key only its own.
	_, body = e.json("GET", "/api/v1/collections", keyB, nil)
	cols := decode[struct{ Collections []collectionJSON }](t, body)
	if len(cols.Collections) != 1 || cols.Collections[0].Name != "bravo" {
		t.Errorf("bravo's key lists %s", body)
	}
	// A revoked key stops working at once.
	ks, _ := e.keys.List(t.Context())
	for _, k := range ks {
		if k.Collection == "bravo" {
			e.keys.Revoke(t.Context(), k.ID)
		}
	}
	if code, _ := e.json("GET", "/api/v1/collections/bravo/documents", keyB, nil); code != 401 {
		t.Errorf("revoked key: %d", code)
	}
}

// TestUploadLimits: an upload with no file left to ingest is refused with
// the right status and every file's reason, and leaves nothing on disk.
// (Uploads where some files are refused: TestUploadPartial.)
func TestUploadLimits(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.MaxFileBytes = 4096
		c.MaxFiles = 3
		c.MaxRequestBytes = 16 << 10
	})
	k := e.key("lim")
	pdfLike := "%PDF-1.4\n" + strings.Repeat("x", 100)
	for _, tc := range []struct {
		name  string
		files []file
		want  int
	}{
		{"file too large", []file{{"big.txt", strings.Repeat("word ", 1000)}}, http.StatusRequestEntityTooLarge},
		{"request too large", []file{{"a.txt", strings.Repeat("y", 4000)}, {"b.txt", strings.Repeat("y", 4000)}, {"c.txt", strings.Repeat("y", 4000)}, {"d.txt", strings.Repeat("y", 4000)}, {"e.txt", strings.Repeat("y", 4000)}, {"f.txt", strings.Repeat("y", 4000)}}, http.StatusRequestEntityTooLarge},
		{"unsupported extension", []file{{"run.exe", "MZ\x90\x00"}}, http.StatusUnsupportedMediaType},
		{"no extension (traversal)", []file{{"../../etc/passwd", "root:x:0:0"}}, http.StatusUnsupportedMediaType},
		{"pdf that is not a PDF", []file{{"contract.pdf", "just text pretending"}}, http.StatusUnsupportedMediaType},
		{"docx that is not a zip", []file{{"contract.docx", pdfLike}}, http.StatusUnsupportedMediaType},
		{"text that is binary", []file{{"notes.txt", "\x00\x01\x02\x03binary\x00\xff"}}, http.StatusUnsupportedMediaType},
		{"html that is binary", []file{{"page.html", "\x89PNG\r\n\x1a\n\x00\x00"}}, http.StatusUnsupportedMediaType},
		{"every file bad", []file{{"bad.pdf", "nope"}, {"bad.docx", "nope"}}, http.StatusBadRequest},
		{"empty file", []file{{"empty.txt", ""}}, http.StatusBadRequest},
		{"no files", nil, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.upload("lim", k, tc.files...)
			if code != tc.want {
				t.Fatalf("%d %s, want %d", code, body, tc.want)
			}
			if !strings.Contains(string(body), `"error"`) {
				t.Errorf("no error message: %s", body)
			}
			ents, _ := os.ReadDir(filepath.Join(e.st.Dir(), "uploads"))
			if len(ents) != 0 {
				t.Errorf("upload left files: %v", ents)
			}
		})
	}
	if js := e.srv.Jobs().List("lim"); len(js) != 0 {
		t.Errorf("rejected uploads made jobs: %v", js)
	}
	// Not multipart at all.
	if code, _ := e.do("POST", "/api/v1/collections/lim/documents", k, strings.NewReader("x"), "text/plain"); code != 400 {
		t.Errorf("non-multipart upload: %d", code)
	}
	// JSON bodies are bounded too.
	big := map[string]string{"query": strings.Repeat("a", 2<<20)}
	if code, _ := e.json("POST", "/api/v1/collections/lim/search", k, big); code != http.StatusRequestEntityTooLarge {
		t.Errorf("2 MiB JSON body: %d", code)
	}
}

// TestTraversalNames: client file names never become paths; the document
// keeps only a sanitized base name and the file lands inside the upload
// directory.
func TestTraversalNames(t *testing.T) {
	e := newEnv(t, nil)
	k := e.key("trav")
	outside := filepath.Join(filepath.Dir(e.st.Dir()), "escaped.txt")
	names := []string{"../../etc/passwd.txt", `..\..\windows\evil.txt`, "/abs/path/x.txt", "../" + filepath.Base(outside), "..txt", ".hidden.txt", "sp ace(1).txt", "naïve:name?.txt"}
	var files []file
	for i, n := range names {
		files = append(files, file{n, contract(fmt.Sprintf("Party %d", i), "a year")})
	}
	j := e.ingest("trav", k, files...)
	if j.State != jobs.Done {
		t.Fatalf("job %+v", j)
	}
	_, body := e.json("GET", "/api/v1/collections/trav/documents", k, nil)
	docs := decode[struct{ Documents []docJSON }](t, body).Documents
	var got []string
	for _, d := range docs {
		got = append(got, d.Name)
		if strings.ContainsAny(d.Name, `/\`) || strings.HasPrefix(d.Name, ".") || strings.Contains(d.Name, "\x00") {
			t.Errorf("unsafe document name %q", d.Name)
		}
	}
	if len(docs) != len(names) {
		t.Errorf("documents %q", got)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a file escaped to %s", outside)
	}
	for _, tc := range []struct{ in, want string }{
		{"../../etc/passwd.txt", "passwd.txt"},
		{`..\..\windows\evil.txt`, "evil.txt"},
		{".hidden.txt", "hidden.txt"},
		{"..txt", "upload.txt"},
		{"Contract – final.PDF", "Contract – final.PDF"},
		{"Vertrag Müller.txt", "Vertrag Müller.txt"},
		{"Vertrag Mäller.txt", "Vertrag Mäller.txt"},
		{"Antares Pharma, Inc..pdf", "Antares Pharma, Inc..pdf"},
		{"契約書.docx", "契約書.docx"},
		{"a\x00b/../c.txt", "c.txt"},
		{"a\x00b.txt", "a_b (" + shortHash("a\x00b.txt") + ").txt"},
		{"a:b.txt", "a_b (" + shortHash("a:b.txt") + ").txt"},
		{"a?b.txt", "a_b (" + shortHash("a?b.txt") + ").txt"},
	} {
		if got, err := SafeName(tc.in); err != nil || got != tc.want {
			t.Errorf("SafeName(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"../../etc/passwd", "", "..", "/", "x.exe"} {
		if got, err := SafeName(bad); err == nil {
			t.Errorf("SafeName(%q) = %q, want an error", bad, got)
		}
	}
}

// TestJobSurvivesRestart: a server stopped while a job runs leaves the job
// unfinished on disk; the next server resumes it and finishes it, and every
// job file on disk is always complete JSON.
func TestJobSurvivesRestart(t *testing.T) {
	e := newEnv(t, nil)
	k := e.key("restart")
	// Block the ingest: register a slow kind over the real one.
	started := make(chan struct{})
	release := make(chan struct{})
	e.srv.Jobs().Handle(kindIngest, func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		close(started)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-release:
			return nil
		}
	})
	var files []file
	for i := range 5 {
		files = append(files, file{fmt.Sprintf("c%d.txt", i), contract(fmt.Sprintf("Party %d", i), "a year")})
	}
	code, body := e.upload("restart", k, files...)
	if code != 202 {
		t.Fatalf("upload %d %s", code, body)
	}
	id := decode[struct{ Job jobs.Job }](t, body).Job.ID
	<-started
	e.ts.Close()
	e.srv.Close() // interrupts the running job without finishing it

	raw, err := storedJob(t.Context(), e.st, id)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk jobs.Job
	if err := json.Unmarshal(raw, &onDisk); err != nil || onDisk.State != jobs.Running || onDisk.Attempts != 1 {
		t.Fatalf("job on disk after stop: %v %s", err, raw)
	}
	if _, err := os.Stat(filepath.Join(e.st.Dir(), "uploads")); err != nil {
		t.Fatal("uploads removed while the job is unfinished")
	}

	// A new server over the same store resumes the job with the real ingest.
	e.start(t.Context(), Config{Store: e.st, Keys: e.keys, Logger: e.srv.log})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := e.srv.Jobs().Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != jobs.Done || j.Attempts != 2 || len(j.Results) != 5 {
		t.Fatalf("resumed job: %+v", j)
	}
	_, body = e.json("GET", "/api/v1/collections/restart/documents", k, nil)
	if n := len(decode[struct{ Documents []docJSON }](t, body).Documents); n != 5 {
		t.Fatalf("%d documents after the resumed job", n)
	}
	ents, _ := os.ReadDir(filepath.Join(e.st.Dir(), "uploads"))
	if len(ents) != 0 {
		t.Errorf("uploads left: %v", ents)
	}
}

// TestUploadCancel: cancelling a queued job cancels it and removes its
// files.
func TestUploadCancel(t *testing.T) {
	e := newEnv(t, nil)
	k := e.key("cx")
	block := make(chan struct{})
	e.srv.Jobs().Handle(kindIngest, func(ctx context.Context, j jobs.Job, r jobs.Reporter) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-block:
			return nil
		}
	})
	defer close(block)
	var ids []string
	for i := range 2 {
		code, body := e.upload("cx", k, file{fmt.Sprintf("x%d.txt", i), contract("X", "a year")})
		if code != 202 {
			t.Fatal(code)
		}
		ids = append(ids, decode[struct{ Job jobs.Job }](t, body).Job.ID)
	}
	for _, id := range ids { // the first is running, the second queued
		code, body := e.json("POST", "/api/v1/jobs/"+id+"/cancel", k, nil)
		if code != 202 {
			t.Fatalf("cancel: %d %s", code, body)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		j, err := e.srv.Jobs().Wait(ctx, id)
		cancel()
		if err != nil || j.State != jobs.Cancelled {
			t.Fatalf("job %s after cancel: %+v %v", id, j, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ents, _ := os.ReadDir(filepath.Join(e.st.Dir(), "uploads"))
		if len(ents) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("uploads left after cancel: %v", ents)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMultipartFieldNames: any file part counts, plain fields are ignored.
func TestMultipartFieldNames(t *testing.T) {
	e := newEnv(t, nil)
	k := e.key("mf")
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("note", "ignored")
	w, _ := mw.CreateFormFile("files", "one.txt")
	w.Write([]byte(contract("One", "a year")))
	mw.Close()
	code, body := e.do("POST", "/api/v1/collections/mf/documents", k, &buf, mw.FormDataContentType())
	if code != 202 {
		t.Fatalf("%d %s", code, body)
	}
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:3])
}
