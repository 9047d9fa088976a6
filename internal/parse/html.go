package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/numbering"
)

// Canonical text of an HTML file is what a reader sees, not the markup:
//
//   - head, script, style, noscript, template and elements marked hidden
//     (the hidden attribute or style="display:none") are dropped.
//   - Whitespace in ordinary text collapses to one space as a browser does;
//     non-breaking spaces count as spaces. <pre> and <textarea> keep theirs.
//   - Block elements end the line; paragraphs, headings, top-level lists,
//     tables, blockquotes and <hr> are set off by a blank line (a single
//     line break inside a list). <br> is a
//     line break.
//   - Table cells of a row are separated by a tab, one row per line;
//     paragraphs inside a cell are single lines.
//   - List items are prefixed with their marker, as a browser draws it:
//     "1.", "b.", "iv." for <ol> (honouring start, type, reversed and the
//     value of <li>), "•", "◦", "▪" by depth for <ul>, then a space; a
//     list-style-type set by a style attribute or a style sheet, or a
//     ::before content with a counter ("(" counter(x, lower-alpha) ")"),
//     is drawn instead (html_css.go), and list-style-type none draws none. Nested
//     items are indented two spaces per level, up to maxHTMLIndent levels
//     (deeper items keep that indent), so the text stays linear in the
//     size of the file however deep the lists nest.
//   - Headings, list items and paragraphs are reported as blocks.
//
// The input is UTF-8 unless it is not valid UTF-8, in which case it is
// decoded as Windows-1252 (which covers a declared ISO-8859-1 / Latin-1, as
// browsers do); a UTF-16 byte-order mark is honoured.

// maxHTMLIndent is the deepest list level that still adds indentation.
const maxHTMLIndent = 8

// Limits on one HTML file. The parser builds a node per element (a few
// hundred bytes each) and, for every list item, scans the stack of open
// elements, so a file of nothing but nested list items costs memory per
// element and time per element times depth. (Variables so tests can lower
// them.)
var (
	// maxHTMLElements bounds the tree: a long contract has a few
	// thousand elements, a large filing a few hundred thousand.
	maxHTMLElements = 1_000_000
	// htmlTimeout and htmlTimeoutPerMB bound the time to parse a file.
	htmlTimeout      = 30 * time.Second
	htmlTimeoutPerMB = time.Second
)

func parseHTML(ctx context.Context, data []byte, lim *textBudget) (*document.Document, error) {
	src := decodeHTMLBytes(data)
	if n := countHTMLElements(src, maxHTMLElements); n > maxHTMLElements {
		return nil, fmt.Errorf("%w: the HTML has more than %d elements; pakton reads at most %d", ErrTooLarge, maxHTMLElements, maxHTMLElements)
	}
	limit := htmlTimeout + time.Duration(len(data)>>20)*htmlTimeoutPerMB
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errHTMLDeadline)
	defer cancel()
	root, err := html.Parse(&ctxReader{ctx: ctx, r: strings.NewReader(src)})
	if err != nil {
		if context.Cause(ctx) == errHTMLDeadline {
			return nil, fmt.Errorf("%w: reading it took longer than %s (the limit is %s plus %s per MB)", ErrTooLarge, limit, htmlTimeout, htmlTimeoutPerMB)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: html: %v", ErrCorrupt, err)
	}
	w := &htmlWriter{lim: lim, css: readHTMLCSS(root)}
	w.walk(root)
	if err := lim.Err(); err != nil {
		return nil, err
	}
	text, blocks := w.finish()
	return &document.Document{Format: "html", Text: text, Blocks: blocks}, nil
}

var errHTMLDeadline = errors.New("html deadline")

// countHTMLElements counts the start tags in src, stopping once it passes
// limit.
func countHTMLElements(src string, limit int) int {
	z := html.NewTokenizer(strings.NewReader(src))
	n := 0
	for n <= limit {
		switch z.Next() {
		case html.ErrorToken:
			return n
		case html.StartTagToken, html.SelfClosingTagToken:
			n++
		}
	}
	return n
}

// ctxReader fails its reads once ctx is done, which stops the HTML parser
// at its next read.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p[:min(len(p), 64<<10)])
}

