package contractnli

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/llm"
	"github.com/pakton/pakton/internal/llm/llmtest"
)

const (
	E = Entailment
	C = Contradiction
	N = NotMentioned
)

func TestScoreNLIByHand(t *testing.T) {
	cases := []struct {
		name       string
		gold, pred []Label
		acc, wf1   float64
		f1         map[string]float64
		confusion  map[string]map[string]int
	}{
		{
			// E: tp 2, predicted 3, gold 3 → 2/3. C: 1/1 → 1. N: tp 1, predicted 2, gold 2 → 1/2.
			// Weighted: (3·2/3 + 1·1 + 2·1/2) / 6 = 4/6.
			name: "all classes",
			gold: []Label{E, E, E, C, N, N}, pred: []Label{E, E, N, C, N, E},
			acc: 100 * 4.0 / 6, wf1: 100 * 4.0 / 6,
			f1: map[string]float64{"entailment": 100 * 2.0 / 3, "contradiction": 100, "neutral": 50},
			confusion: map[string]map[string]int{
				"entailment":    {"entailment": 2, "contradiction": 0, "neutral": 1},
				"contradiction": {"entailment": 0, "contradiction": 1, "neutral": 0},
				"neutral":       {"entailment": 1, "contradiction": 0, "neutral": 1},
			},
		},
		{
			// Contradiction is absent from the gold labels but predicted once:
			// its F1 is 0 and it has no weight. E: P 1/2, R 1/2 → 1/2.
			// N: P 1/1, R 1/2 → 2/3. Weighted: (2·1/2 + 2·2/3) / 4 = 7/12.
			name: "class absent from gold",
			gold: []Label{E, E, N, N}, pred: []Label{E, C, N, E},
			acc: 50, wf1: 100 * 7.0 / 12,
			f1: map[string]float64{"entailment": 50, "contradiction": 0, "neutral": 100 * 2.0 / 3},
		},
		{
			// Contradiction neither in gold nor predicted: F1 0 (undefined,
			// scikit-learn's zero_division=0), weight 0.
			name: "class absent everywhere",
			gold: []Label{E, N, N}, pred: []Label{E, N, N},
			acc: 100, wf1: 100,
			f1: map[string]float64{"entailment": 100, "contradiction": 0, "neutral": 100},
		},
		{
			// E: P 1/1, R 1/3 → 1/2. C: tp 0 → 0. N: P 1/3, R 1/1 → 1/2.
			// Weighted: (3·1/2 + 1·0 + 1·1/2) / 5 = 2/5.
			name: "skewed",
			gold: []Label{E, E, E, C, N}, pred: []Label{E, N, C, N, N},
			acc: 40, wf1: 40,
			f1: map[string]float64{"entailment": 50, "contradiction": 0, "neutral": 50},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Score(c.gold, c.pred)
			if err != nil {
				t.Fatal(err)
			}
			if s.N != len(c.gold) || !near(s.Accuracy, c.acc) || !near(s.WeightedF1, c.wf1) {
				t.Errorf("n %d accuracy %v weighted F1 %v, want %d %v %v", s.N, s.Accuracy, s.WeightedF1, len(c.gold), c.acc, c.wf1)
			}
			for k, want := range c.f1 {
				if !near(s.F1[k], want) {
					t.Errorf("F1[%s] = %v, want %v", k, s.F1[k], want)
				}
			}
			for g, row := range c.confusion {
				for p, want := range row {
					if s.Confusion[g][p] != want {
						t.Errorf("confusion[%s][%s] = %d, want %d", g, p, s.Confusion[g][p], want)
					}
				}
			}
			total := 0
			for _, n := range s.Gold {
				total += n
			}
			if total != len(c.gold) {
				t.Errorf("gold counts %v", s.Gold)
			}
		})
	}
	if _, err := Score([]Label{E}, nil); err == nil {
		t.Error("different lengths: no error")
	}
	if _, err := Score([]Label{E}, []Label{"Maybe"}); err == nil {
		t.Error("unknown label: no error")
	}
	s, err := Score(nil, nil)
	if err != nil || s.Accuracy != 0 || s.WeightedF1 != 0 || len(s.F1) != 3 {
		t.Errorf("no pairs: %+v %v", s, err)
	}
}

