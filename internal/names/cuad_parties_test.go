package names_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/names"
)

// TestPartiesOfCUAD scores the parties names.Learn reads against CUAD's
// Parties annotations over the 226 contracts of review_dev.json (skipped
// without ../shared/data): a party read is right when its name is one of
// the names the annotation gives (letters compared, case and punctuation
// ignored, a legal form on one side only allowed); an annotated party is
// found when some party read is it. It fails under the floors below and,
// with PAKTON_PARTIES_SHOW=1, prints every party read that is not
// annotated. The contracts are a development set: the rules of
// internal/names were written looking at them.
func TestPartiesOfCUAD(t *testing.T) {
	root, bench := reviewDev(t)
	show := os.Getenv("PAKTON_PARTIES_SHOW") == "1"
	var read, right, labelled, found, docs int
	for _, d := range bench.Documents {
		var answer string
		for _, l := range d.Labels {
			if l.Provision == "Parties" && l.Present {
				answer = l.Answer
			}
		}
		if answer == "" {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, "legalbenchrag", "corpus", d.FilePath))
		if err != nil {
			t.Fatal(err)
		}
		docs++
		want := annotatedParties(answer)
		n := names.Learn(string(text), filepath.Base(d.FilePath))
		hit := make([]bool, len(want))
		for _, p := range n.Parties {
			read++
			ok := false
			for i, w := range want {
				if sameName(p.Name, w) {
					ok, hit[i] = true, true
				}
			}
			if ok {
				right++
			} else if show {
				fmt.Printf("not annotated: %-40.40s %q (%s)\n", filepath.Base(d.FilePath), p.Name, p.Source)
			}
		}
		for _, h := range hit {
			labelled++
			if h {
				found++
			}
		}
	}
	if docs == 0 {
		t.Skip("no annotated parties")
	}
	precision, recall := float64(right)/float64(max(read, 1)), float64(found)/float64(max(labelled, 1))
	t.Logf("%d contracts: %d parties read, %d annotated (precision %.3f); %d annotated parties, %d read (recall %.3f)",
		docs, read, right, precision, labelled, found, recall)
	const minPrecision, minRecall = 0.75, 0.65
	if precision < minPrecision || recall < minRecall {
		t.Errorf("precision %.3f (floor %.3f), recall %.3f (floor %.3f)", precision, minPrecision, recall, minRecall)
	}
}

var reDefined = regexp.MustCompile(`\([^)]*\)`)

// annotatedParties are the party names of a CUAD Parties answer: its
// "; "-separated entries, each without its defined terms in brackets, and
// the entries that only gather defined terms ("Lender, Endorser and
// Fitness") left out.
func annotatedParties(answer string) []string {
	var out []string
	for _, e := range strings.Split(answer, ";") {
		e = strings.TrimSpace(reDefined.ReplaceAllString(e, ""))
		e = strings.Trim(e, " ,.")
		if e == "" {
			continue
		}
		out = append(out, e)
	}
	return out
}

// legalForms are the endings a company's name may carry or drop.
var legalForms = regexp.MustCompile(`(?i)\s*,?\s*\b(incorporated|inc|corporation|corp|company|co|llc|l l c|ltd|limited|lp|l p|llp|plc|gmbh|ag|sa|s a|nv|n v|bv|b v)\s*$`)

// sameName reports whether two names are the same name: letters compared,
// case and punctuation ignored, a legal form on either side dropped.
func sameName(a, b string) bool {
	norm := func(s string) string {
		k := names.Key(s)
		for {
			t := strings.TrimSpace(legalForms.ReplaceAllString(k, ""))
			if t == k || t == "" {
				break
			}
			k = t
		}
		return strings.ReplaceAll(k, " ", "")
	}
	x, y := norm(a), norm(b)
	return x != "" && x == y
}
