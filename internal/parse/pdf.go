package parse

// PDF text extraction.
//
// Two engines produce the same shape of result: pdfium (compiled to
// WebAssembly and run by wazero, so it needs no system packages) and
// poppler-utils' pdftotext when it is installed. Both yield one text per page;
// assemblePDF joins them into the canonical text and the page map.
//
// Canonical text layout of a PDF:
//   - every line ends with "\n"; trailing spaces are trimmed;
//   - a blank line separates paragraphs where the page layout shows a
//     vertical gap (pdfium: measured from character boxes; pdftotext: its own
//     blank lines, runs of them collapsed to one);
//   - pages are joined in order with one extra "\n", so a blank line always
//     separates the last line of page n from the first line of page n+1.
//     Form feeds never appear in the text.
//   - Page n's span runs from its first code point to the first code point of
//     page n+1 (the last page runs to the end of the text), so the spans tile
//     the text: every code point, including the separator, belongs to exactly
//     one page. A page with no text has a span of just its separator.

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
)

// MaxPDFPages is the largest page count pakton extracts from one PDF. Larger
// files are refused with ErrTooLarge rather than tying up the machine.
const MaxPDFPages = 5000

// PDF engine names accepted in Options.PDFEngine.
const (
	EngineAuto      = "auto"
	EnginePDFium    = "pdfium"
	EnginePDFToText = "pdftotext"
)

// OCR modes accepted in Options.OCR.
const (
	OCRAuto  = "auto"
	OCROff   = "off"
	OCRForce = "force"
)

// pdfPageText is what an engine learned about one page.
type pdfPageText struct {
	// text is the page's text: lines ending in "\n", paragraphs separated by
	// one blank line, no leading or trailing blank lines; "" for no text.
	text string
	// headings are byte ranges of text holding lines set in a larger font.
	headings [][2]int
	// noTextLayer is set when the page has no text but shows an image: a
	// scanned page that OCR can read.
	noTextLayer bool
	// ocr is set when text came from OCR.
	ocr bool
	// geom is the page's geometry when pdfium read it: its size and one
	// box per non-blank line of text, in order (see pdf_layout.go).
	geom *pageGeom
}

// errPDFEncrypted is wrapped around ErrEncrypted with the advice users need.
var errPDFEncrypted = fmt.Errorf("%w: the PDF is password-protected; remove the password and try again", ErrEncrypted)

func parsePDF(ctx context.Context, data []byte, opt Options) (*document.Document, error) {
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: no %%PDF- header in the first 1024 bytes", ErrCorrupt)
	}
	ocrMode := strings.ToLower(opt.OCR)
	switch ocrMode {
	case "", OCRAuto:
		ocrMode = OCRAuto
	case OCROff, OCRForce:
	default:
		return nil, fmt.Errorf("unknown OCR mode %q (want auto, off or force)", opt.OCR)
	}

	pages, err := extractPDF(ctx, data, opt)
	if err != nil {
		return nil, err
	}

	var want []int // 0-based pages to OCR
	for i, p := range pages {
		if ocrMode == OCRForce || p.noTextLayer {
			want = append(want, i)
		}
	}
	if len(want) > 0 {
		scanned := 0
		for _, p := range pages {
			if p.noTextLayer {
				scanned++
			}
		}
		if ocrMode == OCROff {
			return nil, fmt.Errorf("%w: scanned PDF (%d of %d pages have no text layer) and OCR is off; turn OCR on to read those pages", ErrEmpty, scanned, len(pages))
		}
		if err := ocrAvailable(); err != nil {
			return nil, fmt.Errorf("scanned PDF (%d of %d pages have no text layer): %w", scanned, len(pages), err)
		}
		texts, err := ocrPDFPages(ctx, data, want, len(pages), opt.Progress)
		if err != nil {
			return nil, err
		}
		nums := make([]int, len(want))
		for k, i := range want {
			pages[i] = pdfPageText{text: cleanPlainText(texts[k].text), ocr: true}
			nums[k] = i + 1
		}
		doc := assemblePDF(pages)
		doc.Meta = &document.Meta{OCR: ocrMeta(nums, texts)}
		return doc, nil
	}
	return assemblePDF(pages), nil
}

