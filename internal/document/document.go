// Package document defines a contract's canonical text and the spans that
// point into it.
//
// Every span in pakton — a clause, a retrieval unit, a citation, a benchmark
// snippet — is a half-open interval [Start, End) of Unicode code points of one
// document's canonical text. Byte offsets exist only at the edges that need
// them (slicing a Go string), and this package does that conversion.
package document

import (
	"fmt"
	"sync/atomic"
	"unicode/utf8"
)

// Span is a half-open interval [Start, End) of code points.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of code points in s (zero for an empty or inverted span).
func (s Span) Len() int {
	if s.End <= s.Start {
		return 0
	}
	return s.End - s.Start
}

// Empty reports whether s covers no code points.
func (s Span) Empty() bool { return s.End <= s.Start }

// Overlaps reports whether s and o share at least one code point.
func (s Span) Overlaps(o Span) bool { return s.Start < o.End && o.Start < s.End }

// Contains reports whether o lies entirely inside s.
func (s Span) Contains(o Span) bool { return s.Start <= o.Start && o.End <= s.End }

// Intersect returns the overlap of s and o (empty when they do not overlap).
func (s Span) Intersect(o Span) Span {
	r := Span{max(s.Start, o.Start), min(s.End, o.End)}
	if r.End < r.Start {
		r.End = r.Start
	}
	return r
}

func (s Span) String() string { return fmt.Sprintf("[%d,%d)", s.Start, s.End) }

// Page locates one page of a paginated source (PDF) in the canonical text.
type Page struct {
	Number int  `json:"number"` // 1-based
	Span   Span `json:"span"`
	// Label is the page number printed on the page ("23" for "- 23 -",
	// "iv"), when the parser found one; "" otherwise.
	Label string `json:"label,omitempty"`
}

// BlockKind says what a parser knows about a block of the source layout.
type BlockKind string

// Block kinds a parser may report.
const (
	BlockParagraph BlockKind = "paragraph"
	BlockHeading   BlockKind = "heading"
	BlockListItem  BlockKind = "list_item"
	BlockTableCell BlockKind = "table_cell"
)

// Block is a layout hint from a parser: a paragraph, heading or list item the
// source format marks explicitly (HTML <h2>, a DOCX numbered paragraph, a PDF
// line set in a larger font). The clause parser may use blocks to refine the
// tree it builds from the text; the text alone must still be enough.
type Block struct {
	Kind  BlockKind `json:"kind"`
	Span  Span      `json:"span"`
	Level int       `json:"level,omitempty"` // outline or list level, 0 = top
	Label string    `json:"label,omitempty"` // numbering the source generated, e.g. "1.1" or "(a)"
}

// Document is one contract: its canonical text and what parsing learned
// about its layout.
type Document struct {
	ID     string  `json:"id"`               // stable within a collection
	Name   string  `json:"name"`             // display name, usually the file name
	Format string  `json:"format"`           // "text", "html", "docx", "doc", "rtf", "odt", "pdf", "pdf-ocr", "email", "tiff-ocr", "png-ocr", "jpeg-ocr"
	Text   string  `json:"-"`                // canonical text, valid UTF-8
	Pages  []Page  `json:"pages,omitempty"`  // nil for unpaginated formats
	Blocks []Block `json:"blocks,omitempty"` // optional layout hints
	// Furniture marks page numbers, running headers and footers and
	// banners in the text, sorted by start; nil when none were found.
	Furniture []Furniture `json:"furniture,omitempty"`
	// Meta is what parsing learnt about the document beyond its text (OCR
	// confidence, an e-mail's headers); nil when there is nothing to say.
	Meta *Meta `json:"meta,omitempty"`
	// Layout is where the text sits on the pages, when the parser knows
	// (PDFs read by pdfium); nil otherwise. It is not part of the JSON:
	// ingest stores it as its own artifact ("layout").
	Layout *Layout `json:"-"`

	// index is built on first use; documents are read by many goroutines
	// at once (a review's model pass refines cells in parallel).
	index atomic.Pointer[Index]
}

// Meta is what a parser learnt about a document beyond its text.
type Meta struct {
	// OCR describes the pages whose text was read by optical character
	// recognition; nil when none was.
	OCR *OCR `json:"ocr,omitempty"`
	// Message holds an e-mail's headers, for the document that is its body.
	Message *Message `json:"message,omitempty"`
	// Reader names the system tool that read the file when pakton's own
	// reader could not (e.g. "antiword" for a Word 6 document).
	Reader string `json:"reader,omitempty"`
}

// OCR is how text was read from images: which pages and how sure the
// recogniser was.
type OCR struct {
	Engine string `json:"engine"` // "tesseract"
	// Pages are the 1-based pages read by OCR (every page of an image
	// file, the scanned pages of a PDF).
	Pages []int `json:"pages"`
	// Confidence is the mean of the recogniser's word confidences over
	// those pages, 0–100 (tesseract's scale); PageConfidence the mean per
	// page, in the order of Pages (-1 for a page with no words).
	Confidence     float64   `json:"confidence"`
	PageConfidence []float64 `json:"page_confidence,omitempty"`
	Words          int       `json:"words"` // words the confidences are over
	// PageTurned is the angle in degrees each page was turned straight
	// before OCR (a sheet fed askew), in the order of Pages; nil when no
	// page was.
	PageTurned []float64 `json:"page_turned,omitempty"`
}

