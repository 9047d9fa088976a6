package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG scans
	_ "image/png"  // DecodeConfig of PNG scans
	"os"
	"path/filepath"
	"strings"

	"github.com/pakton/pakton/internal/document"
)

// Canonical text of a scanned image (.tif/.tiff, including multi-page
// TIFFs, .png, .jpg/.jpeg) is what tesseract reads from each page, pages in
// file order joined as a PDF's are (one "\n" between pages) with the page
// map kept, so citations carry page numbers. The document's metadata holds
// the OCR confidence (mean word confidence, overall and per page).
//
// Each page's pixel size is read from the file's header before anything
// is decoded, and a page larger than imageMaxPixels is refused: tesseract
// holds several copies of a page in memory. A multi-page TIFF is split
// into single pages (tiff.go), which are read in parallel, one tesseract
// process per CPU, with a progress line per page.

// imageMaxPixels bounds one page: 50 megapixels is a letter page at 840
// dpi, half as much again as a 600-dpi scan. tesseract's time grows with a
// page's pixels (about a second per megapixel on a busy machine), and it
// holds several copies of the page in memory.
const imageMaxPixels = 50_000_000

// ImageKind recognises the image formats pakton reads by their magic
// bytes, returning the extension tesseract should see (".tif", ".png",
// ".jpg"), or "".
func ImageKind(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")),
		bytes.HasPrefix(data, []byte("II+\x00")), bytes.HasPrefix(data, []byte("MM\x00+")):
		return ".tif"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return ".png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return ".jpg"
	}
	return ""
}

func parseImage(ctx context.Context, data []byte, opt Options) (*document.Document, error) {
	kind := ImageKind(data)
	if kind == "" {
		return nil, fmt.Errorf("%w: not a TIFF, PNG or JPEG image", ErrCorrupt)
	}
	if strings.EqualFold(opt.OCR, OCROff) {
		return nil, fmt.Errorf("%w: a scanned image has no text layer and OCR is off; turn OCR on to read it", ErrEmpty)
	}
	pages, err := imagePages(data, kind)
	if err != nil {
		return nil, err
	}
	if err := ocrAvailable(); err != nil {
		return nil, fmt.Errorf("scanned image: %w", err)
	}
	texts, err := ocrImages(ctx, pages, kind, opt.Progress)
	if err != nil {
		return nil, err
	}
	pts := make([]pdfPageText, len(texts))
	nums := make([]int, len(texts))
	for i, t := range texts {
		pts[i] = pdfPageText{text: cleanPlainText(t.text), ocr: true}
		nums[i] = i + 1
	}
	doc := assemblePDF(pts)
	doc.Layout = nil
	doc.Format = map[string]string{".tif": "tiff-ocr", ".png": "png-ocr", ".jpg": "jpeg-ocr"}[kind]
	doc.Meta = &document.Meta{OCR: ocrMeta(nums, texts)}
	return doc, nil
}

// imagePages splits an image of kind (ImageKind) into the pages tesseract
// reads, each checked against the page limit (imageMaxPixels): a TIFF's
// pages one by one (tiff.go), a PNG or JPEG whole.
func imagePages(data []byte, kind string) (pages [][]byte, err error) {
	if kind == ".tif" {
		r, err := newTIFFReader(data)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		tp, err := r.pages()
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		for i, p := range tp {
			if err := checkPixels(p.width, p.height, i+1); err != nil {
				return nil, err
			}
			if len(tp) == 1 {
				pages = append(pages, data)
				break
			}
			b, err := r.page(p)
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			if err != nil {
				return nil, fmt.Errorf("%w: page %d: %v", ErrCorrupt, i+1, err)
			}
			pages = append(pages, b)
		}
	} else {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if err := checkPixels(cfg.Width, cfg.Height, 1); err != nil {
			return nil, err
		}
		pages = [][]byte{data}
	}
	return pages, nil
}

func checkPixels(w, h, page int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: page %d has no size", ErrCorrupt, page)
	}
	if int64(w)*int64(h) > imageMaxPixels {
		return fmt.Errorf("%w: page %d is %d×%d pixels, more than the %d megapixels pakton reads (scan at 300 dpi)", ErrTooLarge, page, w, h, imageMaxPixels/1_000_000)
	}
	return nil
}

// ocrImages reads page images (bytes of one format, extension ext) with
// tesseract, in page order.
func ocrImages(ctx context.Context, pages [][]byte, ext string, progress func(string)) ([]ocrText, error) {
	dir, err := os.MkdirTemp("", "pakton-ocr-")
	if err != nil {
		return nil, fmt.Errorf("OCR: making a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	return ocrRun(ctx, len(pages), func(_ context.Context, k int) (string, error) {
		img := filepath.Join(dir, fmt.Sprintf("page-%d%s", k+1, ext))
		if err := os.WriteFile(img, pages[k], 0o600); err != nil {
			return "", fmt.Errorf("OCR: writing page %d: %w", k+1, err)
		}
		return img, nil
	}, func(k int) int { return k + 1 }, progress)
}
