package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/embed/embedtest"
)

// TestHybridSearchThroughEmbeddingServer ingests a contract with an
// embedding server configured, then finds a clause by a paraphrase that
// shares no word with it: only the dense ranking can find it.
func TestHybridSearchThroughEmbeddingServer(t *testing.T) {
	srv := embedtest.NewServer(t, map[string]int{
		"terminate": 0, "cancel": 0, "convenience": 1, "whenever": 1,
		"law": 2, "governed": 2, "fees": 3, "pay": 3,
	})
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv("PAKTON_EMBED_URL", srv.BaseURL())
	t.Setenv("PAKTON_EMBED_MODEL", "scripted")
	src := filepath.Join(dir, "msa.txt")
	text := "SERVICES AGREEMENT\n\n1. Fees. Customer shall pay the fees in Schedule 2.\n\n2. Governing Law. This Agreement is governed by the law of Delaware.\n\n3. Exit. Either party may terminate this Agreement for convenience on sixty days notice.\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, "-q", src); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() == 0 {
		t.Fatal("ingest did not call the embedding server")
	}
	out, _, err := capture(t, runSearch, "--json", "-k", "1", "can I cancel whenever I like?")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Hits []struct {
			Text string `json:"text"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Text, "terminate this Agreement for convenience") {
		t.Fatalf("top hit %+v, want the termination clause", res.Hits)
	}

	// Without the server configured the collection is still searchable,
	// lexically, and the user is told why.
	t.Setenv("PAKTON_EMBED_URL", "")
	_, errOut, err := capture(t, runSearch, "-k", "1", "governing law")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "no embedding server is configured") {
		t.Errorf("no note about the missing embedding server:\n%s", errOut)
	}
}
