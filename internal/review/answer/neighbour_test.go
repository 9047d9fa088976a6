package answer

import (
	"os"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

// builtinPlaybook parses the built-in playbook.
func builtinPlaybook(t *testing.T) *playbook.Playbook {
	t.Helper()
	data, err := os.ReadFile("../builtin/playbook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbook.ParsePlaybook("builtin", data)
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// TestNeighbourClauseIsNotTheProvision reads clauses for a provision beside
// the neighbours its playbook entry excludes. A clause that holds only a
// neighbour's right — an exclusion of consequential damages for Cap on
// Liability, a plain anti-assignment clause for Change of Control — is Not
// found and names the neighbour; a clause that also holds the provision
// (a cap beside the exclusion, a merger deemed an assignment) still
// answers Yes or Conditional, from the provision's own words. The clauses
// are a development set written for this test in ordinary drafting, not
// taken from any labelled contract.
func TestNeighbourClauseIsNotTheProvision(t *testing.T) {
	pb := builtinPlaybook(t)
	for _, tc := range []struct {
		provision, text string
		grants          bool   // Yes or Conditional; else Not found
		neighbour       string // the neighbour a Not found names
		span            string // a word the answer's first span holds
	}{
		// Cap on Liability beside Exclusion of Consequential Damages
		{"Cap on Liability", "Limitation of Liability. In no event shall either party be liable for any indirect, incidental, special, consequential or punitive damages, or for any loss of profits, revenue or data, even if advised of the possibility of such damages.", false, "Exclusion of Consequential Damages", "consequential"},
		{"Cap on Liability", "The Supplier will not be liable to the Customer for any consequential or indirect loss arising under this Agreement.", false, "Exclusion of Consequential Damages", "consequential"},
		{"Cap on Liability", "Limitation of Liability. In no event shall either party be liable for any indirect or consequential damages. Each party's total liability arising out of or in connection with this Agreement shall not exceed the fees paid in the twelve (12) months before the claim.", true, "", "total"},
		{"Cap on Liability", "Neither party shall be liable for any consequential damages, and in no event shall either party be liable for any amount exceeding the fees paid under this Agreement.", true, "", "fees"},
		{"Cap on Liability", "In no event shall the Licensor be liable to the Licensee for more than one hundred thousand dollars ($100,000).", true, "", "Licensor"},
		{"Cap on Liability", "Each party's aggregate liability under this Agreement is limited to the amounts paid by the Customer, except for liability for death or personal injury.", true, "", "aggregate"},
		// Change of Control beside Anti-Assignment
		{"Change of Control", "Assignment. Neither party may assign this Agreement without the prior written consent of the other party.", false, "Anti-Assignment", "assign"},
		{"Change of Control", "Neither party may assign or transfer this Agreement, or delegate any of its obligations under it, without the prior written consent of the other party. Any attempted assignment in breach of this Section is null and void. This Agreement binds the parties' successors and permitted assigns.", false, "Anti-Assignment", "assign"},
		{"Change of Control", "Assignment. Neither party may assign this Agreement without the prior written consent of the other party. A merger or consolidation of a party, or a sale of all or substantially all of its assets, is an assignment for the purposes of this Section.", true, "", "substantially"},
		{"Change of Control", "Neither party may assign this Agreement, whether voluntarily or by operation of law, without the prior written consent of the other party.", true, "", "operation"},
		{"Change of Control", "Assignment. Neither party may assign this Agreement without the other party's consent, but the Supplier may terminate this Agreement on notice if the Customer undergoes a change of control.", true, "", "change"},
	} {
		p := pb.Provision(tc.provision)
		nb := pb.Excluded(p)
		ex := extractsOf(tc.text)
		a := polarityAnswer(p, nb, ex, nil)
		if grants := a.Kind == KindYes || a.Kind == KindConditional; grants != tc.grants || !grants && a.Kind != KindNotFound {
			t.Errorf("%s: %q: %s (%s), want granted %v", tc.provision, tc.text, a.Kind, a.Reason, tc.grants)
			continue
		}
		if !tc.grants {
			if want := neighbourReason(p, pb.Provision(tc.neighbour)); a.Reason != want {
				t.Errorf("%s: %q: reason %q, want %q", tc.provision, tc.text, a.Reason, want)
			}
		}
		if len(a.Spans) == 0 {
			t.Errorf("%s: %q: no span", tc.provision, tc.text)
			continue
		}
		if got := spanText(t, ex, a.Spans[0]); !containsWord(got, tc.span) {
			t.Errorf("%s: %q: span %q does not hold %q", tc.provision, tc.text, got, tc.span)
		}
		// read alone, without its neighbours, the provision reads as
		// before
		if alone := polarityAnswer(p, nil, ex, nil); alone.Kind == KindNotFound {
			t.Errorf("%s: %q: Not found without neighbours", tc.provision, tc.text)
		}
	}
}

// TestExcludedNeighbours: the neighbours are the provisions an entry's
// excludes names, found in the playbook a selection was made from.
func TestExcludedNeighbours(t *testing.T) {
	pb := builtinPlaybook(t)
	names := func(ps []*playbook.Provision) map[string]bool {
		m := map[string]bool{}
		for _, p := range ps {
			m[p.Name] = true
		}
		return m
	}
	cap := names(pb.Excluded(pb.Provision("Cap on Liability")))
	if !cap["Exclusion of Consequential Damages"] || !cap["Uncapped Liability"] || cap["Cap on Liability"] {
		t.Errorf("Cap on Liability's neighbours: %v", cap)
	}
	one, err := pb.Select([]string{"Change of Control"})
	if err != nil {
		t.Fatal(err)
	}
	if coc := names(one.Excluded(&one.Provisions[0])); !coc["Anti-Assignment"] {
		t.Errorf("Change of Control selected alone: neighbours %v", coc)
	}
}
