package answer

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pakton/pakton/internal/numbering"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The values of a merger agreement's deal points, written from drafting
// conventions (the MAUD development agreements have spans, not values):
//
//   - consideration: what each share is converted into — a sum "in cash"
//     or written with a currency sign, a number of shares ("0.6500 of a
//     share of Parent Common Stock", "the Exchange Ratio"), or both — read
//     after the words that convert it ("converted into the right to
//     receive", "exchanged for"); the first such window that names either
//     decides, so the options' and units' treatment further on does not;
//   - carve-outs: the exceptions a definition lists after the words that
//     introduce them ("provided, however, that none of the following …",
//     "other than", "excluding", "shall not include"), one per item of the
//     enumeration that follows ((i), (ii), … or (a), (b), …), each cut to
//     its first words.

var (
	reConverts = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:right to receive|converted (?:automatically )?into|exchanged for|entitled to receive)\b`)
	})
	reCashSum = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:[$€£]\s?\d[\d,]*(?:\.\d+)?|\b(?:US\$|USD)\s?\d[\d,]*(?:\.\d+)?)(?:\s+in\s+cash)?`)
	})
	reCashWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bin cash\b|\bcash (?:tender offer|consideration|amount)\b`)
	})
	reParValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bpar value(?: of)?\s*$`)
	})
	reStock = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b\d*\.?\d+(?:\s*\(\s*\d*\.?\d+\s*\))?\s+(?:of\s+(?:a|one)\s+)?(?:(?:validly|issued|fully|paid|and|non-?assessable|duly|authorized),?\s+){0,6}(?:ordinary\s+)?shares?\s+of\s+(?:[\w.&'-]+\s+){0,4}?(?:common\s+stock|stock|shares|ordinary\s+shares)\b|\bexchange ratio\b|\bstock consideration\b|\bshares? of (?:parent|acquirer|buyer|purchaser)(?:'s)? (?:class [a-z] )?common stock\b`)
	})
	reShareSentenceEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[a-z)\]"”]\.\s+[A-Z(“"]`)
	})
	reExceptionLead = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bnone of the following\b|\bprovided,?\s+(?:however,?\s+)?that\b|\bother than\b|\bexcept(?:ing)?\s+(?:for\s+)?(?:any|those|the)\b|\bexcluding\b|\bshall not (?:be deemed to )?(?:include|constitute)\b|\bshall be excluded\b|\bdisregarding\b|\bwithout taking into account\b`)
	})
	reItemMark = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\(([ivxlc]{1,6}|[a-z]{1,2}|[A-Z]{1,2}|\d{1,2})\)`)
	})
)

// dealPointValue reads a merger deal point's value from s (the extracts
// joined in document order), in format (consideration or carve-outs),
// telling add every span it was read from.
func dealPointValue(format playbook.AnswerFormat, s string, add func(lo, hi int, role string)) string {
	switch format {
	case playbook.AnswerConsideration:
		kind, vals, ok := considerationAt(s)
		if !ok {
			return ""
		}
		for _, v := range vals {
			add(v.at, v.end, "value")
		}
		return considerationText(kind, vals)
	case playbook.AnswerCarveOuts:
		var items []string
		for _, v := range carveOutsAt(s) {
			if v.v != "" {
				items = append(items, v.v)
				add(v.at, v.end, "value")
			}
		}
		return strings.Join(items, "; ")
	}
	return ""
}

// considerationAt reads the kind of consideration written in s and where:
// "Cash", "Stock" or "Cash and stock", with the first sum and number of
// shares found. ok is false when s names neither.
func considerationAt(s string) (kind string, vals []valueAt, ok bool) {
	var windows [][2]int
	for _, loc := range reConverts().FindAllStringIndex(s, -1) {
		end := min(len(s), loc[1]+considerationWindow)
		if m := reShareSentenceEnd().FindStringIndex(s[loc[1]:end]); m != nil {
			end = loc[1] + m[0] + 2 // the sentence that converts the share
		}
		windows = append(windows, [2]int{loc[1], end})
	}
	windows = append(windows, [2]int{0, min(len(s), 3*considerationWindow)}) // no converting words: the opening
	for _, w := range windows {
		text := s[w[0]:w[1]]
		sum := cashSum(text)
		cash := sum != nil || reCashWords().MatchString(text)
		stock := reStock().FindStringIndex(text)
		if !cash && stock == nil {
			continue
		}
		var kinds []string
		if cash {
			kinds = append(kinds, "Cash")
			if sum != nil {
				vals = append(vals, valueAt{strings.TrimSpace(text[sum[0]:sum[1]]), w[0] + sum[0], w[0] + sum[1]})
			} else if at := pricePerShare(s); at != nil {
				// "the right to receive the Offer Price": the price the
				// text writes per share elsewhere
				vals = append(vals, valueAt{strings.TrimSpace(s[at[0]:at[1]]), at[0], at[1]})
			}
		}
		if stock != nil {
			kinds = append(kinds, "stock")
			vals = append(vals, valueAt{strings.Join(strings.Fields(text[stock[0]:stock[1]]), " "), w[0] + stock[0], w[0] + stock[1]})
		}
		kind = strings.Join(kinds, " and ")
		kind = strings.ToUpper(kind[:1]) + kind[1:]
		return kind, vals, true
	}
	return "", nil, false
}

