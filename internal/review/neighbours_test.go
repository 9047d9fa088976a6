package review

import (
	"context"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// neighbourContract is a short services agreement whose only clause of
// substance is clause.
func neighbourContract(heading, clause string) string {
	return strings.Join([]string{
		"SERVICES AGREEMENT",
		`This Services Agreement is made on 4 May 2022 between Halvard Foods Inc., a Delaware corporation ("Halvard"), and Brightwater Logistics Ltd, a company registered in England ("Brightwater").`,
		"1. Services. Brightwater shall provide to Halvard the warehousing services described in Schedule 1.",
		"2. Fees. Halvard shall pay each invoice within thirty (30) days of receipt.",
		"3. " + heading + ". " + clause,
		"4. Governing Law. This Agreement is governed by the laws of the State of New York.",
		"IN WITNESS WHEREOF the parties have signed this Agreement on the date written above.",
	}, "\n\n") + "\n"
}

// TestNeighbouringRightIsNotTheProvision: a short contract whose only
// clause grants a right next to a provision — termination for breach,
// insolvency, a change of control, a market-out or a lasting force majeure
// beside termination for convenience; a revocable licence beside an
// irrevocable one; a cap with no carve-out beside uncapped liability; an
// exclusion of consequential damages beside a cap on liability; a plain
// anti-assignment clause, under a heading that names a change of control,
// beside a change of control — is not answered Yes (or Conditional) for
// that provision, with the built-in playbook and detectors. The clauses
// are a development set written for this test in ordinary drafting.
func TestNeighbouringRightIsNotTheProvision(t *testing.T) {
	pb, det := Builtin()
	rev, err := NewReviewer(pb, det)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ provision, heading, clause string }{
		{"Termination for Convenience", "Termination for Breach", "Either party may terminate this Agreement by written notice if the other party materially breaches this Agreement and fails to cure the breach within thirty (30) days after receiving notice of it."},
		{"Termination for Convenience", "Insolvency", "Either party may terminate this Agreement with immediate effect by notice if the other party becomes insolvent, makes a general assignment for the benefit of its creditors or has a receiver appointed over any of its assets."},
		{"Termination for Convenience", "Change of Control", "Halvard may terminate this Agreement by written notice given within sixty (60) days after Brightwater undergoes a change of control."},
		{"Termination for Convenience", "Market Conditions", "Halvard may terminate this Agreement by notice to Brightwater if, before the Commencement Date, there has been a material adverse change in the financial markets or a general suspension of trading on the New York Stock Exchange."},
		{"Termination for Convenience", "Force Majeure", "If a Force Majeure Event prevents Brightwater from performing the Services for more than ninety (90) consecutive days, either party may terminate this Agreement by written notice."},
		{"Irrevocable or Perpetual License", "Licence", "Halvard grants Brightwater a non-exclusive, revocable licence to use the Halvard trade marks on its delivery vehicles during the Term; the licence ends when this Agreement ends."},
		{"Cap on Liability", "Exclusion of Damages", "In no event shall either party be liable for any indirect, incidental, special, consequential or punitive damages, or for any loss of profits, revenue or data, arising out of or in connection with this Agreement, even if advised of the possibility of such damages."},
		{"Change of Control", "Assignment", "Neither party may assign this Agreement, or any of its rights or obligations under it, without the prior written consent of the other party. Any attempted assignment in breach of this Section is void."},
		{"Change of Control", "Assignment and Change of Control", "Neither party may assign this Agreement without the prior written consent of the other party."},
		{"Cap on Liability", "Limitation of Liability", "In no event shall either party be liable for any indirect, incidental, special, consequential or punitive damages, or for any loss of profits, revenue or data, even if advised of the possibility of such damages."},
		{"Uncapped Liability", "Limitation of Liability", "Each party's total liability arising out of or in connection with this Agreement shall not exceed the fees paid by Halvard in the twelve (12) months before the event giving rise to the claim."},
	} {
		name := strings.ReplaceAll(strings.ToLower(tc.heading), " ", "-") + ".txt"
		doc, err := parse.Bytes(ctx, name, []byte(neighbourContract(tc.heading, tc.clause)), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		prep, err := detect.Prepare(detect.Doc{ID: name, Name: name, Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		row, err := rev.ReviewPrepared(ctx, prep)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range row.Cells {
			if c.Provision != tc.provision {
				continue
			}
			if c.Found && c.Answer != nil && (c.Answer.Kind == answer.KindYes || c.Answer.Kind == answer.KindConditional) {
				t.Errorf("%s: %s answered %s (%q) from %q", tc.heading, tc.provision, c.Answer.Kind, c.Answer.Text, tc.clause)
			}
		}
	}
}

// TestOwnRightBesideNeighbourIsTheProvision is the other side of
// TestNeighbouringRightIsNotTheProvision: a clause that holds the
// provision beside its neighbour — a cap on the amount after an exclusion
// of consequential damages, a merger or change of control treated as an
// assignment inside an anti-assignment clause — is found and answered Yes
// or Conditional, from the provision's own sentence. The clauses are a
// development set written for this test in ordinary drafting.
func TestOwnRightBesideNeighbourIsTheProvision(t *testing.T) {
	pb, det := Builtin()
	rev, err := NewReviewer(pb, det)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ provision, heading, clause, word string }{
		{"Cap on Liability", "Limitation of Liability", "In no event shall either party be liable for any indirect, incidental, special, consequential or punitive damages. Each party's total liability arising out of or in connection with this Agreement shall not exceed the fees paid by Halvard in the twelve (12) months before the event giving rise to the claim.", "exceed"},
		{"Cap on Liability", "Limitation of Liability", "Each party's total liability arising out of or in connection with this Agreement shall not exceed the fees paid by Halvard in the twelve (12) months before the event giving rise to the claim.", "exceed"},
		{"Change of Control", "Assignment", "Neither party may assign this Agreement without the prior written consent of the other party. For the purposes of this Section, a merger, consolidation or sale of all or substantially all of the assets of a party, or a change of control of a party, is an assignment.", "merger"},
		{"Change of Control", "Assignment", "Neither party may assign this Agreement without the prior written consent of the other party. If Brightwater undergoes a change of control, Halvard may terminate this Agreement by written notice within sixty (60) days after learning of it.", "control"},
	} {
		name := strings.ReplaceAll(strings.ToLower(tc.heading), " ", "-") + ".txt"
		doc, err := parse.Bytes(ctx, name, []byte(neighbourContract(tc.heading, tc.clause)), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		prep, err := detect.Prepare(detect.Doc{ID: name, Name: name, Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		row, err := rev.ReviewPrepared(ctx, prep)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range row.Cells {
			if c.Provision != tc.provision {
				continue
			}
			if !c.Found || c.Answer == nil || c.Answer.Kind != answer.KindYes && c.Answer.Kind != answer.KindConditional {
				t.Errorf("%s: %s not answered Yes from %q: %+v", tc.heading, tc.provision, tc.clause, c.Answer)
				continue
			}
			if len(c.Answer.Spans) == 0 || len(c.Extracts) <= c.Answer.Spans[0].Extract {
				t.Errorf("%s: %s answered without a span", tc.heading, tc.provision)
				continue
			}
			sp := c.Answer.Spans[0]
			e := c.Extracts[sp.Extract]
			if got := string([]rune(e.Text)[sp.Span.Start-e.Span.Start : sp.Span.End-e.Span.Start]); !strings.Contains(got, tc.word) {
				t.Errorf("%s: %s read from %q, not the sentence with %q", tc.heading, tc.provision, got, tc.word)
			}
		}
	}
}