// Two NDAs × three hypotheses in ContractNLI's own format, written here.
const (
	ndaAlpha = "MUTUAL NON-DISCLOSURE AGREEMENT\n" +
		"This Agreement is made between Alpha Robotics Ltd and Beta Foods plc.\n" +
		"1. Definitions. \"Confidential Information\" means all information disclosed by either party, whether technical, commercial or financial.\n" +
		"2. Restrictions. The Recipient shall not reverse engineer, decompile or disassemble any prototype or sample supplied by the Discloser.\n" +
		"3. Return of Information. Upon termination of this Agreement, the Recipient shall promptly return or destroy all Confidential Information.\n" +
		"4. Governing Law. This Agreement is governed by the laws of England.\n"
	ndaBeta = "CONFIDENTIALITY AGREEMENT\n" +
		"Between Gamma Software Inc. and Delta Logistics LLC.\n" +
		"1. Confidential Information shall include only technical information, such as source code, designs and specifications.\n" +
		"2. Retention. The Recipient may retain all Confidential Information after termination of this Agreement for its records.\n" +
		"3. Term. This Agreement remains in force for three years.\n"
)

const (
	hypReverse   = "Receiving Party shall not reverse engineer any objects which embody Disclosing Party's Confidential Information."
	hypTechnical = "Confidential Information shall only include technical information."
	hypReturn    = "Receiving Party shall destroy or return some Confidential Information upon the termination of Agreement."
)

// lineSpans splits text into one span per line (code points), as the
// dataset's spans are sentence-level.
func lineSpans(text string) [][2]int {
	var out [][2]int
	start := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		n := utf8.RuneCountInString(line)
		if n == 0 {
			continue
		}
		out = append(out, [2]int{start, start + n - 1})
		start += n
	}
	return out
}

func nliFixture() map[string]any {
	ann := func(choice string, spans ...int) map[string]any {
		if spans == nil {
			spans = []int{}
		}
		return map[string]any{"choice": choice, "spans": spans}
	}
	doc := func(id int, name, text string, anns map[string]any) map[string]any {
		return map[string]any{"id": id, "file_name": name, "text": text, "spans": lineSpans(text),
			"annotation_sets": []any{map[string]any{"annotations": anns}}, "document_type": "search-pdf", "url": "https://example.com/" + name}
	}
	return map[string]any{
		"documents": []any{
			doc(7, "alpha-beta-nda.pdf", ndaAlpha, map[string]any{
				"nda-10": ann("Entailment", 4), "nda-2": ann("Contradiction", 2), "nda-1": ann("Entailment", 3)}),
			doc(9, "gamma-delta-cda.pdf", ndaBeta, map[string]any{
				"nda-1": ann("NotMentioned"), "nda-2": ann("Entailment", 2), "nda-10": ann("Contradiction", 3)}),
		},
		"labels": map[string]any{
			"nda-10": map[string]any{"hypothesis": hypReturn, "short_description": "Return of confidential information"},
			"nda-1":  map[string]any{"hypothesis": hypReverse, "short_description": "No reverse engineering"},
			"nda-2":  map[string]any{"hypothesis": hypTechnical, "short_description": "Only technical information"},
		},
	}
}

