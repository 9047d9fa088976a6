package names

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// displayRulesSum is the SHA-256 of the display of every LegalBench-RAG
// corpus document (corpusDisplays) under DisplayRules sumRules.
const (
	displayRulesSum = "0c0948d65ecad3483bf09b95b81b5997bd0d9a8bd04fd2b079d2bb49556107c1"
	sumRules        = 1
)

// corpusDisplays names every document of the four LegalBench-RAG corpora
// as the index names it (Display of FromList of what Learn reads), one a
// line, in the order of the corpora and their files; nil without
// ../shared/data.
func corpusDisplays(t *testing.T) []byte {
	t.Helper()
	var out []byte
	n := 0
	for _, c := range []string{"cuad", "maud", "privacy_qa", "contractnli"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", c, "*.txt"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := c + "/" + filepath.Base(f)
			out = append(out, Display(FromList(Learn(string(data), name).All(), name), name)...)
			out = append(out, '\n')
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return out
}

// The displays kept with a collection's index are used while DisplayRules
// is the number they were made by: a change of what Display gives must
// change the number, or a server would show the kept, older displays.
// When this fails: if Display (or FromList) changed, change DisplayRules,
// then write the new sum and sumRules here; if only Learn changed, write the new sum
// alone (a kept display is checked against the document's indexed version,
// which names learnt again change).
func TestDisplayRulesCorpus(t *testing.T) {
	d := corpusDisplays(t)
	if d == nil {
		t.Skip("../shared/data not present")
	}
	sum := sha256.Sum256(d)
	if got := hex.EncodeToString(sum[:]); DisplayRules != sumRules || got != displayRulesSum {
		t.Errorf("the displays of the corpus documents under DisplayRules %d hash to %s, this test knows %s under rules %d: see the test's comment", DisplayRules, got, displayRulesSum, sumRules)
	}
}