// cashSum is where text first writes a sum of money that is not a par
// value ("common stock, par value $0.01 per share", "$0.01 par value");
// nil when it writes none.
func cashSum(text string) []int {
	for _, loc := range reCashSum().FindAllStringIndex(text, -1) {
		if !parValue(text, loc) {
			return loc
		}
	}
	return nil
}

// parValue reports whether the sum at loc in s is a par value.
func parValue(s string, loc []int) bool {
	after := strings.ToLower(strings.TrimLeft(s[loc[1]:min(len(s), loc[1]+16)], " "))
	return reParValue().MatchString(s[max(0, loc[0]-20):loc[0]]) || strings.HasPrefix(after, "par value")
}

// pricePerShare is where s first writes a sum of money per share ("$38.00
// per Share"); nil when it writes none.
func pricePerShare(s string) []int {
	for _, loc := range reCashSum().FindAllStringIndex(s, -1) {
		if parValue(s, loc) {
			continue
		}
		if rest := strings.ToLower(s[loc[1]:min(len(s), loc[1]+20)]); strings.HasPrefix(strings.TrimLeft(rest, " "), "per share") {
			return loc
		}
	}
	return nil
}

// considerationWindow is how far after the converting words the
// consideration is looked for, in bytes.
const considerationWindow = 500

// considerationText is a consideration's one-line answer: the kind, then
// the sum and shares as written ("Cash: $38.75").
func considerationText(kind string, vals []valueAt) string {
	var parts []string
	for _, v := range vals {
		parts = append(parts, v.v)
	}
	if len(parts) == 0 {
		return kind
	}
	return kind + ": " + strings.Join(parts, "; ")
}

// carveOutsAt returns the exceptions s lists after the words that introduce
// them, one per item of the enumeration that follows, each cut to its first
// words; none when s introduces no enumerated exceptions. Of several
// introductions (a definition's own "other than" before its list of
// carve-outs), the one followed by the longest enumeration is read.
func carveOutsAt(s string) []valueAt {
	var best []valueAt
	for _, lead := range reExceptionLead().FindAllStringIndex(s, -1) {
		if got := enumerationAfter(s, lead[1]); len(got) > len(best) {
			best = got
		}
	}
	return best
}

// enumerationAfter returns the items of the enumeration that opens within
// maxCarveOutLead bytes after at, each cut to its first words; none when
// none opens there.
func enumerationAfter(s string, at int) []valueAt {
	m := reItemMark().FindStringSubmatchIndex(s[at:min(len(s), at+maxCarveOutLead)])
	if m == nil {
		return nil
	}
	next := itemSequence(s[at+m[2] : at+m[3]])
	if next == nil {
		return nil
	}
	// the items: each expected label in turn, searched after the last
	var starts, labelEnds []int
	for n := 1; n <= maxCarveOuts; n++ {
		want := "(" + next(n) + ")"
		i := strings.Index(s[at:], want)
		if i < 0 || (n > 1 && i > maxCarveOutGap) {
			break
		}
		starts = append(starts, at+i)
		labelEnds = append(labelEnds, at+i+len(want))
		at = at + i + len(want)
	}
	var out []valueAt
	for k := range starts {
		end := len(s)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		out = append(out, carveOut(s, labelEnds[k], end))
	}
	return out
}

// carveOut is one exception's first words: from lo to the end of its first
// clause (a semicolon, a full stop) or hi, cut at a word near
// carveOutChars.
func carveOut(s string, lo, hi int) valueAt {
	for lo < hi && (s[lo] == ' ' || s[lo] == '\n' || s[lo] == '\t') {
		lo++
	}
	end := hi
	if i := strings.IndexAny(s[lo:hi], ";."); i >= 0 {
		end = lo + i
	}
	cut := false
	if end-lo > carveOutChars {
		if i := strings.LastIndexByte(s[lo:lo+carveOutChars], ' '); i > 0 {
			end, cut = lo+i, true
		}
	}
	text := s[lo:end]
	for prev := ""; prev != text; {
		prev = text
		text = strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(text, " \n\t,:"), " or"), " and")
	}
	v := valueAt{strings.Join(strings.Fields(text), " "), lo, lo + len(text)}
	if cut {
		v.v += "…" // the answer shows the item's first words; its span is what they cover
	}
	return v
}

// Limits of the carve-out reader: items listed, bytes between two items'
// labels, bytes from the introducing words to the first label, bytes of
// one item's answer.
const (
	maxCarveOuts    = 30
	maxCarveOutGap  = 2500
	maxCarveOutLead = 800
	carveOutChars   = 90
)

// itemSequence returns the labels of an enumeration that opens with first
// ("i" → "i", "ii", "iii" …; "a" → "a", "b" …; "1" → "1", "2" …), 1-based;
// nil when first opens none.
func itemSequence(first string) func(n int) string {
	switch {
	case first == "i":
		return numbering.Roman
	case first == "a":
		return func(n int) string { return numbering.Letters(n, false) }
	case first == "A":
		return func(n int) string { return numbering.Letters(n, true) }
	case first == "1":
		return strconv.Itoa
	}
	return nil
}
