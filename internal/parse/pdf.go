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
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"

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

// The pdfium pool is created on first use and shared by every parse: starting
// the WebAssembly runtime costs seconds without wazero's compilation cache and
// about a tenth of a second with it. Every worker's memory is limited (see
// pdfium_memory.go) and every use of a worker has a deadline.
var (
	pdfiumOnce  sync.Once
	pdfiumPool  pdfium.Pool
	pdfiumErr   error
	pdfiumLimit uint64
)

// Deadlines for one use of a pdfium worker: opening a PDF and counting its
// pages, then a budget per page on top. A contract page takes ~20 ms of
// CPU; the budget is wall-clock time on a machine that may be busy, so it is
// generous: what it stops is a page built to occupy the reader for minutes.
// (Variables so tests can shorten them.)
var (
	pdfOpenTimeout = 30 * time.Second
	pdfPageTimeout = time.Second
)

// maxPDFPageChars is the most characters pakton reads from one PDF page. A
// dense contract page holds ~6,000; a page with millions is an attack on
// the reader, not a contract. (A variable so tests can lower it.)
var maxPDFPageChars = 200_000

// errPDFDeadline is the cancellation cause when a PDF's deadline passes.
var errPDFDeadline = errors.New("pdf deadline")

func pdfiumInstance(ctx context.Context) (pdfium.Pdfium, error) {
	pdfiumOnce.Do(func() {
		rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(true)
		if dir, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(dir, "pakton", "wazero")
			if err := os.MkdirAll(dir, 0o755); err == nil {
				if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
					rc = rc.WithCompilationCache(cache)
				} else {
					slog.Debug("pdfium: no compilation cache", "dir", dir, "err", err)
				}
			}
		}
		pdfiumLimit = pdfMemoryLimit()
		pdfiumPool, pdfiumErr = webassembly.Init(webassembly.Config{
			// Workers are instantiated under this context, which carries
			// the allocator that bounds their memory.
			Context:       withPDFiumAllocator(context.Background(), pdfiumLimit),
			MinIdle:       0,
			MaxIdle:       1,
			MaxTotal:      pdfiumWorkers(pdfiumLimit),
			ReuseWorkers:  true,
			RuntimeConfig: rc,
			// pdfium reads documents from memory: mount no directories.
			FSConfig: wazero.NewFSConfig(),
			Stdout:   io.Discard,
			Stderr:   io.Discard,
		})
		if pdfiumErr != nil {
			pdfiumErr = fmt.Errorf("starting pdfium: %w", pdfiumErr)
		}
	})
	if pdfiumErr != nil {
		return nil, pdfiumErr
	}
	inst, err := pdfiumPool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("getting a pdfium worker: %w", err)
	}
	return inst, nil
}

// pdfiumRun is one use of a pdfium worker on one open document.
type pdfiumRun struct {
	inst  pdfium.Pdfium
	doc   references.FPDF_DOCUMENT
	start time.Time
	timer *time.Timer
}

// pages extends the run's deadline to cover n pages.
func (r *pdfiumRun) pages(n int) {
	r.timer.Reset(time.Until(r.start.Add(pdfTimeout(n))))
}

// pdfTimeout is the deadline for reading a PDF of n pages.
func pdfTimeout(n int) time.Duration {
	return pdfOpenTimeout + time.Duration(n)*pdfPageTimeout
}