func writeFixture(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "nli.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadNLI(t *testing.T) {
	ds, err := Load(writeFixture(t, nliFixture()))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, h := range ds.Hypotheses {
		keys = append(keys, h.Key)
	}
	if strings.Join(keys, ",") != "nda-1,nda-2,nda-10" {
		t.Errorf("hypotheses in order %v, want numeric order", keys)
	}
	pairs := ds.Pairs()
	if len(pairs) != 6 {
		t.Fatalf("%d pairs, want 6", len(pairs))
	}
	var got []string
	for _, p := range pairs {
		got = append(got, ds.Documents[p.Doc].FileName+"/"+p.Hypothesis.Key+"="+string(p.Gold))
	}
	want := "alpha-beta-nda.pdf/nda-1=Entailment alpha-beta-nda.pdf/nda-2=Contradiction alpha-beta-nda.pdf/nda-10=Entailment " +
		"gamma-delta-cda.pdf/nda-1=NotMentioned gamma-delta-cda.pdf/nda-2=Entailment gamma-delta-cda.pdf/nda-10=Contradiction"
	if strings.Join(got, " ") != want {
		t.Errorf("pairs\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// Evidence spans resolve to the cited lines, in code points.
	p := pairs[1]
	doc := ds.Documents[p.Doc]
	if len(p.Evidence) != 1 || !strings.HasPrefix(string([]rune(doc.Text)[p.Evidence[0].Start:p.Evidence[0].End]), "1. Definitions.") {
		t.Errorf("evidence of %s: %v", p.Hypothesis.Key, p.Evidence)
	}
	if len(pairs[3].Evidence) != 0 || doc.ID != 7 || ds.Hypotheses[0].Short != "No reverse engineering" {
		t.Errorf("pairs[3] evidence %v, doc id %d, short %q", pairs[3].Evidence, doc.ID, ds.Hypotheses[0].Short)
	}
}

func TestLoadNLIMalformed(t *testing.T) {
	docs := func(f map[string]any) []any { return f["documents"].([]any) }
	first := func(f map[string]any) map[string]any { return docs(f)[0].(map[string]any) }
	anns := func(f map[string]any) map[string]any {
		return first(f)["annotation_sets"].([]any)[0].(map[string]any)["annotations"].(map[string]any)
	}
	cases := []struct {
		name   string
		raw    string // used when set
		modify func(map[string]any)
		want   string
	}{
		{name: "not JSON", raw: "{\"documents\": [", want: "not a ContractNLI file"},
		{name: "LegalBench-RAG file", raw: `{"tests": [{"query": "q", "snippets": []}]}`, want: `"labels" object is missing`},
		{name: "no documents", modify: func(f map[string]any) { f["documents"] = []any{} }, want: "no documents"},
		{name: "empty hypothesis", modify: func(f map[string]any) { f["labels"].(map[string]any)["nda-1"] = map[string]any{"hypothesis": " "} }, want: "hypothesis nda-1"},
		{name: "no text", modify: func(f map[string]any) { delete(first(f), "text") }, want: `alpha-beta-nda.pdf): no "text"`},
		{name: "no id", modify: func(f map[string]any) { delete(first(f), "id") }, want: `no "id"`},
		{name: "duplicate id", modify: func(f map[string]any) { docs(f)[1].(map[string]any)["id"] = 7 }, want: "id 7 used twice"},
		{name: "span beyond text", modify: func(f map[string]any) { first(f)["spans"] = [][]int{{0, 5}, {10, 100000}} }, want: "span 1 is [10 100000]"},
		{name: "span not a pair", modify: func(f map[string]any) { first(f)["spans"] = [][]int{{3}} }, want: "span 0 is [3]"},
		{name: "no annotation sets", modify: func(f map[string]any) { first(f)["annotation_sets"] = []any{} }, want: `no "annotation_sets"`},
		{name: "unknown hypothesis", modify: func(f map[string]any) { anns(f)["nda-99"] = map[string]any{"choice": "Entailment", "spans": []int{}} }, want: `"nda-99" names no hypothesis`},
		{name: "unknown choice", modify: func(f map[string]any) { anns(f)["nda-1"] = map[string]any{"choice": "Neutral", "spans": []int{}} }, want: `choice "Neutral"`},
		{name: "span index out of range", modify: func(f map[string]any) { anns(f)["nda-1"] = map[string]any{"choice": "Entailment", "spans": []int{42}} }, want: "cites span 42"},
		{name: "wrong type", modify: func(f map[string]any) { first(f)["spans"] = "[[0, 5]]" }, want: "not a ContractNLI file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var path string
			if c.raw != "" {
				path = filepath.Join(t.TempDir(), "bad.json")
				if err := os.WriteFile(path, []byte(c.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				f := nliFixture()
				c.modify(f)
				path = writeFixture(t, f)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want one naming the file and containing %q", err, c.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestLoadNLIDev reads the real dev split when the shared data is present.
func TestLoadNLIDev(t *testing.T) {
	path := "../../../../shared/data/contractnli/dev.json"
	if _, err := os.Stat(path); err != nil {
		t.Skip("ContractNLI dev split not present:", err)
	}
	ds, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pairs := ds.Pairs()
	counts := map[Label]int{}
	for _, p := range pairs {
		counts[p.Gold]++
	}
	if len(ds.Documents) != 61 || len(ds.Hypotheses) != 17 || len(pairs) != 1037 ||
		counts[Entailment] != 519 || counts[Contradiction] != 95 || counts[NotMentioned] != 423 {
		t.Errorf("%d documents, %d hypotheses, %d pairs, labels %v", len(ds.Documents), len(ds.Hypotheses), len(pairs), counts)
	}
}

// hypothesisIs matches classification requests about a hypothesis
// containing s (the hypothesis block only: passages may mention anything).
func hypothesisIs(s string) func(*llmtest.Request) bool {
	return func(r *llmtest.Request) bool {
		if !strings.Contains(r.System(), "You classify a hypothesis") {
			return false
		}
		u := r.Messages[1].Content // the first user message holds the hypothesis
		i, j := strings.Index(u, "<hypothesis>"), strings.Index(u, "</hypothesis>")
		return i >= 0 && j > i && strings.Contains(u[i:j], s)
	}
}

// researcherTurns play a Researcher that searches once and relies on the
// first passage, for any number of pairs.
func researcherTurns() []llmtest.Turn {
	sys := llmtest.SystemContains("You are the Researcher")
	return []llmtest.Turn{
		{Name: "researcher search", Times: -1, Match: llmtest.All(sys, func(r *llmtest.Request) bool { return !llmtest.LastIsTool()(r) }),
			// An explicit id: llmtest fills in missing ids by writing to the
			// turn's shared slice, a data race when a Times: -1 turn answers
			// concurrent requests.
			ToolCalls: []llmtest.ToolCall{{ID: "call_search", Name: "search_contract", Arguments: `{"query":"confidential information recipient"}`}}},
		{Name: "researcher answer", Times: -1, Match: llmtest.All(sys, llmtest.LastIsTool()),
			JSON: map[string]any{"answer": "The closest provision is [E1].", "evidence": []any{map[string]any{"id": "E1", "quote": ""}}}},
	}
}

func label(l Label, evidence ...string) map[string]any {
	if evidence == nil {
		evidence = []string{}
	}
	return map[string]any{"label": string(l), "evidence": evidence, "rationale": "scripted"}
}

func testModels(t *testing.T, srv *llmtest.Server) agent.Models {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", MaxRetries: 1, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return agent.Models{Archivist: c, Researcher: c, Interrogator: c, Writer: c}
}

// TestRunNLI drives the whole run through the scripted server: the
// classifier's label depends only on the hypothesis, so the metrics are
// known in advance.
//
//	pair            gold  predicted
//	alpha nda-1     E     E
//	alpha nda-2     C     C
//	alpha nda-10    E     N
//	gamma nda-1     N     E
//	gamma nda-2     E     C
//	gamma nda-10    C     N
//
// Accuracy 2/6. E: P 1/2, R 1/3 → F1 0.4; C: P 1/2, R 1/2 → 0.5; N: 0.
// Weighted F1 (3·0.4 + 2·0.5 + 1·0) / 6 = 2.2/6.
func TestRunNLI(t *testing.T) {
	turns := append(researcherTurns(),
		llmtest.Turn{Name: "reverse engineering", Times: -1, Match: hypothesisIs("reverse engineer"), JSON: label(E, "P1")},
		llmtest.Turn{Name: "technical only", Times: -1, Match: hypothesisIs("only include technical"), JSON: label(C, "P1", "P2")},
		llmtest.Turn{Name: "return", Times: -1, Match: hypothesisIs("destroy or return"), JSON: label(N)},
	)
	srv := llmtest.NewServer(t, turns...)
	var progress []string
	rep, err := Run(context.Background(), Options{Data: writeFixture(t, nliFixture()), Models: testModels(t, srv),
		Progress: func(done, total int, r Result) { progress = append(progress, r.Hypothesis) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pairs != 6 || rep.Completed != 6 || rep.Errors != 0 || len(rep.Failures) != 0 || rep.Mode != ModeResearcher {
		t.Errorf("pairs %d completed %d errors %d mode %s", rep.Pairs, rep.Completed, rep.Errors, rep.Mode)
	}
	if !near(rep.Accuracy, 100*2.0/6) || !near(rep.WeightedF1, 100*2.2/6) ||
		!near(rep.F1["entailment"], 40) || !near(rep.F1["contradiction"], 50) || !near(rep.F1["neutral"], 0) {
		t.Errorf("accuracy %v weighted F1 %v F1 %v", rep.Accuracy, rep.WeightedF1, rep.F1)
	}
	if rep.Confusion["entailment"]["neutral"] != 1 || rep.Confusion["neutral"]["entailment"] != 1 || rep.Gold["entailment"] != 3 || rep.Predicted["neutral"] != 2 {
		t.Errorf("confusion %v gold %v predicted %v", rep.Confusion, rep.Gold, rep.Predicted)
	}
	calls := map[string]int{}
	for _, s := range rep.ModelCalls.Steps {
		calls[s.Step] = s.Calls
	}
	if rep.ModelCalls.Total.Calls != 18 || calls["researcher"] != 12 || calls["classify"] != 6 || rep.ModelCalls.Total.Errors != 0 {
		t.Errorf("model calls %+v", rep.ModelCalls)
	}
	if len(progress) != 6 || rep.Seconds <= 0 {
		t.Errorf("progress %v, seconds %v", progress, rep.Seconds)
	}
	// Every search stayed in its document, and the classifier saw passages
	// of that document only.
	for _, r := range srv.Requests() {
		if !strings.Contains(r.System(), "You classify") {
			continue
		}
		u := r.Messages[1].Content
		if strings.Contains(u, "alpha-beta-nda.pdf") == strings.Contains(u, "gamma-delta-cda.pdf") {
			t.Errorf("classification request shows passages of both or neither document:\n%s", u)
		}
		if !strings.Contains(u, `<contract_passage id="P1"`) || !strings.Contains(r.LastUser(), "The closest provision is [E1].") {
			t.Errorf("classification request lacks the passages or the Researcher's answer:\n%s", u)
		}
		if !strings.Contains(string(r.ResponseFormat), `"enum":["Entailment","Contradiction","NotMentioned"]`) {
			t.Errorf("response format %s", r.ResponseFormat)
		}
	}
	for _, r := range rep.Results {
		if r.Predicted == E && (len(r.Cited) != 1 || r.Cited[0].ID != "P1" || r.Cited[0].Span.End <= r.Cited[0].Span.Start) {
			t.Errorf("%s %s cites %+v", r.Document, r.Hypothesis, r.Cited)
		}
	}
	if rep.CitedGoldEvidence < 0 || rep.CitedGoldEvidence > 100 {
		t.Errorf("cited gold evidence %v", rep.CitedGoldEvidence)
	}

	// --limit takes the first pairs in document order.
	rep, err = Run(context.Background(), Options{Data: writeFixture(t, nliFixture()), Models: testModels(t, srv), Limit: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pairs != 2 || rep.Results[0].Hypothesis != "nda-1" || rep.Results[1].Hypothesis != "nda-2" || rep.Accuracy != 100 {
		t.Errorf("limit 2: %d pairs, accuracy %v, results %+v", rep.Pairs, rep.Accuracy, rep.Results)
	}
}

// TestRunNLIFailures: a classification call that fails with 500 until the
// client's retries are exhausted is an error for its pair, reported and not
// scored; an Entailment that cites nothing gets one more request.
func TestRunNLIFailures(t *testing.T) {
	inGamma := func(r *llmtest.Request) bool { return strings.Contains(r.Messages[1].Content, "gamma-delta-cda.pdf") }
	turns := append(researcherTurns(),
		llmtest.Turn{Name: "500", Times: -1, Match: llmtest.All(hypothesisIs("destroy or return"), inGamma), Status: 500, ErrorMessage: "model crashed"},
		llmtest.Turn{Name: "uncited", Match: llmtest.All(hypothesisIs("reverse engineer"), func(r *llmtest.Request) bool { return !inGamma(r) }), JSON: label(E)},
		llmtest.Turn{Name: "cited on request", Match: llmtest.All(hypothesisIs("reverse engineer"), func(r *llmtest.Request) bool { return strings.Contains(r.LastUser(), "must cite") }), JSON: label(E, "P2")},
		llmtest.Turn{Name: "reverse engineering", Times: -1, Match: hypothesisIs("reverse engineer"), JSON: label(N)},
		llmtest.Turn{Name: "technical only", Times: -1, Match: hypothesisIs("only include technical"), JSON: label(C, "P1")},
		llmtest.Turn{Name: "return", Times: -1, Match: hypothesisIs("destroy or return"), JSON: label(E, "P1")},
	)
	srv := llmtest.NewServer(t, turns...)
	rep, err := Run(context.Background(), Options{Data: writeFixture(t, nliFixture()), Models: testModels(t, srv), Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pairs != 6 || rep.Completed != 5 || rep.Errors != 1 || len(rep.Failures) != 1 {
		t.Fatalf("pairs %d completed %d errors %d failures %+v", rep.Pairs, rep.Completed, rep.Errors, rep.Failures)
	}
	f := rep.Failures[0]
	if f.Document != "gamma-delta-cda.pdf" || f.Hypothesis != "nda-10" || !strings.Contains(f.Error, "500") || !strings.Contains(f.Error, "2 attempts") {
		t.Errorf("failure %+v", f)
	}
	// Scored over the 5 completed pairs: gold E C E N E, predicted E C E N C.
	if !near(rep.Accuracy, 80) || rep.Gold["contradiction"] != 1 || rep.Predicted["contradiction"] != 2 {
		t.Errorf("accuracy %v gold %v predicted %v", rep.Accuracy, rep.Gold, rep.Predicted)
	}
	calls := map[string]int{}
	errs := 0
	for _, s := range rep.ModelCalls.Steps {
		calls[s.Step] = s.Calls
		errs += s.Errors
	}
	if calls["classify.cite"] != 1 || errs != 1 {
		t.Errorf("model calls %+v", rep.ModelCalls)
	}
	for _, r := range rep.Results {
		if r.Document == "alpha-beta-nda.pdf" && r.Hypothesis == "nda-1" && (r.Predicted != E || len(r.Cited) != 1 || r.Cited[0].ID != "P2") {
			t.Errorf("uncited then cited: %+v", r)
		}
	}
}

// TestRunNLIFull runs one pair through the whole Interrogator loop, then
// classifies from the verified report.
func TestRunNLIFull(t *testing.T) {
	turns := append(researcherTurns(),
		llmtest.Turn{Name: "archivist", Match: llmtest.SystemContains("You are the Archivist"),
			JSON: map[string]any{"query": "Does the NDA forbid reverse engineering?", "context": "", "instructions": "", "documents": []string{}, "clarifying_question": ""}},
		llmtest.Turn{Name: "writer", Match: llmtest.SystemContains("You are the legal writer"), JSON: map[string]any{
			"title": "Reverse engineering", "summary": "s", "reasoning": "Clause 2 forbids it [1].", "answer": "ENTAILMENT [1].", "gaps": "-",
			"sources": []any{map[string]any{"n": 1, "evidence_id": "E1", "quote": "shall not reverse engineer"}}}},
		llmtest.Turn{Name: "classify", Match: llmtest.All(hypothesisIs("reverse engineer"), llmtest.Contains("ENTAILMENT [1].")), JSON: label(E, "P1")},
	)
	srv := llmtest.NewServer(t, turns...)
	rep, err := Run(context.Background(), Options{Data: writeFixture(t, nliFixture()), Models: testModels(t, srv), Full: true, MaxTurns: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != ModeFull || rep.Completed != 1 || rep.Accuracy != 100 {
		t.Fatalf("%+v", rep)
	}
	r := rep.Results[0]
	// P1 is the report's verified quotation, inside clause 2 — the gold
	// evidence line.
	if len(r.Cited) != 1 || !r.CitesGold || rep.CitedGoldEvidence != 100 {
		t.Errorf("cited %+v, cites gold %v", r.Cited, r.CitesGold)
	}
	if got := []rune(ndaAlpha)[r.Cited[0].Span.Start:r.Cited[0].Span.End]; string(got) != "shall not reverse engineer" {
		t.Errorf("P1 is %q", string(got))
	}
}

func TestRunNLINoModel(t *testing.T) {
	_, err := Run(context.Background(), Options{Data: writeFixture(t, nliFixture())})
	if !errors.Is(err, ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
}

// TestRunNLIAbort: when the first pairs all fail, the run stops instead of
// spending every pair's retries on a server that cannot answer.
func TestRunNLIAbort(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Name: "bad request", Times: -1, Status: 400, ErrorMessage: "no such model"})
	_, err := Run(context.Background(), Options{Data: writeFixture(t, nliFixture()), Models: testModels(t, srv), Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "the first 5 pairs all failed") || !strings.Contains(err.Error(), "no such model") {
		t.Errorf("err %v", err)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d requests after the run gave up, want 5", n)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
