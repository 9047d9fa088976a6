package answer

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// allDatesWhole is allDatesAt running every date form over the whole of
// s, as it did before dateWindows: the reading the windows must equal.
func allDatesWhole(s string) []valueAt {
	return datesIn(s, []dateWindow{{0, len(s), formsAll}})
}

// definedDatesWhole is definedDates reading the dates with allDatesWhole.
func definedDatesWhole(text string) map[string]string {
	out := map[string]string{}
	labelled := reDateLabelled().FindAllStringSubmatchIndex(text, -1)
	for _, m := range append(reDateMeans().FindAllStringSubmatchIndex(text, -1), labelled...) {
		name := strings.ToLower(text[m[2]:m[3]])
		if ds := allDatesWhole(text[m[1]:min(len(text), m[1]+60)]); len(ds) > 0 && ds[0].at <= 3 {
			if _, seen := out[name]; !seen {
				out[name] = ds[0].v
			}
		}
	}
	for _, d := range allDatesWhole(text) {
		if m := reDateDefined().FindStringSubmatch(text[d.end:min(len(text), d.end+60)]); m != nil {
			name := strings.ToLower(m[1])
			if _, seen := out[name]; !seen {
				out[name] = d.v
			}
		}
	}
	return out
}

func TestDateWindowsCases(t *testing.T) {
	for _, s := range []string{
		"Agreement made this 19t h day of March, 2020 Between:",
		"is made this 1s t day of October 2008, (the",
		"is made and effective as of1 August 2019, by and between",
		"Proof15 March 2019", "hereof 15 March 2019", "HEREOF1 August 2019",
		"effective March 2n d, 2015", "on 3 May 2016", "Mar. 1st 2019", "March 1 st, 2019",
		"the 15% day of March 2019", "the 15% day of __March 2019", "the 1st day of — March, 2019",
		"the 2nd day of\n\nJune\n 2004", "dated 18/9/2008 and 3/1/19 and 03/01/2019", "31/02/2019",
		"on 2019-03-01 or 03-01-2019", "tel 555-1234 or 12-11-2019-2020", "2019-13-01",
		"abc5 March 2019", "5 March 2019abc", "March 5, 2019abc", "x_5/3/2019", "5/3/2019_x",
		"“5 March 2019”", "(March 5, 2019)", "Sepember 5, 2019", "sept 5 2019", "JUNE 30, 2004",
		"5 Mayor 2019", "May5 2019", "1ſt March 2019", "K 5 March 2019", "of 5 March 2019",
		"dated as of March\t1,\f2019;", "12 and 13 March 2019", "1 2 3 4 2019 March 5 2019 5/5/2005",
		"", "2019", "March", "—5 March 2019—", "–5 March 2019–", "\v5 March 2019\v",
		"Effective Date: March 1, 1996", "\"Commencement Date\" means 16 October 2005",
	} {
		if got, want := allDatesAt(s), allDatesWhole(s); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: windows %+v, whole %+v", s, got, want)
		}
	}
}

func TestDateNameWindowsCases(t *testing.T) {
	for _, s := range []string{
		"\"Effective Date\" means March 1, 2019", "“Closing Date” shall mean", "\"Start Date\" is: 1 May 2019",
		"(the \"Commencement Date\") shall be", "\"Termination Date\":\n means", "x\"Launch Date\"means",
		"Effective Date: March 1, 1996", "Term\n  Effective Date:  March 1", "a.  Effective Date: 1 May",
		"Order Date  :", "PO.Effective Date: 1", "  EFFECTIVE DATE: 1", "Date: 1", "\"Date\" means",
		"é\"Effective Date\" means", "Effective Date:", "—Effective Date: x",
	} {
		if got, want := dateMeansMatches(s), reDateMeans().FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: names %v, whole %v", s, got, want)
		}
		if got, want := dateLabelledMatches(s), reDateLabelled().FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: labels %v, whole %v", s, got, want)
		}
	}
}

// The windows rest on every letter of the date forms folding only with
// ASCII letters, but "s" with "ſ" (which dateWindows reads whole) and "k"
// with the Kelvin sign (which no form holds).
func TestDateWindowsFolds(t *testing.T) {
	for r := 'a'; r <= 'z'; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 || (r == 's' && f == 'ſ') {
				continue
			}
			for _, re := range dateForms() {
				if strings.ContainsRune(strings.ToLower(re.String()), r) {
					t.Errorf("form %s holds %q, which folds with %q", re, r, f)
				}
			}
		}
	}
}

// corpusTexts returns the texts of the evaluation corpus, or skips.
func corpusTexts(tb testing.TB, sets ...string) []string {
	tb.Helper()
	var out []string
	for _, set := range sets {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", set, "*.txt"))
		sort.Strings(paths)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	if len(out) == 0 {
		tb.Skip("no evaluation corpus")
	}
	return out
}

// TestDateWindowsExact compares the dates read through the windows with
// those read from the whole text on every text of the evaluation corpus
// (every tenth CUAD text without PAKTON_SLOW) and on pieces of it cut at
// every 997th byte, and the names and dates each text defines.
func TestDateWindowsExact(t *testing.T) {
	sets, every := []string{"cuad"}, 10
	if os.Getenv("PAKTON_SLOW") != "" {
		sets, every = append(sets, "maud", "contractnli", "privacy_qa"), 1
	}
	var texts []string
	for n, s := range corpusTexts(t, sets...) {
		if n%every == 0 {
			texts = append(texts, s)
		}
	}
	var dates int
	for n, s := range texts {
		got, want := allDatesAt(s), allDatesWhole(s)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("text %d: windows %d dates, whole %d", n, len(got), len(want))
		}
		dates += len(want)
		if got, want := dateMeansMatches(s), reDateMeans().FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("text %d: date names %v, whole %v", n, got, want)
		}
		if got, want := dateLabelledMatches(s), reDateLabelled().FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("text %d: date labels %v, whole %v", n, got, want)
		}
		if got, want := definedDates(s), definedDatesWhole(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("text %d: defined dates %v, whole %v", n, got, want)
		}
		for at := 0; at < len(s); at += 997 {
			piece := s[at:min(len(s), at+3000)]
			if got, want := allDatesAt(piece), allDatesWhole(piece); !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d at %d: windows %+v, whole %+v", n, at, got, want)
			}
		}
	}
	if dates == 0 {
		t.Fatal("no dates in the corpus")
	}
	t.Logf("%d texts, %d dates", len(texts), dates)
}

// BenchmarkDefinedDates finds the dates each CUAD contract defines; the
// Whole variant reads them as before the windows.
func BenchmarkDefinedDates(b *testing.B) {
	texts := corpusTexts(b, "cuad")
	b.ResetTimer()
	for range b.N {
		for _, s := range texts {
			definedDates(s)
		}
	}
}

func BenchmarkDefinedDatesWhole(b *testing.B) {
	texts := corpusTexts(b, "cuad")
	b.ResetTimer()
	for range b.N {
		for _, s := range texts {
			definedDatesWhole(s)
		}
	}
}
