package review

import (
	"github.com/pakton/pakton/internal/review/playbook"
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

// TestUnsaidUserPlaybook checks the rule on a user's playbook, whose
// keywords are phrases a clause may say in another order or with words
// between them.
func TestUnsaidUserPlaybook(t *testing.T) {
	pb, err := playbook.LoadPlaybook("../../examples/playbooks/nda.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := pb.Provision("Independent Development")
	if p == nil {
		t.Fatal("no Independent Development in the NDA playbook")
	}
	tests := []struct {
		text   string
		unsaid bool
	}{
		{"(ii) which the Recipient can show has been known or has been developed by or for the Recipient at any time independently of the information disclosed to it by the Discloser;", false},
		{"e. Was developed by the receiving Party independently from and without the developing person(s) having access to any of the Confidential Information;", false},
		// the words in two sentences are not said together
		{"The Recipient developed the system. It was reviewed independently by the auditors.", true},
		{"Receiving Party shall require all employees, agents and independent contractors who have access to Confidential Information to execute a confidentiality agreement.", true},
	}
	for _, tc := range tests {
		cell := Cell{Found: true, Method: "zero-shot", Answer: &answer.Answer{Kind: answer.KindYes, Text: "Yes"},
			Extracts: []detect.Extract{{Text: tc.text, Score: 0.9}}}
		if got := unsaid(p, cell); got != tc.unsaid {
			t.Errorf("unsaid(%q) = %v, want %v", tc.text, got, tc.unsaid)
		}
	}
}
