package parse

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
)

// extractPDFToText runs poppler's pdftotext and splits its output into pages
// at form feeds. Pages it finds empty are checked with pdfium for images, so
// scanned pages can be sent to OCR.
func extractPDFToText(ctx context.Context, data []byte, layout bool) ([]pdfPageText, error) {
	path, cleanup, err := tempPDF(data)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	args := []string{"-enc", "UTF-8", "-l", fmt.Sprint(MaxPDFPages + 1)}
	if layout {
		args = append(args, "-layout")
	}
	args = append(args, path, "-")
	cmd := exec.CommandContext(ctx, "pdftotext", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "password") || strings.Contains(msg, "Encrypt") {
			return nil, errPDFEncrypted
		}
		if len(msg) > 300 {
			msg = msg[len(msg)-300:]
		}
		return nil, fmt.Errorf("%w: pdftotext: %v: %s", ErrCorrupt, err, msg)
	}
	raw := strings.Split(stdout.String(), "\f")
	if len(raw) > 0 && strings.TrimSpace(raw[len(raw)-1]) == "" {
		raw = raw[:len(raw)-1] // pdftotext ends every page with a form feed
	}
	if len(raw) > MaxPDFPages {
		return nil, fmt.Errorf("%w: the PDF has more than %d pages; pakton reads at most %d", ErrTooLarge, MaxPDFPages, MaxPDFPages)
	}
	pages := make([]pdfPageText, len(raw))
	var empty []int
	for i, r := range raw {
		pages[i].text = cleanPlainText(r)
		if pages[i].text == "" {
			empty = append(empty, i)
		}
	}
	if len(empty) > 0 {
		withImage, err := pdfiumPagesWithImages(ctx, data, empty)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// pdfium could not tell: treat every empty page as scanned.
			slog.Debug("pdf: checking empty pages for images", "err", err)
			withImage = empty
		}
		for _, i := range withImage {
			pages[i].noTextLayer = true
		}
	}
	return pages, nil
}

// tempPDF writes data to a temporary file for the command-line tools.
func tempPDF(data []byte) (string, func(), error) {
	f, err := os.CreateTemp("", "pakton-*.pdf")
	if err != nil {
		return "", nil, fmt.Errorf("writing a temporary copy of the PDF: %w", err)
	}
	cleanup := func() { _ = os.Remove(f.Name()) }
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		cleanup()
		return "", nil, fmt.Errorf("writing a temporary copy of the PDF: %w", err)
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("writing a temporary copy of the PDF: %w", err)
	}
	return f.Name(), cleanup, nil
}
