package eval

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/document"
)

// DistinctCopies writes copies copies of every text contract in from into
// out, for measuring pakton on a collection copies times as large (docs/
// SCALE.md): copy 1 as it is, copy k ≥ 2 as "copyk-<name>" with each party
// renamed — every distinctive word of the name of the party the file is
// named after (partyWords), in the text and in the file name, replaced by a
// made-up name of the same shape, the same in one copy and different in
// the next. So the copies are distinct contracts, as a firm's estate of
// similar agreements with different counterparties is: a question naming
// one contract's parties names that contract only, and every copy's
// clauses and statistics are otherwise those of a real contract. The
// output is the same on every run. progress, when set, is called after each
// source file.
func DistinctCopies(from, out string, copies int, progress func(done, total int)) error {
	if copies < 1 {
		return fmt.Errorf("eval: copies: want at least 1 copy, got %d", copies)
	}
	files, err := filepath.Glob(filepath.Join(from, "*.txt"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("eval: copies: no .txt files in %s", from)
	}
	sort.Strings(files)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if !utf8.Valid(data) {
			return fmt.Errorf("eval: copies: %s is not valid UTF-8", f)
		}
		name := filepath.Base(f)
		text := string(data)
		words := partyWords(name, text)
		for k := 1; k <= copies; k++ {
			outName, outText := name, text
			if k > 1 {
				outName = fmt.Sprintf("copy%d-%s", k, renameIn(name, words, k, true))
				outText = renameIn(text, words, k, false)
			}
			if err := os.WriteFile(filepath.Join(out, outName), []byte(outText), 0o644); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	return nil
}

// partyWords returns the distinctive words of the party a contract file is
// named after: words of the contract's preamble (its first 4,000
// characters), capitalized, at least four letters, that the file name's
// leading company token spells ("ADAMSGOLFINC_03_21_2005-…" and "ADAMS
// GOLF, LTD" give "ADAMS", "GOLF"); not the words any company name may have
// ("Inc.", "Corporation", "Holdings"). When the file name spells no word of
// the preamble, the words of the party names chunk.Summary reads from it
// that are never written in lower case.
func partyWords(name, text string) []string {
	token := strings.ToLower(name)
	if i := strings.IndexAny(token, "_-"); i > 0 {
		token = token[:i]
	}
	token = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, token)
	head := text
	if len(head) > 4000 {
		head = head[:4000]
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(head, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		lw := strings.ToLower(w)
		if utf8.RuneCountInString(w) < 4 || !unicode.IsUpper(firstRune(w)) || companyWords[lw] || seen[lw] || !strings.Contains(token, lw) {
			continue
		}
		seen[lw] = true
		out = append(out, w)
	}
	if len(out) == 0 {
		// The file name does not spell the party: the party names the
		// preamble gives (chunk.Summary), their words that read as names —
		// capitalized, never written in lower case in the contract.
		lower := map[string]bool{}
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if !unicode.IsUpper(firstRune(w)) {
				lower[w] = true
			}
		}
		for _, p := range chunk.Summary(&document.Document{Text: text}).Parties {
			for _, w := range strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				lw := strings.ToLower(w)
				if utf8.RuneCountInString(w) < 4 || !unicode.IsUpper(firstRune(w)) || companyWords[lw] || seen[lw] || lower[lw] {
					continue
				}
				seen[lw] = true
				out = append(out, w)
			}
		}
	}
	// Longer words first, so a word inside another is not replaced first.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// companyWords are words of company names in general, not of one company:
// the parts of a name two different parties may share.
var companyWords = wordSet(`inc incorporated corp corporation co company companies llc ltd limited lp llp plc
	sa ag gmbh bv nv holdings holding group international global the and of partners partnership trust bank
	services systems technologies technology solutions industries enterprises america american usa us`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// renameIn replaces each of words in s by its made-up name in copy k,
// keeping its case style: in a text, whole words starting with a capital
// ("Adams", "ADAMS"; not "adams"); in a file name, also within longer
// words ("ADAMSGOLFINC_2005").
func renameIn(s string, words []string, k int, fileName bool) string {
	for _, w := range words {
		pat := `(?i)\b` + regexp.QuoteMeta(w) + `\b`
		if fileName {
			pat = `(?i)` + regexp.QuoteMeta(w)
		}
		re := regexp.MustCompile(pat)
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if !fileName && !unicode.IsUpper(firstRune(m)) {
				return m
			}
			return styled(madeUp(strings.ToLower(w), k), m)
		})
	}
	return s
}

// madeUp returns a pronounceable made-up word for word in copy k, as long
// as the word (at least 4 letters), the same on every run.
func madeUp(word string, k int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", word, k)
	x := h.Sum64()
	const cons, vows = "bcdfghklmnprstvz", "aeiou"
	n := max(4, utf8.RuneCountInString(word))
	var b strings.Builder
	for i := range n {
		if i%2 == 0 {
			b.WriteByte(cons[x%uint64(len(cons))])
			x /= uint64(len(cons))
		} else {
			b.WriteByte(vows[x%uint64(len(vows))])
			x /= uint64(len(vows))
		}
		if x == 0 {
			x = h.Sum64() ^ uint64(i+1)*0x9e3779b97f4a7c15
		}
	}
	return b.String()
}

// styled gives repl the case style of like: ALL CAPS, Capitalized or
// lower case.
func styled(repl, like string) string {
	switch {
	case strings.ToUpper(like) == like:
		return strings.ToUpper(repl)
	case unicode.IsUpper(firstRune(like)):
		return strings.ToUpper(repl[:1]) + repl[1:]
	}
	return repl
}
