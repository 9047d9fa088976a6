package detect

import (
	"hash/maphash"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// The review analyzer keeps every word (stop words included: "not", "no",
// "without" and "by" carry meaning in a provision) and stems it. It is the
// review's own (this package's), so retrieval tuning elsewhere never shifts the
// features a trained detector was fitted on.

// stemCache holds the stems of the words seen, in shards each behind its
// own lock: the answer readers stem every word of the clauses they read, on
// every core at once, and a look-up here costs about two thirds of a
// sync.Map's (46 against 66 ns on two busy cores).
var stemCache struct {
	seed   maphash.Seed
	shards [64]stemShard
}

type stemShard struct {
	sync.RWMutex
	m map[string]string
}

func init() { stemCache.seed = maphash.MakeSeed() }

// StemWord returns the stem of one lower-cased word (cached).
func StemWord(w string) string {
	sh := &stemCache.shards[maphash.String(stemCache.seed, w)%uint64(len(stemCache.shards))]
	sh.RLock()
	s, ok := sh.m[w]
	sh.RUnlock()
	if ok {
		return s
	}
	s = w
	if len(w) > 3 {
		s = english.Stem(w, false)
	}
	sh.Lock()
	if sh.m == nil {
		sh.m = map[string]string{}
	}
	sh.m[strings.Clone(w)] = s
	sh.Unlock()
	return s
}

// Analyze returns the lower-cased, stemmed words of text. Numbers become
// "<num>" so "30 days" and "60 days" share their shape.
func Analyze(text string) []string {
	out := make([]string, 0, len(text)/6)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := text[start:end]
		start = -1
		digits := true
		for i := 0; i < len(w); i++ {
			if w[i] < '0' || w[i] > '9' {
				digits = false
				break
			}
		}
		if digits {
			out = append(out, "<num>")
			return
		}
		out = append(out, StemWord(strings.ToLower(w)))
	}
	skip := false // the letters after an apostrophe ("party's" → "party")
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !skip && start < 0 {
				start = i
			}
			continue
		}
		skip = false
		if (r == '\'' || r == '’') && start >= 0 {
			flush(i)
			skip = true
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// featureID hashes a feature name. Names are kept only when training (to
// write readable detector files); scoring uses the hashes alone.
func featureID(name string) uint32 { return fnvAdd(fnvOffset32, name) }

// FNV-1a, 32 bits (hash/fnv's New32a), over strings without joining them.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

func fnvAdd(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}

// featureNames, when non-nil, records the name of every hashed feature
// (training only).
var (
	featureNamesMu sync.Mutex
	featureNames   map[uint32]string
)

type featureSet struct {
	ids  []uint32
	seen map[uint32]bool
}

func (f *featureSet) add(name string) {
	f.addID(featureID(name), name)
}

// addParts adds the feature named by the concatenation of parts, hashing
// them in turn (the same id as add of the joined name) and joining them
// only when names are recorded.
func (f *featureSet) addParts(parts ...string) {
	h := uint32(fnvOffset32)
	for _, p := range parts {
		h = fnvAdd(h, p)
	}
	if featureNames != nil {
		f.addID(h, strings.Join(parts, ""))
		return
	}
	f.addID(h, "")
}

func (f *featureSet) addID(id uint32, name string) {
	if f.seen[id] {
		return
	}
	f.seen[id] = true
	f.ids = append(f.ids, id)
	if featureNames != nil {
		featureNamesMu.Lock()
		featureNames[id] = name
		featureNamesMu.Unlock()
	}
}

var (
	// Regular expressions are compiled on first use (sync.OnceValue): compiled
	// at start-up they were a cost every command paid, a one-shot search too.
	reDate = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+day\s+of\s+\w+,?\s+\d{4}\b`)
	})
	reMoney    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[$€£]\s?\d|\b(?:USD|EUR|GBP|RMB|dollars?)\b`) })
	rePercent  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d\s?%|\bper\s?cent\b|\bpercent\b`) })
	reDuration = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty|sixty|ninety)\b[\s)(\d-]*(?:calendar\s+|business\s+)?(?:days?|months?|years?|weeks?)\b`)
	})
	reQuoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`["“”][A-Z][^"“”]{1,60}["“”]`) })
)

// The shape tests below answer exactly as their regular expressions: each
// first checks something every match must contain (a cheap pass over the
// bytes), and runs the expression only when it is there. Most passages hold
// no date, amount, percentage or duration, and the expressions' backtracking
// over every passage of a contract was half of preparing it for the
// detectors (and so of a search's p99 with the detectors first).

