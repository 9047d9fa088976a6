package compare

import (
	"strings"
	"unicode"
)

// minBlockWords is the fewest words an inserted or deleted run of whole
// paragraphs needs to be reported as an added or missing clause of its own
// rather than as a change to the clause around it.
const minBlockWords = 6

// stream is one side's tokens in document order, as byText concatenates
// its clauses.
type stream struct {
	ids      []int
	toks     []string // normalised
	brk      []bool   // a line break (or the start of a line) before the token
	owner    []int    // the item the token belongs to
	label    []bool   // the token is part of its clause's number
	ownerLen []int    // tokens per item
}

// boundary scores how well run [s, e) of side st stands on its own: 3
// for a clause's start before it (2 for a line break, 1 for the end of a
// sentence), and the same after it.
func (st *stream) boundary(s, e int) int {
	score := 0
	switch {
	case s == 0 || st.owner[s-1] != st.owner[s]:
		score += 3
	case st.brk[s]:
		score += 2
	case sentenceEnd(st.toks[s-1]):
		score++
	}
	switch {
	case e == len(st.ids) || st.owner[e-1] != st.owner[e]:
		score += 3
	case st.brk[e]:
		score += 2
	case e > s && sentenceEnd(st.toks[e-1]):
		score++
	}
	return score
}

// paragraphs reports whether run [s, e) is whole lines: a line break (or a
// clause's start, or the text's) before it and after it.
func (st *stream) paragraphs(s, e int) bool {
	return (s == 0 || st.brk[s]) && (e == len(st.ids) || st.brk[e])
}

// same reports whether tokens i and j of the stream read alike for
// sliding: the same word, or both a clause's number (a renumbered section
// and the new one before it: "[+4. New clause. 5.+] Warranty" slides to
// "[+4. New clause.+] 5. Warranty").
func (st *stream) same(i, j int) bool {
	return st.ids[i] == st.ids[j] || st.label[i] && st.label[j] && (st.toks[i] == st.toks[j] || alnum(st.toks[i]) && alnum(st.toks[j]))
}

func alnum(t string) bool {
	for _, r := range t {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return t != ""
}

func sentenceEnd(t string) bool { return t == "." || t == ";" || t == ":" }

// slide moves each insertion and deletion that sits between unchanged runs
// to the equivalent place (the same edit, shifted over words that repeat
// at its two ends) where it best starts and ends at a paragraph or
// sentence boundary: "… days. [+New clause. +]Next …" rather than
// "… days[+. New clause+]. Next …". The script stays an equally short
// difference of the words; only clause numbers may pair unequal in the
// unchanged runs after a slide (they are compared apart from words).
func slide(es []Edit, a, b *stream) []Edit {
	for x := range es {
		e := es[x]
		if e.Kind == Equal {
			continue
		}
		if x > 0 && es[x-1].Kind != Equal || x+1 < len(es) && es[x+1].Kind != Equal {
			continue // a replacement: nothing to slide
		}
		side, s, end := b, e.BStart, e.BEnd
		if e.Kind == Delete {
			side, s, end = a, e.AStart, e.AEnd
		}
		left, right := 0, 0
		if x > 0 {
			prev := es[x-1]
			lo := prev.BStart
			if e.Kind == Delete {
				lo = prev.AStart
			}
			for s-left-1 >= lo && side.same(s-left-1, end-left-1) {
				left++
			}
		}
		if x+1 < len(es) {
			next := es[x+1]
			hi := next.BEnd
			if e.Kind == Delete {
				hi = next.AEnd
			}
			for end+right < hi && side.same(s+right, end+right) {
				right++
			}
		}
		best, bestD := side.boundary(s, end), 0
		for d := -left; d <= right; d++ {
			if sc := side.boundary(s+d, end+d); sc > best || sc == best && abs(d) < abs(bestD) {
				best, bestD = sc, d
			}
		}
		if bestD == 0 {
			continue
		}
		d := bestD
		if x > 0 {
			es[x-1].AEnd += d
			es[x-1].BEnd += d
		}
		es[x].AStart += d
		es[x].AEnd += d
		es[x].BStart += d
		es[x].BEnd += d
		if x+1 < len(es) {
			es[x+1].AStart += d
			es[x+1].BStart += d
		}
	}
	out := es[:0]
	for _, e := range es {
		if e.AStart == e.AEnd && e.BStart == e.BEnd {
			continue
		}
		out = append(out, e)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// block is a run of whole paragraphs inserted into the contract or deleted
// from the template: [start, end) tokens of its side's stream.
type block struct{ start, end int }

// findBlocks marks the edits that insert or delete whole paragraphs of at
// least minBlockWords words: a line break before the run and after it.
// A run that is exactly one or more whole clauses of the tree is left to
// the clause-level report (returned in neither map).
func findBlocks(es []Edit, a, b *stream) map[int]block {
	out := map[int]block{}
	for x, e := range es {
		side, s, end := b, e.BStart, e.BEnd
		switch e.Kind {
		case Equal:
			continue
		case Delete:
			side, s, end = a, e.AStart, e.AEnd
		}
		if !side.paragraphs(s, end) || countWords(side.toks[s:end]) < minBlockWords {
			continue
		}
		// Whole clauses only? Every item it touches lies inside it.
		whole := true
		for k := s; k < end && whole; {
			it := side.owner[k]
			first, n := k, 0
			for k < end && side.owner[k] == it {
				k++
				n++
			}
			if n != side.ownerLen[it] || first > 0 && side.owner[first-1] == it {
				whole = false
			}
		}
		if whole {
			continue
		}
		out[x] = block{s, end}
	}
	return out
}

func countWords(toks []string) int {
	n := 0
	for _, t := range toks {
		for _, r := range t {
			if unicode.IsLetter(r) {
				n++
				break
			}
		}
	}
	return n
}

// blockHeading is a block's first line when it reads as a heading: a few
// words before a period or a line break ("Non-Solicitation.").
func blockHeading(text string) string {
	line := strings.TrimSpace(text)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	if i := strings.Index(line, ". "); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimRight(line, ".: ")
	if n := len(strings.Fields(line)); n == 0 || n > 6 || line == strings.TrimSpace(text) {
		return ""
	}
	return line
}
