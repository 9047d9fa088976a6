package names

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// signatureParties reads party names from a signature block (the end of a
// document): the names written above each "By:" line that hold a legal-form
// word, several on one line split after it ("Fonterra (USA) Inc. Premier
// Nutrition Company, LLC").
func signatureParties(tail string) []string {
	var out []string
	for _, m := range byRe().FindAllStringIndex(tail, 8) {
		before := tail[:m[0]]
		// The line holding "By:" before it, or the line above.
		lines := strings.Split(strings.TrimRight(before, " \t\r\n"), "\n")
		line := lines[len(lines)-1]
		if strings.TrimSpace(line) == "" && len(lines) > 1 {
			line = lines[len(lines)-2]
		}
		line = strings.TrimSpace(line)
		for line != "" {
			name, rest := nameRun(line)
			if name == "" {
				// skip one word and try again
				if i := strings.IndexAny(line, " \t"); i >= 0 {
					line = strings.TrimSpace(line[i:])
					continue
				}
				break
			}
			// Split after the first legal-form word past the first word.
			f := strings.Fields(name)
			for i := 1; i < len(f); i++ {
				if formWord(f[i]) && strings.HasSuffix(f[i], ".") && i+1 < len(f) {
					rest = strings.Join(f[i+1:], " ") + " " + rest
					f = f[:i+1]
					break
				}
			}
			// A signatory's title run into the name in capitals after it
			// ("Chief Executive Officer BLUEROCK RESIDENTIAL HOLDINGS,
			// L.P."): the capitals are the name.
			if k := capsFrom(f); k > 0 {
				f = f[k:]
			}
			name = strings.Join(f, " ")
			if signedForm(name) {
				out = appendNew(out, name)
			}
			line = strings.TrimSpace(rest)
			if len(out) >= maxParties {
				return out
			}
		}
	}
	return out
}

// signedForm reports whether a name of a signature block holds a legal
// form written as one: with a period ("Inc.", "L.P.") or in capitals
// ("LLC"), or a name of three words or more ending in a short capitalized
// word ("… Government Fund"). A short capitalized word of a shorter name
// ("Governing Law", "Mediation Date") is none there: the words above a
// "By:" line are often a heading or a caption.
func signedForm(name string) bool {
	f := strings.Fields(strings.NewReplacer(",", " ", "(", " ", ")", " ").Replace(name))
	for _, w := range f[min(1, len(f)):] {
		if formWord(w) && (strings.HasSuffix(w, ".") || upperWord(w)) {
			return true
		}
	}
	// A name of three words or more ending in a short capitalized word
	// ("Integrity Short Term Government Fund").
	if len(f) >= 3 {
		last := f[len(f)-1]
		return formWord(last) && len(last) <= 4 && !isJoinerTitle(strings.ToLower(last))
	}
	return false
}

// capsFrom returns where a run of words in capitals (two or more, the first
// of three letters or more, the last the name's end) starts after words in
// mixed case, or 0.
func capsFrom(f []string) int {
	k := len(f)
	for k > 0 && !hasLower(f[k-1]) {
		k--
	}
	if k == 0 || len(f)-k < 2 || letterCount(f[k]) < 3 {
		return 0
	}
	return k
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if Key(x) == Key(s) {
			return list
		}
	}
	return append(list, s)
}

// hasLowerWord reports whether s holds a word in lower case (prose, not a
// name).
func hasLowerWord(s string) bool {
	for _, w := range strings.Fields(s) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) && !nameWord(w) {
			return true
		}
	}
	return false
}
