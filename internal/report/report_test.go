package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// docs is an in-memory Documents for tests.
type docs map[string]*document.Document

func (d docs) Document(_ context.Context, id string) (*document.Document, error) {
	if doc, ok := d[id]; ok {
		return doc, nil
	}
	return nil, errors.New("no such document")
}

func (d docs) ClausePath(_ context.Context, id string, sp document.Span) string { return "moved" }

const contract = "1. Term\n\n1.1 This Agreement starts on the Effective Date and continues for three (3) years.\n\n" +
	"2. Liability\n\n2.1 Neither party’s total liability shall exceed the fees paid in the\n   twelve months before the claim.\n\n" +
	"2.2 The cap in 2.1 does not apply to breach of confidentiality — or to fraud.\n"

func testDocs() docs {
	return docs{"msa": {ID: "msa", Name: "msa.txt", Text: contract}}
}

// spanOf returns the span of the first occurrence of sub in contract.
func spanOf(t *testing.T, sub string) document.Span {
	t.Helper()
	i := strings.Index(contract, sub)
	if i < 0 {
		t.Fatalf("%q not in contract", sub)
	}
	s := len([]rune(contract[:i]))
	return document.Span{Start: s, End: s + len([]rune(sub))}
}

func TestVerify(t *testing.T) {
	sec21 := spanOf(t, "2.1 Neither party’s total liability shall exceed the fees paid in the\n   twelve months before the claim.")
	sec11 := spanOf(t, "1.1 This Agreement starts on the Effective Date and continues for three (3) years.")
	tests := []struct {
		name     string
		src      Source
		status   Status
		wantText string // the document text the final span must cover
	}{
		{"exact", Source{DocID: "msa", Span: sec11, Quote: "continues for three (3) years"}, StatusVerified, "continues for three (3) years"},
		{"whitespace and curly quote folded", Source{DocID: "msa", Span: sec21, Quote: "Neither party's total liability shall exceed the fees paid in the twelve months"}, StatusVerified,
			"Neither party’s total liability shall exceed the fees paid in the\n   twelve months"},
		{"dash folded", Source{DocID: "msa", Span: spanOf(t, "2.2 The cap"), Quote: "breach of confidentiality - or to fraud"}, StatusRecited, "breach of confidentiality — or to fraud"},
		{"ellipsis", Source{DocID: "msa", Span: sec21, Quote: "“Neither party’s total liability … before the claim.”"}, StatusVerified,
			"Neither party’s total liability shall exceed the fees paid in the\n   twelve months before the claim."},
		{"elsewhere in the document", Source{DocID: "msa", Span: sec11, Quote: "does not apply to breach of confidentiality"}, StatusRecited, "does not apply to breach of confidentiality"},
		{"nowhere", Source{DocID: "msa", Span: sec21, Quote: "liability is unlimited for data breaches"}, StatusRemoved, ""},
		{"unknown document", Source{DocID: "nda", Span: sec21, Quote: "three (3) years"}, StatusRemoved, ""},
		{"no quote", Source{DocID: "msa", Span: sec21, Quote: "  "}, StatusRemoved, ""},
		{"external", Source{Tool: "wikipedia", URL: "https://en.wikipedia.org/wiki/Force_majeure", Quote: "Force majeure is…"}, StatusExternal, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.src.N = 1
			r := &Report{Reasoning: "The cap applies [1]."}
			r.Sources = []Source{tc.src}
			v := Verify(t.Context(), r, testDocs())
			var got Source
			if tc.status == StatusRemoved {
				if len(r.Removed) != 1 || len(r.Sources) != 0 {
					t.Fatalf("removed quote still a source: %+v", r)
				}
				got = r.Removed[0]
				if r.Reasoning != "The cap applies [1 — unverified]." {
					t.Errorf("claim not flagged: %q", r.Reasoning)
				}
				if v.Rate != 0 || v.Removed != 1 {
					t.Errorf("verification %+v", v)
				}
			} else {
				got = r.Sources[0]
				if r.Reasoning != "The cap applies [1]." {
					t.Errorf("claim changed: %q", r.Reasoning)
				}
			}
			if got.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", got.Status, got.Note, tc.status)
			}
			if tc.wantText != "" {
				if s := testDocs()["msa"].Slice(got.Span); s != tc.wantText {
					t.Errorf("span %v covers %q, want %q", got.Span, s, tc.wantText)
				}
			}
			if tc.status == StatusRecited && got.Path != "moved" {
				t.Errorf("re-cited source keeps path %q", got.Path)
			}
			// Idempotent: a second run changes nothing.
			before, _ := json.Marshal(r)
			Verify(t.Context(), r, testDocs())
			after, _ := json.Marshal(r)
			if tc.status != StatusRecited && !bytes.Equal(before, after) {
				t.Errorf("second Verify changed the report:\n%s\n%s", before, after)
			}
		})
	}
}

