package parse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

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
	x      float64 // left end of the first character's baseline
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
		default:
			r = canonicalRune(r)
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
				l.x, l.base, l.placed = o.X, o.Y, true
			}
			if fs, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp.TextPage, Index: l.first}); err == nil && fs.FontSize > 0 {
				l.size = roundSize(fs.FontSize)
			}
		}
	}
	lines = dropOverprinted(lines)
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

// isWasmTrap reports whether err is a WebAssembly trap (pdfium aborted; its
// worker must not be used again).
func isWasmTrap(err error) bool {
	return err != nil && strings.Contains(err.Error(), "wasm error")
}
