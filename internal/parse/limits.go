package parse

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"runtime"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// What one document may hold, whatever its file: a small file can ask for
// far more (an ODT space element asking for a thousand spaces, a Word
// property page listed a million times, a 60 MB paragraph), and every pass
// after parsing — clause tree, names, graph, retrieval units, index — costs
// memory in proportion to the text and the paragraphs. The readers count
// both as they go and stop at the first character or paragraph past a
// limit, so a hostile file is refused before it has cost more than the
// limit, with an error naming it.

// DefaultMaxText is the most canonical text (bytes of UTF-8) one document
// may hold unless Options.MaxText says otherwise: 32 MiB, some thirty times
// the longest contract of the benchmark corpora (1 MB, a merger agreement
// of about 400 pages).
const DefaultMaxText = 32 << 20

// MaxParagraphs is the most paragraphs (non-empty lines of text, table
// rows included) one document may hold: 250,000, some twenty-five times
// the lines of the longest benchmark contract (9,305).
const MaxParagraphs = 250_000

// textBudget counts the text and paragraphs a reader has produced and
// says when they pass the document's limits. A nil budget has no limits.
type textBudget struct {
	maxText, maxParas int
	text, paras       int
	err               error
}

// newBudget returns the budget of one document read with opt.
func newBudget(opt Options) *textBudget {
	return &textBudget{maxText: opt.maxText(), maxParas: MaxParagraphs}
}

// maxText is the text limit opt asks for.
func (o Options) maxText() int {
	if o.MaxText > 0 {
		return o.MaxText
	}
	return DefaultMaxText
}

// para counts one finished paragraph of n bytes. It returns false once the
// document is past a limit; Err then says which.
func (b *textBudget) para(n int) bool {
	if b == nil {
		return true
	}
	if b.err != nil {
		return false
	}
	b.text += n + 2 // the blank line that separates it from the next
	b.paras++
	switch {
	case b.text > b.maxText:
		b.err = errTextLimit(b.maxText)
	case b.paras > b.maxParas:
		b.err = errParagraphLimit(b.maxParas)
	}
	return b.err == nil
}

// fits reports whether a paragraph still being read, of n bytes so far,
// fits in what is left; when it does not, the budget records the error.
func (b *textBudget) fits(n int) bool {
	if b == nil {
		return true
	}
	if b.err == nil && b.text+n > b.maxText {
		b.err = errTextLimit(b.maxText)
	}
	return b.err == nil
}

// Err returns why the document is past its limits, or nil.
func (b *textBudget) Err() error {
	if b == nil {
		return nil
	}
	return b.err
}

func errTextLimit(limit int) error {
	return fmt.Errorf("%w: its text passes %s, the most one document may hold (--max-text)", ErrTooLarge, sizeName(int64(limit)))
}

func errParagraphLimit(limit int) error {
	return fmt.Errorf("%w: it holds more than %s paragraphs, the most one document may hold", ErrTooLarge, thousands(limit))
}

// checkDocument applies the limits to a finished document, whatever read
// it: the text, then the paragraphs (lines holding text).
func checkDocument(doc *document.Document, opt Options) error {
	if limit := opt.maxText(); len(doc.Text) > limit {
		return errTextLimit(limit)
	}
	lines := 0
	for rest := doc.Text; rest != ""; {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.TrimSpace(line) != "" {
			if lines++; lines > MaxParagraphs {
				return errParagraphLimit(MaxParagraphs)
			}
		}
		rest = after
	}
	return nil
}

// sizeName writes a byte count the way limits are given: "32 MiB".
func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// thousands writes n with thousands separators: 250,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ReadMemory estimates the most memory (bytes) reading data, a file named
// name, takes while it is parsed: the file's bytes, what the reader of its
// format builds from them, and the text it can give (at most the text
// limit). Callers that share memory between documents (ingest's budget)
// reserve it before parsing. The factors come from the bomb kit's
// measurements (internal/parse/bombtest): a format's reader holds its
// input, its parsed form and its output at once.
func ReadMemory(name string, data []byte, opt Options) int64 {
	size := int64(len(data))
	text := int64(opt.maxText())
	switch Format(name) {
	case "docx", "odt":
		// The XML parts expand to their declared sizes (within the part
		// limits), are read whole, and give at most the text limit.
		parts := min(zipExpanded(data), docxMaxTotal)
		return size + parts + 3*min(parts, text) + 1<<20
	case "html":
		// The parsed tree costs about ten times the markup.
		return size + 10*min(size, 4*text) + 2*text/4 + 1<<20
	case "pdf":
		// pdfium's memory is its own (bounded by its limit); the file is
		// kept as it is for the page view; the text is small.
		return size + int64(pdfMemoryLimit()) + 1<<20
	case "image":
		// Pages are split (at most the file again) and decoded one per
		// core for straightening.
		return 2*size + int64(runtime.NumCPU())*decodeMemory(data) + 1<<20
	case "email":
		// Parts are decoded into attachments: about the message again.
		return 3*size + 1<<20
	}
	// text, rtf, doc: the text is at most about the file, held as it is
	// read and once more as paragraphs.
	return size + 3*min(size, text) + 1<<20
}

// zipExpanded is the sum of the declared expanded sizes of a zip
// package's entries, read from its central directory (0 when it is not a
// zip).
func zipExpanded(data []byte) int64 {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0
	}
	var n int64
	for _, f := range zr.File {
		n += int64(min(f.UncompressedSize64, uint64(docxMaxPart)))
	}
	return n
}

// decodeMemory estimates what straightening one page of an image takes:
// the decoded page, its grey copy and the turned copy, or nothing for a
// page too large to be straightened (deskew.go). For a TIFF, its largest
// page, as an 8-bit grey one (scans are bilevel or grey).
func decodeMemory(data []byte) int64 {
	var px, bpp int64
	if ImageKind(data) == ".tif" {
		r, err := newTIFFReader(data)
		if err != nil {
			return 0
		}
		pages, err := r.pages()
		if err != nil {
			return 0
		}
		for _, p := range pages {
			px = max(px, int64(p.width)*int64(p.height))
		}
		bpp = 1
	} else {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return 0
		}
		px, bpp = int64(cfg.Width)*int64(cfg.Height), bytesPerPixel(cfg.ColorModel)
	}
	if px > deskewMaxPixels || px*bpp > deskewMaxBytes {
		return 0
	}
	return px*bpp + 2*px
}
