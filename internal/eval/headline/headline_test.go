package headline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	beginMarker, endMarker := markers("")
	page := "intro\n" + beginMarker + "\nold table\n" + endMarker + "\nafter\n"
	cases := []struct {
		name, page, body, want string
		fails                  bool
	}{
		{name: "replaces the block", page: page, body: "\nnew\n", want: "intro\n" + beginMarker + "\nnew\n" + endMarker + "\nafter\n"},
		{name: "empty body", page: page, body: "", want: "intro\n" + beginMarker + endMarker + "\nafter\n"},
		{name: "no markers", page: "intro\n", fails: true},
		{name: "end before begin", page: endMarker + beginMarker, fails: true},
		{name: "two blocks", page: page + page, fails: true},
	}
	for _, c := range cases {
		got, err := Splice(c.page, c.body)
		if (err != nil) != c.fails {
			t.Errorf("%s: error %v, want failure %v", c.name, err, c.fails)
			continue
		}
		if c.fails {
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		if b, err := Block(got); err != nil || b != c.body {
			t.Errorf("%s: Block = %q, %v; want %q", c.name, b, err, c.body)
		}
	}
}

// TestNamedBlocks: blocks of different names on one page are spliced
// apart, and the headline block's markers are not a named block's.
func TestNamedBlocks(t *testing.T) {
	b0, e0 := markers("")
	b1, e1 := markers("table2")
	page := b0 + "x" + e0 + "\n" + b1 + "y" + e1
	out, err := SpliceNamed(page, "table2", "Y")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := NamedBlock(out, "table2"); got != "Y" {
		t.Errorf("table2 block = %q, want Y", got)
	}
	if got, _ := Block(out); got != "x" {
		t.Errorf("headline block = %q, want x (untouched)", got)
	}
	if _, err := NamedBlock(page, "sets"); err == nil {
		t.Error("a block the page lacks: no error")
	}
}

func TestTable2AndSets(t *testing.T) {
	n := sample()
	for i := range n.Retrieval {
		n.Retrieval[i].Chars = map[string]float64{"1": 563.4, "2": 1059, "4": 2037, "8": 3958, "16": 7776, "32": 14937, "64": 26416}
		n.Retrieval[i].DRM = map[string]float64{"1": 1.01, "8": 1.06, "64": 1.17}
		n.Retrieval[i].Quotes = 64.04
	}
	n.Retrieval[0].Precision = map[string]float64{"1": 40, "2": 30, "4": 20, "8": 10, "16": 5, "32": 3, "64": 2}
	n.Retrieval[1].Precision = map[string]float64{"1": 20, "2": 30, "4": 20, "8": 10, "16": 5, "32": 3, "64": 2}
	tab, err := Table2(n)
	if err != nil {
		t.Fatal(err)
	}
	// The "all" row is the mean of the four subsets: P@1 (40+20+44.02+44.02)/4.
	for _, want := range []string{"| **all** | **pakton** | **37.01** |", "| | PAKTON paper | 19.94 |", "— | — |", "| 563 | 1,059 |", "commit abc123"} {
		if !strings.Contains(tab, want) {
			t.Errorf("Table 2 lacks %q:\n%s", want, tab)
		}
	}
	sets, err := Sets(n)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sets, "| 563 / 3,958 / 26,416 | 64.0% |") {
		t.Errorf("sets table lacks the CUAD row's characters and quotes:\n%s", sets)
	}
	n.Retrieval = n.Retrieval[1:]
	if _, err := Table2(n); err == nil {
		t.Error("Table 2 without CUAD: no error")
	}
}

// tree writes files under a temporary root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const evalPage = `# Evaluation

## What was chosen on which set

| what | chosen on | how | in the code |
|---|---|---|---|
| BM25 | dev | swept | ` + "`internal/search.k1`, `internal/search.b`" + ` |
| units | dev | swept | ` + "`internal/chunk.Options.withDefaults`" + ` |
| readers | dev | written | rules, not constants |

## Another section

| x | ` + "`internal/search.notChosen`" + ` |
`

const searchGo = `package search

// k1 is BM25's saturation.
const (
	k1 = 1.2 // a comment
	b  = 0.75
)

var notChosen = 3
`

const chunkGo = `package chunk

