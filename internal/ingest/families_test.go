package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/store"
)

// The same contract in three files (re-flowed, one clause changed) is one
// family; another contract is in none; the families follow the collection
// as documents come and go.
func TestCollectionFamilies(t *testing.T) {
	dir := t.TempDir()
	base := contractText(50, 6)
	writeFile(t, dir, "in/msa.txt", []byte(base))
	writeFile(t, dir, "in/msa-executed.txt", []byte("EXECUTION VERSION\n\n"+base+"\nSigned: Provider 50 Ltd\n"))
	writeFile(t, dir, "in/msa-v2.txt", []byte(strings.Replace(base, "with due care", "with all reasonable care and skill", 3)))
	// The same form made with other parties.
	other := strings.NewReplacer("Provider 50 Ltd", "Orion Analytics Ltd", "Customer 350 Inc", "Vega Robotics Inc",
		"the Provider", "Orion", "the Customer", "Vega", "The Provider", "Orion").Replace(contractText(50, 6))
	writeFile(t, dir, "in/other.txt", []byte(other))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Ingest(context.Background(), st, "c", []string{filepath.Join(dir, "in")}, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := CollectionFamilies(t.Context(), st, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Families) != 1 || len(f.Families[0].Members) != 3 {
		t.Fatalf("families %+v", f.Families)
	}
	fam := f.Families[0]
	byName := map[string]string{}
	for _, m := range fam.Members {
		byName[m.Name] = m.ID
	}
	if fam.Primary != byName["msa-executed.txt"] {
		t.Errorf("primary %s, want the executed copy", fam.Primary)
	}
	info, _ := FindDoc(t.Context(), st, "c", "other.txt")
	if f.Of(info.ID) != nil {
		t.Error("a different contract is in the family")
	}
	d, _, err := Describe(t.Context(), st, "c", byName["msa.txt"])
	if err != nil || len(d.Duplicates) != 2 || d.Duplicates[0].ID != fam.Primary {
		t.Errorf("duplicates %+v, %v", d.Duplicates, err)
	}
	// The cache follows the collection.
	if err := st.Delete(t.Context(), "c", byName["msa-v2.txt"]); err != nil {
		t.Fatal(err)
	}
	f, err = CollectionFamilies(t.Context(), st, "c")
	if err != nil || len(f.Families) != 1 || len(f.Families[0].Members) != 2 {
		t.Fatalf("after a deletion: %+v, %v", f, err)
	}
}