// withPDFium opens data in a pdfium worker and calls fn with it, within a
// deadline (pdfOpenTimeout until fn extends it with run.pages) and the
// worker's memory limit. A panic, a trap, a deadline or a cancelled ctx
// kills the worker (the pool replaces it); so does any error, and a worker
// whose memory grew past pdfiumKeepBelow, so its memory goes back to the
// system. A PDF pdfium cannot open is ErrEncrypted or ErrCorrupt; one that
// needs more memory or time than allowed is ErrTooLarge.
func withPDFium(ctx context.Context, data []byte, fn func(run *pdfiumRun) error) (err error) {
	inst, err := pdfiumInstance(ctx)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	run := &pdfiumRun{inst: inst, start: time.Now()}
	run.timer = time.AfterFunc(pdfOpenTimeout, func() { cancel(errPDFDeadline) })
	defer run.timer.Stop()

	var killOnce sync.Once
	kill := func() { killOnce.Do(func() { _ = inst.Kill() }) }
	stop := context.AfterFunc(rctx, kill)
	healthy := true
	defer func() {
		if r := recover(); r != nil {
			healthy = false
			err = fmt.Errorf("%w: pdfium failed: %v", ErrCorrupt, r)
		}
		size, refused := pdfiumWorkerMemory(inst.GetImplementation())
		switch {
		case !stop() || rctx.Err() != nil:
			kill()
			if ctx.Err() != nil {
				err = ctx.Err()
			} else {
				err = fmt.Errorf("%w: reading it took longer than %s (the limit is %s plus %s per page)",
					ErrTooLarge, time.Since(run.start).Round(time.Second), pdfOpenTimeout, pdfPageTimeout)
			}
		case refused:
			kill()
			err = fmt.Errorf("%w: reading it needs more than %d MiB of memory (the limit per PDF; set PAKTON_PDF_MEMORY_MB to change it)",
				ErrTooLarge, pdfiumLimit>>20)
		case healthy && err == nil && size >= 0 && size < pdfiumKeepBelow:
			_ = inst.Close() // closes open documents and returns the worker
		default:
			kill()
			if size >= pdfiumKeepBelow {
				// Hand the freed memory back to the system now, not
				// when the scavenger gets to it.
				debug.FreeOSMemory()
			}
		}
	}()

	buf := data
	opened, err := inst.OpenDocument(&requests.OpenDocument{File: &buf})
	if err != nil {
		switch {
		case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
			return errPDFEncrypted
		case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile), errors.Is(err, pdfiumerrors.ErrUnknown):
			return fmt.Errorf("%w: pdfium cannot read it: %v", ErrCorrupt, err)
		}
		healthy = false
		return fmt.Errorf("%w: pdfium: %v", ErrCorrupt, err)
	}
	run.doc = opened.Document
	defer func() {
		if healthy && err == nil && rctx.Err() == nil {
			_, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document})
		}
	}()
	if err := fn(run); err != nil {
		if rctx.Err() != nil {
			return rctx.Err()
		}
		return err
	}
	return nil
}

func pdfiumPageCount(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT) (int, error) {
	pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil {
		return 0, fmt.Errorf("%w: counting pages: %v", ErrCorrupt, err)
	}
	if pc.PageCount > MaxPDFPages {
		return 0, fmt.Errorf("%w: the PDF has %d pages; pakton reads at most %d", ErrTooLarge, pc.PageCount, MaxPDFPages)
	}
	return pc.PageCount, nil
}

