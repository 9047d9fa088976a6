package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/review/reviewtest"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

var (
	durations = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?m?s\b`)
	stamps    = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+Z?`)
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
	if !strings.Contains(wv["search"], "supply-agreement.docx — 15 > 15.2") {
		t.Errorf("search on the cluster:\n%s", wv["search"])
	}
}
