package family

import (
	"fmt"
	"strings"
	"testing"
)

func contract(parties [2]string, clauses int, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between %s (\"%s\") and %s (\"%s\").\n\n", parties[0], first(parties[0]), parties[1], first(parties[1]))
	for i := 1; i <= clauses; i++ {
		fmt.Fprintf(&b, "%d. %s shall deliver the Products of lot %d to %s within %d days of each order, and %s shall pay the price stated in Schedule %d.\n\n",
			i, first(parties[0]), i, first(parties[1]), 10+i, first(parties[1]), i)
	}
	b.WriteString(extra)
	return b.String()
}

func first(s string) string { return strings.Fields(s)[0] }

func TestSameContract(t *testing.T) {
	orig := contract([2]string{"Orion Analytics Ltd", "Vega Robotics Inc"}, 30, "")
	reflowed := strings.ReplaceAll(strings.ReplaceAll(orig, "\n\n", "\n"), " shall ", "\nshall ")
	edited := strings.Replace(orig, "within 13 days", "within 45 days", 1)
	executed := "EXECUTION VERSION\n\n" + orig + "\n\nSigned by the parties on 3 March 2021.\n"
	otherParties := contract([2]string{"Lyra Foods plc", "Draco Shipping GmbH"}, 30, "")
	unrelated := strings.Repeat("The lessee shall keep the premises in good repair and insure them. ", 40)
	o := Options{}
	for _, tc := range []struct {
		name string
		text string
		same bool
	}{
		{"re-flowed", reflowed, true},
		{"one clause edited", edited, true},
		{"executed copy", executed, true},
		{"same form, other parties", otherParties, false},
		{"unrelated", unrelated, false},
	} {
		a, b := Member{Sig: Sign(orig)}, Member{Sig: Sign(tc.text)}
		p, same := o.Same(a, b)
		if same != tc.same {
			t.Errorf("%s: same=%v (Jaccard %.2f, containment %.2f, different parties %v)", tc.name, same, p.Jaccard, p.Containment, DifferentParties(a.Sig, b.Sig))
		}
	}
	if j := Jaccard(Sign(orig), Sign(orig)); j != 1 {
		t.Errorf("a text against itself: %.2f", j)
	}
	sig := Sign(orig)
	back, err := Decode(sig.Encode())
	if err != nil || back.Mins != sig.Mins || back.Shingles != sig.Shingles || len(back.Names) != len(sig.Names) || back.Vocab != sig.Vocab {
		t.Errorf("encode/decode: %v", err)
	}
	if _, err := Decode([]byte("junk")); err == nil {
		t.Error("junk decoded")
	}
}

func TestGroup(t *testing.T) {
	a := contract([2]string{"Orion Analytics Ltd", "Vega Robotics Inc"}, 30, "")
	b := contract([2]string{"Lyra Foods plc", "Draco Shipping GmbH"}, 30, "")
	members := []Member{
		{ID: "a", Sig: Sign(a)},
		{ID: "b", Sig: Sign(b)},
		{ID: "a2", Sig: Sign(strings.Replace(a, "lot 7", "lot seven", 1))},
		{ID: "x", Sig: Sign(strings.Repeat("Unrelated words about a lease of offices in a tower. ", 30))},
		{ID: "b2", Sig: Sign("DRAFT\n\n" + b)},
		{ID: "empty", Sig: Sign("")},
	}
	groups, pairs := Group(members, Options{})
	var got []string
	for _, g := range groups {
		var ids []string
		for _, i := range g {
			ids = append(ids, members[i].ID)
		}
		got = append(got, strings.Join(ids, "+"))
	}
	if strings.Join(got, " ") != "a+a2 b+b2" {
		t.Errorf("families %q (pairs %+v)", got, pairs)
	}
}

func BenchmarkSign(b *testing.B) {
	text := contract([2]string{"Orion Analytics Ltd", "Vega Robotics Inc"}, 300, "")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Sign(text)
	}
}
