package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
	"github.com/pakton/pakton/internal/llm/ollamatest"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// The commands against a real Ollama server (PAKTON_OLLAMA=1) running the
// tiny random-weight models of internal/llm/ollamatest. The models say
// nothing true, so these tests check the wire and the guarantees: every
// command completes or fails clearly, and nothing the model says is shown
// as verified unless its quotation really is in the contract.

const chatPath = "/v1/chat/completions"

// ollamaDocs are the example contracts the real-server tests ingest: two
// are enough for routing and review rows, and every call on a CPU counts.
var ollamaDocs = []string{"distribution-agreement.txt", "mutual-nda.md"}

// ollamaStore ingests ollamaDocs with the server's embedding model
// configured and points the model environment at its chat model.
func ollamaStore(t *testing.T, srv *ollamatest.Server, collection string) string {
	t.Helper()
	noModel(t)
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, collection)
	t.Setenv("PAKTON_EMBED_URL", srv.URL+"/v1")
	t.Setenv("PAKTON_EMBED_MODEL", srv.EmbedModel)
	all := filepath.Join(dir, "all")
	if err := writeExamples(all); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	for _, name := range ollamaDocs {
		if err := os.Rename(filepath.Join(all, name), filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, err := capture(t, runIngest, "-q", src); err != nil {
		t.Fatalf("ingest with the Ollama embedding model: %v\n%s", err, errOut)
	}
	if srv.Requests("/v1/embeddings") == 0 {
		t.Fatal("ingest did not call the embedding model")
	}
	t.Setenv(config.EnvLLMURL, srv.URL+"/v1")
	t.Setenv(config.EnvLLMModel, srv.ChatModel)
	return dir
}

// checkQuotes fails t when a source the report counts as verified or
// re-cited does not quote its document verbatim.
func checkQuotes(t *testing.T, r *report.Report, texts map[string]string) {
	t.Helper()
	space := regexp.MustCompile(`\s+`)
	norm := func(s string) string { return space.ReplaceAllString(strings.TrimSpace(s), " ") }
	for _, s := range r.Sources {
		switch s.Status {
		case report.StatusVerified, report.StatusRecited:
			text, ok := texts[s.DocName]
			if !ok {
				t.Errorf("source [%d] counted %s names an unknown document %q", s.N, s.Status, s.DocName)
				continue
			}
			if !strings.Contains(norm(text), norm(s.Quote)) {
				t.Errorf("source [%d] counted %s, but its quote %q is not in %s", s.N, s.Status, s.Quote, s.DocName)
			}
		}
	}
}

// exampleTexts reads the text form of the example contracts that are text.
func exampleTexts(t *testing.T, dir string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, name := range ollamaDocs {
		b, err := os.ReadFile(filepath.Join(dir, "src", name))
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(b)
	}
	return texts
}

// TestOllamaAsk runs "pakton ask" with the agents end to end: Archivist,
// Researcher with tools, Interrogator and writer, over ingested contracts
// with dense retrieval, then checks that the report's verification holds.
func TestOllamaAsk(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 32768})
	dir := ollamaStore(t, srv, "default")

	// An untrained model's reply can fail validation even after a repair:
	// the run then stops early with its best draft, verified all the same.
	out, errOut, err := capture(t, runAsk, "--json", "--max-turns", "2", "--no-clarify",
		"Can the distributor terminate the distribution agreement for convenience, and with how much notice?")
	if err != nil && !strings.Contains(err.Error(), "stopped early") {
		t.Fatalf("ask: %v\n%s", err, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	t.Logf("report: mode %s, %d sources kept, %d removed, verification %+v, flags %q", r.Mode, len(r.Sources), len(r.Removed), r.Verification, r.Flags)
	if r.Accounting == nil || r.Accounting.Calls < 4 || r.Accounting.PromptTokens == 0 || r.Accounting.CompletionTokens == 0 {
		t.Errorf("accounting %+v: want the calls of every agent with their tokens", r.Accounting)
	}
	for _, want := range []string{"ask: Archivist", "ask: question 1/2"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
	checkQuotes(t, &r, exampleTexts(t, dir))
	v := r.Verification
	if v.Quotes != v.Verified+v.Recited+v.Removed {
		t.Errorf("verification does not add up: %+v", v)
	}
	// Every removed quotation is flagged, and its citations in the prose
	// are marked unverified.
	for _, s := range r.Removed {
		if s.Status != report.StatusRemoved {
			t.Errorf("removed source [%d] has status %s", s.N, s.Status)
		}
	}
	prose := r.Title + r.Summary + r.Reasoning + r.Answer + r.Gaps
	for _, n := range report.Citations(prose) {
		if r.Source(n) == nil && !strings.Contains(prose, "— unverified]") && !strings.Contains(prose, "— no such source]") {
			t.Errorf("citation [%d] names no kept source and is not marked", n)
		}
	}

	// The Markdown report says how much was verified.
	md, _, err := capture(t, runAsk, "--max-turns", "1", "--no-clarify", "What law governs the distribution agreement?")
	if err != nil && !strings.Contains(err.Error(), "stopped early") {
		t.Fatal(err)
	}
	if !strings.Contains(md, "## Verification") {
		t.Errorf("the Markdown report does not state its verification:\n%s", md)
	}
}

// TestOllamaReview runs the review's model pass: the dry run makes no call,
// the review asks the model with follow-ups, a re-run answers from the
// cache, and with the server gone every cell keeps its offline answer.
func TestOllamaReview(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 32768})
	dir := ollamaStore(t, srv, "deal")
	pb := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(pb, reviewtest.PlaybookYAML, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")

	before := srv.Requests(chatPath)
	stdout, _, err := capture(t, runReview, "--playbook", pb, "--out", out, "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "Model pass: ") || srv.Requests(chatPath) != before {
		t.Fatalf("dry run (%d requests):\n%s", srv.Requests(chatPath)-before, stdout)
	}

	// A cell whose model calls fail (an untrained model's reply may not
	// pass validation even after a repair) keeps its offline answer, and
	// the command then exits non-zero saying so, with every output written.
	stdout, stderr, err := capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json")
	if err != nil && !strings.Contains(err.Error(), "could not be reviewed") {
		t.Fatalf("review: %v\n%s\n%s", err, stdout, stderr)
	}
	calls := srv.Requests(chatPath) - before
	cells := len(ollamaDocs) * 4
	if calls < 2*cells {
		t.Errorf("%d model requests, want at least %d (extraction and follow-up per cell)", calls, 2*cells)
	}
	if !strings.Contains(stdout, "Model pass (model="+srv.ChatModel) {
		t.Errorf("no model summary:\n%s", stdout)
	}
	checkReviewJSON(t, filepath.Join(out, "review.json"), exampleTexts(t, dir))

	// Afresh: the rows are redone from the cache, with no model call.
	before = srv.Requests(chatPath)
	stdout, _, err = capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json", "--resume=false")
	if err != nil && !strings.Contains(err.Error(), "could not be reviewed") {
		t.Fatal(err)
	}
	if n := srv.Requests(chatPath) - before; n > failedCells(t, filepath.Join(out, "review.json"))*3 {
		t.Errorf("the re-run made %d model requests, want 0 (cached)\n%s", n, stdout)
	}

	// The server dies; with the cache cleared every call fails at once
	// (no retries), and every cell keeps its offline answer with a note.
	srv.Kill()
	if err := os.RemoveAll(filepath.Join(out, runDir, "model-cache")); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "llm.json")
	os.WriteFile(cfg, []byte(`{"llm":{"default":{"max_retries":-1}}}`), 0o644)
	stdout, stderr, err = capture(t, runReview, "--playbook", pb, "--out", out, "--format", "json", "--resume=false", "--llm-config", cfg)
	if err == nil || !strings.Contains(err.Error(), "could not be reviewed") {
		t.Fatalf("review with the server gone: err %v, want the contracts reported\n%s\n%s", err, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "review.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "model pass failed, the offline answer is shown"); n != cells {
		t.Errorf("%d cells note the failed model pass, want %d\n%s", n, cells, stderr)
	}
}

// failedCells counts the cells of a review whose model pass failed: they
// were not cached, so a re-run asks again for them.
func failedCells(t *testing.T, path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(raw), "model pass failed, the offline answer is shown")
}