func TestVerifyCitations(t *testing.T) {
	r := &Report{
		Answer:  "Liability is capped [1, 2] but not for fraud [3]; see also [7].",
		Sources: []Source{{N: 1, DocID: "msa", Span: spanOf(t, "2.1 Neither party’s total liability shall exceed the fees paid"), Quote: "shall exceed the fees paid"}, {N: 2, DocID: "msa", Quote: "invented text"}, {N: 3, DocID: "msa", Span: spanOf(t, "2.2 The cap in 2.1 does not apply to breach of confidentiality — or to fraud."), Quote: "or to fraud"}},
	}
	v := Verify(t.Context(), r, testDocs())
	if want := "Liability is capped [1][2 — unverified] but not for fraud [3]; see also [7 — no such source]."; r.Answer != want {
		t.Errorf("answer\n got %q\nwant %q", r.Answer, want)
	}
	if v.Quotes != 3 || v.Verified != 2 || v.Removed != 1 || v.Dangling != 1 {
		t.Errorf("verification %+v", v)
	}
	if got := Citations("a [1] b [2; 3] c [1]"); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("Citations = %v", got)
	}
	v2 := Verify(t.Context(), r, testDocs())
	if v2 != v {
		t.Errorf("second run %+v, first %+v", v2, v)
	}
}

func sampleAgentsReport(t *testing.T) *Report {
	r := &Report{
		Mode: ModeAgents, Question: "Is liability capped, and does the cap cover fraud?",
		Context: "We are the customer.", Instructions: "Answer for a non-lawyer.",
		Title:     "Cap on liability under the MSA",
		Summary:   "The agreement caps each party's liability at twelve months of fees [1].",
		Reasoning: "Clause 2.1 sets the cap [1]. Clause 2.2 carves out confidentiality and fraud [2]. A later clause is said to make the cap mutual [3].",
		Answer:    "Yes, liability is capped, except for fraud and breach of confidentiality [2].",
		Gaps:      "- Does \"fees paid\" include expenses?",
		Documents: []DocRef{{ID: "msa", Name: "msa.txt"}},
		Sources: []Source{
			{N: 1, DocID: "msa", Span: spanOf(t, "2.1 Neither party’s total liability shall exceed the fees paid"), Path: "2 > 2.1", Quote: "Neither party's total liability shall exceed the fees paid"},
			{N: 2, DocID: "msa", Span: spanOf(t, "1.1"), Path: "1 > 1.1", Quote: "does not apply to breach of confidentiality — or to fraud"},
			{N: 3, DocID: "msa", Span: spanOf(t, "2.2 The cap in 2.1 does not apply"), Path: "2 > 2.2", Quote: "the cap is mutual"},
		},
		Turns: []Turn{
			{N: 1, Question: "What does clause 2 say about liability?", Tools: []string{"search_contract"}, Found: 3, Answer: "It caps liability."},
			{N: 2, Question: "Are there carve-outs?", Tools: []string{"search_contract", "web_search"}, Found: 1, Answer: "Fraud.", Errors: []string{"web_search: provider returned 503"}},
		},
		Accounting: &Accounting{Models: []string{"scripted"}, Calls: 9, PromptTokens: 5200, CompletionTokens: 900, WallMS: 1200,
			Steps: []StepCost{{Step: "archivist", Calls: 1, PromptTokens: 300, CompletionTokens: 60}}, PaperCalls: 10},
		Complete: true, StopReason: "confident",
	}
	Verify(t.Context(), r, testDocs())
	return r
}

func sampleEvidenceReport(t *testing.T) *Report {
	sp := spanOf(t, "2.1 Neither party’s total liability shall exceed the fees paid in the\n   twelve months before the claim.")
	r := &Report{
		Mode: ModeEvidence, Question: "what is the liability cap",
		Title:     "Evidence for: what is the liability cap",
		Notice:    "No language model interpreted these provisions.",
		Summary:   "The question was answered from msa.txt.",
		Documents: []DocRef{{ID: "msa", Name: "msa.txt"}},
		Sources: []Source{{N: 1, DocID: "msa", DocName: "msa.txt", Path: "2 > 2.1", Span: sp, Quote: testDocs()["msa"].Slice(sp),
			Highlights: []Highlight{{Span: sp, Text: testDocs()["msa"].Slice(sp), Score: 2}}}},
		Complete: true, StopReason: "evidence",
	}
	Verify(t.Context(), r, testDocs())
	return r
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Report
	}{{"agents", sampleAgentsReport(t)}, {"evidence", sampleEvidenceReport(t)}} {
		var md, js bytes.Buffer
		if err := WriteMarkdown(&md, tc.r); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, tc.r); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name+".md.golden", md.Bytes())
		golden(t, tc.name+".json.golden", js.Bytes())
		var back Report
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatalf("%s: JSON does not read back: %v", tc.name, err)
		}
	}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, got)
	}
}

