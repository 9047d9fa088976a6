package names

import "testing"

// TestPreambleDate checks that a contract is named by the date it gives
// itself: not a record date written in its first section, not another
// document's date; a blank date gives its year only; a date a filing's
// underline splits is read whole.
func TestPreambleDate(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		date       string
		year       int
	}{
		{"a blank date line, a record date in the first section",
			"ACME FINANCIAL CORPORATION\n\nAGENCY AGREEMENT\n\n___________ __, 2000\n\nKeefe & Co.\n\nLadies and Gentlemen:\n\nAcme Financial Corporation (the \"Company\") hereby confirms its agreement with Keefe & Co. (the \"Agent\"), as follows:\n\nSection 1. The Offering. The Company will offer its shares to depositors with account balances of $50.00 or more as of September 30, 1998 (\"Eligible Account Holders\").\n",
			"", 2000},
		{"a title's date line that lost its blank",
			"ATHENS BANCORP up to Shares COMMON SHARES AGENCY AGREEMENT   , 2009\n\nLadies and Gentlemen:\n\nAthens Bancorp (the \"Company\") hereby confirms its agreement with Keefe (the \"Agent\") as follows:\n\nSection 1. The Offering. Depositors with Qualifying Deposits as of March 31, 2008 (\"Eligible Account Holders\") may subscribe.\n",
			"", 2009},
		{"a date the underline splits",
			"STRATEGIC ALLIANCE AGREEMENT\n\nTHIS STRATEGIC ALLIANCE AGREEMENT (this \"Agreement\") is made as of 31 December,                ---------              1996, between NORTHERN TELECOM LIMITED (\"NTL\") and ENTRUST TECHNOLOGIES INC. (\"ETI\").\n",
			"31 December, 1996", 1996},
		{"the underline on a line of its own",
			"THIS AGREEMENT (this \"Agreement\") is made as of 31 December,\n ---------\n1996, between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\").\n",
			"31 December, 1996", 1996},
		{"a day typed as dashes: blank",
			"THIS AGREEMENT (this \"Agreement\") is made as of December ---------, 1996, between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\").\n",
			"", 1996},
		{"a date in the preamble's second sentence",
			"RESELLER AGREEMENT\n\nThis Distribution Agreement (the \"Agreement\") is entered into by and between Acme L.L.C. (\"Acme\") and Beta, Inc. (\"Beta\"). This Agreement is effective as of August 1, 2004 and shall terminate on July 31, 2009.\n\n1. PURPOSE\n",
			"August 1, 2004", 2004},
		{"another document's date, then the contract's own",
			"AMENDMENT\n\nPursuant to the License Agreement dated June 1, 2010 between Acme Inc. and Beta LLC, this Amendment (the \"Amendment\") is made as of July 1, 2011.\n",
			"July 1, 2011", 2011},
		{"a preamble numbered as the first section",
			"1. Hosting Agreement. This Agreement is entered into as of May 5, 2000 by Acme Corporation (\"Acme\") and Beta Corporation (\"Customer\").\n\n2. Services. Acme provides the services from June 1, 2000.\n",
			"May 5, 2000", 2000},
		{"dates in the recitals only",
			"SUPPLY AGREEMENT\n\nThis Supply Agreement is made by and between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\").\n\nWHEREAS, Acme and Beta entered into a letter of intent on March 3, 2015;\n",
			"", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, y := preambleDate(tc.text)
			if d != tc.date || y != tc.year {
				t.Errorf("preambleDate = %q, %d; want %q, %d", d, y, tc.date, tc.year)
			}
		})
	}
}

// TestBlankDates checks the blank dates read and those that are not: a
// date written whole whose parts an underline splits is no blank.
func TestBlankDates(t *testing.T) {
	for _, tc := range []struct {
		text        string
		month, year string
		n           int
	}{
		{"dated as of ____________, 2009", "", "2009", 1},
		{"made this ___ day of ________, 2009", "", "2009", 1},
		{"entered into on March ___, 2009", "March", "2009", 1},
		{"AGENCY AGREEMENT , 2009", "", "2009", 1},
		{"made as of December ---------, 1996", "December", "1996", 1},
		{"dated as of ---------, 1996", "", "1996", 1},
		{"made as of 31 December,     ---------     1996", "", "", 0},
		{"ARTICLE I\n ---------\n1996 results", "", "", 0},
		{"[***] 2009", "", "", 0},
	} {
		got := BlankDates(tc.text)
		if len(got) != tc.n {
			t.Errorf("BlankDates(%q) = %+v, want %d", tc.text, got, tc.n)
			continue
		}
		if tc.n > 0 && (got[0].Month != tc.month || got[0].Year != tc.year) {
			t.Errorf("BlankDates(%q) = %+v, want %q %q", tc.text, got[0], tc.month, tc.year)
		}
	}
}

