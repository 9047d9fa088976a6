package clause

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// RenderOptions controls Render. The zero value prints every node with a
// 60-character preview.
type RenderOptions struct {
	Preview  int  // characters of own text to show; 0 means 60, negative means none
	MaxDepth int  // deepest level to print; 0 means all
	NoSpans  bool // omit the code-point spans
}

// Render writes t as an indented outline, one line per node: kind, label,
// heading or defined term, span, pages (for paginated documents) and a
// one-line preview of the node's own text.
func Render(w io.Writer, doc *document.Document, t *Tree, opts RenderOptions) error {
	bw := bufio.NewWriter(w)
	preview := opts.Preview
	if preview == 0 {
		preview = 60
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if opts.MaxDepth > 0 && n.Depth > opts.MaxDepth {
			continue
		}
		var b strings.Builder
		b.WriteString(strings.Repeat("  ", n.Depth))
		b.WriteString(string(n.Kind))
		if n.Label != "" {
			b.WriteString(" ")
			b.WriteString(n.Label)
		}
		if n.Heading != "" {
			fmt.Fprintf(&b, " %q", n.Heading)
		}
		if n.Term != "" {
			fmt.Fprintf(&b, " term=%q", n.Term)
		}
		if !opts.NoSpans {
			b.WriteString(" ")
			b.WriteString(n.Span.String())
		}
		if doc != nil && len(doc.Pages) > 0 {
			if pages := doc.PagesOf(n.Span); len(pages) > 0 {
				if pages[0] == pages[len(pages)-1] {
					fmt.Fprintf(&b, " p.%d", pages[0])
				} else {
					fmt.Fprintf(&b, " pp.%d-%d", pages[0], pages[len(pages)-1])
				}
				// The printed page numbers, where the pages show them.
				a, z := pages[0], pages[len(pages)-1]
				if l := doc.PageLabelsOf([]int{a, z}); l != nil && !(l[0] == strconv.Itoa(a) && l[1] == strconv.Itoa(z)) {
					switch {
					case l[0] == l[1] || l[1] == "":
						fmt.Fprintf(&b, " [printed %s]", l[0])
					case l[0] == "":
						fmt.Fprintf(&b, " [printed %s]", l[1])
					default:
						fmt.Fprintf(&b, " [printed %s-%s]", l[0], l[1])
					}
				}
			}
		}
		if preview > 0 && doc != nil && i > 0 {
			if p := previewText(doc.Slice(n.Own), preview); p != "" {
				b.WriteString("  | ")
				b.WriteString(p)
			}
		}
		b.WriteByte('\n')
		if _, err := bw.WriteString(b.String()); err != nil {
			return fmt.Errorf("render clause tree of %s: %w", docName(doc), err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render clause tree of %s: %w", docName(doc), err)
	}
	return nil
}

func docName(doc *document.Document) string {
	if doc == nil {
		return "document"
	}
	if doc.Name != "" {
		return doc.Name
	}
	return doc.ID
}

// previewText collapses white space and cuts text to n characters.
func previewText(text string, n int) string {
	var b strings.Builder
	count := 0
	space := false
	for _, r := range text {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			count++
		}
		space = false
		if !unicode.IsPrint(r) {
			r = '?'
		}
		b.WriteRune(r)
		count++
		if count >= n {
			if utf8.RuneCountInString(text) > count {
				b.WriteString("…")
			}
			break
		}
	}
	return b.String()
}
