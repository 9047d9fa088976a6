package numbering

import (
	"strings"
	"testing"
)

func TestRoman(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{1, "i"}, {4, "iv"}, {9, "ix"}, {14, "xiv"}, {40, "xl"}, {88, "lxxxviii"}, {90, "xc"},
		{100, "c"}, {199, "cxcix"}, {400, "cd"}, {1999, "mcmxcix"}, {3999, "mmmcmxcix"},
		{0, "0"}, {-3, "-3"}, {4000, "4000"},
	}
	for _, tt := range tests {
		if got := Roman(tt.n); got != tt.want {
			t.Errorf("Roman(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestParseRoman(t *testing.T) {
	tests := []struct {
		s         string
		n         int
		canonical bool
	}{
		{"i", 1, true}, {"IV", 4, true}, {"xiv", 14, true}, {"XLII", 42, true}, {"mcmxcix", 1999, true},
		{"iiii", 4, false}, {"VX", 5, false}, {"IIX", 10, false}, {"IL", 49, false},
		{"", 0, false}, {"Iv", 0, false}, {"ivy", 0, false}, {"a", 0, false}, {"i.", 0, false},
	}
	for _, tt := range tests {
		n, c := ParseRoman(tt.s)
		if n != tt.n || c != tt.canonical {
			t.Errorf("ParseRoman(%q) = %d, %v; want %d, %v", tt.s, n, c, tt.n, tt.canonical)
		}
	}
	// Every canonical numeral reads back, in both cases.
	for n := 1; n < 4000; n++ {
		for _, s := range []string{Roman(n), strings.ToUpper(Roman(n))} {
			if got, ok := ParseRoman(s); got != n || !ok {
				t.Fatalf("ParseRoman(%q) = %d, %v; want %d", s, got, ok, n)
			}
		}
	}
}

func TestLetters(t *testing.T) {
	tests := []struct {
		n     int
		upper bool
		want  string
	}{
		{1, false, "a"}, {26, false, "z"}, {27, false, "aa"}, {28, true, "BB"}, {53, false, "aaa"}, {0, false, "0"},
	}
	for _, tt := range tests {
		if got := Letters(tt.n, tt.upper); got != tt.want {
			t.Errorf("Letters(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if tt.n > 0 {
			if got := ParseLetters(tt.want); got != tt.n {
				t.Errorf("ParseLetters(%q) = %d, want %d", tt.want, got, tt.n)
			}
		}
	}
	for _, s := range []string{"", "ab", "aA", "1", "é"} {
		if got := ParseLetters(s); got != 0 {
			t.Errorf("ParseLetters(%q) = %d, want 0", s, got)
		}
	}
}

func TestAlphabetic(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{1, "a"}, {26, "z"}, {27, "aa"}, {28, "ab"}, {52, "az"}, {53, "ba"}, {702, "zz"}, {703, "aaa"}, {0, "0"}}
	for _, tt := range tests {
		if got := Alphabetic(tt.n, false); got != tt.want {
			t.Errorf("Alphabetic(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Alphabetic(28, true); got != "AB" {
		t.Errorf("Alphabetic(28, upper) = %q", got)
	}
}

func TestOrdinalSuffix(t *testing.T) {
	for n, want := range map[int]string{1: "st", 2: "nd", 3: "rd", 4: "th", 11: "th", 12: "th", 13: "th", 21: "st", 102: "nd", 111: "th"} {
		if got := OrdinalSuffix(n); got != want {
			t.Errorf("OrdinalSuffix(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParseRoman(f *testing.F) {
	for _, s := range []string{"iv", "MCMXCIX", "iiii", "", "x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, canonical := ParseRoman(s)
		if canonical && Roman(n) != strings.ToLower(s) {
			t.Fatalf("ParseRoman(%q) = %d canonical, but Roman(%d) = %q", s, n, n, Roman(n))
		}
	})
}
