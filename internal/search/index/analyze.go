package index

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Token is one analyzed term with its position among the text's terms.
type Token struct {
	Term string
	Pos  int
}

// stems caches the stem of the words seen, so each distinct word is stemmed
// once per process. The vocabulary of a contract corpus is small (tens of
// thousands of words); the cache holds at most maxStems words, so a
// document of millions of made-up words cannot grow a server for good.
// Words that are their own stem (short ones, those with a digit) are not
// cached.
var (
	stems     sync.Map
	stemCount atomic.Int64
)

const maxStems = 1 << 18

// Stem returns the Snowball English stem of a lower-case word (cached).
func Stem(w string) string {
	if len(w) <= 3 || hasDigit(w) {
		return w
	}
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, false)
	if stemCount.Load() < maxStems {
		if _, loaded := stems.LoadOrStore(strings.Clone(w), s); !loaded {
			stemCount.Add(1)
		}
	}
	return s
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}

// IsStopWord reports whether w, a lower-cased word, is a stop word: Analyze
// drops it.
func IsStopWord(w string) bool { return stopWords[w] }

// Analyze splits text into lower-cased, stemmed terms, dropping stop words.
// Letters and digits form words; everything else separates them, except that
// an apostrophe inside a word is dropped ("party's" → "party") and a period
// between digits is kept ("2.3").
func Analyze(text string) []string {
	out := make([]string, 0, len(text)/6)
	ForEachWord(text, func(w string, _ bool) {
		if stopWords[w] {
			return
		}
		out = append(out, Stem(w))
	})
	return out
}

// AnalyzeCased is Analyze that also reports, for each term, whether its word
// was written like a name: starting with a capital letter or containing a
// digit ("Acme", "BRAVATEK", "2TheMart").
func AnalyzeCased(text string) (terms []string, named []bool) {
	ForEachWord(text, func(w string, capital bool) {
		if stopWords[w] {
			return
		}
		terms = append(terms, Stem(w))
		named = append(named, capital || hasDigit(w))
	})
	return terms, named
}

// ForEachWord calls fn with every lower-cased word of text and whether the
// word started with a capital letter.
func ForEachWord(text string, fn func(w string, capital bool)) {
	ForEachWordAt(text, func(w string, at WordAt) { fn(w, at.Capital) })
}

// WordAt says where a word of a text is and how it was written.
type WordAt struct {
	Start, End int  // bytes of the text the word was read from
	Capital    bool // its first letter is a capital
	Inner      bool // a letter after the first is a capital ("BRAVATEK", "eDiets")
}

// ForEachWordAt is ForEachWord that also says where each word is in text
// and whether a letter inside it is a capital.
func ForEachWordAt(text string, fn func(w string, at WordAt)) {
	var buf []byte
	var at WordAt
	flush := func(end int) {
		if len(buf) == 0 {
			return
		}
		at.End = end
		fn(string(buf), at)
		buf = buf[:0]
	}
	begin := func(i int, capital bool) {
		if len(buf) == 0 {
			at = WordAt{Start: i, Capital: capital}
		} else if capital {
			at.Inner = true
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				begin(i, false)
				buf = append(buf, c)
			case c >= 'A' && c <= 'Z':
				if gluedAt(text, i, buf, at) {
					flush(i)
				}
				begin(i, true)
				buf = append(buf, c+'a'-'A')
			case c == '\'' && len(buf) > 0:
				// possessive or contraction: drop the rest of the word ("party's")
				j := i + 1
				for j < len(text) && isASCIIAlnum(text[j]) {
					j++
				}
				flush(j)
				i = j
				continue
			case c == '.' && len(buf) > 0 && isDigit(buf[len(buf)-1]) && i+1 < len(text) && isDigit(text[i+1]):
				buf = append(buf, c)
			default:
				flush(i)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '’' && len(buf) > 0:
			j := i + w
			for j < len(text) && isASCIIAlnum(text[j]) {
				j++
			}
			flush(j)
			i = j
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			begin(i, unicode.IsUpper(r))
			buf = utf8.AppendRune(buf, unicode.ToLower(foldAccent(r)))
		default:
			flush(i)
		}
		i += w
	}
	flush(len(text))
}

// gluedAt reports whether the capital at text[i] starts a word glued to
// the one in buf, whose space a conversion lost ("includingPersonal
// Information", "ourVendors", "byThird-Party"): the word so far starts in
// lower case, is two letters or more with no capital or digit, and the
// capital is followed by a lower-case letter. A name written with an
// inner capital starts with a capital ("InfoSonics") or a single letter
// ("eDiets", "iPhone") and stays one word.
func gluedAt(text string, i int, buf []byte, at WordAt) bool {
	if len(buf) < 2 || at.Capital || at.Inner || i+1 >= len(text) || text[i+1] < 'a' || text[i+1] > 'z' {
		return false
	}
	for _, b := range buf {
		if b < 'a' || b > 'z' {
			return false
		}
	}
	return true
}

// HasDigit reports whether a word holds a digit.
func HasDigit(w string) bool { return hasDigit(w) }

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isASCIIAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) }

// foldAccent maps common Latin accented letters to their base letter so that
// "café" and "cafe" match.
func foldAccent(r rune) rune {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å':
		return 'a'
	case 'ç':
		return 'c'
	case 'è', 'é', 'ê', 'ë':
		return 'e'
	case 'ì', 'í', 'î', 'ï':
		return 'i'
	case 'ñ':
		return 'n'
	case 'ò', 'ó', 'ô', 'õ', 'ö':
		return 'o'
	case 'ù', 'ú', 'û', 'ü':
		return 'u'
	case 'ý', 'ÿ':
		return 'y'
	}
	return r
}

// stopWords are function words that carry no meaning for retrieval. Legal
// words ("shall", "party") are deliberately kept: BM25's inverse document
// frequency already discounts them, and "shall not" matters.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto
		upon as is are was were be been being am do does did doing have has had having it its itself this that
		these those there here which who whom whose what when where why how all any both each few more most other
		some such only own same so than too very can will just should would could may might must our ours ourselves
		you your yours yourself yourselves he him his himself she her hers herself they them their theirs themselves
		we us i me my myself about above after again against below between during before further once out over
		under up down off through until while nor not no s t also whether`) {
		m[w] = true
	}
	// "whether" is a subordinator like "if" (and on the SMART, Glasgow and
	// spaCy lists): "whether or not" asks, it does not say what about.
	// Negations change meaning in contracts ("shall not assign"); keep them.
	delete(m, "not")
	delete(m, "no")
	delete(m, "nor")
	return m
}()