type Options struct{ Max int }

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Max == 0 {
		o.Max = 900
	}
	return o
}
`

func TestFingerprint(t *testing.T) {
	root := tree(t, map[string]string{
		"docs/EVALUATION.md":        evalPage,
		"internal/search/search.go": searchGo,
		"internal/search/x_test.go": "package search\n\nconst k1 = 9\n",
		"internal/chunk/options.go": chunkGo,
	})
	names, err := Named(filepath.Join(root, "docs/EVALUATION.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(names, " "), "internal/chunk.Options.withDefaults internal/search.b internal/search.k1"; got != want {
		t.Fatalf("Named = %s, want %s (only the chosen table's code column)", got, want)
	}
	decls, err := Declarations(root, names)
	if err != nil {
		t.Fatal(err)
	}
	if d := decls["internal/search.k1"]; d != "const k1 = 1.2" {
		t.Errorf("k1's declaration %q: want the non-test file's, without its comment", d)
	}
	fp := Fingerprint(decls)

	// A comment changes nothing; a value, a default in a method, or a
	// removed constant does.
	changes := []struct {
		name, file, text string
		same             bool
	}{
		{"comment reworded", "internal/search/search.go", strings.Replace(searchGo, "a comment", "another comment", 1), true},
		{"formatting", "internal/search/search.go", strings.Replace(searchGo, "b  = 0.75", "b = 0.75", 1), true},
		{"value", "internal/search/search.go", strings.Replace(searchGo, "1.2", "1.3", 1), false},
		{"method body", "internal/chunk/options.go", strings.Replace(chunkGo, "900", "800", 1), false},
	}
	for _, c := range changes {
		root2 := tree(t, map[string]string{"docs/EVALUATION.md": evalPage, "internal/search/search.go": searchGo, "internal/chunk/options.go": chunkGo, c.file: c.text})
		d2, err := Declarations(root2, names)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if same := Fingerprint(d2) == fp; same != c.same {
			t.Errorf("%s: fingerprint unchanged %v, want %v (changed: %v)", c.name, same, c.same, Changed(decls, d2))
		}
	}
	// A constant moved to another package, named there on the page: the same
	// fingerprint.
	moved := tree(t, map[string]string{"internal/search/search.go": strings.Replace(searchGo, "b  = 0.75", "", 1), "internal/search/score/score.go": "package score\n\nconst b = 0.75\n", "internal/chunk/options.go": chunkGo})
	dm, err := Declarations(moved, []string{"internal/chunk.Options.withDefaults", "internal/search/score.b", "internal/search.k1"})
	if err != nil {
		t.Fatal(err)
	}
	if Fingerprint(dm) != fp {
		t.Errorf("a constant moved to another package changed the fingerprint")
	}
	// A constant renamed or removed while the page still names it.
	if _, err := Declarations(root, []string{"internal/search.missing"}); err == nil {
		t.Error("a name the package does not declare: no error")
	}
	if got := Changed(map[string]string{"a.x": "const x = 1", "a.y": "const y = 2"}, map[string]string{"a.x": "const x = 3", "a.z": "const z = 4"}); len(got) != 3 {
		t.Errorf("Changed = %q, want x changed, y gone, z new", got)
	}
}

func sample() *Numbers {
	sub := func(key string, docs int) Subset {
		return Subset{Key: key, Queries: 1775, Scope: "corpus", Documents: docs, Provisions: "cv (the default)",
			Recall: map[string]float64{"1": 54.914, "8": 83.8, "64": 96.59}, Precision: map[string]float64{"1": 44.02, "8": 11.4}}
	}
	n := &Numbers{Commit: "abc123", Measured: "2026-12-06", Fingerprint: "0123456789abcdef", Commands: []string{"pakton eval legalbench …"},
		Retrieval: []Subset{sub("cuad", 468), sub("contractnli", 150), sub("maud", 150), sub("privacyqa", 7)},
		Review:    Review{Contracts: 226, Cells: 7461, Folds: 4, MicroF1: 0.809}}
	n.Retrieval[1].Scope = "document"
	return n
}

func TestRender(t *testing.T) {
	n := sample()
	readme, err := README(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"commit abc123 (2026-12-06)", "| CUAD (1,775) | the whole 468-contract corpus | 54.91 |", "| ContractNLI (1,775) | each query's own document |",
		"the whole 7-policy corpus", "16.52 / 46.67 / 11.02", "0.809"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README block lacks %q:\n%s", want, readme)
		}
	}
	ev, err := Evaluation(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`0123456789ab`", "pakton eval legalbench …", "| cv (the default) | 54.91 | 83.80 | 96.59 | 44.02 | 11.40 |"} {
		if !strings.Contains(ev, want) {
			t.Errorf("EVALUATION block lacks %q:\n%s", want, ev)
		}
	}
	n.Retrieval = n.Retrieval[:3]
	if _, err := README(n); err == nil {
		t.Error("README without PrivacyQA: no error")
	}
}

func TestThousandsAndWrap(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1775: "1,775", 46800: "46,800", 1234567: "1,234,567", -1775: "-1,775"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %s, want %s", n, got, want)
		}
	}
	if got := wrap("aa bb cc dd", 5); got != "aa bb\ncc dd\n" {
		t.Errorf("wrap = %q", got)
	}
}
