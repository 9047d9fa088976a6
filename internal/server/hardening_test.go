package server

import (
	"context"

	"github.com/pakton/pakton/internal/ingest"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A full disk used to answer an upload with 400 and the store's absolute
// path; it is the server's fault (500) and names no path.
func TestUploadFullDiskIs500WithoutPath(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	e := newEnv(t, nil)
	defer func(f func(string) (*os.File, error)) { createUpload = f }(createUpload)
	createUpload = func(string) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	code, body := e.upload("deals", e.admin, file{"msa.txt", contract("Globex", "two years")})
	if code != http.StatusInternalServerError {
		t.Fatalf("%d %s, want 500", code, body)
	}
	if strings.Contains(string(body), e.st.Dir()) || strings.Contains(string(body), "/dev/full") || !strings.Contains(string(body), "disk is full") {
		t.Fatalf("body %s: want the reason without a path", body)
	}
}

// /readyz said ready on a full disk.
func TestReadyzFullDisk(t *testing.T) {
	e := newEnv(t, nil)
	if code, body := e.do("GET", "/readyz", "", nil, ""); code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	defer func(f func(string) int64) { freeSpace = f }(freeSpace)
	freeSpace = func(string) int64 { return 1 << 20 }
	code, body := e.do("GET", "/readyz", "", nil, "")
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "disk is full") {
		t.Fatalf("%d %s, want 503 naming the full disk", code, body)
	}
}

// A second server on the same store deleted the first one's upload in
// progress and re-ran its running job; now it refuses to start.
func TestOneServerPerStore(t *testing.T) {
	e := newEnv(t, nil)
	_, err := New(t.Context(), Config{Store: e.st, Keys: e.keys})
	if err == nil || !strings.Contains(err.Error(), "already serving the store") || !strings.Contains(err.Error(), "process") {
		t.Fatalf("second server: %v", err)
	}
	e.srv.Close()
	second, err := New(t.Context(), Config{Store: e.st, Keys: e.keys})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	second.Close()
}

// Job failure reasons shown to a collection key name no server path.
func TestJobReasonsNameNoServerPath(t *testing.T) {
	e := newEnv(t, nil)
	up := filepath.Join(e.srv.uploadsDir(), "mwr6oaa")
	for _, tc := range []struct{ in, want string }{
		{up + "/Vertrag Müller.pdf: file is corrupt", "Vertrag Müller.pdf: file is corrupt"},
		{"store: write " + filepath.Join(e.st.Dir(), "collections", "deals", "docs", "x") + ": no space left on device", "store: write <store>/collections/deals/docs/x: no space left on device"},
		{"pdftotext: open " + filepath.Join(os.TempDir(), "pakton-1.pdf"), "pdftotext: open <tmp>/pakton-1.pdf"},
	} {
		if got := e.srv.scrubPaths(tc.in); got != tc.want {
			t.Errorf("scrubPaths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	key := e.key("deals")
	j := e.ingest("deals", key, file{"bad.pdf", "%PDF-1.4 not really a pdf"})
	for _, r := range j.Results {
		if strings.Contains(r.Reason, e.st.Dir()) {
			t.Errorf("reason %q names the store", r.Reason)
		}
	}
}

// One bad file in a web upload rejected the whole batch, good files
// included, while the CLI ingested the rest. Now each refused file is a
// failed result of the job with its reason, and the others are ingested.
func TestUploadPartial(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxFiles = 4 })
	k := e.key("mixed")
	j := e.ingest("mixed", k,
		file{"good.txt", contract("Globex", "two years")},
		file{"bad.pdf", "not a PDF"},
		file{"run.exe", "MZ"},
		file{"GOOD.txt", contract("Initech", "one year")},
		file{"extra.txt", contract("Umbrella", "three years")},
	)
	got := map[string]string{}
	for _, r := range j.Results {
		got[r.Name] = r.Status + ": " + r.Reason
	}
	want := map[string]string{
		"good.txt":  "added",
		"bad.pdf":   "failed: file \"bad.pdf\": its content is not pdf",
		"run.exe":   "failed: file \"run.exe\": unsupported type",
		"GOOD.txt":  "failed: file \"GOOD.txt\" appears twice in this upload",
		"extra.txt": "failed: too many files: at most 4 per upload",
	}
	for name, w := range want {
		if !strings.HasPrefix(got[name], w) {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if j.State != "done" || j.Progress.Total != 5 || j.Progress.Done != 5 {
		t.Errorf("job %s progress %+v, want done with 5 of 5", j.State, j.Progress)
	}
	if docs, _ := e.st.List(t.Context(), "mixed"); len(docs) != 1 {
		t.Errorf("%d documents, want the good one", len(docs))
	}
}

// Upload names kept their letters only if ASCII: "Vertrag Müller.txt" was
// replaced by a different contract "Vertrag Mäller.txt" (both became
// "Vertrag M_ller.txt"), and "Antares Pharma, Inc." uploaded through the
// web became a second copy of the file the CLI had ingested.
func TestUploadNamesKeepTheirLetters(t *testing.T) {
	e := newEnv(t, nil)
	k := e.key("de")
	j := e.ingest("de", k, file{"Vertrag Müller.txt", contract("Müller GmbH", "two years")}, file{"Vertrag Mäller.txt", contract("Mäller AG", "one year")})
	if j.State != "done" {
		t.Fatalf("job %+v", j)
	}
	docs, _ := e.st.List(t.Context(), "de")
	names := map[string]bool{}
	for _, d := range docs {
		names[d.Name] = true
	}
	if len(docs) != 2 || !names["Vertrag Müller.txt"] || !names["Vertrag Mäller.txt"] {
		t.Fatalf("documents %v, want both contracts under their own names", names)
	}

	// The CLI ingests a file; the same bytes uploaded through the web, under
	// the same or another name, are recognised as that contract.
	src := filepath.Join(t.TempDir(), "Antares Pharma, Inc..txt")
	body := contract("Antares Pharma, Inc.", "five years")
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(context.Background(), e.st, "de", []string{src}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	j = e.ingest("de", k, file{"Antares Pharma, Inc..txt", body}, file{"antares-copy.txt", body})
	for _, r := range j.Results {
		if r.Status != "unchanged" {
			t.Errorf("%s: %s %s, want unchanged", r.Name, r.Status, r.Reason)
		}
	}
	if docs, _ := e.st.List(t.Context(), "de"); len(docs) != 3 {
		t.Errorf("%d documents, want 3 (the same contract is not stored twice)", len(docs))
	}
}
