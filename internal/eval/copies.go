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
	"github.com/pakton/pakton/internal/names"
)

// DistinctCopies writes copies copies of every text contract in from into
// out, for measuring pakton on a collection copies times as large (docs/
// SCALE.md): copy 1 as it is, copy k ≥ 2 as "copyk-<name>" with every party
// renamed — each distinctive word of every party's name (partyWords), in
// the text and in the file name, replaced by a made-up name of the same
// shape, the same in one copy and different in the next. So the copies are
// distinct contracts, as a firm's estate of similar agreements with
// different counterparties is: a question naming one contract's parties
// names that contract only, and every copy's clauses and statistics are
// otherwise those of a real contract. The output is the same on every run.
// progress, when set, is called after each source file.
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
	texts := make([]string, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if !utf8.Valid(data) {
			return fmt.Errorf("eval: copies: %s is not valid UTF-8", f)
		}
		texts[i] = string(data)
	}
	ws := collectionWords(texts)
	for i, f := range files {
		name, text := filepath.Base(f), texts[i]
		words := partyWords(name, text, ws)
		inText, inName := wordSpans(text, words, false), nameSpans(name, words)
		for k := 1; k <= copies; k++ {
			outName, outText := name, text
			if k > 1 {
				outName = fmt.Sprintf("copy%d-%s", k, renamed(name, inName, k, true))
				outText = renamed(text, inText, k, false)
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

// splitWords splits s into its words: runs of letters and digits.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}

// wordStats is what a collection says of its words (lower-cased): how
// many texts write each with a capital first letter (df), and which are
// written in lower case somewhere (lowered) and in how many texts
// (lowerDF).
type wordStats struct {
	df      map[string]int
	lowered map[string]bool
	lowerDF map[string]int
	n       int // texts
}

// collectionWords counts the words of texts (wordStats).
func collectionWords(texts []string) wordStats {
	ws := wordStats{df: map[string]int{}, lowered: map[string]bool{}, lowerDF: map[string]int{}, n: len(texts)}
	for _, t := range texts {
		seen, seenLower := map[string]bool{}, map[string]bool{}
		for _, w := range splitWords(t) {
			lw := strings.ToLower(w)
			if !capitalized(w) {
				ws.lowered[lw] = true
				if !seenLower[lw] {
					seenLower[lw] = true
					ws.lowerDF[lw]++
				}
				continue
			}
			if !seen[lw] {
				seen[lw] = true
				ws.df[lw]++
			}
		}
	}
	return ws
}

// partyWords returns the distinctive words of every party of a contract,
// longest first:
//   - the words of the party the file is named after: words of the
//     contract's preamble (its first 4,000 characters), capitalized, at
//     least four letters, that the file name's leading company token spells
//     ("ADAMSGOLFINC_03_21_2005-…" and "ADAMS GOLF, LTD" give "ADAMS",
//     "GOLF");
//   - the words of every party name the product reads from the contract —
//     the names search routes by (names.Learn: each party's full name, the
//     short names it is defined by, its name without legal form and its
//     leading words) and the preamble's parties (chunk.Summary) — that
//     read as a name: capitalized, at least three letters, never written in
//     lower case in the contract, and rare in the collection (capitalized
//     in at most max(8, n/15) of its n contracts, as routing counts a word
//     rare enough to name a contract: search.namesSomething). A party of
//     names.Learn none of whose words is that rare has its rarest word
//     that reads as a name renamed, when at most half of the contracts
//     have it, so every such party is renamed unless its name is only
//     words most contracts have ("Section", "June"). A rare word of a
//     party name that this contract alone writes in lower case too
//     ("cybershop.com") is renamed in every case;
//   - the words of the contract's opening (its first 1,500 characters,
//     which routing matches a name against too) that read as a name, are
//     rare so and are never written in lower case in the collection, but
//     not the words of its title or type.
//
// Never the words any company name may have ("Inc.", "Corporation",
// "Holdings"). ws is what the collection says of its words.
func partyWords(name, text string, ws wordStats) []string {
	df, n := ws.df, ws.n
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
	add := func(w string) {
		seen[strings.ToLower(w)] = true
		out = append(out, w)
	}
	for _, w := range splitWords(head) {
		lw := strings.ToLower(w)
		if utf8.RuneCountInString(w) < 4 || !capitalized(w) || companyWords[lw] || seen[lw] || !strings.Contains(token, lw) {
			continue
		}
		add(w)
	}
	lower := map[string]bool{} // written in lower case in this contract
	for _, w := range splitWords(text) {
		if !capitalized(w) {
			lower[strings.ToLower(w)] = true
		}
	}
	rare := max(8, n/15)
	nm := names.Learn(text, name)
	learnt, preamble := partyNames(text, nm)
	for i, p := range append(learnt, preamble...) {
		var best string
		named := false
		for _, w := range splitWords(p) {
			lw := strings.ToLower(w)
			if seen[lw] {
				named = true
				continue
			}
			if utf8.RuneCountInString(w) >= 4 && lower[lw] && ws.lowerDF[lw] <= 1 && df[lw] <= rare && !companyWords[lw] {
				// A name this contract also writes in lower case and no
				// other does ("cybershop.com", "e-centives"): renamed in
				// every case (given in lower case, see wordSpans).
				add(lw)
				named = true
				continue
			}
			if utf8.RuneCountInString(w) < 3 || !capitalized(w) || companyWords[lw] || lower[lw] {
				continue
			}
			if seen[lw] {
				named = true
				continue
			}
			if df[lw] <= rare {
				add(w)
				named = true
			} else if 2*df[lw] <= n && (best == "" || df[lw] < df[strings.ToLower(best)]) {
				best = w
			}
		}
		if !named && best != "" && i < len(learnt) {
			add(best)
		}
	}
	// Routing also finds a contract by the words of its opening (a party
	// the preamble reader missed: search.openingDocs): its words that read
	// as a name, rare and never written in lower case in the collection
	// ("MediaNet", not "Seller" or "PUBLICLY"), but not its title's words.
	title := map[string]bool{}
	for _, w := range splitWords(nm.Title + " " + nm.Type) {
		title[strings.ToLower(w)] = true
	}
	for _, w := range splitWords(chunk.Opening(&document.Document{Text: text}, openingRunes)) {
		lw := strings.ToLower(w)
		if utf8.RuneCountInString(w) < 3 || !capitalized(w) || companyWords[lw] || ws.lowered[lw] || seen[lw] || title[lw] || df[lw] > rare {
			continue
		}
		add(w)
	}
	// Longer words first, so a word inside another is not replaced first.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// openingRunes is how much of a contract's opening routing reads
// (chunk.Opening in chunk.Views).
const openingRunes = 1500

// partyNames returns the party names a contract gives, as the product
// reads them: each party's full name, short names, name without legal
// form and leading words (names.Learn, what search routes by), and the
// preamble's parties (chunk.Summary) up to their first comma ("Newegg
// Inc", not "…, a Delaware corporation").
func partyNames(text string, nm names.Names) (learnt, preamble []string) {
	for _, p := range nm.Parties {
		learnt = append(learnt, p.Name)
		learnt = append(learnt, p.Short...)
		if p.Core != "" {
			learnt = append(learnt, p.Core)
		}
		learnt = append(learnt, p.Lead...)
	}
	for _, p := range chunk.Summary(&document.Document{Text: text}).Parties {
		if i := strings.IndexByte(p, ','); i >= 0 {
			p = p[:i]
		}
		preamble = append(preamble, p)
	}
	return learnt, preamble
}

// capitalized reports whether the first letter of w is a capital ("Acme",
// "2TheMart").
func capitalized(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return unicode.IsUpper(r)
		}
	}
	return false
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

// span is one occurrence of a party word in a text: bytes [start, end),
// the word's lower-case form and how it is written there.
type span struct {
	start, end int
	word, as   string
}

// wordSpans finds the occurrences of words in s: in a text, whole words
// starting with a capital or a digit ("Adams", "ADAMS"; not "adams"); in a
// file name, also within longer words ("ADAMSGOLFINC_2005"), for words of
// four letters or more. A word given in lower case is matched in any case
// ("cybershop"). Longer words are matched first.
func wordSpans(s string, words []string, fileName bool) []span {
	var alts []string
	anyCase := map[string]bool{}
	for _, w := range words {
		if !capitalized(w) {
			anyCase[w] = true
		}
		if fileName && utf8.RuneCountInString(w) < 4 {
			continue
		}
		alts = append(alts, regexp.QuoteMeta(w))
	}
	if len(alts) == 0 {
		return nil
	}
	var out []span
	for _, m := range regexp.MustCompile(`(?i)(?:`+strings.Join(alts, "|")+`)`).FindAllStringIndex(s, -1) {
		as := s[m[0]:m[1]]
		if !fileName {
			// A whole word (a match inside a word is all letters, so
			// skipping it skips no whole word after it).
			before, _ := utf8.DecodeLastRuneInString(s[:m[0]])
			after, _ := utf8.DecodeRuneInString(s[m[1]:])
			if isWordRune(before) || isWordRune(after) || !capitalized(as) && !anyCase[strings.ToLower(as)] {
				continue
			}
		}
		out = append(out, span{m[0], m[1], strings.ToLower(as), as})
	}
	return out
}

// nameSpans finds the party words in a file name (wordSpans); when none
// is in its first word ("ADIANUTRITION,INC_04_01_2005-…", a company the
// text does not name), that word is renamed too, unless it is shorter than
// four letters or a word any company name may have.
func nameSpans(name string, words []string) []span {
	spans := wordSpans(name, words, true)
	end := strings.IndexFunc(name, func(r rune) bool { return !isWordRune(r) })
	if end < 0 {
		end = len(name)
	}
	first := name[:end]
	if (len(spans) > 0 && spans[0].start < end) || utf8.RuneCountInString(first) < 4 || companyWords[strings.ToLower(first)] {
		return spans
	}
	return append([]span{{0, end, strings.ToLower(first), first}}, spans...)
}

// renamed returns s with each of spans replaced by its word's made-up
// name in copy k, in the case style it is written in.
func renamed(s string, spans []span, k int, fileName bool) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/50)
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(styled(madeUp(sp.word, k), sp.as))
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
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
	case capitalized(like):
		return strings.ToUpper(repl[:1]) + repl[1:]
	}
	return repl
}
