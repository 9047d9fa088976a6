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
)

// Named-contract questions: plain questions that name one
// contract the way a lawyer does — "What law governs the Bravatek
// agreement?", "Can we assign our contract with Curo?" — built from the
// team's templates (questions/named.json) and the parties review_dev.json
// labels, in LegalBench-RAG's format, so the harness measures whether a
// question that names a contract is narrowed to it and answered from it.
//
// The names come from the labels, not from pakton's name learner, so the set
// does not measure the learner against itself: a party's defined short name
// when it is drawn from the party's name ("Bravatek Solutions, Inc.
// ("Bravatek")"), or the party's name without its legal form ("Bravatek
// Solutions"). A name is used only when it identifies one contract: the
// beginning of no other document of the corpus (its first 3,000
// characters, where parties are named) and no other file name holds it.
//
// Split. The documents of review_dev.json are taken in file order: the first
// NamedDevDocs are the development part, the rest the held-out part; each
// part uses its own half of the templates. Routing was developed on the
// development part only.

// NamedDevDocs is how many review_dev.json documents (in file order) make
// the development part of the named-contract sets.
const NamedDevDocs = 140

// namedHead is how much of each document's beginning decides whether a name
// identifies one contract (code points).
const namedHead = 3000

// Named builds the development and held-out named-contract benchmarks.
// corpus is the LegalBench-RAG corpus directory (file paths of review are
// relative to it).
func Named(review *Review, corpus string) (dev, heldout *Benchmark, err error) {
	dev, heldout, _, _, err = namedSets(review, corpus)
	return dev, heldout, err
}

// NamedMistyped builds the named-contract benchmarks with each question's
// name written as people mistype it (Mistype): the same questions, split
// and snippets as Named's, so the two measure the same contracts.
func NamedMistyped(review *Review, corpus string) (dev, heldout *Benchmark, err error) {
	_, _, dev, heldout, err = namedSets(review, corpus)
	return dev, heldout, err
}

// namedSets builds the named-contract benchmarks, with the names as the
// labels write them and as people mistype them.
func namedSets(review *Review, corpus string) (dev, heldout, devTyped, heldTyped *Benchmark, err error) {
	questions, err := questionsIn[map[string]map[string][]string]("named.json")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	heads, err := corpusHeads(corpus)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	provisions := make([]string, 0, len(questions))
	for p, qs := range questions {
		if len(qs["dev"]) == 0 || len(qs["heldout"]) == 0 {
			return nil, nil, nil, nil, fmt.Errorf("eval: named.json: %q needs dev and heldout questions", p)
		}
		provisions = append(provisions, p)
	}
	sort.Strings(provisions)
	dev = &Benchmark{Name: "cuad_named_dev"}
	heldout = &Benchmark{Name: "cuad_named_heldout"}
	devTyped = &Benchmark{Name: "cuad_named_mistyped_dev"}
	heldTyped = &Benchmark{Name: "cuad_named_mistyped_heldout"}
	for i, d := range review.Documents {
		part, b, bt := "dev", dev, devTyped
		if i >= NamedDevDocs {
			part, b, bt = "heldout", heldout, heldTyped
		}
		parties := ""
		for _, l := range d.Labels {
			if strings.EqualFold(l.Provision, "Parties") {
				parties = l.Answer
			}
		}
		cands := namedCandidates(parties, d.FilePath, heads)
		if len(cands) == 0 {
			continue
		}
		err := d.eachQuoted(corpus, provisions, func(p string, l ReviewLabel, snips []Snippet) {
			h := fnv.New32a()
			h.Write([]byte(d.FilePath + "\x00" + p))
			n := h.Sum32()
			qs := questions[p][part]
			name := cands[(n/7)%uint32(len(cands))]
			q := strings.ReplaceAll(qs[n%uint32(len(qs))], "{name}", name)
			b.Tests = append(b.Tests, Test{Query: q, Snippets: snips, Category: l.Provision})
			if typo := Mistype(name, n/49); typo != name {
				q := strings.ReplaceAll(qs[n%uint32(len(qs))], "{name}", typo)
				bt.Tests = append(bt.Tests, Test{Query: q, Snippets: snips, Category: l.Provision})
			}
		})
		if err != nil {
			return nil, nil, nil, nil, err
		}
	}
	if len(dev.Tests) == 0 || len(heldout.Tests) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("eval: no named-contract question could be built (%d dev, %d held-out)", len(dev.Tests), len(heldout.Tests))
	}
	return dev, heldout, devTyped, heldTyped, nil
}

// Mistype writes a name the way people mistype it, one of three ways
// chosen by h: run together ("Vivint Solar" → "VivintSolar"), as its
// initials ("Birch First Global Investments" → "BFGI", three words or
// more), or misspelt — in its longest word of five letters or more, two
// neighbouring letters after the first swapped ("Pfizer" → "Pifzer"), a
// letter dropped ("Silicon" → "Slicon") or doubled. A name none of these
// fits is returned as it is. The rules were written before any
// measurement; the sets built with them are the development sets of
// routing mistyped names (docs/EVALUATION.md).
func Mistype(name string, h uint32) string {
	words := strings.Fields(name)
	var caps []string // the words that start with a capital or a digit
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			caps = append(caps, w)
		}
	}
	ways := []string{"misspell"}
	if len(words) >= 2 {
		ways = append(ways, "together")
	}
	if len(caps) >= 3 {
		ways = append(ways, "initials")
	}
	switch ways[h%uint32(len(ways))] {
	case "together":
		return strings.Join(words, "")
	case "initials":
		var b strings.Builder
		for _, w := range caps {
			r, _ := utf8.DecodeRuneInString(w)
			b.WriteRune(unicode.ToUpper(r))
		}
		return b.String()
	}
	long := -1
	for i, w := range words {
		if n := utf8.RuneCountInString(w); n >= 5 && (long < 0 || n > utf8.RuneCountInString(words[long])) {
			long = i
		}
	}
	if long < 0 {
		return name
	}
	r := []rune(words[long])
	at := 1 + int(h/3)%(len(r)-2) // never the first letter, nor past the last
	switch (h / 7) % 3 {
	case 0:
		if r[at] != r[at+1] {
			r[at], r[at+1] = r[at+1], r[at]
			break
		}
		fallthrough
	case 1:
		r = append(r[:at:at], r[at+1:]...)
	default:
		r = append(r[:at+1:at+1], r[at:]...)
	}
	words[long] = string(r)
	return strings.Join(words, " ")
}

