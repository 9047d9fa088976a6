package answer

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// tfcForHolders is a termination-for-convenience provision as a playbook
// writes it.
var tfcForHolders = &playbook.Provision{Name: "Termination for Convenience", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRight,
	Definition: "A right of a party to end the contract without having to show a breach or other cause, simply by giving notice.",
	Keywords: []playbook.Keyword{{Text: "convenience", Near: []string{"terminate", "termination"}, Within: 8, Boost: 3},
		{Text: "without cause", Near: []string{"terminate", "termination"}, Within: 10, Boost: 3}, {Text: "for any reason", Boost: 2}}}

// A contract that gives its parties the right on different terms (invented
// names): the answer says who holds it, on what notice, at what cost.
const holdersContract = `SERVICES AGREEMENT

This Services Agreement is made by and between Northwind Traders, Inc. ("Customer") and Contoso Hosting LLC ("Provider").

1. Term.

1.1 This Agreement begins on the Effective Date and continues for an initial term of three (3) years (the "Initial Term"), then renews for successive one (1) year terms (each a "Renewal Term").

2. Termination for Convenience.

(a) Customer may terminate this Agreement for convenience at any time by giving Provider not less than sixty (60) days' prior written notice.

(b) If Customer terminates this Agreement under Section 2(a) with effect before the second (2nd) anniversary of the Effective Date, Customer shall pay the Early Termination Fee set out in Schedule 2. No Early Termination Fee is payable for termination after that anniversary.

(c) Provider may not terminate this Agreement for convenience during the Initial Term. During any Renewal Term, Provider may terminate this Agreement for convenience by giving Customer not less than one hundred eighty (180) days' prior written notice.

3. Termination for Cause.

3.1 Either party may terminate this Agreement if the other party commits a material breach and fails to cure it within thirty (30) days after notice.
`

// passagesHolding returns the extracts of the passages of p whose text
// holds each of the given strings, in the order given.
func passagesHolding(t *testing.T, p *detect.Prepared, parts ...string) []detect.Extract {
	t.Helper()
	var ex []detect.Extract
	for _, part := range parts {
		k := -1
		for i, ps := range p.Passages() {
			if strings.Contains(p.Index().Slice(ps.Span), part) {
				k = i
				break
			}
		}
		if k < 0 {
			t.Fatalf("no passage holds %q", part)
		}
		ex = append(ex, p.Extract(k, 0.9))
	}
	return ex
}

func TestHoldersPerParty(t *testing.T) {
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: holdersContract}
	p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	// the detector's order: Provider's restricted right first
	ex := passagesHolding(t, p, "Provider may not terminate", "Customer may terminate this Agreement for convenience")
	scores := make([]float64, len(p.Passages()))
	a, out := Read(p, tfcForHolders, ex, scores, true)
	if a.Kind != KindYes {
		t.Errorf("kind %s, want yes: Customer holds the right outright", a.Kind)
	}
	want := "Customer: Yes, 60 days' notice, Early Termination Fee if before the second (2nd) anniversary of the Effective Date (2(b)); " +
		"Provider: only during any Renewal Term, 180 days' notice"
	if a.Summary != want {
		t.Errorf("summary\n got %q\nwant %q", a.Summary, want)
	}
	if len(a.Holders) != 2 {
		t.Fatalf("holders %+v", a.Holders)
	}
	// every span lies in an extract and reads what it says
	roles := map[string]string{}
	for _, h := range a.Holders {
		for _, sp := range h.Spans {
			roles[h.Party+"/"+sp.Role] = spanText(t, out, sp)
		}
	}
	for k, v := range map[string]string{"Customer/party": "Customer", "Customer/notice": "sixty (60) days", "Provider/notice": "one hundred eighty (180) days",
		"Provider/condition": "During any Renewal Term"} {
		if roles[k] != v {
			t.Errorf("span %s reads %q, want %q", k, roles[k], v)
		}
	}
	if !strings.Contains(roles["Customer/term"], "Early Termination Fee") {
		t.Errorf("the fee's span reads %q", roles["Customer/term"])
	}
	if len(out) != 3 {
		t.Errorf("%d extracts, want the fee's clause added last", len(out))
	}
}

