package answer

import (
	"os"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// builtinProvision returns provision name of the shipped playbook.
func builtinProvision(t *testing.T, name string) *playbook.Provision {
	t.Helper()
	data, err := os.ReadFile("../builtin/playbook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbook.ParsePlaybook("builtin", data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pb.Provisions {
		if strings.EqualFold(pb.Provisions[i].Name, name) {
			return &pb.Provisions[i]
		}
	}
	t.Fatalf("no provision %q", name)
	return nil
}

// TestOperativeClause checks that a yes/no answer comes only from a clause
// that operates, and that a right is not read from a clause granting a
// neighbouring one (hard negatives: each clause mentions the provision's
// words but does not grant it).
func TestOperativeClause(t *testing.T) {
	tfc := builtinProvision(t, "Termination for Convenience")
	tfcause := builtinProvision(t, "Termination for Cause")
	coc := builtinProvision(t, "Change of Control")
	tests := []struct {
		name   string
		p      *playbook.Provision
		text   string
		kind   Kind
		reason string // a word of the reason, for a cell not found
	}{
		{"a grant", tfc, "Either party may terminate this Agreement for convenience at any time on thirty (30) days' prior written notice to the other party.", KindYes, ""},
		{"a definition", coc, "\"Change of Control\" means the acquisition by any person of more than fifty percent (50%) of the voting securities of a party.", KindNotFound, "definition"},
		{"a recital", coc, "WHEREAS, the Company has undergone a change of control and the parties wish to record the consequences of that change of control;", KindNotFound, "recital"},
		{"a table of contents", tfc, "TABLE OF CONTENTS\n11.1 Term ........................ 14\n11.2 Termination for Convenience ........ 15\n11.3 Termination for Cause ........ 15\n11.4 Effect of Termination ....... 16", KindNotFound, "contents"},
		{"a list of headings", tfc, "11.1 Term\n11.2 Termination for Convenience\n11.3 Termination for Cause\n11.4 Effect of Termination", KindNotFound, "headings"},
		{"a notice address", coc, "If to the Company: Change of Control Notices, 100 Main Street, Suite 400, Springfield, IL 62701, Attention: General Counsel, Fax: (217) 555-0100", KindNotFound, "address"},
		{"a cross-reference", coc, "The Guarantor acknowledges the provisions of Section 12.3 (Change of Control) and Section 14 (Notices).", KindNotFound, "cross-reference"},
		{"a representation about the past", tfc, "No party has sent or received any notice indicating the termination of or intention to terminate any of the contracts described in the Prospectus.", KindNotFound, "past"},
		// the kind of right: termination on a stated cause is not
		// termination for convenience
		{"termination on breach", tfc, "The Company or the Bank may terminate this Agreement in the event the Agent is in material breach of its covenants and such breach has not been cured within thirty days.", KindNotFound, "stated causes"},
		{"termination on a change of control", tfc, "Supplier may terminate this Agreement upon a change of control of Distributor by giving ninety (90) days' written notice.", KindNotFound, "stated causes"},
		{"a market-out", tfc, "The Agent may terminate this Agreement by giving the notice indicated below at any time after this Agreement becomes effective as follows:", KindNotFound, "stated causes"},
		{"termination on a material adverse change", tfc, "If there shall have been any material adverse change in the condition of the Company, the Agent may terminate this Agreement by notice to the Company.", KindNotFound, "stated causes"},
		{"termination on insolvency", tfc, "Either party may terminate this Agreement in case of the insolvency or bankruptcy of the other party.", KindNotFound, "stated causes"},
		// a negation inside the cause does not exclude the right
		{"a cure not made is the cause, not an exclusion", tfcause, "The Company or the Bank may terminate this Agreement in the event the Agent is in material breach of its covenants and such breach has not been cured after the Company has provided the Agent with notice of such breach.", KindYes, ""},
		{"a real exclusion", tfc, "Neither party may terminate this Agreement for convenience.", KindNo, ""},
		// nor does one inside a relative clause after a comma
		{"a cure not made, in a relative clause", tfcause, "Either party may terminate this Agreement with written notice to the other party upon the occurrence of a breach by the other party, which breach has not been cured within (30) days after the date of written notice to the breaching party.", KindYes, ""},
		{"a relative clause does not shield the main clause", tfcause, "Neither party may terminate this Agreement for a breach, which breach shall be referred to arbitration.", KindNo, ""},
		// a clause that grants the right for convenience in one sentence
		// and on insolvency in the next grants it
		{"convenience beside insolvency", tfc, "5.2 TERMINATION OF AGREEMENT. Litware may terminate this Agreement for convenience by giving at least thirty (30) days written notice of termination to Proseware. This Agreement shall terminate automatically without notice and without further action by the other party in the event that the other party becomes insolvent.", KindYes, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex := extractsOf(tc.text)
			ex[0].Score = 0.9
			a, _ := Read(nil, tc.p, ex, nil, true)
			if a.Kind != tc.kind {
				t.Fatalf("answer %+v, want kind %s", a, tc.kind)
			}
			if tc.reason != "" && !strings.Contains(a.Reason, tc.reason) {
				t.Errorf("reason %q, want it to say %q", a.Reason, tc.reason)
			}
		})
	}
}

