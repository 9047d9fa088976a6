package detect

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShapesAnswerAsTheirExpressions checks the prefiltered shape tests
// against the regular expressions they stand for: on texts built to be
// close calls, on random texts over the characters the expressions care
// about, and on every paragraph of the CUAD corpus when it is present.
func TestShapesAnswerAsTheirExpressions(t *testing.T) {
	check := func(s string) {
		t.Helper()
		for _, c := range []struct {
			name string
			got  bool
			want bool
		}{
			{"date", hasDate(s), reDate().MatchString(s)},
			{"money", hasMoney(s), reMoney().MatchString(s)},
			{"percent", hasPercent(s), rePercent().MatchString(s)},
			{"duration", hasDuration(s), reDuration().MatchString(s)},
		} {
			if c.got != c.want {
				t.Fatalf("%s(%q) = %v, the expression says %v", c.name, s, c.got, c.want)
			}
		}
	}
	for _, s := range []string{"", "January 5, 2020", "on the 3rd day of June, 1999", "12/05/2020", "1.2.03", "1-2-3",
		"Section 9.2", "$ 5", "€5", "USD", "dollars", "Dollar", "5 %", "per cent", "percent", "PERCENT",
		"thirty (30) days", "SIXTY DAYS", "one week", "two WEEKs", "5 K", "ten weeK", "2 years", "nine ſ", "x\u212ay"} {
		check(s)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"0", "1", "2", "9", "/", ".", "-", " ", "$", "€", "%", "a", "D", "ay", "Day", "month", "YEAR", "week", "\u212a",
		"per", "cent", "USD", "dollar", "June", "jan", "st", "of", "day", ",", "(", ")", "thirty", "business ", "calendar "}
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(14) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		check(b.String())
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "*.txt"))
	for i, f := range files {
		if i%16 != 0 && os.Getenv("PAKTON_SLOW") == "" {
			continue // every contract with PAKTON_SLOW=1
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Split(string(data), "\n") {
			check(p)
		}
	}
}
