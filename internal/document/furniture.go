package document

import (
	"sort"
	"strconv"
	"strings"
)

// FurnitureKind says what a piece of page furniture is.
type FurnitureKind string

// Furniture kinds a parser may report.
const (
	// FurniturePageNumber is a printed page number or label ("6", "- 23 -",
	// "iv", "Page 3 of 12").
	FurniturePageNumber FurnitureKind = "page_number"
	// FurnitureRunning is a line repeated at the top or bottom of many
	// pages: a running header or footer, a filing banner ("Source: …
	// 10-K"), a redaction notice.
	FurnitureRunning FurnitureKind = "running"
)

// Furniture is a span of the canonical text that belongs to the page, not
// to the agreement: it stays in the text (every offset is exact) but
// retrieval units, quotations and highlights read it as white space.
type Furniture struct {
	Kind FurnitureKind `json:"kind"`
	Span Span          `json:"span"`
}

// Masked returns the text of span s with every furniture code point
// replaced by a space (line breaks are kept). The result has exactly as
// many code points as s, so offsets into it are offsets into the document.
func (d *Document) Masked(s Span) string {
	text := d.Slice(s)
	if len(d.Furniture) == 0 || text == "" {
		return text
	}
	var cut []Span // furniture inside s, relative to s.Start
	for _, f := range d.Furniture {
		if in := f.Span.Intersect(s); !in.Empty() {
			cut = append(cut, Span{in.Start - s.Start, in.End - s.Start})
		}
	}
	if len(cut) == 0 {
		return text
	}
	sort.Slice(cut, func(a, b int) bool { return cut[a].Start < cut[b].Start })
	var b strings.Builder
	b.Grow(len(text))
	i, k := 0, 0
	for _, r := range text {
		for k < len(cut) && cut[k].End <= i {
			k++
		}
		if k < len(cut) && cut[k].Start <= i && r != '\n' {
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
		i++
	}
	return b.String()
}

// MaskedText returns the whole canonical text with furniture masked (see
// Masked).
func (d *Document) MaskedText() string {
	if len(d.Furniture) == 0 {
		return d.Text
	}
	return d.Masked(Span{0, d.Runes()})
}

// InFurniture reports whether span s lies entirely in page furniture.
func (d *Document) InFurniture(s Span) bool {
	if s.Empty() {
		return false
	}
	covered := s.Start
	for _, f := range d.Furniture { // sorted by start
		if f.Span.Start > covered {
			break
		}
		if f.Span.End > covered {
			covered = f.Span.End
		}
		if covered >= s.End {
			return true
		}
	}
	return false
}

// PageLabel returns the printed label of 1-based page n ("23", "iv"), or
// "" when the page shows none or the document has no such page.
func (d *Document) PageLabel(n int) string {
	for _, p := range d.Pages {
		if p.Number == n {
			return p.Label
		}
	}
	return ""
}

// PageLabelsOf returns the printed labels of the given pages, "" where a
// page shows none; nil when none of them has a label.
func (d *Document) PageLabelsOf(pages []int) []string {
	var out []string
	any := false
	for _, n := range pages {
		l := d.PageLabel(n)
		any = any || l != ""
		out = append(out, l)
	}
	if !any {
		return nil
	}
	return out
}

// PageCitation names the pages span s touches for a citation, with the
// numbers printed on them where those differ: "p. 5 (PDF page; printed
// 3)", "pp. 5–6 (PDF pages; printed 3–4)". "" for an unpaginated document.
func (d *Document) PageCitation(s Span) string {
	pages := d.PagesOf(s)
	return FormatPages(pages, d.PageLabelsOf(pages))
}

// FormatPages is PagesLabel with the printed labels (parallel to pages, or
// nil) added where they differ from the physical numbers.
func FormatPages(pages []int, labels []string) string {
	out := PagesLabel(pages)
	if out == "" || len(labels) != len(pages) {
		return out
	}
	first, last := pages[0], pages[len(pages)-1]
	a, b := labels[0], labels[len(labels)-1]
	if a == strconv.Itoa(first) && b == strconv.Itoa(last) {
		return out // the printed numbers say what the physical ones say
	}
	var printed string
	switch {
	case a != "" && (last == first || b == "" || a == b):
		printed = a
	case a != "" && b != "":
		printed = a + "–" + b
	case b != "":
		printed = b
	default:
		return out
	}
	return strings.TrimSuffix(out, ")") + "; printed " + printed + ")"
}