// TestOperativeInContract checks the roles the contract's structure gives:
// an item of a definition, the recitals before the words by which the
// parties agree; and that the cell leads with the clause its answer was
// read from.
func TestOperativeInContract(t *testing.T) {
	text := "SERVICES AGREEMENT\n\nThis Services Agreement is made between Acme Inc. (\"Customer\") and Beta LLC (\"Provider\").\n\n" +
		"The Provider was formed after a change of control of its parent.\n\n" +
		"NOW, THEREFORE, the parties agree as follows:\n\n" +
		"1. Definitions.\n\n1.1 \"Change of Control\" means:\n\n(a) a merger of a party; or\n\n(b) a sale of all of a party's assets.\n\n" +
		"2. Term. This Agreement continues for three (3) years.\n\n" +
		"3. Termination.\n\n3.1 Provider may not terminate this Agreement for convenience during the Initial Term. During any Renewal Term, Provider may terminate this Agreement for convenience on one hundred eighty (180) days' notice.\n\n" +
		"3.2 Customer may terminate this Agreement for convenience at any time by giving Provider not less than sixty (60) days' prior written notice.\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	passage := func(s string, score float64) detect.Extract {
		for i, ps := range c.Passages() {
			if strings.Contains(c.Index().Slice(ps.Span), s) {
				return c.Extract(i, score)
			}
		}
		t.Fatalf("no passage holds %q", s)
		return detect.Extract{}
	}
	coc := builtinProvision(t, "Change of Control")
	for _, ex := range [][]detect.Extract{
		{passage("(a) a merger", 0.9)},
		{passage("was formed after", 0.9)},
		{passage("(b) a sale", 0.9), passage("was formed after", 0.8)},
	} {
		a, _ := Read(c, coc, ex, nil, true)
		if a.Kind != KindNotFound || a.Reason == "" {
			t.Errorf("%q: answer %+v, want not found with a reason", ex[0].Text, a)
		}
	}
	tfc := builtinProvision(t, "Termination for Convenience")
	ex := []detect.Extract{passage("Provider may not terminate", 0.95), passage("Customer may terminate", 0.9)}
	a, got := Read(c, tfc, ex, nil, true)
	if a.Kind != KindYes || !strings.Contains(got[0].Text, "Customer may terminate") {
		t.Fatalf("answer %+v led by %q, want Yes led by the Customer's clause", a, got[0].Text)
	}
	if !strings.Contains(a.Summary, "Customer: Yes, 60 days") {
		t.Errorf("summary %q", a.Summary)
	}
	for _, sp := range a.Spans {
		if sp.Role == "value" && !strings.Contains(spanText(t, got, sp), "Customer may terminate") {
			t.Errorf("value span %q not in the leading clause", spanText(t, got, sp))
		}
	}
	for _, h := range a.Holders {
		for _, sp := range h.Spans {
			spanText(t, got, sp)
		}
	}
}

// TestDeniedByForm checks that a right denied by the form of its own key
// word is read as No: "revocable", "non-perpetual".
func TestDeniedByForm(t *testing.T) {
	p := builtinProvision(t, "Irrevocable or Perpetual License")
	for _, tc := range []struct {
		text string
		kind Kind
	}{
		{"Licensor grants Licensee a revocable, non-perpetual, non-exclusive license to use the Software; the license ends when this Agreement ends.", KindNo},
		{"Licensor grants Licensee a perpetual, irrevocable, non-exclusive license to use the Software.", KindYes},
	} {
		ex := extractsOf(tc.text)
		ex[0].Score = 0.9
		if a, _ := Read(nil, p, ex, nil, true); a.Kind != tc.kind {
			t.Errorf("%q: answer %+v, want %s", tc.text, a, tc.kind)
		}
	}
}

