package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/atomicfile"
	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/llm/llmtest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// reviewDeal ingests the example contracts into collection "deal" of a
// temporary store (no model server) and writes the small test playbook; it
// returns the directory and the playbook's path.
func reviewDeal(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "deal")
	t.Setenv("PAKTON_LLM_URL", "")
	t.Setenv("PAKTON_LLM_MODEL", "")
	pb := filepath.Join(dir, "small.yaml")
	os.WriteFile(pb, reviewtest.PlaybookYAML, 0o644)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	return dir, pb
}

func TestReviewCommand(t *testing.T) {
	dir, pb := reviewDeal(t)
	out := filepath.Join(dir, "out")

	stdout, stderr, err := capture(t, runReview, "--playbook", pb, "--out", out)
	if err != nil {
		t.Fatalf("review: %v\n%s\n%s", err, stdout, stderr)
	}
	for _, want := range []string{"Reviewed 5 contracts × 4 provisions", "Source Code Escrow", "review.csv", "review.xlsx", "review.json", "review.html"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("review output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "review [5/5]") {
		t.Errorf("no progress lines:\n%s", stderr)
	}
	for _, f := range []string{"review.csv", "review.xlsx", "review.json", "review.html"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	// The same command again resumes: nothing is reviewed again.
	stdout, stderr, err = capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "0 reviewed now, 5 kept from an earlier run") || !strings.Contains(stderr, "resuming") {
		t.Errorf("second run did not resume:\n%s\n%s", stdout, stderr)
	}
	// --resume=false starts afresh; --provisions narrows the playbook.
	stdout, _, err = capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json", "--resume=false", "--provisions", "governing law")
	if err != nil || !strings.Contains(stdout, "5 reviewed now, 0 kept") || !strings.Contains(stdout, "× 1 provisions") {
		t.Errorf("fresh run: %v\n%s", err, stdout)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "review.json"))
	var got struct {
		Table struct {
			Provisions []string `json:"provisions"`
		} `json:"table"`
	}
	if json.Unmarshal(raw, &got) != nil || len(got.Table.Provisions) != 1 {
		t.Errorf("review.json provisions: %v", got.Table.Provisions)
	}

	// --doc narrows to some contracts, by name or id.
	stdout, _, err = capture(t, runReview, "--playbook", pb, "--out", filepath.Join(dir, "o3"), "--format", "csv", "--doc", "mutual-nda.md", "--doc", "supply-agreement.docx")
	if err != nil || !strings.Contains(stdout, "Reviewed 2 contracts") {
		t.Errorf("--doc: %v\n%s", err, stdout)
	}
	// The CSV names each contract as people do (its title), then its file.
	f, err := os.Open(filepath.Join(dir, "o3", "review.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 3 || recs[0][0] != "Contract" || recs[0][1] != "File" {
		t.Fatalf("review.csv: %v %v", err, recs)
	}
	for _, r := range recs[1:] {
		if r[0] == "" || r[0] == r[1] {
			t.Errorf("contract %q shown by its file name %q", r[0], r[1])
		}
	}

	// --dry-run says what the review would do.
	stdout, _, err = capture(t, runReview, "--playbook", pb, "--out", filepath.Join(dir, "o5"), "--dry-run")
	if err != nil || !strings.Contains(stdout, "5 contracts × 4 provisions = 20 cells") || !strings.Contains(stdout, "no model calls") {
		t.Errorf("--dry-run: %v\n%s", err, stdout)
	}

	// --list, errors naming the input.
	stdout, _, err = capture(t, runReview, "--playbook", pb, "--list")
	if err != nil || !strings.Contains(stdout, "4 provisions") || !strings.Contains(stdout, "Termination For Convenience") {
		t.Errorf("--list: %v\n%s", err, stdout)
	}
	// A built-in playbook by name: the merger-agreement deal points.
	stdout, _, err = capture(t, runReview, "--playbook", "merger", "--list")
	if err != nil || !strings.Contains(stdout, "Playbook pakton merger agreement") || !strings.Contains(stdout, "Type of Consideration") || strings.Contains(stdout, "Governing Law") {
		t.Errorf("--playbook merger --list: %v\n%s", err, stdout)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("provisions:\n  - name: A\n    definiton: x\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--playbook", bad}, "bad.yaml: line 3"},
		{[]string{"--playbook", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"--playbook", pb, "--provisions", "Nope"}, `no provision "Nope"`},
		{[]string{"--playbook", pb, "--format", "pdf"}, `unknown export format "pdf"`},
		{[]string{"--playbook", pb, "--collection", "empty", "--out", filepath.Join(dir, "o2")}, `no collection "empty" in store`},
		{[]string{"bogus"}, `unexpected argument "bogus"`},
		{[]string{"--playbook", pb, "--doc", "nope.pdf", "--out", filepath.Join(dir, "o4")}, "nope.pdf"},
	}
	for _, c := range cases {
		_, _, err := capture(t, runReview, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("review %v: error %v, want %q", c.args, err, c.want)
		}
	}
}

