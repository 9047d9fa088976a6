// Package numbering reads and writes the numbers documents label things
// with: Roman numerals (articles, list items, front-matter pages) and
// letters (list items). The parsers (clause markers, page furniture,
// cross-references) and the formatters (DOCX and HTML list numbering) use
// these one implementation; each caller keeps its own bounds (a clause
// number above 100 is a year, not an item).
//
// Two letter systems exist and both are needed: legal drafting and Word
// repeat the letter after z (aa, bb, cc: Letters, ParseLetters), HTML
// lists and spreadsheets count in base 26 (aa, ab, ac: Alphabetic).
package numbering

import (
	"strconv"
	"strings"
)

var romanDigits = []struct {
	v int
	s string
}{{1000, "m"}, {900, "cm"}, {500, "d"}, {400, "cd"}, {100, "c"}, {90, "xc"}, {50, "l"}, {40, "xl"}, {10, "x"}, {9, "ix"}, {5, "v"}, {4, "iv"}, {1, "i"}}

// Roman formats n as a lower-case Roman numeral in its canonical form
// ("iv", not "iiii"); n outside 1..3999 is formatted in decimal.
func Roman(n int) string {
	if n <= 0 || n >= 4000 {
		return strconv.Itoa(n)
	}
	var b strings.Builder
	for _, d := range romanDigits {
		for n >= d.v {
			b.WriteString(d.s)
			n -= d.v
		}
	}
	return b.String()
}

// ParseRoman reads a Roman numeral written in one case. It returns the
// value by the subtractive rule (a digit before a larger one is
// subtracted) and whether s is that value's canonical spelling, so a strict
// caller takes only canonical numerals and a lenient one ("IIII" in a
// cross-reference) takes any. s with another character, mixed case or
// nothing gives (0, false).
func ParseRoman(s string) (n int, canonical bool) {
	if s == "" {
		return 0, false
	}
	lower := strings.ToLower(s)
	if lower != s && strings.ToUpper(s) != s {
		return 0, false
	}
	for i := 0; i < len(lower); i++ {
		v := romanDigit(lower[i])
		if v == 0 {
			return 0, false
		}
		if i+1 < len(lower) && romanDigit(lower[i+1]) > v {
			n -= v
		} else {
			n += v
		}
	}
	return n, n > 0 && Roman(n) == lower
}

func romanDigit(c byte) int {
	switch c {
	case 'i':
		return 1
	case 'v':
		return 5
	case 'x':
		return 10
	case 'l':
		return 50
	case 'c':
		return 100
	case 'd':
		return 500
	case 'm':
		return 1000
	}
	return 0
}

// Letters formats n the way Word and legal drafting letter list items: a…z,
// then aa…zz, aaa… (the letter repeated, at most 100 times); n ≤ 0 is
// formatted in decimal.
func Letters(n int, upper bool) string {
	if n <= 0 {
		return strconv.Itoa(n)
	}
	c := byte('a')
	if upper {
		c = 'A'
	}
	c += byte((n - 1) % 26)
	return strings.Repeat(string(c), min((n-1)/26+1, 100))
}

// ParseLetters is the inverse of Letters in either case: 1 for "a", 26 for
// "z", 27 for "aa", 28 for "bb"; 0 for anything else (mixed letters or case).
func ParseLetters(s string) int {
	if s == "" {
		return 0
	}
	c := s[0]
	for i := 1; i < len(s); i++ {
		if s[i] != c {
			return 0
		}
	}
	switch {
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 1 + 26*(len(s)-1)
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 1 + 26*(len(s)-1)
	}
	return 0
}

// Alphabetic formats n as HTML ordered lists and spreadsheets count: a…z,
// aa, ab, … (bijective base 26); n ≤ 0 is formatted in decimal.
func Alphabetic(n int, upper bool) string {
	if n <= 0 {
		return strconv.Itoa(n)
	}
	base := byte('a')
	if upper {
		base = 'A'
	}
	var b []byte
	for n > 0 {
		n--
		b = append([]byte{base + byte(n%26)}, b...)
		n /= 26
	}
	return string(b)
}

// OrdinalSuffix returns the English suffix of ordinal n: "st", "nd", "rd"
// or "th" (11th, 12th, 13th).
func OrdinalSuffix(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