// TestWaivedRight checks that a party giving up a right before its cue
// words excludes it, and that a waiver of something else after a right is
// granted, or a right a party shall not waive, does not.
func TestWaivedRight(t *testing.T) {
	p := builtinProvision(t, "Termination for Convenience")
	for _, tc := range []struct {
		text     string
		excludes bool
	}{
		{"Each party waives any right it may have under applicable law to terminate this Agreement without cause.", true},
		{"The Customer irrevocably renounces its right to terminate this Agreement for convenience during the Initial Term.", true},
		{"Either party may terminate this Agreement for convenience on sixty (60) days' written notice, and the other party waives any right to object to such termination.", false},
		{"Neither party shall be deemed to waive its right to terminate this Agreement for convenience by any delay in exercising it.", false},
	} {
		ex := extractsOf(tc.text)
		ex[0].Score = 0.9
		a, _ := Read(nil, p, ex, nil, true)
		if got := a.Excludes || a.Kind == KindNo; got != tc.excludes {
			t.Errorf("%q: answer %+v, want excluding %v", tc.text, a, tc.excludes)
		}
	}
}

// TestNegatedCoordinate checks that a negation governs a verb coordinated
// after ", or": no consent to a change of control is required, so the
// provision is excluded; but a change of control that needs consent is not.
func TestNegatedCoordinate(t *testing.T) {
	p := builtinProvision(t, "Change of Control")
	for _, tc := range []struct {
		text     string
		excludes bool
	}{
		{"Neither party is required to notify the other of, or obtain consent to, any change in its ownership or control, and no such change gives rise to any right of termination.", true},
		{"The Supplier shall not assign this Agreement, or undergo a change of control, without the prior written consent of the Customer.", false},
		{"The Customer may terminate this Agreement on thirty days' notice, or require the Supplier to provide a guarantee, upon any change of control of the Supplier.", false},
	} {
		ex := extractsOf(tc.text)
		ex[0].Score = 0.9
		a, _ := Read(nil, p, ex, nil, true)
		if got := a.Excludes || a.Kind == KindNo; got != tc.excludes {
			t.Errorf("%q: answer %+v, want excluding %v", tc.text, a, tc.excludes)
		}
	}
}

// TestAlternativeIsNoExclusion checks that "whether or not" states an
// alternative: it does not exclude the right.
func TestAlternativeIsNoExclusion(t *testing.T) {
	p := builtinProvision(t, "Termination for Cause")
	text := "In the event of an uncured material breach by Supplier that would entitle Buyer to terminate this Agreement, Buyer may seek monetary damages (whether or not this Agreement is terminated) for such material breach."
	if a, _ := Read(nil, p, extractsOf(text), nil, false); a.Excludes {
		t.Errorf("answer %+v: an alternative read as an exclusion", a)
	}
}

// TestDefinedProvisionUsed checks that the definition of a term naming the
// provision itself, used by the contract's clauses, answers; a definition
// of another term does not.
func TestDefinedProvisionUsed(t *testing.T) {
	text := "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Acme Inc. (\"Buyer\") and Beta LLC (\"Supplier\").\n\n" +
		"1. Definitions.\n\n1.1 \"Change of Control\" means a merger of a party or a sale of all of its assets.\n\n" +
		"1.2 \"Affiliate\" means an entity that controls, is controlled by or is under common control with a party.\n\n" +
		"2. Termination. Buyer may terminate this Agreement on ninety (90) days' notice after a Change of Control of Supplier.\n\n" +
		"3. Notice. Supplier shall notify Buyer of any Change of Control within ten (10) days.\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	passage := func(s string) detect.Extract {
		return passageWhere(t, c, func(p string) bool { return strings.Contains(p, s) }, "holds "+s)
	}
	coc := builtinProvision(t, "Change of Control")
	if r := roleOf(c, coc, passage("\"Change of Control\" means")); r != roleOperative {
		t.Errorf("the definition of the provision's own term, used: %s", r)
	}
	if r := roleOf(c, coc, passage("\"Affiliate\" means")); r != roleDefinition {
		t.Errorf("the definition of another term: %s", r)
	}
}

