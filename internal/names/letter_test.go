package names

import (
	"slices"
	"strings"
	"testing"
)

// A letter agreement names its parties as the subject that confirms "their
// agreement with" the addressee: the agreement is made by the one and with
// the other. A body named inside a description of a party (the insurer of
// its deposits) is none.
func TestLetterAgreementParties(t *testing.T) {
	body := "\n\nSection 1. The Offering. The Company will offer shares.\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{
			name: "by and with, an insurer in a description",
			text: "AGENCY AGREEMENT\n\nHarbor Lane Advisors & Company\n12 Pier Road\n\nLadies and Gentlemen:\n\n" +
				"Mesa Verde Financial Corporation, a federal corporation (the \"Company\"), and Mesa Verde Federal Savings and Loan Association, " +
				"a federally chartered savings and loan association (the \"Bank\") with its deposit accounts insured by the Deposit Guarantee Fund (\"DGF\") " +
				"administered by the National Deposit Insurance Corporation (\"NDIC\"), hereby confirm, jointly and severally, their agreement with " +
				"Harbor Lane Advisors & Company, a Division of Lowe, Pratt & Stone, Inc. (the \"Agent\"), as follows:" + body,
			want: []string{"Mesa Verde Financial Corporation", "Mesa Verde Federal Savings and Loan Association", "Harbor Lane Advisors & Company"},
		},
		{
			name: "one definition in the quoted form, a relative clause, a firm of surnames",
			text: "AGENCY AGREEMENT\n\nLadies and Gentlemen:\n\n" +
				"Cedar Bancshares Corporation, a Tennessee corporation (the \"Company\"), and Cedar Community Bank, a federal savings bank (the \"Bank\"), " +
				"the deposit accounts of which are insured by the National Deposit Insurance Corporation (\"NDIC\"), hereby confirm their agreement with " +
				"Lowe, Pratt & Stone, Inc. (the \"Agent\") as follows:" + body,
			want: []string{"Cedar Bancshares Corporation", "Cedar Community Bank", "Lowe, Pratt & Stone, Inc."},
		},
		{
			name: "a letter laid out without blank lines: the salutation is no party",
			text: "AGENCY AGREEMENT\nHarbor Lane Advisors & Company,\na Division of Lowe, Pratt & Stone, Inc.\n12 Pier Road\nLadies and Gentlemen:\n" +
				" Mesa Verde Financial Corporation, a federal corporation (the\n\"Company\") and Mesa Verde Bank (the \"Bank\") hereby confirm their agreement\n" +
				"with Harbor Lane Advisors & Company (the\n\"Agent\"), as follows:\n Section 1. The Offering. The Company will offer shares under an agreement\n" +
				"between the Company and the Agent (a copy of which is attached).\n",
			want: []string{"Mesa Verde Financial Corporation", "Mesa Verde Bank", "Harbor Lane Advisors & Company"},
		},
		{
			// The other side: a "between" that names others than the
			// terms a paragraph before it defined introduces the parties.
			name: "a between after a paragraph of definitions",
			text: "SUPPLY AGREEMENT\n\nThis page lists the offices of Acme Widgets, Inc. (\"Acme\") and Borealis Foods LLC (\"Borealis\").\n\n" +
				"This Supply Agreement is made by and between Gamma Tools Inc. and Delta Parts LLC as of May 1, 2019.\n\n1. Supply.",
			want: []string{"Gamma Tools Inc.", "Delta Parts LLC"},
		},
		{
			// The other side: "and" after a name that says its kind of
			// organisation separates two names.
			name: "two names joined by and",
			text: "SPONSORSHIP AGREEMENT\n\nThis Sponsorship Agreement is made by and between American Heart Society and " +
				"Blue Fern Studios, Inc.\n\n1. Term.",
			want: []string{"American Heart Society", "Blue Fern Studios, Inc."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := Learn(tc.text, "contract.txt")
			var got []string
			for _, p := range n.Parties {
				got = append(got, p.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("parties %q, want %q", got, tc.want)
			}
		})
	}
}