// hasDate is reDate().MatchString: every match holds four digits in a row
// (a month name or "day of", then a year) or a digit, a separator, a digit,
// a separator and a digit ("1/2/03").
func hasDate(text string) bool {
	return (digitRun(text, 4) || digitSepDigitSepDigit(text)) && reDate().MatchString(text)
}

// hasMoney is reMoney().MatchString: every match holds a currency sign or
// one of its words.
func hasMoney(text string) bool {
	return (strings.ContainsAny(text, "$€£") || strings.Contains(text, "USD") || strings.Contains(text, "EUR") ||
		strings.Contains(text, "GBP") || strings.Contains(text, "RMB") || strings.Contains(text, "dollar")) && reMoney().MatchString(text)
}

// hasPercent is rePercent().MatchString: every match holds "%" or "cent".
func hasPercent(text string) bool {
	return (strings.IndexByte(text, '%') >= 0 || strings.Contains(text, "cent")) && rePercent().MatchString(text)
}

// hasDuration is reDuration().MatchString: every match holds "day", "month",
// "year" or "week" in some case.
func hasDuration(text string) bool {
	return (containsFold(text, "day") || containsFold(text, "month") || containsFold(text, "year") || containsFold(text, "week")) &&
		reDuration().MatchString(text)
}

// digitRun reports whether s holds n ASCII digits in a row (the only
// digits \d matches in these expressions, which are not in Unicode mode).
func digitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// digitSepDigitSepDigit reports whether s holds a digit, one of / . -, a
// digit, one of / . - and a digit, in a row (with more digits between).
func digitSepDigitSepDigit(s string) bool {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isSep := func(c byte) bool { return c == '/' || c == '.' || c == '-' }
	for i := 0; i+4 < len(s); i++ {
		if !isDigit(s[i]) || !isSep(s[i+1]) || !isDigit(s[i+2]) {
			continue
		}
		j := i + 2
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j+1 < len(s) && isSep(s[j]) && isDigit(s[j+1]) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds word (lower-case ASCII) in any case,
// as (?i) matches it: ASCII letters, and the Kelvin sign and long s that
// fold to k and s.
func containsFold(s, word string) bool {
	n := len(word)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == n {
			return true
		}
	}
	// Non-ASCII letters that fold to ASCII ones ("K" Kelvin, "ſ" long s):
	// leave those texts to the expression.
	return strings.ContainsRune(s, 'K') || strings.ContainsRune(s, 'ſ')
}

// features returns the hashed features of a passage: its words and word
// pairs, its headings' words, its parent's lead-in words, its kind of
// clause (a definition, a list item…), where it sits in the document, how
// long it is, and the shapes of text it holds (dates, amounts, durations,
// defined terms). The non-lexical ones (genericFeature) say nothing about
// any provision in particular and feed the zero-shot scorer's prior.
func features(p *Passage, text string) []uint32 {
	f := featureSet{seen: make(map[uint32]bool, 2*len(p.Words)+len(p.Context)+16)}
	for i, w := range p.Words {
		f.addParts("w:", w)
		if i > 0 {
			f.addParts("b:", p.Words[i-1], "_", w)
		}
	}
	for _, w := range p.Context {
		f.addParts("h:", w)
	}
	for _, w := range p.LeadIn {
		f.addParts("l:", w)
	}
	f.add("kind:" + string(p.Kind))
	f.add("pos:" + strconv.Itoa(int(math.Min(p.Rel*20, 19))))
	if p.Ordinal < 6 {
		f.add("ord:" + strconv.Itoa(p.Ordinal))
	}
	n := utf8.RuneCountInString(text)
	f.add("len:" + strconv.Itoa(int(math.Log2(float64(n)/25+1))))
	if hasDate(text) {
		f.add("shape:date")
	}
	if hasMoney(text) {
		f.add("shape:money")
	}
	if hasPercent(text) {
		f.add("shape:percent")
	}
	if hasDuration(text) {
		f.add("shape:duration")
	}
	if strings.ContainsAny(text, "\"“”") && reQuoted().MatchString(text) {
		f.add("shape:defined")
	}
	if upperShare(text) > 0.6 {
		f.add("shape:caps")
	}
	f.add("bias")
	return f.ids
}

func upperShare(s string) float64 {
	var up, letters int
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				up++
			}
		}
	}
	if letters == 0 {
		return 0
	}
	return float64(up) / float64(letters)
}

// genericFeature reports whether a feature says something about every
// provision alike (what kind of passage it is, where, how long, what shape
// of text), not about one provision's words.
func genericFeature(name string) bool {
	for _, p := range []string{"kind:", "pos:", "ord:", "len:", "shape:"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