// TestNoConsentDeniesAConsentRight checks that a clause freeing a merger
// from consent is read as No for Change of Control, whose definition makes
// a required consent part of the provision.
func TestNoConsentDeniesAConsentRight(t *testing.T) {
	p := builtinProvision(t, "Change of Control")
	text := "Notwithstanding the foregoing, no consent shall be required for an assignment of this Agreement made pursuant to a merger, consolidation, or the acquisition of all or substantially all of the business and assets of a party."
	if a, _ := Read(nil, p, extractsOf(text), nil, true); a.Kind != KindNo {
		t.Errorf("answer %+v, want No", a)
	}
	granted := "Any merger or consolidation of Licensee shall be deemed an assignment requiring Licensor's prior written consent."
	if a, _ := Read(nil, p, extractsOf(granted), nil, true); a.Kind == KindNo || a.Kind == KindNotFound {
		t.Errorf("answer %+v, want the provision", a)
	}
}

// TestGeneralCapFirst checks that the general cap answers before a narrow
// one read first, and the cell leads with it.
func TestGeneralCapFirst(t *testing.T) {
	p := builtinProvision(t, "Cap on Liability")
	ex := extractsOf(
		"10.3 Property Damage. Supplier's liability for damage to tangible property shall not exceed US$1,000,000 per occurrence.",
		"10.2 Limitation. Except for the Excluded Claims, each party's total aggregate liability under this Agreement shall not exceed the fees paid in the twelve (12) months before the claim.")
	ex[0].Score, ex[1].Score = 0.95, 0.9
	a, got := Read(nil, p, ex, nil, true)
	if a.Kind == KindNotFound || a.Kind == KindNo || !strings.HasPrefix(got[0].Text, "10.2") {
		t.Fatalf("answer %+v led by %q, want the general cap 10.2 first", a, got[0].Text)
	}
}

// TestListOfOccasions checks that a lead-in ending in a colon ("may be
// terminated … as follows:") grants a right that needs no cause when its
// items name no cause, only who may act and on what notice, and does not
// when its items are the occasions (a market-out).
func TestListOfOccasions(t *testing.T) {
	tfc := builtinProvision(t, "Termination for Convenience")
	for _, tc := range []struct {
		name, text string
		kind       Kind
	}{
		{"notice options", "CONSULTING AGREEMENT\n\nThis Agreement is made between Acme Inc. (\"Company\") and Jane Roe (\"Consultant\").\n\n" +
			"7. Termination.\n\n7.1 This Agreement may be ended at any time before the end of the Term, as follows:\n\n" +
			"(a) by the Consultant giving the Company not less than two (2) months' written notice of termination; or\n\n" +
			"(b) by the Company giving the Consultant two (2) months' written notice of termination and paying the fee for those months; or\n\n" +
			"(c) by either party by notice, in the event that the other party becomes insolvent.\n\n" +
			"8. Governing Law. This Agreement is governed by the laws of Ontario.\n", KindYes},
		{"a market-out", "AGENCY AGREEMENT\n\nThis Agreement is made between Acme Bank (\"Bank\") and Beta Securities LLC (\"Agent\").\n\n" +
			"7. Termination.\n\n7.1 The Agent may terminate this Agreement by notice to the Bank at any time before the Closing Date, as follows:\n\n" +
			"(a) if the Bank is in material breach of any of its representations; or\n\n" +
			"(b) if trading in securities generally on any national exchange has been suspended.\n\n" +
			"8. Governing Law. This Agreement is governed by the laws of Kansas.\n", KindNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &document.Document{ID: "x", Name: "x", Format: "text", Text: tc.text}
			c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
			var ex []detect.Extract
			for i, ps := range c.Passages() {
				if strings.HasPrefix(c.Index().Slice(ps.Span), "7.1") {
					ex = append(ex, c.Extract(i, 0.9))
				}
			}
			if len(ex) != 1 || !strings.HasSuffix(ex[0].Text, ":") {
				t.Fatalf("lead-in passages %+v, want one ending in a colon", ex)
			}
			a, got := Read(c, tfc, ex, nil, true)
			if a.Kind != tc.kind {
				t.Fatalf("answer %+v, want %s", a, tc.kind)
			}
			if tc.kind == KindYes && (len(got) < 4 || !strings.HasPrefix(got[0].Text, "(a) by the Consultant")) {
				t.Errorf("extracts %d led by %q, want the lead-in and its three items, led by the item (a) that grants the right", len(got), got[0].Text)
			}
			if tc.kind == KindNotFound && !strings.Contains(a.Reason, "stated causes") {
				t.Errorf("reason %q, want stated causes", a.Reason)
			}
		})
	}
}