// extractPDFium extracts every page's text with pdfium.
func extractPDFium(ctx context.Context, data []byte) ([]pdfPageText, error) {
	var pages []pdfPageText
	err := withPDFium(ctx, data, func(run *pdfiumRun) error {
		inst, doc := run.inst, run.doc
		n, err := pdfiumPageCount(inst, doc)
		if err != nil {
			return err
		}
		run.pages(n)
		var (
			all     [][]pdfLine
			failed  int
			lastErr error
		)
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			lines, hasImage, geom, err := pdfiumPageLines(inst, doc, i)
			if errors.Is(err, ErrTooLarge) || isWasmTrap(err) {
				// The worker is spent or the page is an attack: give up
				// on the file (withPDFium names a memory failure).
				return fmt.Errorf("page %d: %w", i+1, err)
			}
			if err != nil {
				// A damaged page reads as empty; the rest of the file is
				// still worth having.
				slog.Debug("pdfium: page unreadable", "page", i+1, "err", err)
				failed++
				lastErr = fmt.Errorf("page %d: %v", i+1, err)
			}
			all = append(all, lines)
			pages = append(pages, pdfPageText{noTextLayer: len(lines) == 0 && hasImage, geom: geom})
		}
		if failed > 0 && failed == n {
			return fmt.Errorf("%w: pdfium could read none of its %d pages (%v)", ErrCorrupt, n, lastErr)
		}
		body := bodyFontSize(all)
		for i, lines := range all {
			pages[i].text, pages[i].headings = layoutLines(lines, body)
			if g := pages[i].geom; g != nil {
				g.lines = lineBoxes(lines)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pages, nil
}

// pdfLine is one text line as pdfium reports it, with its geometry in PDF
// points (y grows upwards).
type pdfLine struct {
	text   string
	base   float64 // baseline of the line's first character
	size   float64 // font size of the line's first character
	placed bool    // whether base is known
	first  int     // pdfium char index of the first non-space character
	last   int     // pdfium char index of the last non-space character
	// box is the line's rectangle in displayed page points (x0, y0, x1,
	// y1 from the top-left corner), when boxed.
	box   [4]float64
	boxed bool
}

// pdfiumPageLines reads the text of page i in one call; pdfium marks the
// line breaks it infers with generated "\r\n" characters. Then, per line,
// the first character's baseline and font size let layoutLines find
// paragraph gaps and headings. (Asking for every
// character's box costs ~0.1 s per page across the WebAssembly boundary.)
func pdfiumPageLines(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (lines []pdfLine, hasImage bool, geom *pageGeom, err error) {
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return nil, false, nil, err
	}
	defer func() { _, _ = inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page}) }()
	page := requests.Page{ByReference: &pg.Page}

	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return nil, false, nil, err
	}
	defer func() { _, _ = inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) }()
	cc, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return nil, false, nil, err
	}
	if cc.Count > maxPDFPageChars {
		return nil, false, nil, fmt.Errorf("%w: the page has %d characters; pakton reads at most %d per page", ErrTooLarge, cc.Count, maxPDFPageChars)
	}
	var text []rune
	if cc.Count > 0 {
		t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: cc.Count})
		if err != nil {
			return nil, false, nil, err
		}
		text = []rune(t.Text)
	}
	// Character indices match runes only when every character is in the
	// Basic Multilingual Plane; otherwise go without geometry.
	indexed := len(text) == cc.Count

	var (
		cur  []rune
		line = pdfLine{first: -1, last: -1}
		prev rune
	)
	endLine := func() {
		s := strings.TrimRightFunc(string(cur), unicode.IsSpace)
		if strings.TrimSpace(s) != "" {
			line.text = s
			lines = append(lines, line)
		}
		cur = cur[:0]
		line = pdfLine{first: -1, last: -1}
	}
	for k, r := range text {
		switch {
		case r == '\r' || r == '\n' || r == '\f' || r == '\v' || r == 0x2028 || r == 0x2029:
			if !(r == '\n' && prev == '\r') {
				endLine()
			}
			prev = r
			continue
		case r == 0x02: // pdfium's mark for a hyphen that ends a line
			r = '-'
		case r == '\t' || r == 0xA0:
			r = ' '
		}
		prev = r
		if !keepRune(r) {
			continue
		}
		cur = append(cur, r)
		if indexed && !unicode.IsSpace(r) {
			if line.first < 0 {
				line.first = k
			}
			line.last = k
		}
	}
	endLine()

	if indexed {
		for j := range lines {
			l := &lines[j]
			if l.first < 0 {
				continue
			}
			if o, err := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp.TextPage, Index: l.first}); err == nil {
				l.base, l.placed = o.Y, true
			}
			if fs, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp.TextPage, Index: l.first}); err == nil && fs.FontSize > 0 {
				l.size = roundSize(fs.FontSize)
			}
		}
	}
	geom = pdfiumPageGeom(inst, page, tp.TextPage, lines, indexed)
	if len(lines) == 0 {
		hasImage = pdfiumPageHasImage(inst, page)
	}
	return lines, hasImage, geom, nil
}

func roundSize(s float64) float64 { return float64(int(s*2+0.5)) / 2 }

func pdfiumPageHasImage(inst pdfium.Pdfium, page requests.Page) bool {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return false
	}
	for j := range min(n.Count, 10000) {
		obj, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: j})
		if err != nil {
			continue
		}
		t, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj.PageObject})
		if err == nil && t.Type == enums.FPDF_PAGEOBJ_IMAGE {
			return true
		}
	}
	return false
}

