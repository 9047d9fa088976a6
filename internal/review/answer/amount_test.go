package answer

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

// A cap written as a measure ("the amount paid to the Agent under this
// Agreement") is the cap's value as much as a sum is. The clauses are ours,
// written in the shapes agency and services agreements use (a development
// set).
func TestCapWrittenAsMeasure(t *testing.T) {
	cap := &playbook.Provision{Name: "Cap on Liability", Answer: playbook.AnswerYesNo,
		Keywords: []playbook.Keyword{{Text: "liability", Near: []string{"shall not exceed"}, Boost: 3}, {Text: "fees paid", Boost: 2}}}
	ask := ParseAsk("Which contracts cap liability, and how much?", cap)
	if ask == nil || ask.Kind != AskAmount {
		t.Fatalf("asked %+v", ask)
	}
	for _, c := range []struct{ clause, want string }{
		{"It is expressly agreed that the Agent shall not be liable for any loss, liability, claim, damage or expense or be required to contribute any amount which in the aggregate exceeds the amount paid (excluding reimbursable expenses) to the Agent under this Agreement. It is understood that the above stated limitation is expressly agreed.",
			"the amount paid (excluding reimbursable expenses) to the Agent under this Agreement"},
		{"Supplier's entire liability under this Agreement for any damages from any cause whatsoever shall in no event exceed an amount equal to the price paid for the Services out of which the claim arose.",
			"the price paid for the Services out of which the claim arose"},
		{"Each party's aggregate liability shall not exceed the greater of (a) $500,000, and (b) the fees paid by Customer in the twelve (12) months preceding the claim; neither party excludes liability for fraud.",
			"the greater of (a) $500,000, and (b) the fees paid by Customer in the twelve (12) months preceding the claim"},
		{"Supplier's total liability for all claims under this Agreement is limited to one million dollars ($1,000,000).", "$1,000,000"},
		{"In no event shall either party's total liability exceed the total fees paid or payable under this Agreement, except for breach of confidentiality.",
			"the total fees paid or payable under this Agreement"},
		// a ceiling on something that is not paid: no value
		{"The Licensee's liability shall not exceed the term of this Agreement.", ""},
		{"Liability for claims under this Agreement is limited to the extent of the payments then due.", ""},
	} {
		ex := extractsOf(c.clause)
		v, spans := ask.AskedValue(cap, nil, ex)
		if v != c.want {
			t.Errorf("%.60q…: %q, want %q", c.clause, v, c.want)
			continue
		}
		if c.want == "" {
			continue
		}
		if len(spans) != 1 || spanText(t, ex, spans[0]) != c.want {
			t.Errorf("%.60q…: spans %+v", c.clause, spans)
		}
	}
	// the general cap before the caps of a part of the contract, whatever
	// the extracts' order
	ex := extractsOf(
		"(b) Seller's liability arising from the intellectual property indemnity set forth in the License Agreement shall not exceed 50% (fifty percent) of the monies paid thereunder to a maximum of U.S.$1,000,000.",
		"11.4 Monetary Limit. For any cause of action arising under this Agreement, each party's liability to the other shall not exceed U.S.$5,000,000. Notwithstanding the foregoing, each party's liability for breach of Article II shall not exceed U.S.$10,000,000.")
	if v, _ := ask.AskedValue(cap, nil, ex); v != "$5,000,000" {
		t.Errorf("general cap: %q, want $5,000,000", v)
	}
	// a reference the cap is subject to is not the part it is for; a name
	// defined for the cap is not its value
	ex = extractsOf("(b) Seller's liability arising from the indemnity in the License Agreement shall not exceed U.S.$1,000,000.",
		`10.2 Subject to Section 10.3, each Party's total aggregate liability arising out of or relating to this Agreement shall not exceed the total Fees paid and payable by Customer under this Agreement in the twelve (12) months immediately preceding the event giving rise to the liability (the "General Cap").`)
	if v, _ := ask.AskedValue(cap, nil, ex); v != "the total Fees paid and payable by Customer under this Agreement in the twelve (12) months immediately preceding the event giving rise to the liability" {
		t.Errorf("subject to: %q", v)
	}
	// a proviso ends a measure
	ex = extractsOf("The cumulative liability of the parties shall not exceed the lesser of $50,000 or the amount paid by Reseller to Supplier for the immediately preceding twelve (12) months provided, however, that this limitation shall not apply to fraud.")
	if v, _ := ask.AskedValue(cap, nil, ex); v != "the lesser of $50,000 or the amount paid by Reseller to Supplier for the immediately preceding twelve (12) months" {
		t.Errorf("proviso: %q", v)
	}
	// the same reading in an amount cell
	a := readAnswer(&playbook.Provision{Name: "Liquidated Damages", Answer: playbook.AnswerAmount}, nil,
		extractsOf("The liquidated damages payable by Contractor shall not exceed the Contract Price paid under this Agreement."))
	if a.Text != "the Contract Price paid under this Agreement" {
		t.Errorf("amount cell: %q", a.Text)
	}
}

