package names

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLearnParties(t *testing.T) {
	tests := []struct {
		name, text string
		parties    []string   // full names, in order
		short      [][]string // short names per party
		roles      [][]string
	}{
		{
			name:    "between with definitions",
			text:    "SUPPLY AGREEMENT\n\nThis Supply Agreement (\"Agreement\") is made as of March 3, 2019 by and between Acme Widgets, Inc., a Delaware corporation (\"Acme\"), and Borealis Foods LLC, a Texas limited liability company (\"Supplier\").\n\n1. Supply.",
			parties: []string{"Acme Widgets, Inc.", "Borealis Foods LLC"},
			short:   [][]string{{"Acme"}, nil},
			roles:   [][]string{nil, {"Supplier"}},
		},
		{
			name:    "cover block",
			text:    "MASTER SERVICES AGREEMENT\n\nBETWEEN\n\nZENITH LABS LTD.\n\n- and -\n\nORION DATA CORP.\n\nDATED AS OF 1 JUNE 2020\n\n1. DEFINITIONS",
			parties: []string{"ZENITH LABS LTD.", "ORION DATA CORP."},
		},
		{
			name:    "label line after a role",
			text:    "RESELLER AGREEMENT\n\nThis Reseller Agreement is made by and between Quill Partners, LLC (\"Reseller\") and the company named below (\"Company\"):\n\nCompany: Curo Financial Technologies Corp. Telephone: 555-0100\n\n1. Definitions.",
			parties: []string{"Quill Partners, LLC", "Curo Financial Technologies Corp."},
			roles:   [][]string{{"Reseller"}, nil},
		},
		{
			name:    "no between, two definitions",
			text:    "CONSULTING AGREEMENT\n\nHelix Biotech, Inc., with a place of business at 1 Main Street (\"Helix\") and Quarry B.V. having an address at 2 Canal Road (\"Consultant\") agree to all terms of this Consulting Agreement.\n\n1. Services.",
			parties: []string{"Helix Biotech, Inc.", "Quarry B.V."},
			short:   [][]string{{"Helix"}, nil},
		},
		{
			name:    "an address is not a party",
			text:    "LEASE\n\nThis lease is between Northwind Traders Ltd. (\"Landlord\") with offices in New York and Boston.\n\n1. Premises.",
			parties: []string{"Northwind Traders Ltd."},
		},
		{
			name:    "camel-case initials",
			text:    "COLLABORATION AGREEMENT\n\nThis Agreement is entered into by FuelCell Energy, Inc. (\"FCE\") and PrimeCall, Inc. (\"PrimeCall\").",
			parties: []string{"FuelCell Energy, Inc.", "PrimeCall, Inc."},
			short:   [][]string{{"FCE"}, {"PrimeCall"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := Learn(tc.text, "contract.txt")
			var got []string
			for _, p := range n.Parties {
				got = append(got, p.Name)
			}
			if !slices.Equal(got, tc.parties) {
				t.Fatalf("parties %q, want %q", got, tc.parties)
			}
			for i, want := range tc.short {
				if !slices.Equal(n.Parties[i].Short, want) {
					t.Errorf("%s: short names %q, want %q", got[i], n.Parties[i].Short, want)
				}
			}
			for i, want := range tc.roles {
				if !slices.Equal(n.Parties[i].Roles, want) {
					t.Errorf("%s: roles %q, want %q", got[i], n.Parties[i].Roles, want)
				}
			}
		})
	}
}

func TestLearnTitleDateFile(t *testing.T) {
	text := "Exhibit 10.7\n\nMASTER SUPPLY AGREEMENT\n\nTHIS MASTER SUPPLY AGREEMENT is made as of 31 October 2019 by and between Premier Nutrition Company, LLC (\"PNC\") and Fonterra (USA) Inc. (\"Fonterra\")."
	n := Learn(text, "deals/fonterra/Supply Agreement 2019.pdf")
	if n.Title != "MASTER SUPPLY AGREEMENT" || n.Type != "master supply agreement" {
		t.Errorf("title %q type %q", n.Title, n.Type)
	}
	if n.Date != "31 October 2019" || n.Year != 2019 {
		t.Errorf("date %q year %d", n.Date, n.Year)
	}
	if n.File != "Supply Agreement 2019" || n.Folder != "deals/fonterra" {
		t.Errorf("file %q folder %q", n.File, n.Folder)
	}
	all := map[string]Kind{}
	for _, nm := range n.All() {
		all[nm.Text] = nm.Kind
	}
	for text, kind := range map[string]Kind{
		"Premier Nutrition Company, LLC": KindParty, "PNC": KindShort, "Premier Nutrition Company": KindForm,
		"Premier": KindLead, "Fonterra (USA) Inc.": KindParty, "Fonterra": KindShort,
		"supply agreement": KindType, "2019": KindYear, "deals": KindFolder, "Supply Agreement 2019": KindFile,
	} {
		if all[text] != kind {
			t.Errorf("%q: kind %v, want %v (all: %v)", text, all[text], kind, all)
		}
	}
	// A title that only says the type names a kind, not a contract.
	if _, ok := all["MASTER SUPPLY AGREEMENT"]; ok {
		t.Errorf("the title that is only a type is a name: %v", all)
	}
}

func TestDerived(t *testing.T) {
	tests := []struct {
		short, full string
		want        bool
	}{
		{"Bravatek", "Bravatek Solutions, Inc.", true},
		{"PrimeCall", "Prime Call, Inc.", true},
		{"FCE", "FuelCell Energy, Inc.", true},
		{"PNC", "Premier Nutrition Company, LLC", true},
		{"eDiets", "EDIETS.COM, INC.", true},
		{"Company", "Birch First Global Investments Inc.", false},
		{"Marketing Affiliate", "Mount Kowledge Holdings Inc.", false},
		{"MA", "Mount Kowledge Holdings Inc.", false},
	}
	for _, tc := range tests {
		if got := Derived(tc.short, tc.full); got != tc.want {
			t.Errorf("Derived(%q, %q) = %v, want %v", tc.short, tc.full, got, tc.want)
		}
	}
}

// FuzzLearn checks that learning names never panics on hostile text and
// that every party name it reads is made of words of the text.
func FuzzLearn(f *testing.F) {
	f.Add("This Agreement is made between Acme, Inc. (\"Acme\") and Beta LLC (\"Beta\").", "a/b.txt")
	f.Add("BETWEEN\n\nX\n\n&\n\n", "")
	f.Add("Party A: \xff\xfe Ltd.\nBy: ", "x")
	f.Add("between ((((\"\"\"\" and ;;;; (\"", "")
	f.Fuzz(func(t *testing.T, text, name string) {
		n := Learn(text, name)
		key := " " + Key(text) + " "
		for _, p := range n.Parties {
			for _, w := range strings.Fields(Key(p.Name)) {
				if !strings.Contains(key, " "+w+" ") && !strings.Contains(key, w) {
					t.Fatalf("party %q: word %q is not in the text", p.Name, w)
				}
			}
		}
		_ = n.All()
	})
}

// TestTypeNotInsideName: the kind of a contract and its shorter endings do
// not start inside a party's name that the title writes before the kind.
func TestTypeNotInsideName(t *testing.T) {
	tests := []struct {
		text, typ string
		types     []string // every type variant, in order
	}{
		// punctuation ends the name before the kind
		{"TAILSPIN BAKERIES, INC. FRANCHISE AGREEMENT\n\nThis agreement is made by and between Tailspin Bakeries, Inc., a Delaware corporation (\"Tailspin\"), and Lumen Atlas LLC (\"Franchisee\").",
			"franchise agreement", []string{"franchise agreement"}},
		// no punctuation: the words that continue the party's name go
		{"NORTHWIND GLOBAL TRADERS LLC DISTRIBUTION AGREEMENT\n\nThis agreement is made by and between Northwind Global Traders LLC (\"Northwind\") and Quarry B.V. (\"Distributor\").",
			"distribution agreement", []string{"distribution agreement"}},
		// the title opens with the name: the type keeps it, its endings
		// do not start inside it
		{"WINGTIP TOYS SUPPLY AGREEMENT\n\nThis agreement is made by and between Wingtip Toys Ltd. (\"Wingtip\") and Quarry B.V. (\"Supplier\").",
			"wingtip toys supply agreement", []string{"wingtip toys supply agreement", "supply agreement"}},
		// a kind word that is also a word of the name keeps its kind
		{"EXHIBIT 3 ACME FRANCHISE AGREEMENT\n\nThis agreement is made by and between Quarry B.V. (\"Quarry\") and Acme Franchise Corp. (\"Franchisee\").",
			"acme franchise agreement", []string{"acme franchise agreement", "franchise agreement"}},
	}
	for _, tc := range tests {
		n := Learn(tc.text, "contract.txt")
		var types []string
		for _, nm := range n.All() {
			if nm.Kind == KindType {
				types = append(types, nm.Text)
			}
		}
		if n.Type != tc.typ || !slices.Equal(types, tc.types) {
			t.Errorf("%.40q: type %q, types %q; want %q, %q", tc.text, n.Type, types, tc.typ, tc.types)
		}
	}
}

// TestTitleWithoutContentsHeading: a contents heading that shares the title's
// line is not part of the title.
func TestTitleWithoutContentsHeading(t *testing.T) {
	for head, want := range map[string]string{
		"FRANCHISE AGREEMENT                TABLE OF CONTENTS\n\n1. Grant 1\n": "FRANCHISE AGREEMENT",
		"Exhibit 10.1\n\nTable of Contents\n\nNetwork Services Agreement\n":    "Network Services Agreement",
		"Mobility Network Agreement TABLE OF CONTENTS Page 1.1 Scope 1\n":      "Mobility Network Agreement",
		// a sentence that mentions the contents is left whole
		"The table of contents of this Agreement is for convenience only.\n": "The table of contents of this Agreement is for convenience only.",
	} {
		if got := Title(head); got != want {
			t.Errorf("Title(%.40q) = %q, want %q", head, got, want)
		}
		if n := Learn(head, "x.txt"); strings.Contains(n.Title, "TABLE OF CONTENTS") || strings.Contains(n.Title, "Table of Contents") {
			t.Errorf("Learn(%.40q).Title = %q", head, n.Title)
		}
	}
}

// TestPretzelTimeNames learns the names of the CUAD franchise agreement that
// opens with 14 KB of contents (skipped without ../shared/data): its type is
// the kind, with no variant cut from its franchisor's name.
func TestPretzelTimeNames(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "MRSFIELDSORIGINALCOOKIESINC_01_29_1998-EX-10-FRANCHISE AGREEMENT.txt"))
	if err != nil {
		t.Skip("../shared/data not present")
	}
	n := Learn(string(b), "MRSFIELDSORIGINALCOOKIESINC_01_29_1998-EX-10-FRANCHISE AGREEMENT.txt")
	if n.Title != "PRETZEL TIME, INC. FRANCHISE AGREEMENT" || n.Type != "franchise agreement" {
		t.Errorf("title %q type %q", n.Title, n.Type)
	}
	for _, nm := range n.All() {
		if nm.Kind == KindType && nm.Text != "franchise agreement" {
			t.Errorf("type variant %q", nm.Text)
		}
	}
}