// TestPartiesAreNamesNotLegends checks that a filing's legend split at its
// "and" is no party while the parties of the title block and preamble are
// kept, that a party introduced in a recital running over lines is no
// party, and that the display lists a party once.
func TestPartiesAreNamesNotLegends(t *testing.T) {
	legend := "[***] INDICATES MATERIAL THAT HAS BEEN OMITTED AND FOR WHICH CONFIDENTIAL TREATMENT HAS BEEN REQUESTED. ALL SUCH OMITTED MATERIAL HAS BEEN FILED WITH THE SECURITIES AND EXCHANGE COMMISSION."
	text := "Exhibit 10.3\n\n" + legend + "\n\nManufacturing Agreement\n\nBetween\n\nAntares Pharma, Inc.\n\nand\n\nAMAG Pharmaceuticals, Inc.\n\n\n\n" + legend + "\n\nMANUFACTURING AGREEMENT\n\nThis Manufacturing Agreement (\"Agreement\") is made and entered into as of the 20th day of March, 2018 by and between Antares Pharma, Inc., a Delaware corporation (\"Antares\"), and AMAG Pharmaceuticals, Inc., a Delaware corporation (\"AMAG\").\n\n1. Supply.\n\n" + legend + "\n\nIN WITNESS WHEREOF\n\nANTARES PHARMA, INC.\n\nAMAG PHARMACEUTICALS, INC.\n\n" + legend + "\n"
	n := Learn(text, "m.txt")
	if got, want := Display(n, "m.txt"), "Manufacturing Agreement — Antares Pharma / AMAG Pharmaceuticals, 20 March 2018"; got != want {
		t.Errorf("Display = %q, want %q (parties %+v)", got, want, n.Parties)
	}
	for _, name := range []string{"FOR WHICH CONFIDENTIAL TREATMENT HAS BEEN REQUESTED", "Notices which have been given"} {
		if plausible(name) {
			t.Errorf("%q taken for a party's name", name)
		}
	}
	for _, name := range []string{"Bank of America, N.A.", "Which Wich Franchise, Inc.", "Is Group Limited", "Been There Ltd."} {
		if !plausible(name) {
			t.Errorf("%q refused as a party's name", name)
		}
	}

	recital := "STRATEGIC ALLIANCE AGREEMENT\nTHIS STRATEGIC ALLIANCE AGREEMENT (this \"Agreement\") is made as of 31 December,\n ---------\n1996, between NORTHERN TELECOM LIMITED, a Canadian corporation (\"NTL\"), and\n ---\nENTRUST TECHNOLOGIES INC., a Maryland corporation (\"ETI\").\n ---\nWHEREAS, pursuant to an asset transfer agreement between NTL and Entrust\nTechnologies Limited of even date (the \"NTL Transfer Agreement\") and an asset\n ----------------------\ntransfer agreement between Northern Telecom Inc. and ETI of even date, the\nEntrust Technology has been transferred to ETI;\nNOW THEREFORE, NTL and ETI agree as follows:\n"
	n = Learn(recital, "s.pdf")
	if got, want := Display(n, "s.pdf"), "Strategic Alliance Agreement — Northern Telecom Limited / Entrust Technologies, 31 December 1996"; got != want {
		t.Errorf("Display = %q, want %q (parties %+v)", got, want, n.Parties)
	}

	// One party under two legal forms is listed once; two parties that
	// share a first word are both listed.
	n = Names{Title: "Strategic Alliance Agreement", Parties: []Party{{Name: "Northern Telecom Limited"}, {Name: "Entrust Technologies Inc.", Core: "Entrust Technologies"}, {Name: "Northern Telecom Inc.", Core: "Northern Telecom"}}}
	if got, want := Display(n, "s.pdf"), "Strategic Alliance Agreement — Northern Telecom Limited / Entrust Technologies"; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
	n = Names{Title: "Services Agreement", Parties: []Party{{Name: "Google LLC", Core: "Google"}, {Name: "Google Ireland Limited"}}}
	if got, want := Display(n, "g.pdf"), "Services Agreement — Google / Google Ireland Limited"; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
}

// TestDateAfterTitleLine checks that a date under a title line is the
// contract's own.
func TestDateAfterTitleLine(t *testing.T) {
	if d, y := preambleDate("AGREEMENT\ndated as of June 1, 2010\nbetween Acme Inc. and Beta LLC\n"); d != "June 1, 2010" || y != 2010 {
		t.Errorf("preambleDate = %q, %d", d, y)
	}
}
