package server

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/usecase"
)

// A server started with OpenAtStart opens its collections in the
// background — documents, index, families — and GET /collections shows each
// one's stage and progress until it is open; the families are then cached
// for the collection's generation, so the first families request reads them.
func TestOpenAtStart(t *testing.T) {
	e := newEnv(t, nil)
	e.ingest("default", e.admin,
		file{"msa.txt", contract("Orion Analytics Ltd", "two years")},
		file{"msa-final.txt", "FINAL VERSION\n\n" + contract("Orion Analytics Ltd", "two years")},
		file{"other.txt", contract("Vega Robotics Inc", "five years")})
	e.ts.Close()
	e.srv.Close()
	for _, name := range []string{"families.json", "family-sigs.bin"} {
		if p, err := e.st.CachePath("default", name); err == nil {
			os.Remove(p)
		}
	}
	cache, err := e.st.CacheDir(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	displays := filepath.Join(cache, ingest.IndexDir, "displays")
	os.Remove(displays)

	e.start(t.Context(), Config{Store: e.st, Keys: e.keys, Logger: slog.New(slog.DiscardHandler), IngestWorkers: 2, Rate: -1, OpenAtStart: true})
	type listing struct {
		Collections []struct {
			Name    string   `json:"name"`
			Opening *opening `json:"opening"`
		} `json:"collections"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := e.do("GET", "/api/v1/collections", e.admin, nil, "")
		if code != http.StatusOK {
			t.Fatalf("collections: %d %s", code, body)
		}
		l := decode[listing](t, body)
		if len(l.Collections) != 1 {
			t.Fatalf("collections %s", body)
		}
		op := l.Collections[0].Opening
		if op == nil {
			break
		}
		if op.Stage != stageDocuments && op.Stage != stageIndex && op.Stage != stageFamilies || op.Done > op.Total {
			t.Fatalf("opening %+v", *op)
		}
		if time.Now().After(deadline) {
			t.Fatalf("still opening after 30 s: %+v", *op)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Opened: the documents' displays are kept for the next start (by the
	// opening, or by the index maintenance that learns the associations).
	if _, err := os.Stat(displays); err != nil {
		t.Errorf("displays not kept after the opening: %v", err)
	}
	// The families are cached for the current generation.
	read := -1
	fams, err := usecase.CollectionFamiliesWith(t.Context(), e.st, "default", func(_, n int) { read = n })
	if err != nil || read != -1 {
		t.Fatalf("families after the opening: %v, %d signatures read (want none: cached)", err, read)
	}
	if len(fams.Families) != 1 || len(fams.Families[0].Members) != 2 {
		t.Errorf("families %+v", fams.Families)
	}
	code, body := e.do("GET", "/api/v1/collections/default/families", e.admin, nil, "")
	if code != http.StatusOK || len(decode[struct{ Families []usecase.Family }](t, body).Families) != 1 {
		t.Errorf("families: %d %s", code, body)
	}
}

// While a collection opens, GET /collections says how far it is; a
// collection key sees only its own collection's.
func TestOpeningShown(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.opening.set("default", opening{Stage: stageFamilies, Done: 120, Total: 4680})
	code, body := e.do("GET", "/api/v1/collections", e.key("default"), nil, "")
	want := `{"collections":[{"name":"default","docs":0,"opening":{"stage":"families","done":120,"total":4680}}]}`
	if code != http.StatusOK || string(body) != want+"\n" {
		t.Errorf("collections: %d %s\nwant %s", code, body, want)
	}
	e.srv.opening.done("default")
	code, body = e.do("GET", "/api/v1/collections", e.admin, nil, "")
	if want := `{"collections":[{"name":"default","docs":0}]}`; code != http.StatusOK || string(body) != want+"\n" {
		t.Errorf("after opening: %d %s\nwant %s", code, body, want)
	}
}
