package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/numbering"
)

// Canonical text of a DOCX file is the body as Word displays it with all
// tracked changes accepted:
//
//   - One paragraph (w:p) per line, paragraphs separated by a blank line;
//     a line break inside a paragraph (w:br, w:cr) is a single "\n", so the
//     two never look alike. Empty paragraphs are left out.
//   - Numbering that Word generates (numbering.xml, direct or through the
//     paragraph style) is rebuilt and written before the paragraph text
//     with the level's suffix: a tab by default, as Word shows it, or a
//     space, or nothing. The paragraph is reported as a list_item block
//     (or a heading block, for heading styles) carrying the label.
//   - Inserted (w:ins) and moved-to text is kept; deleted (w:del) and
//     moved-from text is dropped, as is hidden text (w:vanish) and field
//     instructions. A paragraph whose mark was deleted joins the next one.
//   - A table row whose cells hold at most one paragraph each becomes one
//     line, cells separated by tabs, rows on consecutive lines. Rows with
//     richer cells (several paragraphs, nested tables) are written cell
//     by cell as ordinary paragraphs so their numbering survives.
//   - Headers, footers, footnotes, comments and drawings are not included.

// Limits on what a DOCX may expand to. A zip can declare sizes it does not
// keep, so reads are also bounded.
const (
	docxMaxPart  = 64 << 20
	docxMaxTotal = 256 << 20
)

const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
	nsRel     = "http://schemas.openxmlformats.org/package/2006/relationships"
)

var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

func parseDOCX(data []byte) (*document.Document, error) {
	if bytes.HasPrefix(data, oleMagic) {
		if bytes.Contains(data, utf16le("EncryptedPackage")) {
			return nil, fmt.Errorf("%w: the .docx is password-protected; remove the password in Word and save again", ErrEncrypted)
		}
		return nil, fmt.Errorf("%w: legacy .doc (Word 97-2003) is not supported; save as .docx", ErrUnsupported)
	}
	if bytes.HasPrefix(data, []byte(`{\rtf`)) {
		return nil, fmt.Errorf("%w: the file is RTF, not DOCX; save as .docx", ErrUnsupported)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a valid .docx (zip) archive: %v", ErrCorrupt, err)
	}
	pk := &docxPackage{files: map[string]*zip.File{}, kind: "docx"}
	for _, f := range zr.File {
		pk.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	main := pk.mainPart()
	body, err := pk.read(main)
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, fmt.Errorf("%w: no %s in the archive; not a Word document", ErrCorrupt, main)
	}
	rels := pk.partRels(main)
	var styles *docxStyles
	if p := rels.target("/styles", path.Join(path.Dir(main), "styles.xml")); p != "" {
		b, err := pk.read(p)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if styles, err = parseDocxStyles(b); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, p, err)
			}
		}
	}
	if styles == nil {
		styles = &docxStyles{byID: map[string]*docxStyle{}}
	}
	var num *docxNumbering
	if p := rels.target("/numbering", path.Join(path.Dir(main), "numbering.xml")); p != "" {
		b, err := pk.read(p)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if num, err = parseDocxNumbering(b); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, p, err)
			}
		}
	}
	if num == nil {
		num = &docxNumbering{abstract: map[string]*docxAbstract{}, nums: map[string]*docxNum{}}
	}
	bw := &docxBody{styles: styles, num: num, counters: map[string]*[9]int{}}
	if err := bw.parse(body); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, main, err)
	}
	text, blocks := bw.render()
	return &document.Document{Format: "docx", Text: text, Blocks: blocks}, nil
}

func utf16le(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, s[i], 0)
	}
	return b
}

// docxPackage reads parts of the zip within the size limits.
type docxPackage struct {
	files map[string]*zip.File
	total int64
	kind  string // "docx", "odt": the format named in errors
}

