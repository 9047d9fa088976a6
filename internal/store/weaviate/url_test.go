package weaviate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// TestStoreURLCredentials: credentials written in a store URL are refused
// and never echoed; the API key comes from the environment and is sent as a
// bearer token, never as Basic auth; the local directory is named by a
// hash, not by the URL's text.
func TestStoreURLCredentials(t *testing.T) {
	for _, raw := range []string{"weaviate://admin:s3cretpw@db.example:8080", "weaviate://s3cretpw@db.example", "weaviate://h1:8080,admin:s3cretpw@h2:8080?replicas=2"} {
		_, err := ParseURL(raw)
		if err == nil {
			t.Fatalf("%s: accepted", raw)
		}
		if strings.Contains(err.Error(), "s3cretpw") || !strings.Contains(err.Error(), EnvAPIKey) {
			t.Errorf("%s: %v: want an error naming %s and not the secret", raw, err, EnvAPIKey)
		}
	}
	if got := Redact(`open weaviate://u:s3cretpw@h1:8080,tok@h2/?local=x failed: "weaviate://k@h3"`); strings.Contains(got, "s3cretpw") || strings.Contains(got, "tok@") || strings.Contains(got, "k@h3") {
		t.Errorf("Redact: %s", got)
	}

	o, err := ParseURL("weaviate://db.example:8080?namespace=Prod")
	if err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(o.Local); !regexp.MustCompile(`^weaviate-[0-9a-f]{16}$`).MatchString(base) {
		t.Errorf("local directory %q: want weaviate-<hash>", base)
	}

	// The key from the environment, as a bearer token.
	var basic, bearer atomic.Int32
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := r.BasicAuth(); ok {
			basic.Add(1)
		}
		if r.Header.Get("Authorization") == "Bearer k3y" {
			bearer.Add(1)
		}
		w.Write([]byte(`{"version":"1.35.2"}`))
	}))
	defer fake.Close()
	t.Setenv(EnvAPIKey, "k3y")
	o, err = ParseURL("weaviate://" + strings.TrimPrefix(fake.URL, "http://") + "?retry=1s&local=" + t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := newClient(o).do(context.Background(), "GET", "/v1/meta", nil, nil); err != nil {
		t.Fatal(err)
	}
	if bearer.Load() != 1 || basic.Load() != 0 {
		t.Errorf("bearer %d, basic %d: want the key as a bearer token only", bearer.Load(), basic.Load())
	}
}

// TestAnswerBounded: an answer larger than the call can legitimately return
// is an error, read no further (the client used to read up to 1 GiB of it;
// one bad answer cost 2.65 GB), and records may be large.
func TestAnswerBounded(t *testing.T) {
	var written atomic.Int64
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/meta" {
			w.Write([]byte(`{"version":"1.35.2"}`))
			return
		}
		chunk := []byte(`"` + strings.Repeat("x", 1<<20-2) + `"`)
		w.Write([]byte("["))
		for range 64 { // 64 MB of a JSON array
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
		w.Write([]byte("]"))
	}))
	defer fake.Close()
	_, err := OpenStoreForTest(context.Background(), "weaviate://"+strings.TrimPrefix(fake.URL, "http://")+"?retry=1s&local="+t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("open against a 64 MB schema answer: %v, want an error saying the answer is too large", err)
	}
	if w := written.Load(); w > 40<<20 {
		t.Errorf("the server wrote %d MB of a bad answer before the client stopped", w>>20)
	}
	if l := responseLimit("GET", "/v1/objects/PaktonRecord/x", "PaktonRecord", 0); l < MaxRecordBytes {
		t.Errorf("a record's answer is bounded at %d, under the largest record", l)
	}
	if l := responseLimit("POST", "/v1/batch/objects", "PaktonRecord", 100<<20); l < 100<<20 {
		t.Errorf("a batch's answer is bounded at %d, under what it echoes", l)
	}
}

// OpenStoreForTest opens a store without a test helper package.
func OpenStoreForTest(ctx context.Context, raw string) (*Remote, error) {
	r, _, err := Open(ctx, raw)
	return r, err
}
