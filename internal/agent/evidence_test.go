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
	if len(r.Sources) != 3 || r.Sources[0].Path != "15 > 15.2" {
		t.Fatalf("sources %+v", r.Sources)
	}
	if r.Verification.Rate != 1 || r.Verification.Quotes != 3 {
		t.Errorf("verification %+v", r.Verification)
	}
	top := r.Sources[0].Highlights
	if len(top) == 0 || !strings.Contains(top[0].Text, "a strike, lockout or other labour dispute") {
		t.Errorf("best sentence of 15.2: %+v", top)
	}
	doc, _ := lib.Document(r.Sources[0].DocID)
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
	d, err := lib.Find("mutual-nda.md")
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
