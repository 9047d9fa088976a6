package parse

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/numbering"
)

// Canonical text of an OpenDocument text file (.odt) is its body as a word
// processor displays it, in the paragraph layout every word-processor
// format shares (see paras.go):
//
//   - text:p and text:h are paragraphs; text:h (and a paragraph whose style
//     has a default outline level) is a heading block at its level.
//   - White space inside a paragraph collapses as ODF says (runs of space,
//     tab and newline characters become one space); text:s, text:tab and
//     text:line-break are a space run, a tab and "\n".
//   - Numbering is what the document displays: the text:number the writer
//     saved when there is one, else computed from the list style
//     (num-format, prefix, suffix, display-levels, start-value) or, for
//     headings, the outline style, counting items as a word processor does.
//   - Tracked deletions (text:tracked-changes), footnotes and endnotes,
//     comments, frames and text boxes, and hidden fields are left out.
//   - Tables become one tab-separated line per row, as for DOCX.

const (
	nsODFText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsODFTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsODFStyle  = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
	nsODFOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsODFDraw   = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
)

// odtLevel is one level of a list or outline style.
type odtLevel struct {
	format, prefix, suffix, bullet string
	display, start                 int
	follow                         string // "listtab" (default), "space", "nothing"
}

// odtStyles holds the paragraph and list styles of styles.xml and
// content.xml.
type odtStyles struct {
	parent  map[string]string // paragraph style → parent style
	display map[string]string // style name → display name
	outline map[string]int    // paragraph style → default outline level (1-based)
	list    map[string]string // paragraph style → list style
	lists   map[string]*[10]odtLevel
	heading *[10]odtLevel // the outline style
}

func parseODT(data []byte, lim *textBudget) (*document.Document, error) {
	pk, err := openPackage(data, "odt")
	if err != nil {
		return nil, err
	}
	if m, _ := pk.read("META-INF/manifest.xml"); bytes.Contains(m, []byte("encryption-data")) {
		return nil, fmt.Errorf("%w: the .odt is password-protected; remove the password and save again", ErrEncrypted)
	}
	if mt, _ := pk.read("mimetype"); len(mt) > 0 && !bytes.HasPrefix(mt, []byte("application/vnd.oasis.opendocument.text")) {
		return nil, fmt.Errorf("%w: the OpenDocument file is %q, not a text document", ErrUnsupported, mt)
	}
	content, err := pk.read("content.xml")
	if err != nil {
		return nil, err
	}
	if content == nil {
		return nil, fmt.Errorf("%w: no content.xml in the archive; not an OpenDocument text", ErrCorrupt)
	}
	st := &odtStyles{parent: map[string]string{}, display: map[string]string{}, outline: map[string]int{},
		list: map[string]string{}, lists: map[string]*[10]odtLevel{}}
	if b, err := pk.read("styles.xml"); err != nil {
		return nil, err
	} else if b != nil {
		if err := st.parse(b); errors.Is(err, ErrTooLarge) {
			return nil, err
		} else if err != nil {
			return nil, fmt.Errorf("%w: styles.xml: %v", ErrCorrupt, err)
		}
	}
	if err := st.parse(content); errors.Is(err, ErrTooLarge) {
		return nil, err
	} else if err != nil {
		return nil, fmt.Errorf("%w: content.xml: %v", ErrCorrupt, err)
	}
	b := &odtBody{styles: st, counters: map[string]*[10]int{}, w: paraWriter{lim: lim}}
	if err := b.parse(content); err != nil {
		if lim.Err() != nil {
			return nil, lim.Err()
		}
		return nil, fmt.Errorf("%w: content.xml: %v", ErrCorrupt, err)
	}
	text, blocks := b.w.render()
	return &document.Document{Format: "odt", Text: text, Blocks: blocks}, nil
}

