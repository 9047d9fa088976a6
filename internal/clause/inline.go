package clause

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words before "(a)" that make it a cross-reference, not a list item:
// "Section 2(a)", "clause (b)", "paragraphs (a) and (b)".
var refWords = map[string]bool{
	"section": true, "sections": true, "clause": true, "clauses": true, "paragraph": true,
	"paragraphs": true, "subsection": true, "subsections": true, "subparagraph": true,
	"subparagraphs": true, "sub-clause": true, "sub-clauses": true, "item": true, "items": true,
	"article": true, "articles": true, "schedule": true, "exhibit": true, "annex": true,
	"and": true, "or": true, "through": true, "to": true, "in": true, "under": true, "of": true,
	"with": true, "per": true, "see": true, "rule": true, "regulation": true, "item(s)": true,
	"§": true, "part": true, "appendix": true, "u.s.c.": true, "act": true,
}

// scanInline finds markers inside running text: "(a)" style items after a
// word or punctuation, and "2." / "2.1" / "A." / "ARTICLE 2" right after a
// sentence ends. They are weak: the tree builder takes one only where it
// continues an open list by exactly one, or opens a list whose next member
// follows. strong holds the line-start markers, in order.
func scanInline(s string, strong []marker) []marker {
	taken := make(map[int]bool, len(strong))
	for _, m := range strong {
		taken[m.pos] = true
	}
	var out []marker
	for i := 1; i < len(s); i++ {
		c := s[i]
		if s[i-1] != ' ' || !(c == '(' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) || taken[i] {
			continue
		}
		prev, word := before(s, i)
		sentenceEnd := prev == '.' || prev == ':' || prev == ';' || prev == '"' || prev == '”' || prev == ')'
		switch {
		case c == '(':
			if refWords[word] && !(word == "and" || word == "or") {
				continue
			}
			if word == "and" || word == "or" {
				// "; and (c)" is an item; "(a) and (b)" is a reference.
				// The punctuation may end the line before: a PDF's text
				// keeps a page's lines, and ";" then "and (iv) engaged
				// any intermediary" on the next line is the same list.
				if p2, _ := before(s, wrappedStart(s, i-len(word)-1)); p2 != ';' && p2 != ',' {
					continue
				}
			}
			m, ok := scanParen(s, i)
			if !ok {
				continue
			}
			if _, first := nextWordWrapped(s, m.labelEnd); !unicode.IsLetter(first) && first != '"' && first != '“' && first != '[' {
				continue
			}
			out = append(out, m)
		case c >= '0' && c <= '9':
			if prev == ')' || refWords[word] {
				continue
			}
			m, ok := scanDecimal(s, i)
			if !ok || m.fam != famDecimal {
				continue
			}
			// Without a sentence end before it, an inline heading must
			// follow: "ATTN: Tim Orr 5. Entire Agreement. A. ...".
			if !sentenceEnd && headingOf(strings.TrimLeft(s[m.labelEnd:min(len(s), m.labelEnd+200)], " "), false, true) == "" {
				continue
			}
			// "2. The" or "2.1 Term": a capital must follow.
			if _, first := nextWord(s, m.labelEnd); !unicode.IsUpper(first) && first != '"' && first != '“' {
				continue
			}
			out = append(out, m)
		default:
			if refWords[word] {
				continue
			}
			if m, ok := scanKeyword(s, i); ok {
				if sentenceEnd && (m.fam == famArticle || m.fam == famSectionKw) {
					out = append(out, m)
				}
				continue
			}
			if m, ok := scanLetter(s, i); ok && len(m.label) == 2 && m.label[1] == '.' {
				if sentenceEnd || headingOf(strings.TrimLeft(s[m.labelEnd:min(len(s), m.labelEnd+200)], " "), false, false) != "" {
					out = append(out, m)
				}
			}
		}
	}
	confirm(out, strong)
	return out
}

// nextWordWrapped is nextWord across one line break: an item's label
// that a line wrap left at the end of its line ("; and (iii)\nfor such
// other purposes", as PDF text extraction keeps a page's lines) is
// followed by the words on the next line.
func nextWordWrapped(s string, i int) (string, rune) {
	j := skipHSpace(s, i)
	if j < len(s) && s[j] == '\r' {
		j++
	}
	if j < len(s) && s[j] == '\n' {
		i = j + 1
	}
	return nextWord(s, i)
}

// wrappedStart returns i moved back over the indentation and the one line
// break before it when the text before i on its line is white space: the
// end of the line a wrap continues at i.
func wrappedStart(s string, i int) int {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && s[j-1] == '\n' {
		j--
		if j > 0 && s[j-1] == '\r' {
			j--
		}
		return j
	}
	return i
}

// before returns the last non-space rune before byte i and the lower-cased
// word it ends.
func before(s string, i int) (rune, string) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j == 0 {
		return 0, ""
	}
	r, _ := utf8.DecodeLastRuneInString(s[:j])
	k := j
	for k > 0 && s[k-1] != ' ' && s[k-1] != '\n' && s[k-1] != '\t' && j-k < 30 {
		k--
	}
	return r, strings.ToLower(s[k:j])
}

// confirm marks each inline marker that could open a list (value 1) and is
// followed, within a few thousand bytes, by a marker of the same style with
// value 2.
func confirm(weak, strong []marker) {
	all := mergeMarkers(append([]marker(nil), strong...), weak)
	pos := map[int]int{}
	for k, m := range weak {
		pos[m.pos] = k
	}
	for i := range all {
		m := &all[i]
		k, isWeak := pos[m.pos]
		if !isWeak {
			continue
		}
		for _, r := range m.reads {
			first := r.val == 1
			if m.fam == famDecimal && len(m.nums) > 1 {
				first = m.nums[len(m.nums)-1] == 1
			}
			if !first {
				continue
			}
			for j := i + 1; j < len(all) && j < i+400 && all[j].pos-m.pos < 8000; j++ {
				o := &all[j]
				if secondOf(m, r, o) {
					weak[k].confirmed = true
					break
				}
			}
		}
	}
}

// secondOf reports whether o is the second member of the list m opens
// under reading r.
func secondOf(m *marker, r interp, o *marker) bool {
	if o.fam != m.fam {
		return false
	}
	if m.fam == famDecimal || m.fam == famSectionKw {
		return sameParentNums(o.nums, m.nums) && o.nums[len(o.nums)-1] == 2
	}
	for _, or := range o.reads {
		if or.style == r.style && or.val == 2 {
			return true
		}
	}
	return false
}

// mergeMarkers merges two position-sorted marker lists.
func mergeMarkers(a, b []marker) []marker {
	if len(b) == 0 {
		return a
	}
	out := append(a, b...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}