// What is not a party: a cover's table of contents, another agreement's
// parties named in a recital, what a name runs on into past its capitals
// or its legal form, a signatory's title above a signature.
func TestNotParties(t *testing.T) {
	// The operative clauses: the signature block is read from the end.
	body := strings.Repeat("1. The parties shall perform their obligations under this agreement in good faith.\n\n", 60)
	cover := "AGREEMENT AND PLAN OF MERGER by and among ACME HOLDINGS, INC., and BETA MERGER SUB, INC. December 31, 2020\n\n\n" +
		"TABLE OF CONTENTS Page ARTICLE 1 DEFINITIONS 1 Section 2.09 Termination and Payment of Termination Fee 23 ARTICLE 4 REPRESENTATIONS AND WARRANTIES OF THE COMPANY 24\n\n" +
		"This Agreement and Plan of Merger is entered into as of December 31, 2020 by and among Acme Holdings, Inc., a Delaware corporation (the \"Company\"), and Beta Merger Sub, Inc. (\"Merger Sub\").\n\n" +
		"WHEREAS, the Company and Gamma Capital LLC entered into an agreement between Gamma Capital LLC and Delta Partners LLC dated May 1, 2019;\n" + body
	recital := "SUPPLY AGREEMENT\n\nThis Supply Agreement is made by and between Pfizer Inc., a Delaware corporation (\"Pfizer\"), and Omega Labs Corp. Suite 200, 5 Main Street (\"Omega\").\n\n" +
		"WHEREAS, pursuant to an agreement entered into between Trip shareholders and Azul S.A., Trip became a subsidiary;\n\n" + body
	for _, c := range []struct {
		text string
		want []string
	}{
		{cover, []string{"ACME HOLDINGS, INC.", "BETA MERGER SUB, INC."}},
		{recital, []string{"Pfizer Inc.", "Omega Labs Corp."}},
	} {
		n := Learn(c.text, "x.txt")
		var got []string
		for _, p := range n.Parties {
			got = append(got, p.Name)
		}
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("parties %q, want %q", got, c.want)
		}
	}
	sig := "AGREEMENT\n\nThe parties agree as follows.\n\n1. Term. One year.\n\nIN WITNESS WHEREOF the parties have signed.\n\nGoverning Law\nBy: ____\n\nChief Executive Officer BRG MANAGER, LLC\nBy: ____\n"
	n := Learn(sig, "x.txt")
	if len(n.Parties) != 1 || n.Parties[0].Name != "BRG MANAGER, LLC" {
		t.Errorf("signature parties %+v", n.Parties)
	}
}