func odfAttr(se xml.StartElement, space, local string) string {
	for _, a := range se.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// odtMaxStyles bounds the paragraph and list styles of one document (real
// ones have dozens to a few hundred).
const odtMaxStyles = 20_000

// errODTBody stops the reading of styles where content.xml's body begins.
var errODTBody = errors.New("body")

// parse reads the styles of one part (styles.xml or content.xml, whose
// styles all come before its body).
func (st *odtStyles) parse(b []byte) error {
	var levels *[10]odtLevel
	cur := -1
	err := eachTokenUntil(b, func(tok xml.Token) error {
		se, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		if se.Name.Space == nsODFOffice && se.Name.Local == "body" {
			return errODTBody
		}
		if len(st.parent)+len(st.lists) > odtMaxStyles {
			return fmt.Errorf("%w: it defines more than %s styles", ErrTooLarge, thousands(odtMaxStyles))
		}
		switch {
		case se.Name.Space == nsODFStyle && se.Name.Local == "style":
			name := odfAttr(se, nsODFStyle, "name")
			if odfAttr(se, nsODFStyle, "family") != "paragraph" || name == "" {
				return nil
			}
			st.parent[name] = odfAttr(se, nsODFStyle, "parent-style-name")
			st.display[name] = odfAttr(se, nsODFStyle, "display-name")
			if v, err := strconv.Atoi(odfAttr(se, nsODFStyle, "default-outline-level")); err == nil {
				st.outline[name] = v
			}
			if l := odfAttr(se, nsODFStyle, "list-style-name"); l != "" {
				st.list[name] = l
			}
		case se.Name.Space == nsODFText && se.Name.Local == "list-style":
			levels = new([10]odtLevel)
			st.lists[odfAttr(se, nsODFStyle, "name")] = levels
		case se.Name.Space == nsODFText && se.Name.Local == "outline-style":
			levels = new([10]odtLevel)
			st.heading = levels
		case se.Name.Space == nsODFText && strings.HasPrefix(se.Name.Local, "list-level-style-") ||
			se.Name.Space == nsODFText && se.Name.Local == "outline-level-style":
			cur = -1
			if levels == nil {
				return nil
			}
			n, err := strconv.Atoi(odfAttr(se, nsODFText, "level"))
			if err != nil || n < 1 || n > 10 {
				return nil
			}
			cur = n - 1
			lv := odtLevel{
				format: odfAttr(se, nsODFStyle, "num-format"), prefix: odfAttr(se, nsODFStyle, "num-prefix"),
				suffix: odfAttr(se, nsODFStyle, "num-suffix"), display: 1, start: 1,
			}
			if v, err := strconv.Atoi(odfAttr(se, nsODFText, "display-levels")); err == nil && v > 0 {
				lv.display = v
			}
			if v, err := strconv.Atoi(odfAttr(se, nsODFText, "start-value")); err == nil {
				lv.start = v
			}
			switch se.Name.Local {
			case "list-level-style-bullet":
				lv.format, lv.bullet = "bullet", odfAttr(se, nsODFText, "bullet-char")
				if lv.bullet == "" {
					lv.bullet = "•"
				}
			case "list-level-style-image":
				lv.format, lv.bullet = "bullet", "•"
			}
			levels[cur] = lv
		case se.Name.Space == nsODFStyle && se.Name.Local == "list-level-label-alignment":
			if levels != nil && cur >= 0 {
				levels[cur].follow = odfAttr(se, nsODFText, "label-followed-by")
			}
		}
		return nil
	})
	if err == errODTBody {
		return nil
	}
	return err
}

// headingLevel returns the 1-based outline level a paragraph style gives,
// or 0.
func (st *odtStyles) headingLevel(style string) int {
	for i := 0; i < 16 && style != ""; i++ {
		if v, ok := st.outline[style]; ok && v > 0 {
			return v
		}
		name := st.display[style]
		if name == "" {
			name = strings.ReplaceAll(style, "_20_", " ")
		}
		if l := headingStyleLevel(name); l >= 0 {
			return l + 1
		}
		style = st.parent[style]
	}
	return 0
}

// listStyle returns the list style a paragraph style attaches, or "".
func (st *odtStyles) listStyle(style string) string {
	for i := 0; i < 16 && style != ""; i++ {
		if l := st.list[style]; l != "" {
			return l
		}
		style = st.parent[style]
	}
	return ""
}

// odtList is an open text:list element.
type odtList struct {
	style string
	level int  // 0-based
	items int  // list items seen directly in it
	item  bool // inside a list item whose first paragraph is not yet numbered
	head  bool // the item is a text:list-header (no number)
	start int  // text:start-value of the current item, 0 when none
}

// odtPara is a paragraph being read.
type odtPara struct {
	b       strings.Builder
	space   bool // the last character written was collapsible space
	heading int  // 1-based outline level, 0 for none
	style   string
	number  *strings.Builder // text:number, when the writer saved it
	noNum   bool             // text:is-list-header
	start   int              // a heading's restarted count, 0 when it continues
}

type odtBody struct {
	styles   *odtStyles
	counters map[string]*[10]int // per list style ("" + outline for headings)
	lists    []*odtList
	paras    []*odtPara
	w        paraWriter
	cells    [][]wpPara   // cells of the row being read
	cell     *[]wpPara    // paragraphs of the cell being read
	rows     [][][]wpPara // rows of enclosing tables, for nested tables
	inCell   []*[]wpPara
	skip     int
	inNumber bool
	pending  int // bytes written to paragraphs not yet finished, counted against the limits
}

// odtSkipped are elements whose content is not body text.
var odtSkipped = map[string]bool{
	"tracked-changes": true, "note": true, "annotation": true, "sequence-decls": true, "variable-decls": true,
	"user-field-decls": true, "forms": true, "frame": true, "ruby-text": true, "deletion": true,
	"hidden-text": true, "hidden-paragraph": true, "custom-shape": true, "annotation-end": true,
}

func (b *odtBody) parse(data []byte) error {
	inBody := false
	return eachTokenUntil(data, func(tok xml.Token) error {
		if b.w.full() {
			return b.w.lim.Err()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if b.skip > 0 {
				b.skip++
				return nil
			}
			if t.Name.Space == nsODFOffice && t.Name.Local == "text" {
				inBody = true
				return nil
			}
			if !inBody {
				return nil
			}
			if odtSkipped[t.Name.Local] && (t.Name.Space == nsODFText || t.Name.Space == nsODFOffice || t.Name.Space == nsODFDraw) {
				b.skip = 1
				return nil
			}
			b.start(t)
		case xml.EndElement:
			if b.skip > 0 {
				b.skip--
				return nil
			}
			if t.Name.Space == nsODFOffice && t.Name.Local == "text" {
				inBody = false
				return nil
			}
			if inBody {
				b.end(t.Name)
			}
		case xml.CharData:
			if b.skip == 0 && len(b.paras) > 0 {
				b.chars(string(t))
			}
		}
		return nil
	})
}

func (b *odtBody) start(t xml.StartElement) {
	p := b.para()
	switch t.Name.Space {
	case nsODFText:
		switch t.Name.Local {
		case "p", "h":
			np := &odtPara{style: odfAttr(t, nsODFText, "style-name")}
			if t.Name.Local == "h" {
				np.heading = 1
				if v, err := strconv.Atoi(odfAttr(t, nsODFText, "outline-level")); err == nil && v > 0 {
					np.heading = v
				}
				np.noNum = odfAttr(t, nsODFText, "is-list-header") == "true"
				// "Restart numbering" on a numbered heading: the count
				// starts again at text:start-value (1 when absent).
				if odfAttr(t, nsODFText, "restart-numbering") == "true" {
					np.start = 1
					if v, err := strconv.Atoi(odfAttr(t, nsODFText, "start-value")); err == nil && v > 0 {
						np.start = v
					}
				}
			} else {
				np.heading = b.styles.headingLevel(np.style)
			}
			b.paras = append(b.paras, np)
		case "number":
			if p != nil {
				p.number = &strings.Builder{}
				b.inNumber = true
			}
		case "s":
			if p != nil {
				n, err := strconv.Atoi(odfAttr(t, nsODFText, "c"))
				if err != nil || n < 1 {
					n = 1
				}
				b.write(strings.Repeat(" ", min(n, 1000)))
			}
		case "tab":
			b.write("\t")
		case "line-break":
			b.write("\n")
		case "list":
			l := &odtList{style: odfAttr(t, nsODFText, "style-name")}
			if n := len(b.lists); n > 0 {
				parent := b.lists[n-1]
				l.level = parent.level + 1
				if l.style == "" {
					l.style = parent.style
				}
			} else if odfAttr(t, nsODFText, "continue-numbering") != "true" && odfAttr(t, nsODFText, "continue-list") == "" {
				delete(b.counters, l.style)
			}
			b.lists = append(b.lists, l)
		case "list-item", "list-header":
			if n := len(b.lists); n > 0 {
				l := b.lists[n-1]
				l.item, l.head, l.start = true, t.Name.Local == "list-header", 0
				if v, err := strconv.Atoi(odfAttr(t, nsODFText, "start-value")); err == nil {
					l.start = v
				}
			}
		}
	case nsODFTable:
		switch t.Name.Local {
		case "table":
			b.rows = append(b.rows, b.cells)
			b.inCell = append(b.inCell, b.cell)
			b.cells, b.cell = nil, nil
		case "table-row":
			b.cells = nil
		case "table-cell":
			b.cell = new([]wpPara)
		}
	}
}

func (b *odtBody) end(n xml.Name) {
	switch n.Space {
	case nsODFText:
		switch n.Local {
		case "p", "h":
			if k := len(b.paras); k > 0 {
				p := b.paras[k-1]
				b.paras = b.paras[:k-1]
				b.finish(p)
			}
		case "number":
			b.inNumber = false
		case "list":
			if k := len(b.lists); k > 0 {
				b.lists = b.lists[:k-1]
			}
		}
	case nsODFTable:
		switch n.Local {
		case "table-cell":
			if b.cell != nil {
				b.cells = append(b.cells, *b.cell)
				b.cell = nil
			}
		case "table-row":
			if len(b.cells) > 0 {
				w := b.w.sub()
				w.row(b.cells)
				b.cells = nil
				// The row goes where the table is: the document, or the
				// cell of an enclosing table.
				if k := len(b.inCell); k > 0 && b.inCell[k-1] != nil {
					*b.inCell[k-1] = append(*b.inCell[k-1], w.out...)
				} else {
					b.w.out = append(b.w.out, w.out...)
				}
			}
		case "table":
			if k := len(b.rows); k > 0 {
				b.cells, b.cell = b.rows[k-1], b.inCell[k-1]
				b.rows, b.inCell = b.rows[:k-1], b.inCell[:k-1]
			}
		}
	}
}

func (b *odtBody) para() *odtPara {
	if n := len(b.paras); n > 0 {
		return b.paras[n-1]
	}
	return nil
}

// chars adds text, collapsing white space as ODF does.
func (b *odtBody) chars(s string) {
	p := b.para()
	if !b.w.lim.fits(b.pending + len(s)) {
		return
	}
	b.pending += len(s)
	if b.inNumber && p.number != nil {
		p.number.WriteString(s)
		return
	}
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			if !p.space {
				p.b.WriteByte(' ')
				p.space = true
			}
			continue
		}
		p.b.WriteRune(r)
		p.space = false
	}
}

