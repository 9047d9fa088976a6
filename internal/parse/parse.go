// Package parse turns a contract file into a document.Document: one canonical
// text with exact code-point offsets, a page map for paginated formats, and
// optional layout hints (blocks). One file per format lives beside this one.
package parse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// MaxFileSize is the largest file pakton reads by default (bytes).
const MaxFileSize = 256 << 20

// Errors a caller can test for with errors.Is. Each returned error also names
// the file and the reason in its message.
var (
	ErrUnsupported = errors.New("unsupported file type")
	ErrEmpty       = errors.New("no text found")
	ErrTooLarge    = errors.New("file too large")
	ErrEncrypted   = errors.New("file is encrypted")
	ErrCorrupt     = errors.New("file is corrupt or truncated")
	ErrNotText     = errors.New("file is binary, not text")
	ErrMissingTool = errors.New("required system tool is not installed")
)

// Options tune parsing. The zero value is the default.
type Options struct {
	// MaxBytes overrides MaxFileSize when > 0.
	MaxBytes int64
	// OCR controls scanned-PDF handling: "auto" (default: OCR pages with no
	// text layer when tesseract is installed), "off", or "force".
	OCR string
	// PDFEngine selects the PDF text extractor: "auto" (default), "pdftotext"
	// (poppler-utils), or "pdfium" (pure Go, no system packages).
	PDFEngine string
	// Progress, when set, receives human-readable progress for slow steps
	// (OCR of page n/N). It must be safe to call from several goroutines.
	Progress func(msg string)
	// MaxText overrides DefaultMaxText when > 0: the most canonical text
	// (bytes of UTF-8) one document may hold (limits.go).
	MaxText int
}

// File parses the file at path. The format is chosen by extension and checked
// against the content (a .txt holding binary data is refused).
func File(ctx context.Context, path string, opt Options) (*document.Document, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = MaxFileSize
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size(), limit)
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("%s: %w (empty file)", path, ErrEmpty)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc, err := Bytes(ctx, filepath.Base(path), data, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// Bytes parses data whose name (used for its extension) is name. Errors do
// not repeat the name; File adds the path.
func Bytes(ctx context.Context, name string, data []byte, opt Options) (*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w (empty file)", ErrEmpty)
	}
	var (
		doc *document.Document
		err error
		lim = newBudget(opt)
	)
	switch Format(name) {
	case "text":
		doc, err = parseText(data, lim)
	case "html":
		doc, err = parseHTML(ctx, data, lim)
	case "docx":
		doc, err = parseDOCX(data, lim)
	case "pdf":
		doc, err = parsePDF(ctx, data, opt)
	case "rtf":
		doc, err = parseRTF(data, lim)
	case "odt":
		doc, err = parseODT(data, lim)
	case "doc":
		doc, err = parseDOC(ctx, data, lim)
	case "image":
		doc, err = parseImage(ctx, data, opt)
	case "email":
		doc, err = parseEmail(ctx, name, data, opt)
	default:
		return nil, fmt.Errorf("%w %q (supported: %s)", ErrUnsupported, filepath.Ext(name), Supported)
	}
	if err != nil {
		return nil, err
	}
	doc.Name = name
	if strings.TrimSpace(doc.Text) == "" {
		return nil, fmt.Errorf("%w (the file holds no readable text)", ErrEmpty)
	}
	if err := checkDocument(doc, opt); err != nil {
		return nil, err
	}
	return doc, nil
}

// Supported lists the extensions of the documents pakton reads, for
// messages. An e-mail is a document (its body) whose attachments ingest
// reads as documents of their own; ZIP archives (.zip) hold documents and
// are opened by ingest.
const Supported = ".txt .md .html .htm .docx .doc .rtf .odt .pdf .eml .msg .tif .tiff .png .jpg .jpeg"

// Format returns the format name pakton uses for a file name's extension, or
// "" when the extension is not supported.
func Format(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".txt", ".md", ".markdown", ".text":
		return "text"
	case ".html", ".htm", ".xhtml":
		return "html"
	case ".docx":
		return "docx"
	case ".pdf":
		return "pdf"
	case ".rtf":
		return "rtf"
	case ".odt":
		return "odt"
	case ".doc":
		return "doc"
	case ".tif", ".tiff", ".png", ".jpg", ".jpeg":
		return "image"
	case ".eml", ".msg":
		return "email"
	}
	return ""
}
