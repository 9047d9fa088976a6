package parse

// OCR of scanned PDF pages with the tesseract command-line tool.
//
// Pages are rendered to 300 dpi grayscale PNG by poppler's pdftoppm when it is
// installed, or by pdfium otherwise, and each image is read by one tesseract
// process. tesseract runs with OMP_THREAD_LIMIT=1 and one process per CPU:
// on the 2-core machines we measured, its own threading made it 2-4x slower.

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/klippa-app/go-pdfium/requests"
	"github.com/pakton/pakton/internal/parallel"
)

// ocrDPI is the resolution pages are rendered at for tesseract.
const ocrDPI = 300

// errNoTesseract says which Debian packages make OCR work.
var errNoTesseract = fmt.Errorf("%w: install the Debian packages tesseract-ocr tesseract-ocr-eng poppler-utils to OCR it", ErrMissingTool)

// ocrAvailable reports whether tesseract is installed.
func ocrAvailable() error {
	if _, err := exec.LookPath("tesseract"); err != nil {
		return errNoTesseract
	}
	return nil
}

// ocrPDFPages OCRs the given 0-based pages of a PDF of total pages and
// returns their text in the same order. progress, when set, is called after
// each page with "OCR page n/N".
func ocrPDFPages(ctx context.Context, data []byte, pages []int, total int, progress func(string)) ([]string, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir, err := os.MkdirTemp("", "pakton-ocr-")
	if err != nil {
		return nil, fmt.Errorf("OCR: making a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)

	var render func(ctx context.Context, page int, out string) error
	if _, err := exec.LookPath("pdftoppm"); err == nil {
		pdfPath := filepath.Join(dir, "in.pdf")
		if err := os.WriteFile(pdfPath, data, 0o600); err != nil {
			return nil, fmt.Errorf("OCR: writing a temporary copy of the PDF: %w", err)
		}
		render = func(ctx context.Context, page int, out string) error {
			return renderPdftoppm(ctx, pdfPath, page, out)
		}
	} else {
		var mu sync.Mutex // one pdfium worker renders; tesseract runs in parallel
		render = func(ctx context.Context, page int, out string) error {
			mu.Lock()
			defer mu.Unlock()
			return renderPDFium(ctx, data, page, out)
		}
	}

	texts := make([]string, len(pages))
	var (
		mu       sync.Mutex
		firstErr error
		done     int
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	parallel.Each(ctx, len(pages), runtime.NumCPU(), func(k int) {
		page := pages[k]
		img := filepath.Join(dir, fmt.Sprintf("page-%d.png", page+1))
		if err := render(ctx, page, img); err != nil {
			fail(fmt.Errorf("OCR: rendering page %d: %w", page+1, err))
			return
		}
		text, err := tesseract(ctx, img)
		_ = os.Remove(img)
		if err != nil {
			fail(fmt.Errorf("OCR: page %d: %w", page+1, err))
			return
		}
		texts[k] = text
		mu.Lock()
		done++
		n := done
		mu.Unlock()
		if progress != nil {
			progress(fmt.Sprintf("OCR page %d/%d", n, len(pages)))
		}
	})
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return texts, nil
}

// renderPdftoppm renders one 0-based page of the PDF at path to a PNG file.
func renderPdftoppm(ctx context.Context, path string, page int, out string) error {
	n := fmt.Sprint(page + 1)
	prefix := strings.TrimSuffix(out, ".png")
	cmd := exec.CommandContext(ctx, "pdftoppm", "-r", fmt.Sprint(ocrDPI), "-f", n, "-l", n, "-png", "-gray", "-singlefile", path, prefix)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pdftoppm: %w: %s", err, lastBytes(stderr.String(), 300))
	}
	return nil
}

// renderPDFium renders one 0-based page of the PDF with pdfium to a PNG file.
func renderPDFium(ctx context.Context, data []byte, page int, out string) error {
	return withPDFium(ctx, data, func(run *pdfiumRun) error {
		res, err := run.inst.RenderPageInDPI(&requests.RenderPageInDPI{
			Page:        requests.Page{ByIndex: &requests.PageByIndex{Document: run.doc, Index: page}},
			DPI:         ocrDPI,
			ImageFormat: requests.RenderImageFormatGrayscale,
		})
		if err != nil {
			return fmt.Errorf("pdfium: %w", err)
		}
		defer res.CleanupFunc()
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if err := png.Encode(f, res.Result.RenderedImage); err != nil {
			_ = f.Close()
			return err
		}
		return f.Close()
	})
}

// tesseract reads the text of one image.
func tesseract(ctx context.Context, img string) (string, error) {
	cmd := exec.CommandContext(ctx, "tesseract", img, "stdout", "-l", "eng")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := stderr.String()
		if strings.Contains(msg, "Failed loading language") || strings.Contains(msg, "traineddata") {
			return "", errNoTesseract
		}
		return "", fmt.Errorf("tesseract: %w: %s", err, lastBytes(msg, 300))
	}
	return stdout.String(), nil
}

func lastBytes(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + strings.ToValidUTF8(s[len(s)-n:], "")
	}
	return s
}
