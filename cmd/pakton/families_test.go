package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/store"
)

// TestFamiliesAfterLargeChanges: "pakton ingest" caches the collection's
// families after a change that is a large share of the collection, leaves
// them to be computed when first asked after a small one (one contract
// added to many), and "pakton docs optimize" brings them up to date.
func TestFamiliesAfterLargeChanges(t *testing.T) {
	dir := t.TempDir()
	stDir := filepath.Join(dir, "store")
	t.Setenv(config.EnvStore, stDir)
	t.Setenv(config.EnvCollection, "fams")
	many := filepath.Join(dir, "many")
	os.MkdirAll(many, 0o755)
	for i := range 60 {
		text := fmt.Sprintf("SUPPLY AGREEMENT %d\n\nThis agreement is made between Party%d Holdings and Buyer%d Trading.\n\n1. Supply\n\nParty%d Holdings shall deliver %d units of product number %d each month at the agreed price.\n", i, i, i, i, 10+i, 7*i)
		os.WriteFile(filepath.Join(many, fmt.Sprintf("c%02d.txt", i)), []byte(text), 0o644)
	}
	current := func() (cached, now uint64) {
		t.Helper()
		st, err := store.Open(stDir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		now, err = st.Generation(context.Background(), "fams")
		if err != nil {
			t.Fatal(err)
		}
		p, err := st.CachePath("fams", "families.json")
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Generation uint64 `json:"generation"`
		}
		if b, err := os.ReadFile(p); err == nil {
			json.Unmarshal(b, &f)
		}
		return f.Generation, now
	}
	if _, _, err := capture(t, runIngest, "-q", many); err != nil {
		t.Fatal(err)
	}
	if cached, now := current(); cached != now {
		t.Errorf("after ingesting 60 contracts into an empty collection the families are of generation %d, the collection's is %d", cached, now)
	}
	one := filepath.Join(dir, "one.txt")
	os.WriteFile(one, []byte("LEASE\n\nThe landlord Acme Estates lets the office at 5 Main Street to the tenant Zephyr Labs for two years.\n"), 0o644)
	if _, _, err := capture(t, runIngest, "-q", one); err != nil {
		t.Fatal(err)
	}
	if cached, now := current(); cached == now {
		t.Errorf("one contract added to 60: the families were computed again (generation %d)", now)
	}
	if _, _, err := capture(t, runDocs, "optimize"); err != nil {
		t.Fatal(err)
	}
	if cached, now := current(); cached != now {
		t.Errorf("after docs optimize the families are of generation %d, the collection's is %d", cached, now)
	}
}
