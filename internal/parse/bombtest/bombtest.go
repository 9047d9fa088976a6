// Package bombtest generates hostile files for the tests that measure how
// pakton bounds what one file can cost: for every format it reads, files
// small on disk that expand to far more than their size (repeated spacing,
// one enormous paragraph, millions of tiny paragraphs or runs, streams and
// storages shared by many paths or reaching back to themselves, pages that
// share their image data, lines of definitions megabytes long). Nothing is
// committed: every file is written by code here when a test asks for it.
//
// It is test-only code: import it from _test.go files, never from the
// product.
package bombtest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Outcome is what pakton must do with a case: store it, refuse it with a
// clear error, or either one (both are within bounds).
type Outcome string

// Outcomes of a case.
const (
	Ingest Outcome = "ingest"
	Refuse Outcome = "refuse"
	Either Outcome = "either"
)

// Case is one hostile file.
type Case struct {
	// Name identifies the case ("odt-spaces").
	Name string
	// File is the file name the case is written under; its extension
	// chooses the reader.
	File string
	// About says what the file does, in a sentence.
	About string
	// Want is the outcome pakton must reach within the bounds.
	Want Outcome
	// Write writes the file's bytes.
	Write func(w io.Writer) error
}

// WriteFile writes the case into dir and returns the file's path.
func (c Case) WriteFile(dir string) (string, error) {
	p := filepath.Join(dir, c.File)
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	if err := c.Write(f); err != nil {
		f.Close()
		return "", fmt.Errorf("%s: %w", c.Name, err)
	}
	return p, f.Close()
}

// Bytes returns the case's bytes.
func (c Case) Bytes() ([]byte, error) {
	var b bytes.Buffer
	err := c.Write(&b)
	return b.Bytes(), err
}

// Cases returns every case of the kit, in a fixed order.
func Cases() []Case {
	var out []Case
	out = append(out, odtCases()...)
	out = append(out, rtfCases()...)
	out = append(out, docCases()...)
	out = append(out, msgCases()...)
	out = append(out, imageCases()...)
	out = append(out, textCases()...)
	out = append(out, emailCases()...)
	out = append(out, docxCases()...)
	out = append(out, htmlCases()...)
	out = append(out, pdfCases()...)
	return out
}

// Find returns the case named name.
func Find(name string) (Case, bool) {
	for _, c := range Cases() {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// part is one member of a zip package; body writes its content.
type part struct {
	name  string
	store bool // stored, not deflated (the ODF mimetype)
	body  func(w io.Writer) error
}

// writeZip writes a zip package of parts.
func writeZip(w io.Writer, parts ...part) error {
	zw := zip.NewWriter(w)
	for _, p := range parts {
		method := zip.Deflate
		if p.store {
			method = zip.Store
		}
		pw, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: method})
		if err != nil {
			return err
		}
		if err := p.body(pw); err != nil {
			return err
		}
	}
	return zw.Close()
}

// text is a part body of fixed text.
func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// repeat writes head, then unit as often as fits in size bytes, then tail.
func repeat(w io.Writer, head, unit, tail string, size int) error {
	bw := newBuf(w)
	bw.WriteString(head)
	for n := len(head) + len(tail); n+len(unit) <= size; n += len(unit) {
		bw.WriteString(unit)
	}
	bw.WriteString(tail)
	return bw.Flush()
}

// words is deterministic prose: a contract's vocabulary in varying order.
var words = []string{"the", "Supplier", "shall", "deliver", "Goods", "to", "Customer", "within", "thirty", "days",
	"of", "each", "Order", "and", "in", "accordance", "with", "Specifications", "set", "out", "Schedule",
	"any", "failure", "constitutes", "a", "material", "breach", "this", "Agreement", "unless", "cured", "by",
	"notice", "written", "party", "may", "terminate", "for", "convenience", "upon", "ninety", "prior"}

// prose writes about size bytes of sentences, a paragraph break every
// para sentences (para ≤ 0: one paragraph), the break being sep.
func prose(w io.Writer, size, para int, sep string) error {
	bw := newBuf(w)
	x := uint32(2463534242)
	n, s := 0, 0
	for n < size {
		k := 8 + int(x%17)
		for i := 0; i < k && n < size; i++ {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			wd := words[x%uint32(len(words))]
			if i > 0 {
				bw.WriteByte(' ')
				n++
			}
			bw.WriteString(wd)
			n += len(wd)
		}
		bw.WriteString(". ")
		n += 2
		s++
		if para > 0 && s%para == 0 {
			bw.WriteString(sep)
			n += len(sep)
		}
	}
	return bw.Flush()
}

func newBuf(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 1<<16) }
