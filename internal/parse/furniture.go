package parse

// Page furniture of paginated text: page numbers, running headers and
// footers, filing banners. They are found from the page map alone, so every
// PDF engine (and OCR) gets the same treatment:
//
//   - a page number is a line among the first or last three lines of a
//     page that holds only a number or roman numeral, optionally dashed,
//     bracketed or written "Page 3" / "Page 3 of 12";
//   - a running line is a line whose text (digits folded) recurs among the
//     first or last four lines of at least three pages and a third of them,
//     and never twice on one page (every copy of it is then furniture):
//     "Source: … 10-K", "Confidential Treatment Requested", the SEC's
//     redaction notice.
//
// The text itself is not changed; the spans go to Document.Furniture and
// the printed numbers to Page.Label.

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/numbering"
)

// pageNumberRe matches a line that is only a page number.
// Regular expressions are compiled on first use (sync.OnceValue): compiled
// at start-up they were a cost every command paid, a one-shot search too.
var pageNumberRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i:page\s+)?[-–—(\[]?\s*(\d{1,4}|[ivxlc]{1,7}|[IVXLC]{1,7}|[A-Z]-\d{1,3})\s*[-–—)\]]?(?:\s+(?i:of)\s+\d{1,4})?$`)
})

// furnitureEdge is how many lines at each end of a page may be furniture.
const (
	numberEdge  = 3
	runningEdge = 4
)

type pageLine struct {
	span document.Span
	text string // trimmed
}

// markFurniture fills doc.Furniture and the pages' labels.
func markFurniture(doc *document.Document) {
	if len(doc.Pages) == 0 {
		return
	}
	ix := document.NewIndex(doc.Text)
	pages := make([][]pageLine, len(doc.Pages))
	for i, p := range doc.Pages {
		pages[i] = splitLines(ix, p.Span)
	}
	var furn []document.Furniture
	taken := map[document.Span]bool{}
	add := func(k document.FurnitureKind, sp document.Span) {
		if !taken[sp] {
			taken[sp] = true
			furn = append(furn, document.Furniture{Kind: k, Span: sp})
		}
	}
	// Running lines. A line that occurs twice on one page is the body's
	// own wording, not a header.
	count := map[string]int{}
	twice := map[string]bool{}
	for _, lines := range pages {
		seen := map[string]bool{}
		for _, l := range lines {
			if k := runningKey(l.text); k != "" {
				if seen[k] {
					twice[k] = true
				}
				seen[k] = true
			}
		}
		seen = map[string]bool{}
		for _, l := range edges(lines, runningEdge) {
			k := runningKey(l.text)
			if k != "" && !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	need := max(3, (len(pages)+2)/3)
	// Once a line is known to run, every copy of it is furniture, also
	// where the extractor put it mid-page (pdfium keeps content order).
	for _, lines := range pages {
		for _, l := range lines {
			if k := runningKey(l.text); k != "" && count[k] >= need && !twice[k] {
				add(document.FurnitureRunning, l.span)
			}
		}
	}
	// Page numbers: the last matching line at the bottom, else the first
	// at the top. A number counts only when a neighbouring page's number
	// runs in step with it (page 7 says 5 and page 8 says 6): a lone
	// number at a page edge is as likely a list entry or a table cell.
	type pageNum struct {
		span  document.Span
		label string
		style string
		val   int
	}
	nums := make([]*pageNum, len(pages))
	for i, lines := range pages {
		cand := edges(lines, numberEdge)
		for j := len(cand) - 1; j >= 0; j-- {
			l := cand[j]
			if taken[l.span] {
				continue
			}
			m := pageNumberRe().FindStringSubmatch(l.text)
			if m == nil {
				continue
			}
			if style, val := labelValue(m[1]); val > 0 {
				nums[i] = &pageNum{l.span, m[1], style, val}
				break
			}
		}
	}
	inStep := func(a, b *pageNum, gap int) bool {
		return a != nil && b != nil && a.style == b.style && b.val-a.val == gap
	}
	for i, n := range nums {
		if n == nil {
			continue
		}
		if (i > 0 && inStep(nums[i-1], n, 1)) || (i+1 < len(nums) && inStep(n, nums[i+1], 1)) ||
			(i > 1 && inStep(nums[i-2], n, 2)) || (i+2 < len(nums) && inStep(n, nums[i+2], 2)) {
			add(document.FurniturePageNumber, n.span)
			doc.Pages[i].Label = n.label
		}
	}
	sort.Slice(furn, func(a, b int) bool { return furn[a].Span.Start < furn[b].Span.Start })
	doc.Furniture = furn
}

// labelValue reads a page label: its style ("1", "i", "I" or an exhibit
// prefix such as "B-") and value, or 0 when it is not a page number.
func labelValue(s string) (string, int) {
	if k := strings.IndexByte(s, '-'); k > 0 {
		v, err := strconv.Atoi(s[k+1:])
		if err != nil {
			return "", 0
		}
		return s[:k+1], v
	}
	if v, err := strconv.Atoi(s); err == nil {
		return "1", v
	}
	if v := romanValue(strings.ToLower(s)); v > 0 {
		if s == strings.ToUpper(s) {
			return "I", v
		}
		return "i", v
	}
	return "", 0
}

// romanValue returns the value of a canonical lower-case roman numeral up
// to 200, or 0.
func romanValue(s string) int {
	n, ok := numbering.ParseRoman(s)
	if !ok || n > 200 || strings.ToLower(s) != s {
		return 0
	}
	return n
}

// runningKey is a line's identity across pages: white space collapsed,
// digit runs folded to "#". Lines too short to tell apart, and bare page
// numbers, give "".
func runningKey(t string) string {
	if utf8.RuneCountInString(t) < 6 || pageNumberRe().MatchString(t) {
		return ""
	}
	var b strings.Builder
	digit, space := false, false
	for _, r := range t {
		switch {
		case unicode.IsDigit(r):
			if !digit {
				b.WriteByte('#')
			}
			digit, space = true, false
			continue
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
			}
			digit, space = false, true
			continue
		}
		digit, space = false, false
		b.WriteRune(r)
	}
	k := b.String()
	if strings.Trim(k, "# ") == "" {
		return ""
	}
	return k
}

// edges returns the first and last n lines of a page (each once).
func edges(lines []pageLine, n int) []pageLine {
	if len(lines) <= 2*n {
		return lines
	}
	out := append([]pageLine{}, lines[:n]...)
	return append(out, lines[len(lines)-n:]...)
}

// splitLines returns the non-blank lines of span sp, trimmed, with their
// spans (first to last non-space code point).
func splitLines(ix *document.Index, sp document.Span) []pageLine {
	text := ix.Slice(sp)
	var out []pageLine
	pos := sp.Start
	for len(text) > 0 {
		line := text
		if k := strings.IndexByte(text, '\n'); k >= 0 {
			line = text[:k]
			text = text[k+1:]
		} else {
			text = ""
		}
		n := utf8.RuneCountInString(line)
		lead := utf8.RuneCountInString(line) - utf8.RuneCountInString(strings.TrimLeftFunc(line, unicode.IsSpace))
		t := strings.TrimSpace(line)
		if t != "" {
			s := pos + lead
			out = append(out, pageLine{span: document.Span{Start: s, End: s + utf8.RuneCountInString(t)}, text: t})
		}
		pos += n + 1
	}
	return out
}