// write adds text that does not collapse (text:s, text:tab, text:line-break).
func (b *odtBody) write(s string) {
	if p := b.para(); p != nil && !b.inNumber && b.w.lim.fits(b.pending+len(s)) {
		b.pending += len(s)
		p.b.WriteString(s)
		p.space = false
	}
}

// emit adds finished paragraphs to the cell or the document.
func (b *odtBody) emit(ps []wpPara) {
	if b.cell != nil {
		*b.cell = append(*b.cell, ps...)
		return
	}
	b.w.out = append(b.w.out, ps...)
}

// finish numbers a paragraph and emits it.
func (b *odtBody) finish(p *odtPara) {
	b.pending -= p.b.Len()
	if p.number != nil {
		b.pending -= p.number.Len()
	}
	text := strings.Trim(p.b.String(), " ")
	kind, level := document.BlockKind(""), 0
	label, suffix := "", "\t"
	var lv *odtLevel
	if n := len(b.lists); n > 0 && b.lists[n-1].item {
		l := b.lists[n-1]
		l.item = false
		kind, level = document.BlockListItem, l.level
		if !l.head {
			label, lv = b.count(l.style, l.level, l.start, b.styles.lists[l.style])
		}
	} else if p.heading > 0 && !p.noNum {
		if ls := b.styles.listStyle(p.style); ls != "" && b.styles.lists[ls] != nil {
			label, lv = b.count(ls, p.heading-1, p.start, b.styles.lists[ls])
		} else if b.styles.heading != nil {
			label, lv = b.count("\x00outline", p.heading-1, p.start, b.styles.heading)
		}
	} else if ls := b.styles.listStyle(p.style); ls != "" && b.styles.lists[ls] != nil {
		kind = document.BlockListItem
		label, lv = b.count(ls, 0, 0, b.styles.lists[ls])
	}
	if p.number != nil {
		label = strings.TrimSpace(p.number.String())
	}
	if lv != nil {
		switch lv.follow {
		case "space":
			suffix = " "
		case "nothing":
			suffix = ""
		}
	}
	if p.heading > 0 {
		kind, level = document.BlockHeading, p.heading-1
	}
	w := b.w.sub()
	w.add(label, suffix, text, kind, level)
	b.emit(w.out)
}

