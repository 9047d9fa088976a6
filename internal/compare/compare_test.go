package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

const form = `MASTER SERVICES AGREEMENT

This Agreement is made between Alpha Corp. ("Customer") and Beta LLC ("Supplier").

1. Services. Supplier shall provide the services described in each statement of work with reasonable skill and care.

2. Fees. Customer shall pay each undisputed invoice within thirty (30) days of receipt.

Supplier may suspend the services if any invoice remains unpaid for sixty (60) days after written notice.

3. Confidentiality. Each party shall keep the other party's confidential information secret and use it only for this Agreement.

4. Term. This Agreement starts on the Effective Date and continues for two (2) years unless terminated earlier.

5. Governing Law. This Agreement is governed by the laws of the State of New York.

IN WITNESS WHEREOF the parties have signed this Agreement.

By: ____________ Name: Title:`

func side(text string) Side {
	d := &document.Document{Text: text}
	return Side{Doc: d, Tree: clause.Parse(d)}
}

func compareTexts(t *testing.T, template, contract string) Result {
	t.Helper()
	return Compare(side(contract), side(template), Options{})
}

const nonSolicit = "Neither party shall, during the term of this Agreement and for twelve (12) months after it ends, solicit for employment any employee of the other party."

// TestAddedParagraphInsideAClause: an unnumbered clause inserted between
// two paragraphs is reported as added where it sits, under the clause the
// tree reads it into, and the clause around it is not reported changed.
func TestAddedParagraphInsideAClause(t *testing.T) {
	for _, where := range []string{"\n\nSupplier may suspend", "\n\nIN WITNESS WHEREOF", "\n\n3. Confidentiality"} {
		contract := strings.Replace(form, where, "\n\n"+nonSolicit+where, 1)
		r := compareTexts(t, form, contract)
		if len(r.Added) != 1 || len(r.Changed) != 0 || len(r.Missing) != 0 {
			t.Fatalf("before %q: added %+v changed %+v missing %+v", where, r.Added, r.Changed, r.Missing)
		}
		a := r.Added[0]
		if a.Text != nonSolicit || side(contract).Doc.Slice(a.Span) != nonSolicit {
			t.Errorf("before %q: added %q at %v", where, a.Text, a.Span)
		}
	}
	// A numbered one, with the sections after it renumbered: added, and no
	// clause changed.
	contract := form
	for n := 5; n >= 3; n-- {
		contract = strings.Replace(contract, "\n\n"+itoa(n)+". ", "\n\n"+itoa(n+1)+". ", 1)
	}
	contract = strings.Replace(contract, "\n\n4. Confidentiality", "\n\n3. Non-Solicitation. "+nonSolicit+"\n\n4. Confidentiality", 1)
	r := compareTexts(t, form, contract)
	if len(r.Added) != 1 || len(r.Changed) != 0 || len(r.Missing) != 0 || !strings.Contains(r.Added[0].Text, nonSolicit) {
		t.Fatalf("numbered and renumbered: added %+v changed %+v missing %+v", r.Added, r.Changed, r.Missing)
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// TestMissingParagraph: a paragraph deleted from inside a clause is missing.
func TestMissingParagraph(t *testing.T) {
	para := "Supplier may suspend the services if any invoice remains unpaid for sixty (60) days after written notice."
	r := compareTexts(t, form, strings.Replace(form, para+"\n\n", "", 1))
	if len(r.Missing) != 1 || r.Missing[0].Text != para || !r.Missing[0].Paragraphs || len(r.Changed)+len(r.Added) != 0 {
		t.Fatalf("missing %+v changed %+v added %+v", r.Missing, r.Changed, r.Added)
	}
}

// TestReversalsAreSubstantive: one word that turns a clause round is a
// substantive change; a change of wording is not.
func TestReversalsAreSubstantive(t *testing.T) {
	cases := []struct {
		from, to string
		want     []string
	}{
		{"Supplier shall provide", "Supplier shall not provide", []string{"inserts “not”"}},
		{"Supplier may suspend", "Supplier shall suspend", []string{"“may” → “shall”"}},
		{"suspend the services if any invoice", "suspend the services if no invoice", []string{"“any” → “no”"}},
		{"within thirty (30) days", "within thirty (60) days", []string{"“30” → “60”"}},
		{"Each party shall keep", "Each party shall never fail to keep", []string{"inserts “never”"}},
		{"with reasonable skill and care", "with reasonable skill or care", []string{"“and” → “or”"}},
		{"with reasonable skill and care", "with due skill and care", nil},
	}
	for _, c := range cases {
		r := compareTexts(t, form, strings.Replace(form, c.from, c.to, 1))
		if len(r.Changed) != 1 {
			t.Fatalf("%q → %q: changed %+v", c.from, c.to, r.Changed)
		}
		ch := r.Changed[0]
		if !slices.Equal(ch.Substantive, c.want) {
			t.Errorf("%q → %q: substantive %q, want %q", c.from, c.to, ch.Substantive, c.want)
		}
		if ch.Similarity >= 1 {
			t.Errorf("%q → %q: similarity %v for a changed clause", c.from, c.to, ch.Similarity)
		}
	}
}

func TestMeaning(t *testing.T) {
	for _, c := range []struct {
		del, ins []string
		want     []string
	}{
		{nil, []string{"not"}, []string{"inserts “not”"}},
		{[]string{"Shall"}, []string{"may"}, []string{"“shall” → “may”"}},
		{[]string{"shall"}, []string{"must"}, nil},            // the same force
		{[]string{"not", "the"}, []string{"the", "not"}, nil}, // moved within the clause
		{[]string{"reasonable"}, []string{"best"}, nil},
		{[]string{"exclusive"}, []string{"nonexclusive"}, []string{"“exclusive” → “nonexclusive”"}},
	} {
		if got := Meaning(c.del, c.ins); !slices.Equal(got, c.want) {
			t.Errorf("Meaning(%q, %q) = %q, want %q", c.del, c.ins, got, c.want)
		}
	}
}

// TestSlideKeepsTheScript: sliding an insertion to a paragraph boundary
// keeps a correct edit script.
func TestSlideKeepsTheScript(t *testing.T) {
	r := compareTexts(t, "A clause. It ends here.\n\nNext clause. It ends.", "A clause. It ends here.\n\nNew words that form a new clause. It ends here.\n\nNext clause. It ends.")
	if len(r.Added) != 1 || r.Added[0].Text != "New words that form a new clause. It ends here." {
		t.Fatalf("added %+v changed %+v", r.Added, r.Changed)
	}
}