func TestReviewSubcommandDispatch(t *testing.T) {
	var got []string
	reviewSubcommands["test-sub"] = func(args []string) error { got = args; return nil }
	defer delete(reviewSubcommands, "test-sub")
	if _, _, err := capture(t, runReview, "test-sub", "a", "b"); err != nil || strings.Join(got, " ") != "a b" {
		t.Errorf("dispatch: %v %v", got, err)
	}
}

// TestReviewCommandModelPass runs pakton review with a model server (the
// scripted one): the dry run counts calls without making any, the review's
// cells come from the model, and re-running asks the model nothing.
func TestReviewCommandModelPass(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "deal")
	pb := filepath.Join(dir, "small.yaml")
	os.WriteFile(pb, reviewtest.PlaybookYAML, 0o644)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Turn{Name: "not found", Times: -1,
		JSON: map[string]any{"found": false, "quotes": []any{}, "value": "Not found", "confidence": 0.1}})
	out := filepath.Join(dir, "out")
	args := []string{"--playbook", pb, "--out", out, "--provisions", "Governing Law", "--format", "json",
		"--llm-url", srv.BaseURL(), "--llm-model", "scripted"}

	stdout, _, err := capture(t, runReview, append(args, "--dry-run")...)
	if err != nil || !strings.Contains(stdout, "Model pass: ") || len(srv.Requests()) != 0 {
		t.Fatalf("dry run: %v, %d requests\n%s", err, len(srv.Requests()), stdout)
	}
	stdout, stderr, err := capture(t, runReview, args...)
	if err != nil || !strings.Contains(stdout, "Model pass (model=scripted") {
		t.Fatalf("review: %v\n%s\n%s", err, stdout, stderr)
	}
	calls := len(srv.Requests())
	if calls == 0 {
		t.Fatal("the model pass asked the model nothing")
	}
	raw, _ := os.ReadFile(filepath.Join(out, "review.json"))
	var got struct {
		Table review.Table `json:"table"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for _, row := range got.Table.Rows {
		if len(row.Cells) != 1 || row.Cells[0].Method != review.MethodModel || row.Cells[0].Found {
			t.Errorf("%s: %+v, want the model's Not found", row.DocName, row.Cells)
		}
	}
	// A re-run reuses the rows; --offline skips the model.
	if _, _, err := capture(t, runReview, args...); err != nil || len(srv.Requests()) != calls {
		t.Errorf("re-run: %v, %d more requests", err, len(srv.Requests())-calls)
	}
	if _, _, err := capture(t, runReview, append(args, "--offline", "--out", filepath.Join(dir, "off"))...); err != nil || len(srv.Requests()) != calls {
		t.Errorf("--offline: %v, %d more requests", err, len(srv.Requests())-calls)
	}
}

// TestReviewCleansTempFiles: the temporary files a killed "pakton review"
// left — a row, a model answer, an export cut short — are removed by the
// next run.
func TestReviewCleansTempFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "deal")
	t.Setenv("PAKTON_LLM_URL", "")
	t.Setenv("PAKTON_LLM_MODEL", "")
	pb := filepath.Join(dir, "small.yaml")
	os.WriteFile(pb, reviewtest.PlaybookYAML, 0o644)
	src := filepath.Join(dir, "src")
	if err := writeExamples(src); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, runIngest, src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	state := filepath.Join(out, runDir)
	left := []string{filepath.Join(state, "rows", atomicfile.TempName()), filepath.Join(state, "model-cache", atomicfile.TempName()),
		filepath.Join(out, atomicfile.TempName())}
	old := time.Now().Add(-time.Hour)
	for _, p := range left {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("half a write"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	if stdout, stderr, err := capture(t, runReview, "--playbook", pb, "--out", out, "--resume"); err != nil {
		t.Fatalf("review: %v\n%s\n%s", err, stdout, stderr)
	}
	for _, p := range left {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the next run", p)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "review.csv")); err != nil {
		t.Error(err)
	}
}
