package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/store"
)

// The displays kept with a collection's index (KeepDisplays) are read by
// the next load instead of made, and are the displays made; a document
// stored again with other names since is named again.
func TestKeptDisplaysLoaded(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"curo-servicing.txt": "LOAN SERVICING AGREEMENT\n\nThis Servicing Agreement is entered into as of June 1, 2021 by Curo Financial Technologies Corp. (\"Curo\") and Orion Bank, N.A. (\"Bank\").\n\n1. Services. Curo shall service the loans.\n",
		"acme-supply.txt":    "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 3 March 2010 between Acme Widgets Inc. (\"Acme\") and Beta Foods LLC (\"Beta\").\n\n1. Supply. Acme shall supply the products.\n",
	}
	var files []string
	for name, text := range texts {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	if _, err := Ingest(ctx, st, "default", files, Options{}); err != nil {
		t.Fatal(err)
	}
	curo, acme := store.DocID("curo-servicing.txt"), store.DocID("acme-supply.txt")
	ix, _, err := Load(ctx, st, "default")
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]string{curo: ix.DocDisplay(curo), acme: ix.DocDisplay(acme)}
	if made[curo] == "" || made[acme] == "" || ix.DisplaysMade() != 2 {
		t.Fatalf("displays %q, %d made", made, ix.DisplaysMade())
	}
	if err := KeepDisplays(ctx, st, "default", ix); err != nil {
		t.Fatal(err)
	}
	ix, _, err = Load(ctx, st, "default")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range made {
		if got := ix.DocDisplay(id); got != want {
			t.Errorf("%s: kept display %q, made %q", id, got, want)
		}
	}
	if n := ix.DisplaysMade(); n != 0 {
		t.Errorf("%d displays made with both kept", n)
	}

	// The supply agreement stored again with other parties: named again.
	f := filepath.Join(dir, "acme-supply.txt")
	if err := os.WriteFile(f, []byte("SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 3 March 2010 between Acme Widgets Inc. (\"Acme\") and Gamma Foods LLC (\"Gamma\").\n\n1. Supply. Acme shall supply the products.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(ctx, st, "default", []string{f}, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	ix, _, err = Load(ctx, st, "default")
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.DocDisplay(acme); got == made[acme] || !strings.Contains(got, "Gamma") {
		t.Errorf("supply agreement stored again: display %q, before %q", got, made[acme])
	}
	if got := ix.DocDisplay(curo); got != made[curo] {
		t.Errorf("servicing agreement: %q, made %q", got, made[curo])
	}
	if n := ix.DisplaysMade(); n != 1 {
		t.Errorf("%d displays made, want the supply agreement's only", n)
	}
}
