package wvtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/store/weaviate"
)

// EnvStoreURL, when set to a weaviate:// URL, makes OpenStore open every
// test store on that cluster (each in its own namespace) instead of in a
// directory. RunSuite sets it.
const EnvStoreURL = "PAKTON_TEST_WEAVIATE_URL"

// OpenStore opens a test store: a directory store in dir, or, under
// RunSuite, a store on the cluster in a fresh namespace with dir as its
// local directory.
func OpenStore(dir string) (*store.Store, error) {
	u := os.Getenv(EnvStoreURL)
	if u == "" {
		return store.Open(dir)
	}
	b := make([]byte, 6)
	rand.Read(b)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return weaviate.OpenStore(context.Background(), u+sep+"namespace=T"+hex.EncodeToString(b)+"&local="+dir)
}

// EnvSuiteRun, when set, is the -test.run pattern RunSuite runs on the
// cluster (default every test): PAKTON_WEAVIATE=1 PAKTON_WEAVIATE_RUN=^TestX
// go test -run Weaviate ./internal/server/ runs one test there.
const EnvSuiteRun = "PAKTON_WEAVIATE_RUN"

// OnCluster reports whether the tests run under RunSuite.
func OnCluster() bool { return os.Getenv(EnvStoreURL) != "" }

// RunSuite runs the calling package's tests again (its test binary) with
// every store that OpenStore opens on a 3-node cluster (replication 3),
// except the tests matching skip, and fails when any fails. It needs
// PAKTON_WEAVIATE=1.
func RunSuite(t *testing.T, skip ...string) {
	t.Helper()
	if os.Getenv("PAKTON_WEAVIATE") != "1" {
		t.Skip("set PAKTON_WEAVIATE=1 to run the Weaviate cluster suite")
	}
	if OnCluster() {
		t.Skip("already on a cluster")
	}
	c := Require(t, 3)
	skip = append([]string{"^TestWeaviate"}, skip...)
	run := "^Test"
	if r := os.Getenv(EnvSuiteRun); r != "" {
		run = r
	}
	args := []string{"-test.run", run, "-test.count", "1", "-test.v", "-test.skip", strings.Join(skip, "|")}
	if d, ok := t.Deadline(); ok {
		// The suite times out a minute before this test does, so a test
		// that hangs on the cluster prints its goroutines here instead of
		// both processes dying with nothing said.
		if left := time.Until(d) - time.Minute; left > 0 {
			args = append(args, "-test.timeout", left.Round(time.Second).String())
		}
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), EnvStoreURL+"="+c.URL("replicas=3"), "PAKTON_WEAVIATE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the suite on the cluster failed: %v\n%s", err, out)
	}
	t.Logf("the suite passed on the cluster: %d tests passed, %d skipped",
		strings.Count(string(out), "--- PASS"), strings.Count(string(out), "--- SKIP"))
}
