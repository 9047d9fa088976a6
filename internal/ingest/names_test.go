package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/store"
)

// TestDocNamesStored checks that ingest stores what a document is called by
// and docread.DocNames reads it back.
func TestDocNamesStored(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "curo-servicing.txt")
	text := "LOAN SERVICING AGREEMENT\n\nThis Servicing Agreement is entered into as of June 1, 2021 by Curo Financial Technologies Corp. (\"Curo\") and Orion Bank, N.A. (\"Bank\").\n\n1. Services. Curo shall service the loans.\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Ingest(t.Context(), st, "default", []string{file}, Options{}); err != nil {
		t.Fatal(err)
	}
	nm, err := docread.DocNames(t.Context(), st, "default", store.DocID("curo-servicing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nm.Parties) != 2 || nm.Parties[0].Name != "Curo Financial Technologies Corp." || len(nm.Parties[0].Short) != 1 || nm.Parties[0].Short[0] != "Curo" || nm.Year != 2021 {
		t.Errorf("names %+v", nm)
	}
}