// TestItemOfStatedCauses checks that a list item whose lead-in names the
// occasion ("… by written notice if the other party:") is one of the
// stated causes, not a right that needs none; an item under a lead-in
// that names none ("at any time, as follows:") is read on its own words.
func TestItemOfStatedCauses(t *testing.T) {
	tfc := builtinProvision(t, "Termination for Convenience")
	text := "SUPPLY AGREEMENT\n\nThis Agreement is made between Acme Inc. (\"Buyer\") and Beta LLC (\"Supplier\").\n\n" +
		"9. Termination.\n\n9.1 Either party may terminate this Agreement by written notice to the other party if the other party:\n\n" +
		"(a) becomes insolvent or makes an assignment for the benefit of its creditors; or\n\n" +
		"(b) fails to remedy a breach within thirty (30) days after receiving written notice of termination, which notice may be given at any time.\n\n" +
		"9.2 This Agreement may be ended by either party at any time, as follows:\n\n" +
		"(a) by giving the other party ninety (90) days' written notice of termination at any time after the first anniversary.\n\n" +
		"10. Governing Law. This Agreement is governed by the laws of Ohio.\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	passage := func(s string) detect.Extract {
		return passageWhere(t, c, func(p string) bool { return strings.HasPrefix(p, s) }, "starts with "+s)
	}
	item := passage("(b) fails to remedy")
	if a, _ := Read(nil, tfc, []detect.Extract{item}, nil, true); a.Kind == KindNotFound || a.Kind == KindNo {
		t.Fatalf("the item alone: %+v, want it read as the right (the test's premise)", a)
	}
	if a, _ := Read(c, tfc, []detect.Extract{item}, nil, true); a.Kind != KindNotFound || !strings.Contains(a.Reason, "stated causes") {
		t.Errorf("an item of stated causes: %+v, want not found on stated causes", a)
	}
	if a, _ := Read(c, tfc, []detect.Extract{passage("(a) by giving the other party ninety")}, nil, true); a.Kind == KindNotFound || a.Kind == KindNo {
		t.Errorf("an item under a lead-in that names no cause: %+v, want the right", a)
	}
}

// TestWeakerMentionAfterStatedCauses checks that a weaker mention in a
// later extract does not outweigh the stated causes read first; a grant in
// the provision's own words does.
func TestWeakerMentionAfterStatedCauses(t *testing.T) {
	tfc := builtinProvision(t, "Termination for Convenience")
	causes := "Either party may terminate this Agreement on thirty (30) days' prior written notice to the other upon the occurrence of any of the following events:"
	for _, tc := range []struct {
		later string
		want  Kind
	}{
		{"Upon the expiration or termination of this Agreement, the Supplier may buy back any Products held by the Distributor.", KindNotFound},
		{"In addition, either party may terminate this Agreement for convenience at any time on ninety (90) days' written notice.", KindYes},
	} {
		ex := extractsOf(causes, tc.later)
		ex[0].Score, ex[1].Score = 0.9, 0.5
		if a, _ := Read(nil, tfc, ex, nil, true); a.Kind != tc.want {
			t.Errorf("%.50q…: %+v, want %s", tc.later, a, tc.want)
		}
	}
}

// passageWhere is the first passage of c whose text is as want says, as an
// extract rated 0.9; the test fails when there is none.
func passageWhere(t *testing.T, c *detect.Prepared, want func(string) bool, what string) detect.Extract {
	t.Helper()
	for i, ps := range c.Passages() {
		if want(c.Index().Slice(ps.Span)) {
			return c.Extract(i, 0.9)
		}
	}
	t.Fatalf("no passage %s", what)
	return detect.Extract{}
}

// TestConditionInsideParenthesis checks that a condition written inside a
// parenthesis is said without its closing mark.
func TestConditionInsideParenthesis(t *testing.T) {
	p := builtinProvision(t, "Termination for Cause")
	text := "In addition, either party may terminate this Agreement by giving to the other party written notice of such termination upon the other party's material breach of any material term (subject to the other party's right to cure within thirty (30) days after receipt of such notice), the other party's insolvency, or the institution of any bankruptcy proceedings."
	pol := readPolarity(p, text)
	if pol.kind != KindConditional {
		t.Fatalf("read %+v, want Conditional", pol)
	}
	want := "subject to the other party's right to cure within thirty (30) days after receipt of such notice"
	if pol.condition != want {
		t.Errorf("condition %q, want %q", pol.condition, want)
	}
	if got := text[pol.cond[0]:pol.cond[1]]; got != want {
		t.Errorf("condition span %q, want %q", got, want)
	}
}
