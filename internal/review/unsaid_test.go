package review

import (
	"testing"

	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// TestUnsaidReadsTheDefiningWords checks which zero-shot Yes cells the
// built-in playbook's defining words keep: a clause that says the provision
// in other words than its name keeps its Yes; one that only shares the
// topic's words does not.
func TestUnsaidReadsTheDefiningWords(t *testing.T) {
	pb, _ := Builtin()
	tests := []struct {
		provision, text string
		unsaid          bool
	}{
		// termination on a breach left uncured, without "material breach"
		// or "fails to cure"
		{"Termination for Cause", "ii. Upon the occurrence of a breach by the other party, which breach has not been cured within (30) days after the date of written notice to the breaching party by the non-breaching party; or", false},
		{"Termination for Cause", "Either party may terminate this Agreement upon ninety (90) days' written notice to the other party.", true},
		// a right of first offer worded as an offer a party must make first
		{"Rofr/Rofo/Rofn", "After the expiry of the five (5) year period, if a Party intends to sell any or all of its shares of the JVC, it shall first make an offer by a written notice to the other Parties to purchase such shares and the other Parties shall have the right to purchase the offered shares in proportion of their existing shareholding.", false},
		{"Rofr/Rofo/Rofn", "The Shares are to be initially offered in the Offering at the Purchase Price set forth on the cover page of the Prospectus.", true},
	}
	for _, tc := range tests {
		p := pb.Provision(tc.provision)
		if p == nil {
			t.Fatalf("no provision %q in the built-in playbook", tc.provision)
		}
		cell := Cell{Found: true, Method: "zero-shot", Answer: &answer.Answer{Kind: answer.KindYes, Text: "Yes"},
			Extracts: []detect.Extract{{Text: tc.text, Score: 0.9}}}
		if got := unsaid(p, cell); got != tc.unsaid {
			t.Errorf("%s: unsaid(%q) = %v, want %v", tc.provision, tc.text, got, tc.unsaid)
		}
	}
}
