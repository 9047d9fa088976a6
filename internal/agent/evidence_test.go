package agent

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/report"
)

func TestEvidenceReport(t *testing.T) {
	lib := sharedLib(t)
	r, err := Evidence(context.Background(), lib, Request{Question: "Does a labour strike at the supplier's own plant count as force majeure under the supply agreement?"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != report.ModeEvidence || r.Notice != NoModelNotice || !r.Complete {
		t.Errorf("mode %s, notice %q, complete %v", r.Mode, r.Notice, r.Complete)
	}
	if len(r.Documents) != 1 || r.Documents[0].Name != "supply-agreement.docx" {
		t.Fatalf("documents %+v, want the supply agreement (routed)", r.Documents)
	}
	// Force majeure runs through all of clause 15, so the review detectors
	// single out no passage: the words' best match (15.2, the carve-out that
	// answers the question) stays first, and the check says where the
	// provision is.
	if len(r.Sources) != 3 || r.Sources[0].Path != "15 > 15.2" {
		t.Fatalf("sources %+v", r.Sources)
	}
	if len(r.Checks) != 1 || !r.Checks[0].Found || r.Checks[0].Provision != "Force Majeure" {
		t.Errorf("checks %+v", r.Checks)
	}
	if r.Verification.Rate != 1 || r.Verification.Quotes != 3 {
		t.Errorf("verification %+v", r.Verification)
	}
	top := r.Sources[0].Highlights
	if len(top) == 0 || !strings.Contains(top[0].Text, "a strike, lockout or other labour dispute") {
		t.Errorf("best sentence of 15.2: %+v", top)
	}
	doc, _ := lib.Document(t.Context(), r.Sources[0].DocID)
	for _, s := range r.Sources {
		for _, h := range s.Highlights {
			if !s.Span.Contains(h.Span) {
				t.Errorf("highlight %v outside its provision %v", h.Span, s.Span)
			}
			if got := doc.Slice(h.Span); got != h.Text {
				t.Errorf("highlight text %q is not the document's %q", h.Text, got)
			}
		}
	}
	// No interpretation is pretended: no reasoning or answer sections.
	if r.Reasoning != "" || r.Answer != "" {
		t.Errorf("evidence report pretends to reason: %q %q", r.Reasoning, r.Answer)
	}
	var md, js bytes.Buffer
	if err := report.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "evidence_supply.md.golden", md.Bytes())
	golden(t, "evidence_supply.json.golden", js.Bytes())
}

func TestEvidenceNoDocumentNamed(t *testing.T) {
	lib := sharedLib(t)
	r, err := Evidence(context.Background(), lib, Request{Question: "how much notice is needed to terminate for convenience", Context: "we are the customer"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sources) != EvidenceK {
		t.Errorf("%d sources, want %d", len(r.Sources), EvidenceK)
	}
	joined := strings.Join(r.Flags, "\n")
	for _, want := range []string{"names no document", "not applied"} {
		if !strings.Contains(joined, want) {
			t.Errorf("flags lack %q: %v", want, r.Flags)
		}
	}
}

func TestEvidenceSelectedDocument(t *testing.T) {
	lib := sharedLib(t)
	d, err := lib.Find(t.Context(), "mutual-nda.md")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Evidence(context.Background(), lib, Request{Question: "how long does confidentiality last", Docs: []string{d.ID}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Sources {
		if s.DocID != d.ID {
			t.Errorf("source from %s, want only %s", s.DocName, d.Name)
		}
	}
	if !strings.Contains(r.Summary, "selected") {
		t.Errorf("summary %q", r.Summary)
	}
}

func TestSentences(t *testing.T) {
	text := "1.1 Acme Inc. shall pay. The fee is due; late fees apply.\n(a) first item\n\nNew para e.g. this one."
	var got []string
	for _, s := range Sentences(text) {
		got = append(got, s.text)
		if string([]rune(text)[s.start:s.end]) != s.text {
			t.Errorf("offsets of %q wrong", s.text)
		}
	}
	want := []string{"1.1 Acme Inc. shall pay.", "The fee is due;", "late fees apply.", "(a) first item", "New para e.g. this one."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Sentences:\n got %q\nwant %q", got, want)
	}
}

func TestEvidenceProvisionCheck(t *testing.T) {
	lib := sharedLib(t)
	infos, err := lib.Corpus.Store.List(t.Context(), lib.Corpus.Collection)
	if err != nil {
		t.Fatal(err)
	}
	var msa string
	for _, d := range infos {
		if strings.HasPrefix(d.Name, "master-services") {
			msa = d.ID
		}
	}
	if msa == "" {
		t.Fatal("no master services agreement among the examples")
	}
	ask := func(q string) *report.Report {
		t.Helper()
		r, err := Evidence(context.Background(), lib, Request{Question: q, Docs: []string{msa}}, 3)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The MSA has no escrow clause: search still returns its closest
	// passages, and the check says the provision is not there.
	r := ask("Is the source code held in escrow for the customer?")
	if len(r.Checks) != 1 || r.Checks[0].Provision != "Source Code Escrow" || r.Checks[0].Found {
		t.Fatalf("checks %+v, want Source Code Escrow not found", r.Checks)
	}
	if len(r.Sources) == 0 {
		t.Error("the closest provisions are still quoted")
	}
	flagged := false
	for _, f := range r.Flags {
		flagged = flagged || strings.Contains(f, "no Source Code Escrow provision was found")
	}
	if !flagged {
		t.Errorf("flags %q do not say it was not found", r.Flags)
	}
	var md bytes.Buffer
	report.WriteMarkdown(&md, r)
	if !strings.Contains(md.String(), "**not found** in Master Services Agreement — Quillfeather Data Services / Halvorsen Marine Freight, 3 March 2025 (master-services-agreement.txt)") {
		t.Errorf("markdown does not show the check:\n%s", md.String())
	}
	// Its governing-law clause is found, with where.
	r = ask("Which law governs the agreement?")
	if len(r.Checks) != 1 || !r.Checks[0].Found || r.Checks[0].Path == "" || r.Checks[0].Span == nil {
		t.Fatalf("checks %+v, want Governing Law found with its place", r.Checks)
	}
	doc, _ := lib.Document(t.Context(), msa)
	if text := doc.Slice(*r.Checks[0].Span); !strings.Contains(strings.ToLower(text), "laws of") {
		t.Errorf("the found passage %q is not the governing-law clause", text)
	}
	// A question about no particular provision gets no check.
	if r := ask("What does the agreement say?"); len(r.Checks) != 0 {
		t.Errorf("checks %+v for a question about no provision", r.Checks)
	}
}

// TestEvidenceProvisionFirst: a question about a provision the review
// detectors single out gets their clause first, and the summary says why.
func TestEvidenceProvisionFirst(t *testing.T) {
	lib := sharedLib(t)
	r, err := Evidence(context.Background(), lib, Request{Question: "Can the customer terminate the master services agreement for convenience?"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sources) == 0 || r.Sources[0].Path != "ARTICLE XI > 11.2" || !strings.Contains(r.Sources[0].Quote, "sixty (60) days") {
		t.Fatalf("sources %+v", r.Sources)
	}
	if !strings.Contains(r.Summary, "(Termination for Convenience in master-services-agreement.txt)") {
		t.Errorf("summary %q", r.Summary)
	}
	if len(r.Checks) != 1 || !r.Checks[0].Found || r.Checks[0].Path != "ARTICLE XI > 11.2 > (c)" && r.Checks[0].Path != "ARTICLE XI > 11.2 > (a)" {
		t.Errorf("checks %+v", r.Checks)
	}
}
