package agent

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// newLibrary ingests the sample contracts (plus extra files, name → text)
// into a fresh store and returns a Library over them.
func newLibrary(t *testing.T, extra map[string]string) *Library {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	err := fs.WalkDir(examples.FS, "contracts", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := examples.FS.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(src, strings.TrimPrefix(p, "contracts/"))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range extra {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if _, err := ingest.Ingest(ctx, st, "test", []string{src}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	ix, err := ingest.LoadIndex(ctx, st, "test")
	if err != nil {
		t.Fatal(err)
	}
	return NewLibrary(&tool.Corpus{Store: st, Collection: "test", Index: ix})
}

// sharedLib is the sample library, built once for the tests that do not
// change it.
var (
	sharedOnce sync.Once
	sharedLibV *Library
)

func sharedLib(t *testing.T) *Library {
	sharedOnce.Do(func() { sharedLibV = newLibrary(&testing.T{}, nil) })
	if sharedLibV == nil {
		t.Fatal("sample library could not be built")
	}
	return sharedLibV
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, got)
	}
}

// verifications collects the verification outcome of every scripted run,
// for the rate docs/EVALUATION.md reports (go test -v prints it).
var (
	verifyMu      sync.Mutex
	verifications = map[string]report.Verification{}
	costs         = map[string][2]int{} // model calls measured, predicted by the paper
)

// askT is Ask that records the run's verification outcome.
func (a *Asker) askT(t *testing.T, ctx context.Context, req Request) (*report.Report, error) {
	r, err := a.Ask(ctx, req)
	if r != nil {
		verifyMu.Lock()
		verifications[t.Name()] = r.Verification
		if r.Accounting != nil {
			costs[t.Name()] = [2]int{r.Accounting.Calls, r.Accounting.PaperCalls}
		}
		verifyMu.Unlock()
	}
	return r, err
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if testing.Verbose() && len(verifications) > 0 {
		var q, v, rc, rm, d int
		names := make([]string, 0, len(verifications))
		for name := range verifications {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			x := verifications[name]
			fmt.Printf("run %-40s quotes %d verified %d recited %d removed %d dangling %d | model calls %d, paper %d\n", name, x.Quotes, x.Verified, x.Recited, x.Removed, x.Dangling, costs[name][0], costs[name][1])
			q, v, rc, rm, d = q+x.Quotes, v+x.Verified, rc+x.Recited, rm+x.Removed, d+x.Dangling
		}
		fmt.Printf("verification total: %d runs, %d quotes: %d verified in place, %d re-cited, %d removed, %d dangling; rate %.3f, exact %.3f\n",
			len(verifications), q, v, rc, rm, d, float64(v+rc)/float64(max(q, 1)), float64(v)/float64(max(q, 1)))
	}
	os.Exit(code)
}