// extractPDF runs the engine opt.PDFEngine selects.
func extractPDF(ctx context.Context, data []byte, opt Options) ([]pdfPageText, error) {
	engine := strings.ToLower(opt.PDFEngine)
	switch engine {
	case "", EngineAuto:
		// pdfium is the default even when pdftotext is installed: on the 30
		// CUAD contracts it agreed best with the reference texts that the
		// LegalBench-RAG spans point into (mean character similarity
		// 0.9977, against 0.9962 for pdftotext -layout and 0.9899 without
		// -layout; the gaps are reading-order conventions for superscripts
		// and footers), results do not depend on what is installed, and its
		// line geometry gives paragraph gaps and headings, for ~20 ms of
		// CPU per page against pdftotext's ~13 ms. See docs/PDF_FIDELITY.md.
		return extractPDFium(ctx, data)
	case EnginePDFium:
		return extractPDFium(ctx, data)
	case EnginePDFToText:
		if _, err := exec.LookPath("pdftotext"); err != nil {
			return nil, fmt.Errorf("%w: pdftotext not found on PATH: install the Debian package poppler-utils, or use the pdfium engine", ErrMissingTool)
		}
		return extractPDFToText(ctx, data, true) // -layout measured better than raw order
	}
	return nil, fmt.Errorf("unknown PDF engine %q (want auto, pdfium or pdftotext)", opt.PDFEngine)
}

// assemblePDF joins page texts into a document with a page map and blocks.
func assemblePDF(pages []pdfPageText) *document.Document {
	doc := &document.Document{Format: "pdf", Pages: make([]document.Page, 0, len(pages))}
	var b strings.Builder
	runes := 0
	for i, p := range pages {
		if p.ocr {
			doc.Format = "pdf-ocr"
		}
		if i > 0 {
			b.WriteByte('\n')
			runes++
			doc.Pages[i-1].Span.End = runes
		}
		start := runes
		doc.Blocks = append(doc.Blocks, pageBlocks(p, start)...)
		b.WriteString(p.text)
		runes += utf8.RuneCountInString(p.text)
		doc.Pages = append(doc.Pages, document.Page{Number: i + 1, Span: document.Span{Start: start, End: runes}})
	}
	doc.Text = b.String()
	doc.Layout = buildLayout(pages, doc.Pages)
	markFurniture(doc)
	return doc
}

// pageBlocks returns the paragraph and heading blocks of one page whose text
// starts at code point start: a paragraph is a run of lines between blank
// lines; a heading line closes the open paragraph and gets its own block.
func pageBlocks(p pdfPageText, start int) []document.Block {
	var out []document.Block
	runeAt := func(off int) int { return start + utf8.RuneCountInString(p.text[:off]) }
	para, last := -1, -1 // byte offsets: open paragraph start, end of its last line
	flush := func() {
		if para >= 0 {
			out = append(out, document.Block{Kind: document.BlockParagraph, Span: document.Span{Start: runeAt(para), End: runeAt(last)}})
		}
		para = -1
	}
	hi := 0
	for off := 0; off < len(p.text); {
		end := len(p.text)
		if nl := strings.IndexByte(p.text[off:], '\n'); nl >= 0 {
			end = off + nl
		}
		for hi < len(p.headings) && p.headings[hi][1] <= off {
			hi++
		}
		switch {
		case strings.TrimSpace(p.text[off:end]) == "":
			flush()
		case hi < len(p.headings) && p.headings[hi][0] <= off:
			flush()
			out = append(out, document.Block{Kind: document.BlockHeading, Span: document.Span{Start: runeAt(off), End: runeAt(end)}})
		default:
			if para < 0 {
				para = off
			}
			last = end
		}
		off = end + 1
	}
	flush()
	return out
}