func TestInnerAnd(t *testing.T) {
	for _, c := range []struct {
		prev, rest string
		want       bool
	}{
		{"Savings", " Loan Association, a federally chartered", true},
		{"Procter", " Gamble Company (\"P&G\")", true},
		{"Association", " Freeze Tag, Inc. (\"Licensee\")", false}, // a kind of organisation ends a name
		{"Inc.", " Beta Holdings LLC", false},                      // a legal form ends a name
		{"Acme", " Beta (the \"Parties\")", false},                 // one name word after it: two names
		{"Johnson", " Johnson", false},
	} {
		if got := innerAnd(c.prev, c.rest); got != c.want {
			t.Errorf("innerAnd(%q, %q) = %v, want %v", c.prev, c.rest, got, c.want)
		}
	}
}

func TestFirmNames(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"surnames closed by &", "Keefe, Bruyette & Woods, Inc. (the \"Agent\")", "Keefe, Bruyette & Woods, Inc."},
		{"four surnames", "Skadden, Arps, Slate, Meagher & Flom LLP, counsel", "Skadden, Arps, Slate, Meagher & Flom LLP"},
		{"a description after the comma", "Charles Webb & Company, a Division of Keefe, Bruyette & Woods, Inc.", "Charles Webb & Company"},
		{"a legal form after the comma", "Acme Corp., Wexford & Sons", "Acme Corp."},
		{"a place after the comma", "Acme Widgets, Columbus, Ohio 43017", "Acme Widgets"},
	} {
		if got, _ := nameRun(c.text); got != c.want {
			t.Errorf("%s: nameRun(%q) = %q, want %q", c.name, c.text, got, c.want)
		}
	}
}

func TestDescribes(t *testing.T) {
	for _, c := range []struct {
		prefix string
		want   bool
	}{
		{" with its deposit accounts insured by the ", true},
		{" administered by the ", true},
		{", the deposit accounts of which are insured by the ", true},
		{", a subsidiary whose parent is ", true},
		{", and ", false},
		{", a company limited by guarantee, registered in England, and ", false},       // the party before's description, then "and"
		{", whose principal place of business is 1 Elm Street, Dover and ", false},     // the same
		{" with its deposit accounts insured by the Fund; administered by the ", true}, // after the semicolon
		{", a company limited by guarantee, and its deposits insured by the ", true},   // after the "and"
		{" and its Reseller, ", false},
		{" This Agreement is made and entered into as of June 1 by ", false}, // the agreement's own making
		{" This Agreement, executed by ", false},
	} {
		if got := Describes(c.prefix); got != c.want {
			t.Errorf("Describes(%q) = %v, want %v", c.prefix, got, c.want)
		}
	}
}

// A party the preamble names by reference to a schedule ("the persons
// listed on Schedule A (collectively, the "Investor Group")") is named by
// the signature block, which adds its members; a preamble that names every
// party does not take the signature block's names.
func TestPartiesListedElsewhere(t *testing.T) {
	body := strings.Repeat("1. The parties shall perform their obligations under this agreement in good faith.\n\n", 60)
	sig := "IN WITNESS WHEREOF the parties have signed.\n\nHARBOR LANE HOLDINGS, INC.\nBy: ____\n\nCEDAR PARTNERS I, LLC\nBy: ____\n"
	listed := "COOPERATION AGREEMENT\n\nThis Cooperation Agreement is by and among the persons and entities listed on Schedule A (collectively, the \"Investor Group\"), " +
		"Harbor Lane Holdings, Inc. (the \"Company\") and Pat Doe (the \"Designee\").\n\nWHEREAS, the parties wish to cooperate.\n\n" + body + sig
	named := "COOPERATION AGREEMENT\n\nThis Cooperation Agreement is by and among Harbor Lane Holdings, Inc. (the \"Company\") and Pat Doe (the \"Designee\").\n\n" +
		"WHEREAS, the parties wish to cooperate.\n\n" + body + sig
	for _, c := range []struct {
		text string
		want []string
	}{
		{listed, []string{"Harbor Lane Holdings, Inc.", "Pat Doe", "CEDAR PARTNERS I, LLC"}},
		{named, []string{"Harbor Lane Holdings, Inc.", "Pat Doe"}},
	} {
		var got []string
		for _, p := range Learn(c.text, "x.txt").Parties {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("parties %q, want %q", got, c.want)
		}
	}
}
