package answer

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// TestRead checks the entry point's decisions: what a cell not found shows,
// which answers are read from the chosen extracts and which from elsewhere
// in the contract, and what happens without a contract.
func TestRead(t *testing.T) {
	text := "SUPPLY AGREEMENT\n\nThis Supply Agreement is made by and between Contoso Ltd. (\"Supplier\") and Fabrikam, Inc. (\"Buyer\").\n\n" +
		"1. Term. This Agreement shall continue for a period of three (3) years.\n\n" +
		"2. Termination. Neither party may terminate this Agreement for convenience.\n\n" +
		"3. Governing Law. This Agreement is governed by the laws of the State of New York."
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	scores := make([]float64, len(c.Passages()))
	// passage returns the extract of the passage holding s.
	passage := func(s string) []detect.Extract {
		for i, ps := range c.Passages() {
			if strings.Contains(c.Index().Slice(ps.Span), s) {
				return []detect.Extract{c.Extract(i, 0.9)}
			}
		}
		t.Fatalf("no passage holds %q", s)
		return nil
	}
	convenience := &playbook.Provision{Name: "Termination For Convenience", Answer: playbook.AnswerYesNo,
		Keywords: []playbook.Keyword{{Text: "terminate for convenience", Boost: 2}}}
	law := &playbook.Provision{Name: "Governing Law", Answer: playbook.AnswerJurisdiction}
	parties := &playbook.Provision{Name: "Parties", Answer: playbook.AnswerParty}
	term := &playbook.Provision{Name: "Renewal Term", Answer: playbook.AnswerDuration}
	tests := []struct {
		name     string
		c        *detect.Prepared
		p        *playbook.Provision
		ex       []detect.Extract
		found    bool
		kind     Kind
		text     string
		excludes bool
		moved    bool // the answer was read from other extracts than the chosen ones
	}{
		{"not found", c, law, passage("Governing Law"), false, KindNotFound, "Not found", false, false},
		{"not found, but the best extract excludes the provision", c, convenience, passage("Neither party"), false, KindNo, "No", true, false},
		{"found, excluded by its evidence", c, convenience, passage("Neither party"), true, KindNo, "No", true, false},
		{"a value from the chosen extract", c, law, passage("Governing Law"), true, KindValue, "New York", false, false},
		{"the parties from the preamble, not the chosen extract", c, parties, passage("Governing Law"), true, KindValue, "Contoso Ltd. (Supplier); Fabrikam, Inc. (Buyer)", false, true},
		{"no contract: the extracts alone", nil, term, passage("three (3) years"), true, KindValue, "3 years", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, ex := Read(tc.c, tc.p, tc.ex, scores, tc.found)
			if a.Kind != tc.kind || a.Text != tc.text || a.Excludes != tc.excludes {
				t.Fatalf("answer %+v, want kind %s, text %q, excludes %v", a, tc.kind, tc.text, tc.excludes)
			}
			if moved := len(ex) != len(tc.ex) || ex[0].Span != tc.ex[0].Span; moved != tc.moved {
				t.Errorf("extracts %+v, chosen %+v: moved %v, want %v", ex, tc.ex, moved, tc.moved)
			}
			for _, sp := range a.Spans {
				spanText(t, ex, sp) // every span lies inside an extract returned
			}
		})
	}
}
