package parse

import (
	"context"
	"testing"

	"github.com/pakton/pakton/internal/parse/bombtest"
)

// The readers' fuzz targets not beside their own tests. Their seed corpora
// hold the bomb kit's shapes at a small size (bombtest.Seeds), so plain
// "go test" runs them in milliseconds; "go test -fuzz FuzzODT" explores.

// FuzzODT reads whole ODT packages (zip layer, manifest, styles and
// content), where FuzzODTContent varies the content part only.
func FuzzODT(f *testing.F) {
	f.Add(odtOf(f, `<text:h text:outline-level="1">Terms</text:h><text:p>a<text:s text:c="3"/>b</text:p>`, "", nil))
	for _, b := range bombtest.Seeds("odt") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parseODT(data, nil)
		if err != nil {
			return
		}
		checkBlocks(t, doc)
	})
}

// FuzzImagePages splits TIFF, PNG and JPEG files into the pages OCR would
// read (OCR itself is not run): no page over the pixel limit, and pages
// that copy no more than the file holds.
func FuzzImagePages(f *testing.F) {
	for _, format := range []string{"tiff", "png", "jpeg"} {
		for _, b := range bombtest.Seeds(format) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		kind := ImageKind(data)
		if kind == "" {
			return
		}
		pages, err := imagePages(data, kind)
		if err != nil {
			return
		}
		total := 0
		for _, p := range pages {
			total += len(p)
		}
		if total > 2*len(data)+(64<<10)+len(pages)*(8+2+4+12*64) {
			t.Fatalf("%d pages copying %d bytes from a %d-byte file", len(pages), total, len(data))
		}
	})
}

// FuzzParseEmail renders e-mails (.eml) and Outlook messages (.msg) as
// documents: the envelope, the body (plain, HTML or RTF) and the list of
// attachments.
func FuzzParseEmail(f *testing.F) {
	for _, b := range bombtest.Seeds("eml") {
		f.Add(b, false)
	}
	for _, b := range bombtest.Seeds("msg") {
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, msg bool) {
		name := "mail.eml"
		if msg {
			name = "mail.msg"
		}
		doc, err := parseEmail(context.Background(), name, data, Options{OCR: OCROff})
		if err != nil {
			return
		}
		checkDoc(t, doc)
	})
}