// read returns the part's bytes, or nil, nil when the part does not exist.
func (pk *docxPackage) read(name string) ([]byte, error) {
	f := pk.files[name]
	if f == nil {
		return nil, nil
	}
	limit := int64(docxMaxPart)
	if rest := docxMaxTotal - pk.total; rest < limit {
		limit = rest
	}
	tooLarge := func() error {
		if limit < docxMaxPart {
			return fmt.Errorf("%w: %s parts expand beyond %d MiB in total (zip bomb?)", ErrTooLarge, pk.kind, docxMaxTotal>>20)
		}
		return fmt.Errorf("%w: %s part %s expands beyond %d MiB (zip bomb?)", ErrTooLarge, pk.kind, name, docxMaxPart>>20)
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, tooLarge()
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s part %s: %v", ErrCorrupt, pk.kind, name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	pk.total += int64(len(b))
	if int64(len(b)) > limit {
		return nil, tooLarge()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s part %s: %v", ErrCorrupt, pk.kind, name, err)
	}
	return b, nil
}

type docxRels []struct {
	Type   string `xml:"Type,attr"`
	Target string `xml:"Target,attr"`
	Mode   string `xml:"TargetMode,attr"`
}

// target returns the package path of the first relationship whose type
// ends in suffix, or fallback when there is none.
func (r docxRels) target(suffix, fallback string) string {
	for _, rel := range r {
		if strings.HasSuffix(rel.Type, suffix) && rel.Mode != "External" {
			return rel.Target
		}
	}
	return fallback
}

// partRels reads the relationships of part, resolving targets to package
// paths. Missing or unreadable relationships yield nil: the conventional
// part names are then used.
func (pk *docxPackage) partRels(part string) docxRels {
	dir, file := path.Split(part)
	b, err := pk.read(path.Join(dir, "_rels", file+".rels"))
	if err != nil || b == nil {
		return nil
	}
	var x struct {
		Rels docxRels `xml:"Relationship"`
	}
	if xml.Unmarshal(b, &x) != nil {
		return nil
	}
	for i, rel := range x.Rels {
		t := rel.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join(dir, t)
		}
		x.Rels[i].Target = path.Clean(t)
	}
	return x.Rels
}

func (pk *docxPackage) mainPart() string {
	const def = "word/document.xml"
	if pk.files[def] != nil {
		return def
	}
	for _, rel := range pk.partRels("") {
		if strings.HasSuffix(rel.Type, "/officeDocument") && pk.files[rel.Target] != nil {
			return rel.Target
		}
	}
	return def
}

// isW reports whether n is the WordprocessingML element local.
func isW(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == nsW || n.Space == nsWStrict)
}

func wAttr(se xml.StartElement, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && (a.Name.Space == nsW || a.Name.Space == nsWStrict || a.Name.Space == "") {
			return a.Value, true
		}
	}
	return "", false
}

func wVal(se xml.StartElement) string {
	v, _ := wAttr(se, "val")
	return v
}

// onOff reads a WordprocessingML toggle (absent val means on).
func onOff(se xml.StartElement) bool {
	v, ok := wAttr(se, "val")
	if !ok {
		return true
	}
	switch v {
	case "0", "false", "off":
		return false
	}
	return true
}

// newDocxDecoder returns a strict decoder over b. The parts are UTF-8 by
// the OOXML standard; other declared encodings are passed through as is.
func newDocxDecoder(b []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return d
}

// ---- styles.xml ----

type docxStyle struct {
	id, name, basedOn string
	numID, ilvl       string // "" when the style does not set them
	outline           int    // -1 when unset
}

type docxStyles struct {
	byID         map[string]*docxStyle
	defaultParaS string
}

