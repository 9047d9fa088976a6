package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/names"
)

// partyGone reports whether the name of party p is no longer in text (as
// names.Key words, so case and punctuation aside).
func partyGone(p, text string) bool {
	return !strings.Contains(" "+names.Key(text)+" ", " "+names.Key(p)+" ")
}

// TestDistinctCopiesRenameEveryParty writes three copies of two small
// contracts and checks that copy 1 is the original and that copies 2 and 3
// name none of the original parties — neither the one the file is named
// after nor the other — by full name or short name, in the text or the
// file name, each copy under names of its own, the same on every run.
func TestDistinctCopiesRenameEveryParty(t *testing.T) {
	from := t.TempDir()
	contracts := map[string]string{
		"ZENTRIXHOLDINGSINC_01_02_2019-EX-10.1-SUPPLY AGREEMENT.txt": `SUPPLY AGREEMENT

This Supply Agreement is made on 1 February 2019 between Zentrix Holdings, Inc., a Delaware corporation ("Zentrix"), and Morvane Quillsby Labs LLC, a Texas limited liability company ("Morvane").

1. Supply. Morvane shall supply the products to Zentrix. The products shall be delivered to the warehouse.
2. Term. This agreement runs for two years; Zentrix may terminate it on notice to Morvane Quillsby Labs LLC.

ZENTRIX HOLDINGS, INC.                 MORVANE QUILLSBY LABS LLC
By: ____________                      By: ____________
`,
		"Pelloway Brands - Distribution Agreement.txt": `DISTRIBUTION AGREEMENT

This Distribution Agreement is entered into between Pelloway Brands Corp. ("Pelloway") and Tarkesh Vintners Ltd. ("Tarkesh").

1. Appointment. Pelloway appoints Tarkesh as its distributor. Tarkesh shall buy the goods from Pelloway Brands Corp.
`,
	}
	for name, text := range contracts {
		if err := os.WriteFile(filepath.Join(from, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(dir string) map[string]string {
		out := map[string]string{}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = string(b)
		}
		return out
	}
	out1, out2 := t.TempDir(), t.TempDir()
	for _, out := range []string{out1, out2} {
		if err := DistinctCopies(from, out, 3, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, again := read(out1), read(out2)
	if len(got) != 6 {
		t.Fatalf("got %d files, want 6: %v", len(got), got)
	}
	for name, text := range got {
		if again[name] != text {
			t.Errorf("%s differs between two runs", name)
		}
	}
	parties := []string{"Zentrix Holdings", "Zentrix", "Morvane Quillsby Labs", "Morvane", "Quillsby", "Pelloway Brands", "Pelloway", "Tarkesh Vintners", "Tarkesh"}
	for name, text := range contracts {
		if got[name] != text {
			t.Errorf("copy 1 of %s is not the original", name)
		}
		var copies []string
		for k := 2; k <= 3; k++ {
			var cname string
			suffix := name[strings.LastIndex(name, "-"):]
			for n := range got {
				if strings.HasPrefix(n, fmt.Sprintf("copy%d-", k)) && strings.HasSuffix(n, suffix) {
					cname = n
				}
			}
			ctext, ok := got[cname]
			if !ok {
				t.Fatalf("no copy %d of %s in %v", k, name, got)
			}
			copies = append(copies, ctext)
			for _, p := range parties {
				if strings.Contains(text, p) && !partyGone(p, ctext) {
					t.Errorf("copy %d of %s still names %q:\n%s", k, name, p, ctext)
				}
				if strings.Contains(strings.ToLower(cname), strings.ToLower(strings.Fields(p)[0])) {
					t.Errorf("copy %d's file name %q still names %q", k, cname, p)
				}
			}
			// What is not a party's name is kept: words written in lower
			// case, the title. (In two contracts, a place such as
			// "Delaware" is as rare as a name: it is renamed.)
			for _, w := range []string{"SUPPLY AGREEMENT", "DISTRIBUTION AGREEMENT", "warehouse", "products", "goods", "distributor", "Agreement"} {
				if strings.Count(text, w) != strings.Count(ctext, w) {
					t.Errorf("copy %d of %s changed %q", k, name, w)
				}
			}
		}
		if copies[0] == copies[1] {
			t.Errorf("copies 2 and 3 of %s are the same", name)
		}
	}
}

// TestCUADCopiesRenameEveryParty checks every CUAD contract's copy 2: no
// party the product reads from the original (names.Learn, what search
// routes by) is still named in it, unless every word of its name is one
// that cannot be renamed — a company word ("Inc."), shorter than three
// letters, or a word the contract also writes in lower case or that most
// contracts have ("Section"). Behind PAKTON_SLOW (~5 s).
func TestCUADCopiesRenameEveryParty(t *testing.T) {
	dir := filepath.Join(sharedData(t), "corpus", "cuad")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Skip("../shared/data is absent")
	}
	sort.Strings(files)
	texts := make([]string, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[i] = string(b)
	}
	ws := collectionWords(texts)
	df := ws.df
	checked, skipped, left := 0, 0, 0
	for i, f := range files {
		name, text := filepath.Base(f), texts[i]
		words := partyWords(name, text, ws)
		ctext := renamed(text, wordSpans(text, words, false), 2, false)
		lower := map[string]bool{}
		for _, w := range splitWords(text) {
			if !capitalized(w) {
				lower[w] = true
			}
		}
		for _, p := range names.Learn(text, name).Parties {
			renamable := false
			for _, w := range splitWords(p.Name) {
				lw := strings.ToLower(w)
				renamable = renamable || utf8.RuneCountInString(w) >= 3 && capitalized(w) && !companyWords[lw] && !lower[lw] && 2*df[lw] <= len(texts)
			}
			if !renamable {
				skipped++
				continue
			}
			checked++
			if !partyGone(p.Name, ctext) {
				left++
				t.Errorf("%s: copy 2 still names party %q (words renamed: %v)", name, p.Name, words)
			}
		}
	}
	t.Logf("%d contracts: %d parties checked, %d left (nothing renamable), %d still named", len(files), checked, skipped, left)
	if checked == 0 {
		t.Fatal("no party checked")
	}
}