// checkReviewJSON checks the model cells of a review: a cell is found only
// with an extract whose text is in its contract.
func checkReviewJSON(t *testing.T, path string, texts map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rv struct {
		Table struct {
			Rows []struct {
				Cells []struct {
					DocName   string `json:"doc_name"`
					Provision string `json:"provision"`
					Method    string `json:"method"`
					Found     bool   `json:"found"`
					Extracts  []struct {
						Text string `json:"text"`
					} `json:"extracts"`
					Notes []string `json:"notes"`
				} `json:"cells"`
			} `json:"rows"`
		} `json:"table"`
	}
	if err := json.Unmarshal(raw, &rv); err != nil {
		t.Fatalf("review.json: %v", err)
	}
	if len(rv.Table.Rows) == 0 {
		t.Fatalf("review.json has no rows:\n%.2000s", raw)
	}
	model, found := 0, 0
	for _, row := range rv.Table.Rows {
		for _, c := range row.Cells {
			if c.Method != "model" {
				continue
			}
			model++
			if !c.Found {
				continue
			}
			found++
			t.Logf("%s / %s: found: %q; notes %q", c.DocName, c.Provision, c.Extracts, c.Notes)
			if len(c.Extracts) == 0 {
				t.Errorf("%s: a found model cell without an extract", c.DocName)
			}
			text, ok := texts[c.DocName]
			for _, e := range c.Extracts {
				if ok && !strings.Contains(text, e.Text) {
					t.Errorf("%s: found with an extract not in the contract: %q", c.DocName, e.Text)
				}
			}
		}
	}
	t.Logf("review.json: %d model cells, %d found", model, found)
	if model == 0 {
		t.Error("no cell was answered by the model")
	}
}