func parseDocxStyles(b []byte) (*docxStyles, error) {
	st := &docxStyles{byID: map[string]*docxStyle{}}
	d := newDocxDecoder(b)
	var cur *docxStyle
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, t.Name.Local)
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				continue
			}
			switch t.Name.Local {
			case "style":
				typ, _ := wAttr(t, "type")
				if typ != "paragraph" && typ != "numbering" {
					cur = nil
					continue
				}
				id, _ := wAttr(t, "styleId")
				cur = &docxStyle{id: id, outline: -1}
				st.byID[id] = cur
				if typ == "paragraph" && onOff2(t, "default") {
					st.defaultParaS = id
				}
			case "name":
				if cur != nil && parent == "style" {
					cur.name = wVal(t)
				}
			case "basedOn":
				if cur != nil && parent == "style" {
					cur.basedOn = wVal(t)
				}
			case "numId":
				if cur != nil && parent == "numPr" {
					cur.numID = wVal(t)
				}
			case "ilvl":
				if cur != nil && parent == "numPr" {
					cur.ilvl = wVal(t)
				}
			case "outlineLvl":
				if cur != nil && parent == "pPr" {
					if v, err := strconv.Atoi(wVal(t)); err == nil {
						cur.outline = v
					}
				}
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if isW(t.Name, "style") {
				cur = nil
			}
		}
	}
}

func onOff2(se xml.StartElement, attr string) bool {
	v, ok := wAttr(se, attr)
	return ok && (v == "1" || v == "true" || v == "on")
}

// chain returns the style and its ancestors, nearest first.
func (st *docxStyles) chain(id string) []*docxStyle {
	var out []*docxStyle
	for i := 0; id != "" && i < 32; i++ {
		s := st.byID[id]
		if s == nil {
			break
		}
		out = append(out, s)
		id = s.basedOn
	}
	return out
}

// ---- numbering.xml ----

type docxLevel struct {
	start   int
	fmt     string
	text    string
	suff    string
	restart int // -1: default (restart after any higher level)
	legal   bool
	pStyle  string
	set     bool
}

type docxAbstract struct {
	id        string
	levels    [9]docxLevel
	styleLink string // numStyleLink: levels come from the style's list
}

type docxNum struct {
	abstractID string
	overrides  map[int]docxOverride
}

type docxOverride struct {
	start    int // -1 when not overridden
	level    docxLevel
	hasLevel bool
}

type docxNumbering struct {
	abstract map[string]*docxAbstract
	nums     map[string]*docxNum
}

func defaultLevel() docxLevel {
	return docxLevel{start: 1, fmt: "decimal", suff: "tab", restart: -1}
}

func parseDocxNumbering(b []byte) (*docxNumbering, error) {
	nb := &docxNumbering{abstract: map[string]*docxAbstract{}, nums: map[string]*docxNum{}}
	d := newDocxDecoder(b)
	var (
		abs   *docxAbstract
		num   *docxNum
		ovr   *docxOverride
		ovrL  int
		lvl   *docxLevel
		stack []string
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nb, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, t.Name.Local)
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				continue
			}
			switch t.Name.Local {
			case "abstractNum":
				id, _ := wAttr(t, "abstractNumId")
				abs = &docxAbstract{id: id}
				for i := range abs.levels {
					abs.levels[i] = defaultLevel()
				}
				nb.abstract[id] = abs
			case "num":
				id, _ := wAttr(t, "numId")
				num = &docxNum{overrides: map[int]docxOverride{}}
				nb.nums[id] = num
			case "abstractNumId":
				if num != nil {
					num.abstractID = wVal(t)
				}
			case "lvlOverride":
				if num != nil {
					v, _ := wAttr(t, "ilvl")
					if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < 9 {
						ovrL = i
						ovr = &docxOverride{start: -1, level: defaultLevel()}
					}
				}
			case "startOverride":
				if ovr != nil {
					if v, err := strconv.Atoi(wVal(t)); err == nil {
						ovr.start = v
					}
				}
			case "numStyleLink":
				if abs != nil {
					abs.styleLink = wVal(t)
				}
			case "lvl":
				v, _ := wAttr(t, "ilvl")
				i, err := strconv.Atoi(v)
				if err != nil || i < 0 || i >= 9 {
					lvl = nil
					continue
				}
				switch {
				case ovr != nil:
					ovr.hasLevel = true
					lvl = &ovr.level
				case abs != nil:
					lvl = &abs.levels[i]
				}
				if lvl != nil {
					lvl.set = true
				}
			case "start":
				if lvl != nil && parent == "lvl" {
					if v, err := strconv.Atoi(wVal(t)); err == nil {
						lvl.start = v
					}
				}
			case "numFmt":
				if lvl != nil && parent == "lvl" {
					lvl.fmt = wVal(t)
				}
			case "lvlText":
				if lvl != nil && parent == "lvl" {
					lvl.text = wVal(t)
				}
			case "suff":
				if lvl != nil && parent == "lvl" {
					lvl.suff = wVal(t)
				}
			case "lvlRestart":
				if lvl != nil && parent == "lvl" {
					if v, err := strconv.Atoi(wVal(t)); err == nil {
						lvl.restart = v
					}
				}
			case "isLgl":
				if lvl != nil && parent == "lvl" {
					lvl.legal = onOff(t)
				}
			case "pStyle":
				if lvl != nil && parent == "lvl" {
					lvl.pStyle = wVal(t)
				}
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				continue
			}
			switch t.Name.Local {
			case "abstractNum":
				abs = nil
			case "num":
				num = nil
			case "lvlOverride":
				if ovr != nil && num != nil {
					num.overrides[ovrL] = *ovr
				}
				ovr = nil
			case "lvl":
				lvl = nil
			}
		}
	}
}

