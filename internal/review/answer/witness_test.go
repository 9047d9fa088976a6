package answer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLastWitnessLikeExpression checks that lastWitness finds where the
// last match of reWitness starts, as running the expression over the whole
// text does: on made-up texts (no match, a match early in a long text,
// several, words that start no match, the long s, no line breaks) and on
// CUAD and MAUD contracts when ../shared/data is there (eight of each; all
// of them with PAKTON_SLOW=1).
func TestLastWitnessLikeExpression(t *testing.T) {
	body := strings.Repeat("The Supplier shall deliver the goods as executed herein, duly signed.\n", 400)
	texts := []string{
		"",
		"IN WITNESS WHEREOF",
		body,
		"IN WITNESS WHEREOF the parties sign.\n" + body,
		body + "IN  WITNESS\n\tWHEREOF, signed by:\n" + body,
		body + "SIGNED for and on behalf of X\n" + body + "EXECUTED as a deed\n" + body[:100],
		body + "xIN WITNESS WHEREOF\n" + body,
		strings.ReplaceAll(body, "\n", " ") + " in witness whereof " + strings.ReplaceAll(body, "\n", " "),
		body + "IN WITNESS WHEREOF\n" + body + "ſigned by\n" + body,
		body + "EXECUTED by" + strings.Repeat(" ", 9000) + "x\n" + body,
		body + "IN WITNESS" + strings.Repeat("\n", 9000) + "WHEREOF" + body,
	}
	root := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus")
	for _, sub := range []string{"cuad", "maud"} {
		ents, _ := os.ReadDir(filepath.Join(root, sub))
		if os.Getenv("PAKTON_SLOW") == "" {
			ents = ents[:min(len(ents), 8)] // all of them in the slow suite
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(root, sub, e.Name()))
			if err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	for i, s := range texts {
		want := lastLoc(reWitness().FindAllStringIndex(s, -1), 0)
		if got := lastWitness(s); got != want {
			t.Errorf("text %d (%d bytes): lastWitness %d, the expression %d", i, len(s), got, want)
		}
	}
	t.Logf("%d texts", len(texts))
}