// TestOllamaEvalContractNLI runs "pakton eval contractnli" on a handful of
// ContractNLI NDAs (the first three documents of the dev set, two
// hypotheses each).
func TestOllamaEvalContractNLI(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "data", "contractnli", "dev.json")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("ContractNLI dev set not found: %v", err)
	}
	srv := ollamatest.Start(t, ollamatest.Options{NumCtx: 32768})
	noModel(t)
	data := nliSubset(t, raw, 3, 2)
	jsonOut := filepath.Join(t.TempDir(), "nli.json")
	out, errOut, err := capture(t, runEval, "contractnli", "--data", data, "--llm-url", srv.URL+"/v1", "--llm-model", srv.ChatModel,
		"--workers", "2", "--json", jsonOut)
	if err != nil && !strings.Contains(err.Error(), "no pair") {
		t.Fatalf("eval: %v\n%s\n%s", err, out, errOut)
	}
	var rep struct {
		Pairs, Completed, Errors int
		ModelCalls               struct{ Total struct{ Calls int } } `json:"model_calls"`
	}
	b, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out)
	if rep.Pairs != 6 || rep.Completed+rep.Errors != 6 || rep.ModelCalls.Total.Calls == 0 {
		t.Errorf("report %+v", rep)
	}
}

// nliSubset writes the first docs documents of a ContractNLI file with
// their first hyps hypotheses.
func nliSubset(t *testing.T, raw []byte, docs, hyps int) string {
	t.Helper()
	var f struct {
		Documents []map[string]json.RawMessage `json:"documents"`
		Labels    map[string]json.RawMessage   `json:"labels"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	keep := map[string]json.RawMessage{}
	for i := 1; i <= hyps; i++ {
		k := "nda-" + strconv.Itoa(i)
		keep[k] = f.Labels[k]
	}
	f.Documents = f.Documents[:docs]
	for _, d := range f.Documents {
		var sets []struct {
			Annotations map[string]json.RawMessage `json:"annotations"`
		}
		if err := json.Unmarshal(d["annotation_sets"], &sets); err != nil {
			t.Fatal(err)
		}
		for _, s := range sets {
			for k := range s.Annotations {
				if _, ok := keep[k]; !ok {
					delete(s.Annotations, k)
				}
			}
		}
		d["annotation_sets"], _ = json.Marshal(sets)
	}
	f.Labels = keep
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "nli-subset.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOllamaHybridSearch searches a collection whose vectors came from the
// Ollama embedding model, with the query embedded by the same model.
func TestOllamaHybridSearch(t *testing.T) {
	srv := ollamatest.Start(t, ollamatest.Options{})
	ollamaStore(t, srv, "default")
	before := srv.Requests("/v1/embeddings")
	out, errOut, err := capture(t, runSearch, "--json", "-k", "3", "governing law of the distribution agreement")
	if err != nil {
		t.Fatalf("search: %v\n%s", err, errOut)
	}
	var res struct {
		Hits []struct {
			DocName string `json:"doc_name"`
			Text    string `json:"text"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Hits) == 0 {
		t.Fatalf("no hits:\n%s", out)
	}
	if srv.Requests("/v1/embeddings") == before {
		t.Error("the query was not embedded")
	}
	if strings.Contains(errOut, "no embedding server") {
		t.Errorf("search ignored the embedding server:\n%s", errOut)
	}
}