// ---- document.xml ----

// docxPara is one finished paragraph (or table row line) of output.
// docxPara is one paragraph (or table-row line) of output, in the layout
// every word-processor format shares (paras.go).
type docxPara = wpPara

type docxParaState struct {
	b           strings.Builder
	style       string
	numID, ilvl string
	hasNumID    bool
	hasIlvl     bool
	outline     int
	markDeleted bool
}

type docxCell struct {
	paras   []docxPara
	complex bool
}

type docxBody struct {
	styles   *docxStyles
	num      *docxNumbering
	counters map[string]*[9]int  // per list: current value of each level
	started  map[string]*[9]bool // per list: whether the level has a value

	out   []docxPara
	paras []*docxParaState
	cells []*docxCell
	rows  [][]*docxCell
	carry string // text of a paragraph whose mark was deleted
}

// dest returns where a finished paragraph goes.
func (bw *docxBody) dest() *[]docxPara {
	if n := len(bw.cells); n > 0 {
		return &bw.cells[n-1].paras
	}
	return &bw.out
}

func (bw *docxBody) parse(b []byte) error {
	d := newDocxDecoder(b)
	var (
		stack     []xml.Name
		skip      int // depth inside a dropped element (0 = not skipping)
		inText    bool
		runHidden bool
	)
	parentIs := func(local string, up int) bool {
		i := len(stack) - 1 - up
		return i >= 0 && isW(stack[i], local)
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 {
				skip++
				continue
			}
			if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
				skip = 1
				continue
			}
			if t.Name.Space == nsW || t.Name.Space == nsWStrict {
				switch t.Name.Local {
				case "del", "moveFrom", "instrText", "delText", "delInstrText", "pPrChange",
					"rPrChange", "sectPrChange", "tblPrChange", "trPrChange", "tcPrChange",
					"numberingChange", "footnoteReference", "endnoteReference", "commentReference":
					// A deleted paragraph mark: w:pPr/w:rPr/w:del.
					if t.Name.Local == "del" && parentIs("rPr", 0) && parentIs("pPr", 1) && len(bw.paras) > 0 {
						bw.paras[len(bw.paras)-1].markDeleted = true
					}
					skip = 1
					continue
				}
			}
			stack = append(stack, t.Name)
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				continue
			}
			var p *docxParaState
			if len(bw.paras) > 0 {
				p = bw.paras[len(bw.paras)-1]
			}
			switch t.Name.Local {
			case "p":
				bw.paras = append(bw.paras, &docxParaState{outline: -1})
			case "pStyle":
				if p != nil && parentIs("pPr", 1) && parentIs("p", 2) {
					p.style = wVal(t)
				}
			case "numId":
				if p != nil && parentIs("numPr", 1) && parentIs("pPr", 2) && parentIs("p", 3) {
					p.numID, p.hasNumID = wVal(t), true
				}
			case "ilvl":
				if p != nil && parentIs("numPr", 1) && parentIs("pPr", 2) && parentIs("p", 3) {
					p.ilvl, p.hasIlvl = wVal(t), true
				}
			case "outlineLvl":
				if p != nil && parentIs("pPr", 1) && parentIs("p", 2) {
					if v, err := strconv.Atoi(wVal(t)); err == nil {
						p.outline = v
					}
				}
			case "r":
				runHidden = false
			case "vanish":
				if parentIs("rPr", 1) && parentIs("r", 2) {
					runHidden = onOff(t)
				}
			case "t":
				inText = parentIs("r", 1)
			case "tab", "ptab":
				if p != nil && parentIs("r", 1) && !runHidden {
					p.b.WriteByte('\t')
				}
			case "br", "cr":
				if p != nil && parentIs("r", 1) && !runHidden {
					p.b.WriteByte('\n')
				}
			case "noBreakHyphen":
				if p != nil && parentIs("r", 1) && !runHidden {
					p.b.WriteByte('-')
				}
			case "tr":
				bw.rows = append(bw.rows, nil)
			case "tc":
				bw.cells = append(bw.cells, &docxCell{})
			case "tbl":
				if n := len(bw.cells); n > 0 {
					bw.cells[n-1].complex = true
				}
			}
		case xml.CharData:
			if skip == 0 && inText && !runHidden && len(bw.paras) > 0 {
				bw.paras[len(bw.paras)-1].b.Write(t)
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if t.Name.Space != nsW && t.Name.Space != nsWStrict {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if n := len(bw.paras); n > 0 {
					p := bw.paras[n-1]
					bw.paras = bw.paras[:n-1]
					bw.finishPara(p)
				}
			case "tc":
				if n := len(bw.cells); n > 0 {
					c := bw.cells[n-1]
					bw.cells = bw.cells[:n-1]
					if m := len(bw.rows); m > 0 {
						bw.rows[m-1] = append(bw.rows[m-1], c)
					}
				}
			case "tr":
				if n := len(bw.rows); n > 0 {
					row := bw.rows[n-1]
					bw.rows = bw.rows[:n-1]
					bw.finishRow(row)
				}
			}
		}
	}
	if t := strings.Trim(bw.carry, " \t\n\f"); t != "" {
		*bw.dest() = append(*bw.dest(), docxPara{text: t})
	}
	bw.carry = ""
	return nil
}

