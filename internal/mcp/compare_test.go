package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/collection"
	"github.com/pakton/pakton/internal/store/weaviate/wvtest"
)

// compare_contracts reports the executed copy's changed notice period and
// its dropped audit clause against the form, with paths on both sides.
func TestCompareContracts(t *testing.T) {
	form, err := os.ReadFile(filepath.Join("..", "..", "examples", "contracts", "master-services-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	signed := strings.Replace(string(form), "not less than sixty (60) days' prior written notice", "not less than ninety (90) days' prior written notice", 1)
	i := strings.Index(signed, "7.3 Audit.")
	j := i + strings.Index(signed[i:], "\n\n")
	if i < 0 || j <= i {
		t.Fatal("the sample contract has no clause 7.3 Audit")
	}
	signed = signed[:i] + signed[j+2:]
	dir := t.TempDir()
	st, err := wvtest.OpenStore(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for name, text := range map[string]string{"msa-form.txt": string(form), "msa-signed.txt": signed} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := ingestInto(st, "deal", []string{filepath.Join(dir, "msa-form.txt"), filepath.Join(dir, "msa-signed.txt")}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, NewServer(NewStoreBackend(testService(t, st, collection.Models{}), "deal")))

	var out CompareOutput
	res := call(t, cs, "compare_contracts", map[string]any{"contract": "msa-signed.txt", "against": "msa-form.txt"}, &out)
	if res.IsError {
		t.Fatalf("compare_contracts: %s", text(res))
	}
	if out.Contract.Name != "msa-signed.txt" || out.Against.Name != "msa-form.txt" {
		t.Errorf("sides: %+v %+v", out.Contract, out.Against)
	}
	if len(out.Missing) != 1 || !strings.HasSuffix(out.Missing[0].Path, "7.3") || len(out.Added) != 0 {
		t.Errorf("missing %+v added %+v", out.Missing, out.Added)
	}
	if len(out.Changed) != 1 {
		t.Fatalf("changed: %+v", out.Changed)
	}
	ch := out.Changed[0]
	var removed, inserted []string
	for _, op := range ch.Diff {
		switch op.Op {
		case "-":
			removed = append(removed, op.Text)
		case "+":
			inserted = append(inserted, op.Text)
		}
	}
	if ch.Template.Path == "" || ch.Template.Path != ch.Contract.Path || !strings.Contains(strings.Join(removed, " "), "sixty") || !strings.Contains(strings.Join(inserted, " "), "ninety") {
		t.Errorf("changed: %s → %s, removed %q, inserted %q", ch.Template.Path, ch.Contract.Path, removed, inserted)
	}
	if s := text(res); !strings.Contains(s, "- missing: ") || !strings.Contains(s, "{+ninety") {
		t.Errorf("text: %s", s)
	}
	for _, args := range []map[string]any{{"contract": "msa-signed.txt", "against": " "}, {"contract": "msa-signed.txt", "against": "nope.txt"}} {
		if res := call(t, cs, "compare_contracts", args, nil); !res.IsError || !strings.Contains(text(res), "list_documents") {
			t.Errorf("compare_contracts %v: %s", args, text(res))
		}
	}
}