var metaCharset = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_.:-]+)`)
})

// decodeHTMLBytes returns the document as a Go (UTF-8) string.
func decodeHTMLBytes(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return string(data[3:])
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data[2:], false)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data[2:], true)
	}
	if utf8.Valid(data) {
		return string(data)
	}
	cs := ""
	if m := metaCharset().FindSubmatch(data[:min(len(data), 4096)]); m != nil {
		cs = strings.ToLower(string(m[1]))
	}
	switch cs {
	case "utf-8", "utf8":
		if !mostlyNotUTF8(data) {
			return string(data) // invalid bytes become U+FFFD later
		}
	}
	// windows-1252, iso-8859-1, latin1, us-ascii, undeclared or unknown:
	// browsers treat all of these as Windows-1252.
	return decodeWindows1252(data)
}

// htmlWriter renders a parsed HTML tree to text. Line breaks are requested
// lazily and written only before the next visible text, so blocks never
// leave trailing blank lines or spaces.
type htmlWriter struct {
	b      strings.Builder
	runes  int
	trailN int  // newlines at the end of the output
	lastWS bool // output ends with whitespace (or is empty)

	pendBreaks int  // newlines wanted before the next text
	pendSpace  bool // a collapsed space wanted before the next text
	glue       bool // a list marker was just written: ignore breaks until text
	pre        int  // depth of <pre>/<textarea>

	open     []*openBlock
	marked   int // open[:marked] have all started
	blocks   []document.Block
	lists    []*htmlList
	cells    []int // cells seen in each open table row
	rowStart []int // output length (runes) when each open row began

	lim *textBudget // the document's limits: writing stops past them
	css *htmlCSS    // what the page's style sheets say about lists
}

type openBlock struct {
	kind  document.BlockKind
	level int
	label string
	start int // -1 until the first visible character
}

type htmlList struct {
	node     *html.Node
	ordered  bool
	typ      string
	next     int
	reversed bool
	cssType  string // list-style-type set by CSS, when cssSet
	cssSet   bool
}

func (w *htmlWriter) finish() (string, []document.Block) {
	return w.b.String(), w.blocks
}

func (w *htmlWriter) requestBreaks(n int) {
	if w.glue {
		return
	}
	w.pendBreaks = max(w.pendBreaks, n)
}

// writeRaw writes s; open blocks that had no visible character yet start
// here.
func (w *htmlWriter) writeRaw(s string) { w.write(s, true) }

// writeRawNoMark writes separators that must not start an open block.
func (w *htmlWriter) writeRawNoMark(s string) { w.write(s, false) }

func (w *htmlWriter) write(s string, mark bool) {
	if s == "" || !w.lim.fits(w.b.Len()+len(s)) {
		return
	}
	if mark {
		// Blocks below w.marked have started already, so a write costs
		// the blocks opened since the last one, not the nesting depth.
		for _, ob := range w.open[min(w.marked, len(w.open)):] {
			if ob.start < 0 {
				ob.start = w.runes
			}
		}
		w.marked = len(w.open)
	}
	w.b.WriteString(s)
	w.runes += utf8.RuneCountInString(s)
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\n'; i-- {
		n++
	}
	if n == len(s) {
		w.trailN += n
	} else {
		w.trailN = n
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	w.lastWS = last == ' ' || last == '\t' || last == '\n'
}

// flush writes pending line breaks and space before visible text.
func (w *htmlWriter) flush() {
	w.flushBreaksOnly()
	if w.pendSpace && !w.lastWS && w.runes > 0 {
		w.writeRawNoMark(" ")
	}
	w.pendSpace = false
}

// flushBreaksOnly writes pending line breaks now (so the row that follows
// starts after them) without writing a pending space.
func (w *htmlWriter) flushBreaksOnly() {
	if w.pendBreaks > 0 && w.runes > 0 {
		if n := w.pendBreaks - w.trailN; n > 0 {
			w.writeRawNoMark(strings.Repeat("\n", n))
		}
		w.pendSpace = false
	}
	w.pendBreaks = 0
}

// text writes inline text, collapsing whitespace unless inside <pre>.
func (w *htmlWriter) text(s string) {
	s = canonicalText(s)
	if w.pre > 0 {
		if s == "" {
			return
		}
		w.flush()
		w.glue = false
		w.writeRaw(s)
		return
	}
	for len(s) > 0 {
		i := strings.IndexFunc(s, isHTMLSpace)
		if i < 0 {
			i = len(s)
		}
		if i > 0 {
			w.flush()
			w.glue = false
			w.writeRaw(s[:i])
			s = s[i:]
			continue
		}
		_, sz := utf8.DecodeRuneInString(s)
		s = s[sz:]
		w.pendSpace = true
	}
}

func isHTMLSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\f', '\u00A0':
		return true
	}
	return false
}

func (w *htmlWriter) lineBreak() {
	w.pendSpace = false
	w.glue = false
	w.flushBreaksOnly()
	if w.runes > 0 {
		w.writeRawNoMark("\n")
	}
}

func (w *htmlWriter) push(kind document.BlockKind, level int, label string) {
	w.open = append(w.open, &openBlock{kind: kind, level: level, label: label, start: -1})
}

func (w *htmlWriter) pop() {
	ob := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	w.marked = min(w.marked, len(w.open))
	if ob.start >= 0 && w.runes > ob.start {
		end := w.runes
		// The output never ends in collapsed space, but <pre> may.
		s := w.b.String()
		for end > ob.start {
			r, sz := utf8.DecodeLastRuneInString(s)
			if r != ' ' && r != '\t' && r != '\n' {
				break
			}
			s = s[:len(s)-sz]
			end--
		}
		if end > ob.start {
			w.blocks = append(w.blocks, document.Block{Kind: ob.kind, Span: document.Span{Start: ob.start, End: end}, Level: ob.level, Label: ob.label})
		}
	}
}

func hasAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hidden(n *html.Node) bool {
	if _, ok := hasAttr(n, "hidden"); ok {
		return true
	}
	if st, ok := hasAttr(n, "style"); ok {
		st = strings.ToLower(strings.Join(strings.Fields(st), ""))
		if strings.Contains(st, "display:none") {
			return true
		}
	}
	return false
}

// blockBreaks returns how many newlines separate element a from its
// neighbours: 2 for elements browsers set off with margins, 1 for other
// block elements, 0 for inline ones.
func (w *htmlWriter) blockBreaks(a atom.Atom) int {
	if len(w.cells) > 0 && a != atom.Tr {
		// Inside a table cell: blocks are lines, never blank lines.
		return min(w.blockBreaksOutside(a), 1)
	}
	return w.blockBreaksOutside(a)
}

func (w *htmlWriter) blockBreaksOutside(a atom.Atom) int {
	switch a {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote,
		atom.Pre, atom.Dl, atom.Figure, atom.Hr, atom.Table, atom.Fieldset, atom.Listing, atom.Xmp:
		if len(w.lists) > 0 {
			return 1 // keep list items together, as in a tight list
		}
		return 2
	case atom.Ol, atom.Ul, atom.Menu, atom.Dir:
		if len(w.lists) == 0 {
			return 2
		}
		return 1
	case atom.Address, atom.Article, atom.Aside, atom.Center, atom.Dd, atom.Details,
		atom.Dialog, atom.Div, atom.Dt, atom.Figcaption, atom.Footer, atom.Form, atom.Header,
		atom.Hgroup, atom.Li, atom.Main, atom.Nav, atom.Section, atom.Summary, atom.Tr,
		atom.Caption, atom.Legend, atom.Body, atom.Html, atom.Tbody, atom.Thead, atom.Tfoot,
		atom.Option, atom.Textarea:
		return 1
	}
	return 0
}

func (w *htmlWriter) walk(n *html.Node) {
	if w.lim.Err() != nil {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return // comments, doctype
	}
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Iframe,
		atom.Object, atom.Canvas, atom.Svg, atom.Math, atom.Title, atom.Select:
		return
	}
	if hidden(n) {
		return
	}
	switch n.DataAtom {
	case atom.Br:
		w.lineBreak()
		return
	case atom.Img:
		if alt, ok := hasAttr(n, "alt"); ok {
			w.text(alt)
		}
		return
	case atom.Td, atom.Th:
		if k := len(w.cells); k > 0 {
			if w.cells[k-1] > 0 {
				// Breaks left by the previous cell's blocks do not split
				// the row, once the row has started.
				w.pendSpace = false
				if w.runes > w.rowStart[k-1] {
					w.pendBreaks = 0
				}
				w.flush()
				w.writeRawNoMark("\t")
			}
			w.cells[k-1]++
		}
		w.glue = true // a <p> opening the cell stays on the row's line
		w.children(n)
		w.glue = false
		w.pendSpace = false
		return
	}

	br := w.blockBreaks(n.DataAtom)
	w.requestBreaks(br)
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.push(document.BlockHeading, int(n.Data[1]-'1'), "")
		w.children(n)
		w.pop()
	case atom.P:
		w.push(document.BlockParagraph, 0, "")
		w.children(n)
		w.pop()
	case atom.Pre, atom.Textarea, atom.Listing, atom.Xmp:
		w.pre++
		w.children(n)
		w.pre--
	case atom.Ol, atom.Ul, atom.Menu, atom.Dir:
		l := newHTMLList(n)
		l.cssType, l.cssSet = w.css.listType(n)
		w.lists = append(w.lists, l)
		w.children(n)
		w.lists = w.lists[:len(w.lists)-1]
	case atom.Li:
		w.listItem(n)
	case atom.Tr:
		w.flushBreaksOnly()
		w.cells = append(w.cells, 0)
		w.rowStart = append(w.rowStart, w.runes)
		w.children(n)
		w.cells = w.cells[:len(w.cells)-1]
		w.rowStart = w.rowStart[:len(w.rowStart)-1]
	case atom.Table:
		saved, savedStart := w.cells, w.rowStart
		w.cells, w.rowStart = nil, nil
		w.children(n)
		w.cells, w.rowStart = saved, savedStart
	default:
		w.children(n)
	}
	w.requestBreaks(br)
}

func (w *htmlWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

func newHTMLList(n *html.Node) *htmlList {
	l := &htmlList{node: n, ordered: n.DataAtom == atom.Ol, next: 1}
	if !l.ordered {
		return l
	}
	l.typ, _ = hasAttr(n, "type")
	_, l.reversed = hasAttr(n, "reversed")
	if l.reversed {
		l.next = 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Li {
				l.next++
			}
		}
	}
	if s, ok := hasAttr(n, "start"); ok {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			l.next = v
		}
	}
	return l
}

func (w *htmlWriter) listItem(n *html.Node) {
	depth := max(len(w.lists)-1, 0)
	label := "•"
	if len(w.lists) > 0 {
		l := w.lists[len(w.lists)-1]
		if s, ok := hasAttr(n, "value"); ok && l.ordered {
			if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
				l.next = v
			}
		}
		cssType, cssSet := w.css.listType(n)
		if !cssSet {
			cssType, cssSet = l.cssType, l.cssSet
		}
		counted := l.ordered
		if m, ok := w.css.marker(l.node, n); ok {
			// A ::before content: its strings around the counter.
			label = m.prefix
			if !m.literal {
				label += formatCSSListNumber(l.next, m.typ) + m.suffix
				counted = true
			}
			label = strings.TrimSpace(label)
		} else if cssSet {
			switch typ := cssListTypes[cssType]; typ {
			case "", "•", "◦", "▪":
				label = typ
			default:
				label = formatHTMLNumber(l.next, typ) + "."
				counted = true
			}
		} else if l.ordered {
			typ := l.typ
			if t, ok := hasAttr(n, "type"); ok {
				typ = t
			}
			label = formatHTMLNumber(l.next, typ) + "."
		} else {
			label = []string{"•", "◦", "▪"}[min(depth, 2)]
		}
		if counted || l.ordered {
			if l.reversed {
				l.next--
			} else {
				l.next++
			}
		}
	}
	w.push(document.BlockListItem, depth, label)
	w.pendSpace = false
	w.flush()
	w.writeRaw(strings.Repeat("  ", min(depth, maxHTMLIndent)))
	// The indent is not part of the item.
	w.open[len(w.open)-1].start = w.runes
	if label != "" {
		w.writeRaw(label + " ")
	}
	w.glue = true
	w.children(n)
	w.glue = false
	w.pop()
}

// formatHTMLNumber renders n in an <ol> type ("1", "a", "A", "i", "I"),
// letters counted as browsers do (a…z, aa, ab, …).
func formatHTMLNumber(n int, typ string) string {
	return formatListNumber(n, typ, numbering.Alphabetic)
}

// formatCSSListNumber renders n in a CSS list-style-type; a bullet or
// none draws that and no number.
func formatCSSListNumber(n int, cssType string) string {
	switch typ := cssListTypes[cssType]; typ {
	case "", "•", "◦", "▪":
		return typ
	default:
		return formatHTMLNumber(n, typ)
	}
}