// finishPara computes the paragraph's numbering and appends it.
func (bw *docxBody) finishPara(p *docxParaState) {
	text := canonicalText(p.b.String())
	if bw.carry != "" {
		text = bw.carry + text
		bw.carry = ""
	}
	if p.markDeleted {
		// Word joins this paragraph's text to the next paragraph.
		bw.carry = text
		return
	}
	text = strings.Trim(text, " \t\n\f")
	style := p.style
	if style == "" {
		style = bw.styles.defaultParaS
	}
	chain := bw.styles.chain(style)

	kind, level := document.BlockParagraph, 0
	outline := p.outline
	if outline < 0 {
		for _, s := range chain {
			if s.outline >= 0 {
				outline = s.outline
				break
			}
		}
	}
	if outline < 0 && len(chain) > 0 {
		outline = headingLevelFromName(chain[0])
	}
	if outline >= 0 && outline <= 8 {
		kind, level = document.BlockHeading, outline
	}

	label, suffix, ilvl, numbered := bw.numberParagraph(p, chain, style)
	if numbered && kind != document.BlockHeading {
		kind, level = document.BlockListItem, ilvl
	}
	if text == "" && label == "" {
		return
	}
	prefix := ""
	if label != "" {
		prefix = label + suffix
	}
	full := prefix + text
	if text == "" {
		full = label
	}
	blk := document.Block{Kind: kind, Span: document.Span{Start: 0, End: utf8.RuneCountInString(full)}, Level: level, Label: label}
	*bw.dest() = append(*bw.dest(), docxPara{text: full, blocks: []document.Block{blk}})
}