func TestLocate(t *testing.T) {
	text := "The Supplier shall  deliver\nthe Goods “on time” — always."
	sp, ok := Locate(text, `deliver the Goods "on time" - always`)
	if !ok || string([]rune(text)[sp.Start:sp.End]) != "deliver\nthe Goods “on time” — always" {
		t.Errorf("Locate = %v %v", sp, ok)
	}
	if _, ok := Locate(text, "deliver the Services"); ok {
		t.Error("Locate found text that is not there")
	}
}

// TestLocateWholeWords: a quotation is an excerpt of whole words. A
// fragment that cuts a word — a number inside a longer number, letters
// inside a word — is not found, however often the characters occur; the
// next occurrence that does stand on word boundaries is.
func TestLocateWholeWords(t *testing.T) {
	text := "Notice of 130 days is due under Section 50; the other 30 days apply to Section 5 (Fees). 数据保护条款适用。"
	for _, tc := range []struct {
		quote string
		want  string // "" = not found
	}{
		{"30 days", "30 days"},     // the second occurrence, not the one inside "130 days"
		{"Section 5", "Section 5"}, // not inside "Section 50"
		{"th", ""},                 // letters inside "the", "other"
		{"e o", ""},                // across a space, but cutting both words
		{"otice of", ""},           // starts inside "Notice"
		{"Section 5 (Fees)", "Section 5 (Fees)"},
		{"(Fees).", "(Fees)."}, // punctuation at the edges needs no boundary
		{"; the other", "; the other"},
		{"... , ;", ""},  // no word at all
		{"保护条款", "保护条款"}, // scripts without spaces: anywhere
		{"due under ... Section 50", "due under Section 50"},
	} {
		sp, ok := Locate(text, tc.quote)
		got := ""
		if ok {
			got = string([]rune(text)[sp.Start:sp.End])
		}
		if got != tc.want {
			t.Errorf("Locate(%q) = %q, want %q", tc.quote, got, tc.want)
		}
	}
	if sp, _ := Locate(text, "30 days"); sp.Start != len([]rune("Notice of 130 days is due under Section 50; the other ")) {
		t.Errorf("30 days located at %d, inside 130 days", sp.Start)
	}
}

// TestVerifyUnsupported: a model-written report with no quotation that
// verifies — none given, or every one removed — says so as a flag and in
// its Verification section, so its prose never passes for a finding.
func TestVerifyUnsupported(t *testing.T) {
	for name, sources := range map[string][]Source{
		"no sources":    nil,
		"all removed":   {{N: 1, DocID: "msa", Quote: "invented text"}},
		"no doc":        {{N: 1, Quote: "shall exceed the fees paid"}},
		"no word in it": {{N: 1, DocID: "msa", Span: spanOf(t, "2.1 Neither party’s total liability shall exceed the fees paid"), Quote: "’s"}},
	} {
		r := &Report{Mode: ModeAgents, Title: "t", Answer: "Yes [1].", Sources: sources}
		Verify(t.Context(), r, testDocs())
		if !slices.Contains(r.Flags, FlagUnsupported) {
			t.Errorf("%s: flags %q", name, r.Flags)
		}
		var md bytes.Buffer
		if err := WriteMarkdown(&md, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), "none of its statements is verified") {
			t.Errorf("%s: markdown lacks the notice:\n%s", name, md.String())
		}
	}
	r := sampleAgentsReport(t)
	if slices.Contains(r.Flags, FlagUnsupported) {
		t.Errorf("a report with verified quotations is flagged unsupported")
	}
	ev := &Report{Mode: ModeEvidence, Title: "t"}
	Verify(t.Context(), ev, testDocs())
	if slices.Contains(ev.Flags, FlagUnsupported) {
		t.Error("an evidence report (no model prose) is flagged")
	}
}

// TestVerifyShortQuoteNotRecited: a quotation not in the span it cites is
// re-cited elsewhere only with at least MinRecitedWords words; a word or
// two that occurs somewhere proves nothing, and is removed.
func TestVerifyShortQuoteNotRecited(t *testing.T) {
	for _, tc := range []struct {
		quote string
		want  Status
	}{
		{"total liability", StatusRemoved},
		{"fees", StatusRemoved},
		{"total liability shall", StatusRecited},
		{"twelve months before the claim", StatusRecited},
	} {
		r := &Report{Mode: ModeAgents, Sources: []Source{{N: 1, DocID: "msa", Span: spanOf(t, "1.1"), Quote: tc.quote}}}
		Verify(t.Context(), r, testDocs())
		var got *Source
		if len(r.Sources) == 1 {
			got = &r.Sources[0]
		} else if len(r.Removed) == 1 {
			got = &r.Removed[0]
		}
		if got == nil || got.Status != tc.want {
			t.Errorf("%q: %+v, want %s", tc.quote, got, tc.want)
			continue
		}
		if tc.want == StatusRemoved && !strings.HasPrefix(got.Note, NoteTooShort) {
			t.Errorf("%q: note %q", tc.quote, got.Note)
		}
	}
}
