package server

import (
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
	_, err := New(Config{Store: e.st, Keys: e.keys})
	if err == nil || !strings.Contains(err.Error(), "already serving the store") || !strings.Contains(err.Error(), "process") {
		t.Fatalf("second server: %v", err)
	}
	e.srv.Close()
	second, err := New(Config{Store: e.st, Keys: e.keys})
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