func TestHolderSubjects(t *testing.T) {
	parties := []partyRead{{name: "Northwind Traders, Inc.", role: "Licensee", roleAt: 1}, {name: "Contoso Ltd", role: "Licensor", roleAt: 2}}
	defined := func(s string) bool { return s == "Distributor" }
	for _, c := range []struct {
		text string
		want string // "party kind notice", joined by "; "
	}{
		{"Either party may terminate this Agreement for convenience upon thirty (30) days' written notice to the other party.", "Either party yes 30 days"},
		{"This Agreement may be terminated by the Licensee without cause on ninety (90) days notice.", "Licensee yes 90 days"},
		{"Northwind Traders may terminate this Agreement for convenience.", "Licensee yes "},
		{"The Licensor shall have the right to terminate this Agreement for any reason by notice of not less than six (6) months.", "Licensor yes 6 months"},
		{"Distributor may terminate this Agreement for convenience on 15 days' notice.", "Distributor yes 15 days"},
		// not a party, not a right, a cause, nobody named
		{"The Committee may terminate this Agreement for convenience.", ""},
		{"The Licensee shall notify the Licensor before it terminates this Agreement for convenience.", ""},
		{"Either party may terminate this Agreement if the other party becomes insolvent.", ""},
		{"This Agreement may be terminated for convenience.", ""},
		{"Neither party may terminate this Agreement for convenience.", "Either party no "},
		// a period that is not a notice
		{"The Licensee may terminate this Agreement for convenience during the twelve (12) months before the anniversary.", "Licensee yes "},
	} {
		ex := extractsOf(c.text)
		var got []string
		for _, h := range mergeHoldings(holdersOf(tfcForHolders, nil, ex, parties, defined), joinExtracts(ex)) {
			got = append(got, h.Party+" "+string(h.Kind)+" "+h.Notice)
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%.70q…: %q, want %q", c.text, strings.Join(got, "; "), c.want)
		}
	}
}

func TestParseAsk(t *testing.T) {
	law := &playbook.Provision{Name: "Governing Law", Answer: playbook.AnswerJurisdiction}
	for _, c := range []struct {
		q    string
		p    *playbook.Provision
		want string
	}{
		{"Which of our contracts can be terminated for convenience, and on what notice?", tfcForHolders, "notice"},
		{"Which contracts can we walk away from, and how much notice do we need to give?", tfcForHolders, "notice"},
		{"Which agreements restrict assignment, and under which law?", tfcForHolders, "jurisdiction"},
		{"Which contracts have a non-compete, and for how long?", tfcForHolders, "period"},
		{"In which contracts is liability capped, and at how much?", tfcForHolders, "amount"},
		{"Which of our contracts can be terminated for convenience?", tfcForHolders, ""},
		// the provision's own answer is the value: nothing asked beside it
		{"Which contracts are governed by New York law, and under which law?", law, ""},
	} {
		got := ""
		if a := ParseAsk(c.q, c.p); a != nil {
			got = a.Kind
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.q, got, c.want)
		}
	}
}

func TestAskedValuePerParty(t *testing.T) {
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: holdersContract}
	p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	ex := passagesHolding(t, p, "Provider may not terminate", "Customer may terminate this Agreement for convenience")
	a, out := Read(p, tfcForHolders, ex, make([]float64, len(p.Passages())), true)
	ask := ParseAsk("Which of our contracts can be terminated for convenience, and on what notice?", tfcForHolders)
	v, spans := ask.AskedValue(tfcForHolders, a, out)
	if want := "Customer: 60 days; Provider: 180 days (only during any Renewal Term)"; v != want {
		t.Errorf("asked %q, want %q", v, want)
	}
	if len(spans) != 2 {
		t.Errorf("spans %+v", spans)
	}
	// one party, or the same notice for all: the period alone
	one := extractsOf("Either party may terminate this Agreement for convenience on ninety (90) days' notice.")
	a1, _ := Read(nil, tfcForHolders, one, nil, true)
	if v, _ := ask.AskedValue(tfcForHolders, a1, one); v != "90 days" {
		t.Errorf("asked %q, want 90 days", v)
	}
}

// TestClauseIsNoPartyName checks that a clause read where a name would be
// ("Sponsor with the following benefits, subject to …", "Reseller will
// obtain …") is not taken for a party, while names with place words are.
func TestClauseIsNoPartyName(t *testing.T) {
	for s, want := range map[string]bool{
		"Sponsor with the following benefits, subject to the terms of the General Provisions": true,
		"Reseller will obtain pricing quote from Company":                                     true,
		"Harbor Ballpark Funding LLC":                                                         false,
		"the Trust Advisors to the Seller Trusts listed on Schedule A":                        false,
		"Bank of America, N.A.":                                                               false,
		"Zebra Technologies do Brasil - Comércio de Produtos de Informática Ltda.":            false,
	} {
		if got := clauseNotName(s); got != want {
			t.Errorf("clauseNotName(%q) = %v, want %v", s, got, want)
		}
	}
	text := "SPONSORSHIP AGREEMENT\n\nHarbor Ballpark Funding LLC (\"HBF\") shall provide Sponsor with the following benefits, subject to the terms of the General Provisions attached hereto (the \"General Provisions\"):\n\n1. Signage. Two signs in the stadium.\n\n2. Fees. Sponsor shall pay HBF the fees in Exhibit A.\n\nIN WITNESS WHEREOF the parties have signed this Agreement.\n\nHARBOR BALLPARK FUNDING LLC\nBy: /s/ A. Smith\n\nCOASTAL GRILL, INC.\nBy: /s/ B. Jones\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	for _, r := range partyReads(c) {
		if strings.Contains(r.name, "following") {
			t.Errorf("party %q read from a clause", r.name)
		}
	}
}