// corpusHead is a document's file name and beginning, folded for matching.
type corpusHead struct {
	path string // relative to the corpus directory
	text string // lower case: the file name, then the first namedHead code points
}

// corpusHeads reads the beginning of every CUAD corpus document.
func corpusHeads(corpus string) ([]corpusHead, error) {
	dir := filepath.Join(corpus, "cuad")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("eval: corpus: %w", err)
	}
	var out []corpusHead
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		r := []rune(string(data))
		out = append(out, corpusHead{path: "cuad/" + e.Name(), text: strings.ToLower(e.Name() + "\n" + string(r[:min(len(r), namedHead)]))})
	}
	return out, nil
}

var (
	partyQuoteRe = regexp.MustCompile(`["“”']([^"“”']{2,60})["“”']`)
	partyFormRe  = regexp.MustCompile(`^(?:[A-Z][A-Za-z]{0,4}\.|[A-Z.]{2,5}|Inc|Ltd|Corp|Co)$`)
)

// namedCandidates returns the names a lawyer would use for a contract from
// its Parties answer ('Bravatek Solutions, Inc. ("Bravatek")'): each
// party's defined short name drawn from its name, and its name without the
// legal form, written as a person would type it, that identify this
// document alone among heads.
func namedCandidates(parties, file string, heads []corpusHead) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		n = typed(strings.Trim(strings.TrimSpace(n), ",.;:"))
		k := strings.ToLower(n)
		if utf8.RuneCountInString(n) < 3 || seen[k] || strings.Contains(k, "xxx") || !identifies(k, file, heads) {
			return
		}
		seen[k] = true
		out = append(out, n)
	}
	for _, entry := range strings.Split(parties, ";") {
		entry = strings.TrimSpace(entry)
		full := entry
		if i := strings.IndexAny(entry, "(\"“”"); i >= 0 {
			full = strings.TrimSpace(entry[:i])
		}
		if full == "" || !unicode.IsUpper([]rune(full)[0]) || prose(full) {
			continue
		}
		for _, m := range partyQuoteRe.FindAllStringSubmatch(entry, -1) {
			if sharesWord(m[1], full) {
				add(m[1])
			}
		}
		add(withoutForm(full))
	}
	return out
}

// prose reports a Parties entry that is a sentence, not a name ("Each of
// the foregoing parties is referred to herein as a"): a lower-case word
// other than a short joining word.
func prose(s string) bool {
	for _, w := range strings.Fields(s) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) && len(w) > 3 && !strings.ContainsAny(w, ".-@0123456789") {
			return true
		}
	}
	return false
}

// withoutForm drops a party name's legal form and a leading "The" ("The
// Bravatek Solutions, Inc." → "Bravatek Solutions").
func withoutForm(full string) string {
	w := strings.Fields(full)
	for len(w) > 1 && partyFormRe.MatchString(strings.TrimRight(w[len(w)-1], ",")) {
		w = w[:len(w)-1]
	}
	if len(w) > 1 && strings.EqualFold(w[0], "the") {
		w = w[1:]
	}
	return strings.TrimRight(strings.Join(w, " "), ",")
}

// sharesWord reports whether a short name is drawn from the full name: it
// shares a word of three letters or more with it, or begins its first word.
func sharesWord(short, full string) bool {
	fw := strings.Fields(strings.ToLower(strings.NewReplacer(",", " ", ".", " ").Replace(full)))
	for _, s := range strings.Fields(strings.ToLower(short)) {
		for _, f := range fw {
			if len(s) >= 3 && s == f {
				return true
			}
		}
	}
	s := strings.ToLower(strings.ReplaceAll(short, " ", ""))
	return len(fw) > 0 && len(s) >= 4 && strings.HasPrefix(fw[0], s)
}

// typed writes a name in capitals the way a person types it ("VITALIBIS"
// → "Vitalibis"); a short all-capital word ("BNL") stays an acronym.
func typed(n string) string {
	if strings.ToUpper(n) != n {
		return n
	}
	w := strings.Fields(n)
	for i, x := range w {
		if utf8.RuneCountInString(x) > 4 {
			r := []rune(strings.ToLower(x))
			r[0] = unicode.ToUpper(r[0])
			w[i] = string(r)
		}
	}
	return strings.Join(w, " ")
}

// identifies reports whether a name (lower case) is written in the
// beginning of file and of no other document of heads.
func identifies(name, file string, heads []corpusHead) bool {
	own := false
	for _, h := range heads {
		if !containsWord(h.text, name) {
			continue
		}
		if h.path != file {
			return false
		}
		own = true
	}
	return own
}

// containsWord reports whether s holds w with no letter or digit on either
// side.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		before, _ := utf8.DecodeLastRuneInString(s[:a])
		after, _ := utf8.DecodeRuneInString(s[b:])
		if (a == 0 || !isWordRune(before)) && (b == len(s) || !isWordRune(after)) {
			return true
		}
		i = a + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
