package names

import (
	"regexp"
	"strings"
	"sync"
)

// A long agreement often opens with a table of contents that runs for pages
// before the title block and the preamble ("FRANCHISE AGREEMENT / TABLE OF
// CONTENTS / 1. Introduction ........ 1 / … / PRETZEL TIME, INC. FRANCHISE
// AGREEMENT / This agreement is made … by and between …"): the first
// headChars bytes are then all contents, and the parties are never read.
// PreambleHead skips such a table: the head is what comes before the
// contents' heading and what follows its last entry. Every reader of a
// contract's opening uses it (the names here, chunk's summary and its
// title), so none of them reads a contents page for a preamble.

// Contents entries are told by their leaders: a run of dots (". . . ." or
// "....") before the page number or exhibit letter.
var leaderRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\. ?){4,}\s*[0-9A-Za-z]{1,6}\b`)
})

const (
	// contentsReach is how far into a document a table of contents may
	// run: a long agreement's may fill ten pages.
	contentsReach = 60000
	// contentsGap is the most text between two entries of one table (an
	// entry whose heading runs over several lines, a page break).
	contentsGap = 3000
	// minContentsEntries is how many leader entries make a table.
	minContentsEntries = 3
)

// PreambleHead returns at most n bytes of text that hold its title and
// preamble: its first n bytes, or — when a table of contents with its own
// heading opens the document — what precedes the heading and the text after
// the table's last entry, n bytes in all.
func PreambleHead(text string, n int) string {
	start, end, ok := openingContents(text, n)
	if !ok {
		return headOf(text, n)
	}
	before := strings.TrimRight(text[:start], " \t\r\n")
	rest := n - len(before) - 2
	if rest <= 0 {
		return headOf(text, n)
	}
	return before + "\n\n" + headOf(text[end:], rest)
}

// openingContents finds a table of contents whose heading lies in the first
// n bytes of text: the heading's start, and the end of the line of the
// table's last entry (entries with leaders, each within contentsGap of the
// one before, up to contentsReach into the text).
func openingContents(text string, n int) (start, end int, ok bool) {
	head := headOf(text, n)
	start, body := -1, 0
	for i := 0; i < len(head); {
		e := strings.IndexByte(head[i:], '\n')
		if e < 0 {
			e = len(head) - i
		}
		if contentsHeading(head[i : i+e]) {
			start, body = i, i+e
			break
		}
		i += e + 1
	}
	if start < 0 {
		return 0, 0, false
	}
	reach := headOf(text, contentsReach)
	entries, last := 0, body
	for last < len(reach) {
		loc := leaderRe().FindStringIndex(reach[last:])
		if loc == nil || loc[0] > contentsGap {
			break
		}
		entries++
		last += loc[1]
	}
	if entries < minContentsEntries {
		return 0, 0, false
	}
	if e := strings.IndexByte(text[last:], '\n'); e >= 0 {
		last += e + 1
	} else {
		last = len(text)
	}
	return start, last, true
}

// withoutContents returns a line without the contents heading that shares
// it ("FRANCHISE AGREEMENT   TABLE OF CONTENTS", "Mobility Network General
// Agreement TABLE OF CONTENTS Page"): the words before "TABLE OF CONTENTS",
// which are a title or a running header, or "" when the heading opens the
// line. A title never holds a contents heading; the words are a heading's
// only in capitals or title case ("the table of contents is for
// convenience" is a sentence and is left whole).
func withoutContents(line string) string {
	if loc := contentsWordsRe().FindStringIndex(line); loc != nil {
		return strings.TrimRight(line[:loc[0]], " \t")
	}
	return line
}

var contentsWordsRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:TABLE|Table)\s+(?:OF|of)\s+(?:CONTENTS|Contents)\b`)
})

// contentsHeading reports whether line is the heading of a table of
// contents: "TABLE OF CONTENTS" (any case), or a short line in capitals
// ending in CONTENTS or INDEX.
func contentsHeading(line string) bool {
	t := strings.Join(strings.Fields(line), " ")
	if t == "" || len(t) > 80 {
		return false
	}
	u := strings.ToUpper(t)
	if strings.Contains(u, "TABLE OF CONTENTS") {
		return true
	}
	if u != t {
		return false
	}
	f := strings.Fields(u)
	last := f[len(f)-1]
	return len(f) <= 6 && (last == "CONTENTS" || last == "INDEX")
}
