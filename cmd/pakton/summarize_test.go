package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/store"
)

// TestIngestSummarize has the archivist model (a scripted server) write the
// document summary at ingest, and checks that it is stored and used for
// routing a question that only the model's summary names.
func TestIngestSummarize(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{
		Match: llmtest.Contains("ZEPHYR"),
		Text:  "Zephyr Orchards fruit supply contract with Boreal Juices: minimum volumes, pricing, delivery.",
	}, llmtest.Turn{
		Match: llmtest.Contains("QUILL"),
		Text:  "Quill Ledger software licence for Harbor Freight Lines: licence grant, fees, audit.",
	})
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("ZEPHYR AGREEMENT\n\n1. Volumes. Buyer shall purchase at least 500 tonnes each year.\n\n2. Price. The price is fixed for two years.\n"), 0o644)
	os.WriteFile(filepath.Join(src, "b.txt"), []byte("QUILL AGREEMENT\n\n1. Grant. Licensor grants a licence to use the software.\n\n2. Audit. Licensor may audit usage once a year.\n"), 0o644)

	if _, _, err := capture(t, runIngest, "-q", "--summarize", "--llm-url", srv.BaseURL(), "--llm-model", "scripted", src); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	data, err := st.Artifact(t.Context(), store.DefaultCollection, store.DocID("a.txt"), docread.ArtifactSummary)
	if err != nil {
		t.Fatal(err)
	}
	var sum chunk.DocSummary
	if err := json.Unmarshal(data, &sum); err != nil || !strings.Contains(sum.Generated, "Zephyr Orchards") {
		t.Fatalf("stored summary %s (%v), want the model's", data, err)
	}
	out, _, err := capture(t, runSearch, "--json", "-k", "3", "In the Boreal Juices fruit supply contract, what minimum volume applies?")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		RoutedTo []struct{ Name string } `json:"routed_to"`
		Hits     []struct{ Text string } `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.RoutedTo) != 1 || res.RoutedTo[0].Name != "a.txt" {
		t.Fatalf("routed to %+v, want a.txt (named only by the model's summary)", res.RoutedTo)
	}
	found := false
	for _, h := range res.Hits {
		found = found || strings.Contains(h.Text, "500 tonnes")
	}
	if !found {
		t.Fatalf("the volume clause is not among the hits:\n%s", out)
	}

	// Without a model, --summarize is a clear error.
	t.Setenv("PAKTON_LLM_URL", "")
	if _, _, err := capture(t, runIngest, "-q", "--summarize", src); err == nil || !strings.Contains(err.Error(), "needs a language model") {
		t.Fatalf("--summarize without a model: %v", err)
	}
}
