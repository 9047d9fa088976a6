package answer

import (
	"slices"
	"strings"
	"unicode"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

// joinPageBreaks returns ex with every page break that interrupts a
// sentence read as the space it stands for: a running line or page
// furniture ("eGAIN COMMUNICATIONS CORPORATION / HOSTING AGREEMENT" at a
// page's top), with the blank lines around it, between a word that ends no
// sentence and one in lower case ("… by giving to the other party written
// notice [page break] of such termination upon the other party's material
// breach …"). The reading then sees the sentence whole, so the cause its
// second half states is not lost. Texts keep their length in code points,
// so spans read from them are the extracts' own; ex is not changed.
func joinPageBreaks(c *detect.Prepared, ex []detect.Extract) []detect.Extract {
	if c == nil {
		return ex
	}
	breaks := pageBreaks(c)
	if len(breaks) == 0 {
		return ex
	}
	out := ex
	copied := false
	for i, e := range ex {
		// the breaks inside e, in its code points, those apart only by
		// white space taken as one ("COMPANY NAME", a blank line, "TITLE")
		var regions [][2]int
		for _, b := range breaks {
			if b.End <= e.Span.Start || b.Start >= e.Span.End || b.Empty() {
				continue
			}
			regions = append(regions, [2]int{max(b.Start, e.Span.Start) - e.Span.Start, min(b.End, e.Span.End) - e.Span.Start})
		}
		if len(regions) == 0 {
			continue
		}
		r := []rune(e.Text)
		if len(r) != e.Span.Len() {
			continue // not the span's text: leave it
		}
		changed := false
		for k := 0; k < len(regions); k++ {
			lo, hi := regions[k][0], regions[k][1]
			for lo > 0 && unicode.IsSpace(r[lo-1]) {
				lo--
			}
			for {
				for hi < len(r) && unicode.IsSpace(r[hi]) {
					hi++
				}
				if k+1 < len(regions) && regions[k+1][0] <= hi {
					k++
					hi = max(hi, regions[k][1])
					continue
				}
				break
			}
			if lo == 0 || hi >= len(r) || strings.ContainsRune(".;:!?", r[lo-1]) || !unicode.IsLower(r[hi]) {
				continue
			}
			for j := lo; j < hi; j++ {
				r[j] = ' '
			}
			changed = true
		}
		if !changed {
			continue
		}
		if !copied {
			out = append([]detect.Extract(nil), ex...)
			copied = true
		}
		out[i].Text = string(r)
	}
	return out
}

// pageBreaks returns c's running lines and page furniture, by start, found
// once per contract: every yes/no cell's reading asks.
func pageBreaks(c *detect.Prepared) []document.Span {
	return c.Memo(breaksKey, func() any {
		var breaks []document.Span
		breaks = append(breaks, runningLines(c)...)
		for _, f := range c.Doc().Doc.Furniture {
			breaks = append(breaks, f.Span)
		}
		slices.SortFunc(breaks, func(a, b document.Span) int { return a.Start - b.Start })
		return breaks
	}).([]document.Span)
}