// Message is an e-mail's envelope as its headers give it.
type Message struct {
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Cc      string `json:"cc,omitempty"`
	Date    string `json:"date,omitempty"` // as written in the message
	Subject string `json:"subject,omitempty"`
	// Attachments are the file names of the message's attachments, in
	// order; each is ingested as its own document named
	// "<message name>/<attachment name>".
	Attachments []string `json:"attachments,omitempty"`
	// Documents are, for each attachment, the name of the document that
	// holds it: "<message name>/<attachment name>", the document that held
	// the same bytes already, or "" when it was not ingested (refused,
	// unsupported, unreadable).
	Documents []string `json:"documents,omitempty"`
}

// Runes returns the length of the canonical text in code points.
func (d *Document) Runes() int { return d.idx().Len() }

// Slice returns the canonical text of span s, clamped to the text.
func (d *Document) Slice(s Span) string { return d.idx().Slice(s) }

// PagesOf returns the 1-based page numbers that span s touches, or nil when
// the document has no page map.
func (d *Document) PagesOf(s Span) []int {
	var out []int
	for _, p := range d.Pages {
		if p.Span.Overlaps(s) || (s.Empty() && p.Span.Start <= s.Start && s.Start < p.Span.End) {
			out = append(out, p.Number)
		}
	}
	return out
}

func (d *Document) idx() *Index {
	if ix := d.index.Load(); ix != nil {
		return ix
	}
	d.index.CompareAndSwap(nil, NewIndex(d.Text))
	return d.index.Load()
}

// Index converts between code-point and byte offsets of one string. It keeps
// a byte offset for every 64th code point, so memory stays small and a lookup
// scans at most 63 code points. ASCII text needs no table at all.
type Index struct {
	s      string
	n      int
	ascii  bool
	checks []int32 // byte offset of code point i*stride
}

const stride = 64

// NewIndex builds the index of s. Invalid UTF-8 bytes count as one code point
// each, as utf8.DecodeRuneInString does; parsers are expected to have produced
// valid UTF-8 already.
func NewIndex(s string) *Index {
	ix := &Index{s: s}
	// One pass, a stride of ASCII bytes at a time where it can: contracts
	// are mostly ASCII with a curly quote or a dash here and there.
	checks := make([]int32, 0, len(s)/stride+1)
	i, b := 0, 0
	for b < len(s) {
		if i%stride == 0 {
			checks = append(checks, int32(b))
			if b+stride <= len(s) && isASCII(s[b:b+stride]) {
				b += stride
				i += stride
				continue
			}
		}
		if s[b] < utf8.RuneSelf {
			b++
		} else {
			_, w := utf8.DecodeRuneInString(s[b:])
			b += w
		}
		i++
	}
	ix.n = i
	if i == len(s) {
		ix.ascii = true
		return ix
	}
	ix.checks = checks
	return ix
}

// isASCII reports whether every byte of s is below utf8.RuneSelf.
func isASCII(s string) bool {
	var or byte
	for i := 0; i < len(s); i++ {
		or |= s[i]
	}
	return or < utf8.RuneSelf
}

// Len returns the number of code points.
func (ix *Index) Len() int { return ix.n }

// Byte returns the byte offset of code point r (clamped to [0, Len]).
func (ix *Index) Byte(r int) int {
	if r <= 0 {
		return 0
	}
	if r >= ix.n {
		return len(ix.s)
	}
	if ix.ascii {
		return r
	}
	b := int(ix.checks[r/stride])
	for k := r % stride; k > 0; k-- {
		_, w := utf8.DecodeRuneInString(ix.s[b:])
		b += w
	}
	return b
}

// Rune returns the code-point offset of byte offset b. A b inside a multi-byte
// sequence maps to the code point that contains it.
func (ix *Index) Rune(b int) int {
	if b <= 0 {
		return 0
	}
	if b >= len(ix.s) {
		return ix.n
	}
	if ix.ascii {
		return b
	}
	// Binary search for the last checkpoint at or before b.
	lo, hi := 0, len(ix.checks)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if int(ix.checks[mid]) <= b {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	r, pos := lo*stride, int(ix.checks[lo])
	for pos < b {
		_, w := utf8.DecodeRuneInString(ix.s[pos:])
		if pos+w > b {
			break
		}
		pos += w
		r++
	}
	return r
}

// Slice returns the substring for code-point span sp, clamped to the text.
func (ix *Index) Slice(sp Span) string {
	if sp.End <= sp.Start {
		return ""
	}
	return ix.s[ix.Byte(sp.Start):ix.Byte(sp.End)]
}

// ByteSpan converts a code-point span to a byte range [b0, b1).
func (ix *Index) ByteSpan(sp Span) (int, int) { return ix.Byte(sp.Start), ix.Byte(sp.End) }

// RuneSpan converts a byte range to a code-point span.
func (ix *Index) RuneSpan(b0, b1 int) Span { return Span{ix.Rune(b0), ix.Rune(b1)} }

// PagesLabel names, for people, the pages a span touches (as PagesOf
// returns them): "p. 3 (PDF page)" or "pp. 3–4 (PDF pages)", and "" for
// none. The numbers are physical pages, the file's first page being 1, not
// the numbers printed on the pages; the label says so, so that nobody looks
// for a printed "page 3". Every face (CLI, reports, web app) uses these
// words.
func PagesLabel(pages []int) string {
	switch len(pages) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("p. %d (PDF page)", pages[0])
	}
	return fmt.Sprintf("pp. %d–%d (PDF pages)", pages[0], pages[len(pages)-1])
}

// FirstRunes returns the first n code points of s, or all of s when it is
// shorter: a cut made in the unit every span counts in.
func FirstRunes(s string, n int) string {
	i := 0
	for b := range s {
		if i == n {
			return s[:b]
		}
		i++
	}
	return s
}