// count advances the counter of level in the list (or outline) key and
// returns the label of the item, with the level it was formatted by.
func (b *odtBody) count(key string, level, start int, levels *[10]odtLevel) (string, *odtLevel) {
	if levels == nil || level < 0 || level > 9 {
		return "", nil
	}
	c := b.counters[key]
	if c == nil {
		c = new([10]int)
		for i := range c {
			c[i] = levels[i].start - 1
		}
		b.counters[key] = c
	}
	c[level]++
	if start > 0 {
		c[level] = start
	}
	for i := level + 1; i < 10; i++ {
		c[i] = levels[i].start - 1
	}
	lv := &levels[level]
	if lv.format == "bullet" {
		return bulletGlyphs(lv.bullet), lv
	}
	if lv.format == "" {
		return "", lv // a level without numbers
	}
	var parts []string
	for i := max(0, level-lv.display+1); i <= level; i++ {
		f := levels[i].format
		if f == "" || f == "bullet" {
			f = "1"
		}
		parts = append(parts, formatODFNumber(max(c[i], levels[i].start), f))
	}
	return lv.prefix + strings.Join(parts, ".") + lv.suffix, lv
}

// formatODFNumber renders n in an ODF num-format ("1", "a", "A", "i", "I").
func formatODFNumber(n int, f string) string {
	if strings.HasPrefix(f, "0") && n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return formatListNumber(n, f, numbering.Letters)
}

// formatListNumber renders n in a list type of HTML and ODF: "a", "A"
// letters counted by letters (numbering.Letters as Word and ODF count,
// numbering.Alphabetic as browsers do), "i", "I" roman numerals, anything
// else decimal.
func formatListNumber(n int, typ string, letters func(n int, upper bool) string) string {
	switch typ {
	case "a":
		return letters(n, false)
	case "A":
		return letters(n, true)
	case "i":
		return numbering.Roman(n)
	case "I":
		return strings.ToUpper(numbering.Roman(n))
	}
	return strconv.Itoa(n)
}
