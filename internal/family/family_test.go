package family

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
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
		a, b := Member{Sig: signed(orig)}, Member{Sig: signed(tc.text)}
		p, same := o.Same(a, b)
		if same != tc.same {
			t.Errorf("%s: same=%v (Jaccard %.2f, containment %.2f, different parties %v)", tc.name, same, p.Jaccard, p.Containment, DifferentParties(*a.Sig, *b.Sig))
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
		{ID: "a", Sig: signed(a)},
		{ID: "b", Sig: signed(b)},
		{ID: "a2", Sig: signed(strings.Replace(a, "lot 7", "lot seven", 1))},
		{ID: "x", Sig: signed(strings.Repeat("Unrelated words about a lease of offices in a tower. ", 30))},
		{ID: "b2", Sig: signed("DRAFT\n\n" + b)},
		{ID: "empty", Sig: signed("")},
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

// referenceSign is the signature computed the direct way, every word and
// shingle collected first (how Sign worked before it streamed): Sign must
// give the same signature, bit for bit.
func referenceSign(text string, parties []string) Signature {
	words := strings.FieldsFunc(strings.ToLower(norm.NFKC.String(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var sig Signature
	count := map[string]int{}
	for _, w := range words {
		if count[w] == 0 {
			sig.addVocab(refHash(w))
		}
		count[w]++
	}
	head := text[:min(len(text), preambleLen)]
	fields := strings.FieldsFunc(head, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '(' || r == ')' || r == '"' || r == '“' || r == '”'
	})
	seenName := map[string]bool{}
	for k, f := range fields {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		r := []rune(w)
		if len(r) < 3 || !unicode.IsUpper(r[0]) || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		if k > 0 && hasDigit(fields[k-1]) || k+1 < len(fields) && hasDigit(fields[k+1]) {
			continue
		}
		lw := strings.ToLower(w)
		if seenName[lw] || count[lw] < nameRecurs {
			continue
		}
		seenName[lw] = true
		sig.Names = append(sig.Names, refHash(lw))
		if len(sig.Names) == maxNames {
			break
		}
	}
	known := map[uint64]bool{}
	for _, n := range sig.Names {
		known[n] = true
	}
	for _, p := range parties {
		for _, w := range Words(p) {
			if h := refHash(w); len([]rune(w)) >= 3 && !known[h] && len(sig.Names) < maxNames {
				known[h] = true
				sig.Names = append(sig.Names, h)
			}
		}
	}
	for i := range sig.Mins {
		sig.Mins[i] = ^uint64(0)
	}
	if len(words) == 0 {
		return sig
	}
	wh := make([]uint64, len(words))
	for i, w := range words {
		wh[i] = refHash(w)
	}
	for len(wh) < shingleWords {
		wh = append(wh, 0)
	}
	seen := map[uint64]bool{}
	for i := 0; i+shingleWords <= len(wh); i++ {
		var s uint64 = 0x2545F4914F6CDD1D
		for _, h := range wh[i : i+shingleWords] {
			s = mix(s ^ h)
		}
		seen[s] = true
		if bin, v := s>>(64-binBits), s&valueMask; v < sig.Mins[bin] {
			sig.Mins[bin] = v
		}
	}
	sig.Shingles = len(seen)
	for i := range sig.Mins {
		if sig.Mins[i] != ^uint64(0) {
			continue
		}
		for j := 1; j < K; j++ {
			if v := sig.Mins[(i+j)%K]; v != ^uint64(0) && v <= valueMask {
				sig.Mins[i] = v + uint64(j)<<(64-binBits)
				break
			}
		}
	}
	return sig
}

func refHash(w string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(w))
	return h.Sum64()
}

// Signing reads words one at a time and keeps only shingle hashes; the
// signature is the one the direct computation gives.
func TestSignMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		parties    []string
	}{
		{"empty", "", nil},
		{"one word", "Agreement", nil},
		{"four words", "This Supply Agreement binds", nil},
		{"contract", strings.Repeat("SUPPLY AGREEMENT between Acme Widgets Ltd (\"Acme\") and Beta GmbH. Acme shall deliver; Beta shall pay Acme within 30 days. ", 40), []string{"Acme Widgets Ltd", "Beta GmbH"}},
		{"combining marks and ligatures", strings.Repeat("Cafe\u0301 ﬁnance Ｆｕｌｌｗｉｄｔｈ Straße ÉTUDE e\u0301tude 2nd 3rd ", 30), nil},
		{"separators only", " ,;()\n\t… ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := SignWithParties(tc.text, tc.parties), referenceSign(tc.text, tc.parties)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("signature differs from the direct computation:\n got %d shingles, names %v\nwant %d shingles, names %v", got.Shingles, got.Names, want.Shingles, want.Names)
			}
		})
	}
}

// The same on real contracts, when the benchmark data is there.
func TestSignMatchesReferenceCUAD(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "*.txt"))
	if len(files) == 0 {
		t.Skip("shared data not found")
	}
	for _, f := range files[:min(len(files), 25)] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := Sign(string(b)), referenceSign(string(b), nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: signature differs from the direct computation", filepath.Base(f))
		}
	}
}

// signed is Sign's signature as a Member holds it.
func signed(text string) *Signature {
	s := Sign(text)
	return &s
}
