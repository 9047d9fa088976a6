package answer

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Finding the dates of a whole contract runs the date forms (dateForms)
// only over its windows that can hold a date, which finds exactly what
// running them over the whole text finds:
//
//   - A match is made of ASCII letters, digits, the spaces of \s, and
//     ". , % / - _ – —"; any other character is a barrier no match crosses.
//   - Its letters make whole words (runs of ASCII letters) of a few kinds:
//     a month's name, an ordinal's letters ("st", "s" "t"), "day", "of".
//     Every other word is a barrier too, but for the "of" it may end in
//     when a digit follows ("as of1 August 2019"), which form 1 starts at.
//   - A window is the text between two barriers, with one byte of each
//     barrier on either side, so that \b at its edges reads as in the
//     whole text. Those bytes cannot be in a match: a match starts with a
//     digit, a month's name or "of" and ends with a digit, and a barrier
//     byte on a window's edge is neither a digit nor a month's name.
//   - Since no match crosses a barrier, the leftmost-first matches of a
//     form over the whole text are its matches over each window in turn,
//     and a window is read only by the forms whose parts it holds (a
//     month's name and a four-digit year, a "/", a "-").
//
// Go's (?i) folds "s" with "ſ" (U+017F), which is no ASCII letter: a text
// with it is read whole. TestDateWindowsExact compares the two readings
// on every text of the evaluation corpus.

// dateWindow is a window of a text (bytes) and the date forms it may hold
// (bit i for dateForms()[i]).
type dateWindow struct {
	at, end int
	forms   uint8
}

const formsAll = 1<<5 - 1

// dateWindows returns the windows of s a date can be written in, in order;
// false when s must be read whole.
func dateWindows(s string) ([]dateWindow, bool) {
	var out []dateWindow
	start := -1 // where the open window's text starts
	var month, year, slash, hyphen, digit bool
	closeAt := func(end int) { // end: where a barrier starts
		if start < 0 {
			return
		}
		var f uint8
		if month && year {
			f |= 1<<0 | 1<<1
		}
		if year && hyphen {
			f |= 1<<2 | 1<<4
		}
		if slash && digit {
			f |= 1 << 3
		}
		if f != 0 {
			out = append(out, dateWindow{max(0, start-1), min(len(s), end+1), f})
		}
		start = -1
		month, year, slash, hyphen, digit = false, false, false, false, false
	}
	open := func(i int) {
		if start < 0 {
			start = i
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			j := i + 1
			for j < len(s) && 'a' <= s[j]|0x20 && s[j]|0x20 <= 'z' {
				j++
			}
			switch dateWord(s[i:j]) {
			case 2:
				open(i)
				month = true
			case 1:
				open(i)
			default:
				closeAt(i)
				if j-i > 2 && j < len(s) && '0' <= s[j] && s[j] <= '9' && strings.EqualFold(s[j-2:j], "of") {
					open(j - 2)
				}
			}
			i = j
		case '0' <= c && c <= '9':
			j := i + 1
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				j++
			}
			open(i)
			digit = true
			if j-i == 4 {
				year = true
			}
			i = j
		case c == '/':
			open(i)
			slash = true
			i++
		case c == '-':
			open(i)
			hyphen = true
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '.' || c == ',' || c == '%' || c == '_':
			open(i)
			i++
		case c < utf8.RuneSelf:
			closeAt(i)
			i++
		case strings.HasPrefix(s[i:], "–") || strings.HasPrefix(s[i:], "—"):
			open(i)
			i += len("–")
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == 'ſ' {
				return nil, false
			}
			closeAt(i)
			i += n
		}
	}
	closeAt(len(s))
	return out, true
}

// dateWord says what an ASCII word can be in a date: 2 a month's name (as
// the date forms spell it), 1 another word of a date, 0 none.
func dateWord(w string) int {
	if len(w) > len("september") {
		return 0
	}
	var b [9]byte
	for i := range len(w) {
		b[i] = w[i] | 0x20
	}
	switch string(b[:len(w)]) {
	case "jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july",
		"aug", "august", "sep", "sept", "sepember", "september", "oct", "october", "nov", "november", "dec", "december":
		return 2
	case "st", "nd", "rd", "th", "s", "t", "n", "d", "r", "h", "day", "of":
		return 1
	}
	return 0
}

// The names a contract defines dates by are read the same way: a match of
// reDateMeans is made of ASCII letters, the spaces of \s, quotes and ":",
// one of reDateLabelled of ASCII letters, spaces, tabs and ":", and each
// holds "Date" or "DATE". Each is looked for only in the windows of such
// characters that hold one, with a byte of the barrier either side so that
// reDateLabelled's (?m)^ reads as in the whole text; a barrier byte can
// neither start nor end a match, which starts with a quote, a space, a tab
// or a capital and ends with one of them or a letter.

// dateNameMatches returns re's matches (FindAllStringSubmatchIndex) in s,
// read in the windows of s whose bytes keep accepts ("“" and "”" too when
// quotes) and which hold "Date" or "DATE" (and a ":" when colon).
func dateNameMatches(re *regexp.Regexp, s string, keep func(c byte) bool, quotes, colon bool) [][]int {
	var out [][]int
	start := -1
	closeAt := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		if (strings.Contains(w, "Date") || strings.Contains(w, "DATE")) && (!colon || strings.IndexByte(w, ':') >= 0) {
			at := max(0, start-1)
			for _, m := range re.FindAllStringSubmatchIndex(s[at:min(len(s), end+1)], -1) {
				for k := range m {
					if m[k] >= 0 {
						m[k] += at
					}
				}
				out = append(out, m)
			}
		}
		start = -1
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf && keep(c):
			if start < 0 {
				start = i
			}
			i++
		case c < utf8.RuneSelf:
			closeAt(i)
			i++
		case quotes && (strings.HasPrefix(s[i:], "“") || strings.HasPrefix(s[i:], "”")):
			if start < 0 {
				start = i
			}
			i += len("“")
		default:
			closeAt(i)
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
	}
	closeAt(len(s))
	return out
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// dateMeansMatches is reDateMeans().FindAllStringSubmatchIndex(s, -1).
func dateMeansMatches(s string) [][]int {
	return dateNameMatches(reDateMeans(), s, func(c byte) bool {
		return isASCIILetter(c) || c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '"' || c == ':'
	}, true, false)
}

// dateLabelledMatches is reDateLabelled().FindAllStringSubmatchIndex(s, -1).
func dateLabelledMatches(s string) [][]int {
	return dateNameMatches(reDateLabelled(), s, func(c byte) bool {
		return isASCIILetter(c) || c == ' ' || c == '\t' || c == ':'
	}, false, true)
}
