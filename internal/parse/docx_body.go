package parse

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// The DOCX body (word/document.xml): paragraphs, runs, tracked changes and
// tables, written out in the layout every word-processor format shares.

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
	// restarted: the lists (numId:level) whose start override was applied
	restarted map[string]bool

	out   []docxPara
	paras []*docxParaState
	cells []*docxCell
	rows  [][]*docxCell
	carry string // text of a paragraph whose mark was deleted

	lim     *textBudget // the document's limits
	pending int         // bytes in paragraphs not yet finished
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
		if err := bw.lim.Err(); err != nil {
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
			if skip == 0 && inText && !runHidden && len(bw.paras) > 0 && bw.lim.fits(bw.pending+len(bw.carry)+len(t)) {
				bw.paras[len(bw.paras)-1].b.Write(t)
				bw.pending += len(t)
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
	if t := strings.Trim(bw.carry, " \t\n\f"); t != "" && bw.lim.para(len(t)) {
		*bw.dest() = append(*bw.dest(), docxPara{text: t})
	}
	bw.carry = ""
	return nil
}

// finishPara computes the paragraph's numbering and appends it.
func (bw *docxBody) finishPara(p *docxParaState) {
	bw.pending -= p.b.Len()
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
	if !bw.lim.para(len(full)) {
		return
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
	first := make([]*wpPara, len(row))
	for i, c := range row {
		if len(c.paras) > 0 {
			first[i] = &c.paras[0]
		}
	}
	if line, ok := rowLine(first); ok {
		*dst = append(*dst, line)
	}
}

// render joins the paragraphs: a blank line between paragraphs, a single
// newline between consecutive table-row lines.
func (bw *docxBody) render() (string, []document.Block) {
	w := paraWriter{out: bw.out}
	return w.render()
}