// headingLevelFromName recognises Word's built-in heading styles by id or
// name ("Heading1", "heading 2") when they carry no outline level.
func headingLevelFromName(s *docxStyle) int {
	for _, n := range []string{s.name, s.id} {
		l := strings.ToLower(strings.ReplaceAll(n, " ", ""))
		if strings.HasPrefix(l, "heading") && len(l) == len("heading")+1 {
			if c := l[len(l)-1]; c >= '1' && c <= '9' {
				return int(c - '1')
			}
		}
	}
	return -1
}

// numberParagraph advances the list counters for a numbered paragraph and
// returns its label and suffix.
func (bw *docxBody) numberParagraph(p *docxParaState, chain []*docxStyle, style string) (label, suffix string, ilvl int, ok bool) {
	numID, ilvlS := p.numID, p.ilvl
	hasNum, hasIlvl := p.hasNumID, p.hasIlvl
	fromStyle := false
	for _, s := range chain {
		if !hasNum && s.numID != "" {
			numID, hasNum, fromStyle = s.numID, true, true
		}
		if !hasIlvl && s.ilvl != "" {
			ilvlS, hasIlvl = s.ilvl, true
		}
	}
	if !hasNum || numID == "" || numID == "0" {
		return "", "", 0, false
	}
	num := bw.num.nums[numID]
	if num == nil {
		return "", "", 0, false
	}
	abs := bw.resolveAbstract(num.abstractID)
	if abs == nil {
		return "", "", 0, false
	}
	ilvl, _ = strconv.Atoi(ilvlS)
	if !hasIlvl && fromStyle {
		// A level may name the style that selects it.
		for i, l := range abs.levels {
			if l.pStyle != "" && l.pStyle == style {
				ilvl = i
				break
			}
		}
	}
	ilvl = min(max(ilvl, 0), 8)

	levels := abs.levels
	key := "a" + abs.id
	if len(num.overrides) > 0 {
		key = "n" + numID
		for i, o := range num.overrides {
			if o.hasLevel {
				levels[i] = o.level
			}
			if o.start >= 0 {
				levels[i].start = o.start
			}
		}
	}
	if bw.started == nil {
		bw.started = map[string]*[9]bool{}
	}
	cnt, st := bw.counters[key], bw.started[key]
	if cnt == nil {
		cnt, st = new([9]int), new([9]bool)
		bw.counters[key], bw.started[key] = cnt, st
	}
	if st[ilvl] {
		cnt[ilvl]++
	} else {
		cnt[ilvl], st[ilvl] = levels[ilvl].start, true
	}
	for j := ilvl + 1; j < 9; j++ {
		r := levels[j].restart
		if r < 0 || ilvl < r {
			st[j] = false
		}
	}
	lv := levels[ilvl]
	var sb strings.Builder
	t := lv.text
	for i := 0; i < len(t); i++ {
		if t[i] == '%' && i+1 < len(t) && t[i+1] >= '1' && t[i+1] <= '9' {
			j := int(t[i+1] - '1')
			v := levels[j].start
			if st[j] {
				v = cnt[j]
			}
			f := levels[j].fmt
			if lv.legal && f != "bullet" {
				f = "decimal"
			}
			sb.WriteString(formatDocxNumber(v, f))
			i++
			continue
		}
		sb.WriteByte(t[i])
	}
	label = bulletGlyphs(canonicalText(sb.String()))
	if lv.fmt == "none" && strings.TrimSpace(label) == "" {
		label = ""
	}
	label = strings.TrimSpace(label)
	switch lv.suff {
	case "space":
		suffix = " "
	case "nothing":
		suffix = ""
	default:
		suffix = "\t"
	}
	return label, suffix, ilvl, true
}

