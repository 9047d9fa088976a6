package parse

import (
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// Word-processor formats (RTF, ODT, Word 97–2003) share the canonical text
// of DOCX: one paragraph per line, paragraphs separated by a blank line, a
// line break inside a paragraph a single "\n"; generated numbering written
// before the paragraph with its suffix (a tab unless the format says
// otherwise) and reported as a list_item or heading block carrying the
// label; a table row whose cells hold one paragraph each one line with
// tab-separated cells, consecutive rows on consecutive lines.
//
// paraWriter collects finished paragraphs and renders that text. Offsets of
// blocks are computed from the paragraphs as they are joined, so they are
// exact by construction.

// para is one finished paragraph or table-row line; its blocks' spans are
// relative to its own text.
type wpPara struct {
	text   string
	blocks []document.Block
	tight  bool // a table row: joined to a neighbouring row by one newline
}

type paraWriter struct {
	out []wpPara
	lim *textBudget // the document's limits; nil for none
}

// full reports whether the document is past its limits: the reader stops.
func (w *paraWriter) full() bool { return w.lim.Err() != nil }

// sub returns a writer for the paragraphs of a table cell, counted against
// the same limits.
func (w *paraWriter) sub() paraWriter { return paraWriter{lim: w.lim} }

// add appends a paragraph: label and suffix (the generated numbering, ""
// for none) then text, trimmed of surrounding white space. Empty
// paragraphs are left out. kind is the block kind for headings and list
// items; plain paragraphs get a paragraph block.
func (w *paraWriter) add(label, suffix, text string, kind document.BlockKind, level int) {
	text = strings.Trim(canonicalText(text), " \t\n\f\u00a0")
	label = strings.TrimSpace(canonicalText(label))
	if text == "" && label == "" {
		return
	}
	full := text
	switch {
	case label != "" && text != "":
		full = label + suffix + text
	case label != "":
		full = label
	}
	if kind == "" {
		kind = document.BlockParagraph
	}
	if !w.lim.para(len(full)) {
		return
	}
	blk := document.Block{Kind: kind, Span: document.Span{End: utf8.RuneCountInString(full)}, Level: level, Label: label}
	w.out = append(w.out, wpPara{text: full, blocks: []document.Block{blk}})
}

// row appends one table row from its cells' paragraphs: one line of
// tab-separated cells when every cell holds at most one paragraph, else
// the cells' paragraphs one after another. The cells' paragraphs were
// counted against the limits as they were added.
func (w *paraWriter) row(cells [][]wpPara) {
	for _, c := range cells {
		if len(c) > 1 {
			for _, c := range cells {
				w.out = append(w.out, c...)
			}
			return
		}
	}
	first := make([]*wpPara, len(cells))
	for i, c := range cells {
		if len(c) > 0 {
			first[i] = &c[0]
		}
	}
	if line, ok := rowLine(first); ok {
		w.out = append(w.out, line)
	}
}

// rowLine joins a table row whose cells hold one paragraph at most (nil: an
// empty cell) into one line: the cells' text, line breaks made spaces,
// separated by tabs (trailing ones trimmed), each cell a table-cell block
// with the blocks its paragraph had besides the paragraph itself. ok is
// false when every cell is empty.
func rowLine(cells []*wpPara) (line wpPara, ok bool) {
	var sb strings.Builder
	var blocks []document.Block
	pos, nonEmpty := 0, false
	for i, c := range cells {
		if i > 0 {
			sb.WriteByte('\t')
			pos++
		}
		if c == nil {
			continue
		}
		t := strings.ReplaceAll(c.text, "\n", " ")
		n := utf8.RuneCountInString(t)
		sb.WriteString(t)
		if n > 0 {
			nonEmpty = true
			blocks = append(blocks, document.Block{Kind: document.BlockTableCell, Span: document.Span{Start: pos, End: pos + n}})
			for _, b := range c.blocks {
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
		return wpPara{}, false
	}
	return wpPara{text: strings.TrimRight(sb.String(), "\t"), blocks: blocks, tight: true}, true
}

// render joins the paragraphs: a blank line between paragraphs, one
// newline between consecutive table rows.
func (w *paraWriter) render() (string, []document.Block) {
	var sb strings.Builder
	var blocks []document.Block
	pos := 0
	prevTight := false
	for i, p := range w.out {
		if i > 0 {
			if p.tight && prevTight {
				sb.WriteString("\n")
				pos++
			} else {
				sb.WriteString("\n\n")
				pos += 2
			}
		}
		sb.WriteString(p.text)
		for _, b := range p.blocks {
			b.Span.Start += pos
			b.Span.End += pos
			blocks = append(blocks, b)
		}
		pos += utf8.RuneCountInString(p.text)
		prevTight = p.tight
	}
	return sb.String(), blocks
}

// headingStyleLevel recognises the built-in heading style names of word
// processors ("heading 1", "Heading1", "Überschrift 2" is not one: Word
// stores the English name in the file) and returns the 0-based outline
// level, or -1.
func headingStyleLevel(name string) int {
	l := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), " ", ""))
	l = strings.TrimSuffix(l, ";")
	if strings.HasPrefix(l, "heading") && len(l) == len("heading")+1 {
		if c := l[len(l)-1]; c >= '1' && c <= '9' {
			return int(c - '1')
		}
	}
	return -1
}
