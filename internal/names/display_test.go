package names

import (
	"strings"
	"testing"
)

func TestDisplay(t *testing.T) {
	text := "DISTRIBUTOR AGREEMENT\n\nThis Distributor Agreement is made on the 31st day of March, 2000 by and between AIRSPAN NETWORKS, INC., a Washington corporation (\"Airspan\"), and GLS LLC, a Delaware limited liability company (\"GLS\").\n\n1. Appointment. Airspan appoints GLS as its distributor.\n"
	n := Learn(text, "01 Corporate/1.1 Supply Agreement.rtf")
	got := Display(n, "01 Corporate/1.1 Supply Agreement.rtf")
	want := "Distributor Agreement — Airspan Networks / GLS, 31 March 2000"
	if got != want {
		t.Errorf("Display = %q, want %q (names %+v)", got, want, n)
	}
	// The index keeps the names as All lists them: the same display.
	if again := Display(FromList(n.All(), "01 Corporate/1.1 Supply Agreement.rtf"), "01 Corporate/1.1 Supply Agreement.rtf"); again != got {
		t.Errorf("Display(FromList(All)) = %q, want %q", again, got)
	}
	// Nothing learnt: the file name without its folder and extension.
	if got := Display(Learn("", "deals/Side letter.pdf"), "deals/Side letter.pdf"); got != "Side letter" {
		t.Errorf("Display of nothing = %q", got)
	}
	// A banner before the title is not the title.
	n = Names{Title: "Confidential treatment has been requested with respect to portions of this agreement", Type: "supply agreement"}
	if got := Display(n, "x.txt"); got != "Supply Agreement" {
		t.Errorf("banner title: %q", got)
	}
}

func TestDisplayDate(t *testing.T) {
	for in, want := range map[string]string{
		"the 31st day of March, 2000": "31 March 2000",
		"March 31, 2000":              "31 March 2000",
		"2000-03-31":                  "31 March 2000",
		"31.03.2000":                  "31 March 2000",
		"June 2006":                   "June 2006",
		"as of 2019":                  "2019",
		"":                            "",
		"the 2nd day of May 1999":     "2 May 1999",
	} {
		if got := DisplayDate(in); got != want {
			t.Errorf("DisplayDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// Parties given as a numbered list ("between: (1) A …; and (2) B …") are
// read, and the display names them.
func TestNumberedParties(t *testing.T) {
	text := "Supply Agreement\n\nThis Supply Agreement (the “Agreement”) is made on 3 March 2025 (the “Effective Date”) between:\n\n(1) Ferrand & Østergaard Components A/S, a company incorporated in Denmark whose registered office is at Industrivej 41, 8600 Silkeborg, Denmark (the “Supplier”); and\n\n(2) Calloway Kitchen Appliances GmbH, a company incorporated in Germany whose registered office is at Hohenzollernstraße 118, Germany (the “Buyer”),\n\neach a “Party” and together the “Parties”.\n\n1. Definitions\n"
	n := Learn(text, "supply-agreement.docx")
	got := Display(n, "supply-agreement.docx")
	want := "Supply Agreement — Ferrand & Østergaard Components / Calloway Kitchen Appliances, 3 March 2025"
	if got != want {
		t.Errorf("Display = %q, want %q (parties %+v)", got, want, n.Parties)
	}
}

// A title line's run-on is no part of the title: a reference number, a
// date, the parties, a banner before it, and words in mixed case around a
// title in capitals; a file name that names a kind of document gives it
// when nothing else does.
func TestDisplayTitleProper(t *testing.T) {
	for title, want := range map[string]string{
		"SUPPLY CONTRACT Contract No. 7":                               "Supply Contract",
		"GLOBAL MAINTENANCE AGREEMENT Contract No. DS/CS-3957/14":      "Global Maintenance Agreement",
		"Execution Copy STRATEGIC ALLIANCE AGREEMENT":                  "Strategic Alliance Agreement",
		"FORM OF FRANCHISE AGREEMENT Location of the Premises":         "Form of Franchise Agreement",
		"Distributor Agreement Between Ingram Micro and Netgear":       "Distributor Agreement",
		"Reseller Agreement Dated September 14, 2005":                  "Reseller Agreement",
		"May 04, 2017 Strategic Alliance Agreement This Agreement":     "Strategic Alliance Agreement",
		"Execution Version Agreement and Plan of Merger":               "Agreement and Plan of Merger",
		"Cologuard® Promotion Agreement by and Between Exact Sciences": "Cologuard® Promotion Agreement",
	} {
		if got := Display(Names{Title: title}, "x.txt"); got != want {
			t.Errorf("title %q: Display = %q, want %q", title, got, want)
		}
	}
	if got := Display(Names{}, "ACCURAYINC_09_01_2010-EX-10.31-DISTRIBUTOR AGREEMENT.txt"); got != "Distributor Agreement" {
		t.Errorf("file name: Display = %q", got)
	}
	if got := Display(Names{Title: "THIS AGREEMENT"}, "Side letter.pdf"); got != "Side letter" {
		t.Errorf("\"This Agreement\": Display = %q", got)
	}
}

// TestOneSpacedLikeFields checks oneSpaced against what it stands for,
// strings.Join(strings.Fields(s), " "), on texts of spaces, other white
// space (ASCII and not) and words.
func TestOneSpacedLikeFields(t *testing.T) {
	pieces := []string{" ", "  ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u0085", "\u2003", "\u3000", "a", "Inc.", "é", "\u200b"}
	check := func(s string) {
		if got, want := oneSpaced(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneSpaced(%q) = %q, want %q", s, got, want)
		}
	}
	check("")
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		check(s)
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			walk(s+p, depth-1)
		}
	}
	walk("", 4)
}

func FuzzOneSpaced(f *testing.F) {
	f.Add("Acme  Widgets,\tInc. ")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneSpaced(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneSpaced(%q) = %q, want %q", s, got, want)
		}
	})
}