// resolveAbstract follows numStyleLink (a list defined by a numbering
// style) to the abstract numbering that holds the levels.
func (bw *docxBody) resolveAbstract(id string) *docxAbstract {
	for i := 0; i < 8; i++ {
		abs := bw.num.abstract[id]
		if abs == nil || abs.styleLink == "" {
			return abs
		}
		s := bw.styles.byID[abs.styleLink]
		if s == nil || s.numID == "" || bw.num.nums[s.numID] == nil {
			return abs
		}
		next := bw.num.nums[s.numID].abstractID
		if next == id {
			return abs
		}
		id = next
	}
	return nil
}

// bulletGlyphs maps the private-use Symbol/Wingdings code points Word
// stores for bullets to ordinary characters.
func bulletGlyphs(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 0xF0A7 || r == 0xF06E:
			return '▪'
		case r == 0xF0D8 || r == 0xF0E0:
			return '➢'
		case r == 0xF0FC:
			return '✓'
		case r >= 0xE000 && r <= 0xF8FF:
			return '•'
		}
		return r
	}, s)
}

// formatDocxNumber renders counter n in WordprocessingML number format f.
func formatDocxNumber(n int, f string) string {
	switch f {
	case "lowerLetter":
		return numbering.Letters(n, false)
	case "upperLetter":
		return numbering.Letters(n, true)
	case "lowerRoman":
		return numbering.Roman(n)
	case "upperRoman":
		return strings.ToUpper(numbering.Roman(n))
	case "decimalZero":
		if n >= 0 && n < 10 {
			return "0" + strconv.Itoa(n)
		}
	case "ordinal":
		return strconv.Itoa(n) + numbering.OrdinalSuffix(n)
	case "bullet", "none":
		return ""
	}
	return strconv.Itoa(n)
}

// finishRow appends a table row: one tab-separated line when its cells are
// simple, else each cell's paragraphs in order.
func (bw *docxBody) finishRow(row []*docxCell) {
	simple := true
	for _, c := range row {
		if c.complex || len(c.paras) > 1 {
			simple = false
			break
		}
	}
	dst := bw.dest()
	if !simple {
		for _, c := range row {
			*dst = append(*dst, c.paras...)
		}
		if n := len(bw.cells); n > 0 {
			bw.cells[n-1].complex = true
		}
		return
	}
	var sb strings.Builder
	var blocks []document.Block
	pos, nonEmpty := 0, false
	for i, c := range row {
		if i > 0 {
			sb.WriteByte('\t')
			pos++
		}
		if len(c.paras) == 0 {
			continue
		}
		cp := c.paras[0]
		t := strings.ReplaceAll(cp.text, "\n", " ") // keep the row on one line
		sb.WriteString(t)
		n := utf8.RuneCountInString(t)
		if n > 0 {
			nonEmpty = true
			blocks = append(blocks, document.Block{Kind: document.BlockTableCell, Span: document.Span{Start: pos, End: pos + n}})
			for _, b := range cp.blocks {
				if b.Kind != document.BlockParagraph {
					b.Span.Start += pos
					b.Span.End += pos
					blocks = append(blocks, b)
				}
			}
		}
		pos += n
	}
	if !nonEmpty {
		return
	}
	line := strings.TrimRight(sb.String(), "\t")
	*dst = append(*dst, docxPara{text: line, blocks: blocks, tight: true})
}

// render joins the paragraphs: a blank line between paragraphs, a single
// newline between consecutive table-row lines.
func (bw *docxBody) render() (string, []document.Block) {
	w := paraWriter{out: bw.out}
	return w.render()
}
