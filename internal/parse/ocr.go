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
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium/requests"

	"github.com/pakton/pakton/internal/document"
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
func ocrPDFPages(ctx context.Context, data []byte, pages []int, total int, progress func(string)) ([]ocrText, error) {
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

	return ocrRun(ctx, len(pages), func(ctx context.Context, k int) (string, error) {
		page := pages[k]
		img := filepath.Join(dir, fmt.Sprintf("page-%d.png", page+1))
		if err := render(ctx, page, img); err != nil {
			return "", fmt.Errorf("OCR: rendering page %d: %w", page+1, err)
		}
		return img, nil
	}, func(k int) int { return pages[k] + 1 }, progress)
}

// ocrRun reads n page images with tesseract, one process per CPU, and
// returns their texts in order. image writes the k-th image and returns
// its path (removed after reading); number gives its page number for
// messages; progress, when set, is called after each page with
// "OCR page n/N". The first failure cancels the rest.
func ocrRun(ctx context.Context, n int, image func(ctx context.Context, k int) (string, error), number func(k int) int, progress func(string)) ([]ocrText, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	texts := make([]ocrText, n)
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
	parallel.Each(ctx, n, runtime.NumCPU(), func(k int) {
		img, err := image(ctx, k)
		if err != nil {
			fail(err)
			return
		}
		straight, angle, err := deskewFile(img)
		if err != nil {
			_ = os.Remove(img)
			fail(fmt.Errorf("OCR: page %d: %w", number(k), err))
			return
		}
		text, err := tesseract(ctx, straight)
		_ = os.Remove(img)
		_ = os.Remove(straight)
		text.turned = angle
		if err != nil {
			fail(fmt.Errorf("OCR: page %d: %w", number(k), err))
			return
		}
		texts[k] = text
		mu.Lock()
		done++
		d := done
		mu.Unlock()
		if progress != nil {
			progress(fmt.Sprintf("OCR page %d/%d", d, n))
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

// ocrText is what tesseract read from one page image.
type ocrText struct {
	text       string
	confidence float64 // mean word confidence, 0–100; -1 without words
	words      int
	turned     float64 // degrees the page was turned straight before OCR (deskew.go)
}

// tesseract reads the text of one image, with its word confidences (the
// "tsv" output, written in the same run as the text).
// ocrPageTimeout bounds tesseract's time on one page (a dense letter page
// at 300 dpi takes seconds; the largest page pakton reads, under a minute
// on a busy machine).
var ocrPageTimeout = 2 * time.Minute

func tesseract(ctx context.Context, img string) (ocrText, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, ocrPageTimeout)
	defer cancel()
	out := strings.TrimSuffix(img, filepath.Ext(img)) + "-ocr"
	defer os.Remove(out + ".txt")
	defer os.Remove(out + ".tsv")
	cmd := exec.CommandContext(ctx, "tesseract", img, out, "-l", "eng", "txt", "tsv")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if parent.Err() != nil {
			return ocrText{}, parent.Err()
		}
		if ctx.Err() != nil {
			return ocrText{}, fmt.Errorf("%w: reading the page took longer than %s", ErrTooLarge, ocrPageTimeout)
		}
		msg := stderr.String()
		if strings.Contains(msg, "Failed loading language") || strings.Contains(msg, "traineddata") {
			return ocrText{}, errNoTesseract
		}
		return ocrText{}, fmt.Errorf("tesseract: %w: %s", err, lastBytes(msg, 300))
	}
	text, err := os.ReadFile(out + ".txt")
	if err != nil {
		return ocrText{}, fmt.Errorf("tesseract: reading its output: %w", err)
	}
	res := ocrText{text: strings.TrimRight(string(text), "\f"), confidence: -1}
	if tsv, err := os.ReadFile(out + ".tsv"); err == nil {
		res.confidence, res.words = tsvConfidence(tsv)
	}
	return res, nil
}

// tsvConfidence is the mean confidence of the words in tesseract's TSV
// output (level 5 rows with text), and their number.
func tsvConfidence(tsv []byte) (float64, int) {
	var sum float64
	n := 0
	for _, line := range strings.Split(string(tsv), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 12 || f[0] != "5" || strings.TrimSpace(f[11]) == "" {
			continue
		}
		c, err := strconv.ParseFloat(f[10], 64)
		if err != nil || c < 0 {
			continue
		}
		sum += c
		n++
	}
	if n == 0 {
		return -1, 0
	}
	return sum / float64(n), n
}

// ocrMeta summarises the OCR of pages (1-based numbers) for a document's
// metadata.
func ocrMeta(pages []int, texts []ocrText) *document.OCR {
	m := &document.OCR{Engine: "tesseract", Pages: pages, Confidence: -1}
	var sum float64
	turned := false
	for _, t := range texts {
		m.PageConfidence = append(m.PageConfidence, math.Round(t.confidence*10)/10)
		m.PageTurned = append(m.PageTurned, math.Round(t.turned*10)/10)
		if t.turned != 0 {
			turned = true
		}
		if t.words > 0 {
			sum += t.confidence * float64(t.words)
			m.Words += t.words
		}
	}
	if m.Words > 0 {
		m.Confidence = math.Round(sum/float64(m.Words)*10) / 10
	}
	if !turned {
		m.PageTurned = nil
	}
	return m
}

func lastBytes(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + strings.ToValidUTF8(s[len(s)-n:], "")
	}
	return s
}