// keepRune reports whether r belongs in canonical text: control characters,
// non-characters and unpaired surrogates do not.
func keepRune(r rune) bool {
	switch {
	case r < 0, r == utf8.RuneError, r > unicode.MaxRune:
		return false
	case r == '\t', r == '\n':
		return true
	case r < 0x20, r >= 0x7F && r < 0xA0:
		return false
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return true
}

// bodyFontSize returns the font size most characters in the document use.
func bodyFontSize(pages [][]pdfLine) float64 {
	hist := map[float64]int{}
	for _, lines := range pages {
		for _, l := range lines {
			if l.size > 0 {
				hist[l.size] += utf8.RuneCountInString(l.text)
			}
		}
	}
	best, bestN := 0.0, 0
	for s, n := range hist {
		if n > bestN || (n == bestN && s < best) {
			best, bestN = s, n
		}
	}
	return best
}

// layoutLines renders one page's lines as text, inserting a blank line
// where the step between two baselines is clearly larger than the page's
// usual line pitch, and returns the byte ranges of heading lines (a font at
// least 20% larger than the body text, on a short line).
func layoutLines(lines []pdfLine, body float64) (string, [][2]int) {
	// The usual pitch is the most common step between baselines (rounded
	// to half a point; ties go to the smaller step): paragraph gaps are the
	// exception on a page, and a double-spaced page has a double pitch.
	count := map[float64]int{}
	for i := 1; i < len(lines); i++ {
		a, b := lines[i-1], lines[i]
		if a.placed && b.placed && a.base-b.base > 0.5 {
			count[roundSize(a.base-b.base)]++
		}
	}
	pitch, best := 0.0, 0
	for p, n := range count {
		if n > best || (n == best && p < pitch) {
			pitch, best = p, n
		}
	}
	var b strings.Builder
	var heads [][2]int
	for i, l := range lines {
		if i > 0 && paragraphGap(lines[i-1], l, pitch) {
			b.WriteByte('\n')
		}
		start := b.Len()
		b.WriteString(l.text)
		if body > 0 && l.size >= body*1.2 && utf8.RuneCountInString(l.text) <= 120 && strings.IndexFunc(l.text, unicode.IsLetter) >= 0 {
			heads = append(heads, [2]int{start, b.Len()})
		}
		b.WriteByte('\n')
	}
	return b.String(), heads
}

// paragraphGap reports whether a blank line belongs between lines a and b.
func paragraphGap(a, b pdfLine, pitch float64) bool {
	if !a.placed || !b.placed {
		return false
	}
	size := max(a.size, b.size, 1)
	step := a.base - b.base
	switch {
	case step < -size: // b sits above a: a new column, or a jump back up the page
		return true
	case step <= 0.5: // same baseline: pieces of one visual line
		return false
	case pitch <= 0:
		return step > 2*size
	}
	// The white space above b must also be clearly more than a line's
	// leading, measured in b's own font size.
	return step > 1.4*pitch && step > 1.6*max(b.size, 1)
}

// cleanPlainText brings text from pdftotext or tesseract into canonical
// form: valid UTF-8, no control characters, lines trimmed at the right,
// runs of blank lines collapsed to one, no blank lines at either end.
func cleanPlainText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.Map(func(r rune) rune {
			switch {
			case r == '\t' || r == 0xA0:
				return ' '
			case r == '\r' || r == '\f' || r == '\v':
				return ' '
			case !keepRune(r):
				return -1
			}
			return r
		}, line)
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteByte('\n')
			blank = false
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

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

// pdfiumPagesWithImages returns those of pages (0-based) that hold an image.
func pdfiumPagesWithImages(ctx context.Context, data []byte, pages []int) ([]int, error) {
	var out []int
	err := withPDFium(ctx, data, func(run *pdfiumRun) error {
		inst, doc := run.inst, run.doc
		run.pages(len(pages))
		for _, i := range pages {
			pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
			if err != nil {
				return err
			}
			if pdfiumPageHasImage(inst, requests.Page{ByReference: &pg.Page}) {
				out = append(out, i)
			}
			_, _ = inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
		}
		return nil
	})
	return out, err
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

// isWasmTrap reports whether err is a WebAssembly trap (pdfium aborted; its
// worker must not be used again).
func isWasmTrap(err error) bool {
	return err != nil && strings.Contains(err.Error(), "wasm error")
}