// generalLimits keeps the limits written for the whole contract: a
// reference before the word liability ("Subject to Section 10.3") leaves
// a limit general, one after it ("liability for breach of Article II")
// makes it the cap of a part.
func TestGeneralLimits(t *testing.T) {
	for _, c := range []struct {
		s    string
		want []string
	}{
		{"Subject to Section 10.3, each Party's liability under this Agreement shall not exceed $2,000,000. Each Party's liability for breach of Article II shall not exceed $1,000,000.",
			[]string{"$2,000,000"}},
		{"Each Party's liability under this Agreement for breach of Article II shall not exceed $1,000,000. The Licensee shall pay $50,000 on signing.",
			[]string{"$1,000,000", "$50,000"}}, // no general limit: every candidate
		{"For any cause of action arising under this ---------- Agreement, each party's liability shall not exceed U.S.$5,000,000. The fee is $3,000 a month under this Agreement.",
			[]string{"$5,000,000"}},
	} {
		var got []string
		for _, v := range generalLimits(c.s, amountsAt(c.s)) {
			got = append(got, v.v)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%.50q…: %q, want %q", c.s, got, c.want)
		}
	}
}

// A period that runs after the contract ends is not its initial term (the
// built-in Initial Term excludes "post-termination obligations"); a term
// that continues for a period "thereafter" after its start is.
func TestInitialTermNotAfterTheEnd(t *testing.T) {
	it := &playbook.Provision{Name: "Initial Term", Answer: playbook.AnswerDuration,
		Excludes: "Not the length of renewal terms, of licenses or warranties, or of post-termination obligations."}
	for _, c := range []struct{ clause, want string }{
		{"18.1 During the term of this Agreement and for a period of three (3) years thereafter, all the Parties shall take reasonable steps to prevent disclosure of the Confidential Information.", ""},
		{"The obligations of this Section survive for two (2) years after the termination of this Agreement.", ""},
		{"This Agreement shall commence on the Effective Date and continue for a period of five (5) years thereafter, unless terminated earlier.", "5 years"},
		{"The initial term of this Agreement is three (3) years from the Effective Date.", "3 years"},
		{"h. Upon termination of this Agreement, Reseller shall have the right to continue to sell any Cards in its possession for a period of three (3) months following the effective date of termination.", ""},
		{"Upon termination of this Agreement, Reseller may sell its remaining stock for three (3) months.", ""},
		// a period of something else than the contract
		{"n. Any New Cards shall be excluded from the forecasting and penalty provisions of this Section 3 for the three (3) month period commencing on the date of the first order.", ""},
		{"Any New Cards shall be excluded from forecasting for three (3) months. This Agreement continues for two (2) years from the Effective Date.", "2 years"},
	} {
		a := readAnswer(it, nil, extractsOf(c.clause))
		if a.Text != c.want {
			t.Errorf("%.60q…: %q, want %q", c.clause, a.Text, c.want)
		}
	}
}
