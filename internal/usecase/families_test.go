package usecase

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/ingest"
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
	if _, err := ingest.Ingest(context.Background(), st, "c", []string{filepath.Join(dir, "in")}, ingest.Options{}); err != nil {
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
	info, _ := docread.FindDoc(t.Context(), st, "c", "other.txt")
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

// contractText is a synthetic services agreement (as in ingest's tests).
func contractText(seed, articles int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SERVICES AGREEMENT NO. %d\n\nThis Services Agreement is made between Provider %d Ltd and Customer %d Inc.\n\n", seed, seed, seed*7)
	fmt.Fprintf(&b, "ARTICLE 1 DEFINITIONS\n\n1.1 \"Services\" means the services described in Schedule %d.\n\n", seed%5+1)
	for a := 2; a <= articles; a++ {
		fmt.Fprintf(&b, "ARTICLE %d OBLIGATIONS PART %d\n\n", a, a)
		for c := 1; c <= 3; c++ {
			fmt.Fprintf(&b, "%d.%d The Provider shall perform obligation %d-%d-%d with due care and within %d days of a written request by the Customer, except that:\n\n", a, c, seed, a, c, (seed+a+c)%60+1)
			for i, l := range []string{"a", "b"} {
				fmt.Fprintf(&b, "(%s) no obligation applies to goods delivered after termination under clause %d.%d; and\n\n", l, a, i+1)
			}
		}
	}
	fmt.Fprintf(&b, "IN WITNESS WHEREOF the parties have signed this Agreement number %d.\n", seed)
	return b.String()
}

// writeFile writes data to dir/name, creating directories.

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Families computed after a change read only the changed documents'
// signatures (the signature cache) and equal those computed from scratch;
// a damaged signature cache is read as none.
func TestFamiliesReadOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	base := contractText(50, 6)
	writeFile(t, dir, "in/msa.txt", []byte(base))
	writeFile(t, dir, "in/msa-executed.txt", []byte("EXECUTION VERSION\n\n"+base+"\nSigned: Provider 50 Ltd\n"))
	writeFile(t, dir, "in/other.txt", []byte(contractText(51, 5)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "in")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	total := -1
	count := func(_, n int) { total = n }
	if _, err := CollectionFamiliesWith(ctx, st, "c", count); err != nil || total != 3 {
		t.Fatalf("first computation read %d signatures (%v), want 3", total, err)
	}
	writeFile(t, dir, "more/msa-v2.txt", []byte(strings.Replace(base, "with due care", "with all reasonable care and skill", 3)))
	if _, err := ingest.Ingest(ctx, st, "c", []string{filepath.Join(dir, "more")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	info, _ := docread.FindDoc(ctx, st, "c", "other.txt")
	if err := st.Delete(ctx, "c", info.ID); err != nil {
		t.Fatal(err)
	}
	total = -1
	got, err := CollectionFamiliesWith(ctx, st, "c", count)
	if err != nil || total != 1 {
		t.Fatalf("after one upload and one deletion: read %d signatures (%v), want 1", total, err)
	}
	if len(got.Families) != 1 || len(got.Families[0].Members) != 3 {
		t.Fatalf("families %+v", got.Families)
	}
	// From scratch: no cache of either kind, then a damaged signature cache.
	for _, damage := range []func(sigs string){
		func(sigs string) { os.Remove(sigs) },
		func(sigs string) { os.WriteFile(sigs, []byte(familySigMagic+"\x05\xff"), 0o644) },
	} {
		fams, _ := st.CachePath("c", familyCache)
		sigs, _ := st.CachePath("c", familySigCache)
		os.Remove(fams)
		damage(sigs)
		total = -1
		want, err := CollectionFamiliesWith(ctx, st, "c", count)
		if err != nil || total != 3 {
			t.Fatalf("from scratch: read %d signatures (%v), want 3", total, err)
		}
		if !reflect.DeepEqual(want.Families, got.Families) {
			t.Errorf("from the cache %+v, from scratch %+v", got.Families, want.Families)
		}
	}
}
