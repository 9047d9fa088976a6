// Package progress shows how far a batch of work has got: on a terminal, one
// line redrawn in place with a count, percentage, bar, rate, estimated time
// left and the current item; elsewhere (a pipe, a log file, CI) one plain line
// per item, so logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// IsTerminal reports whether w is a terminal (a character device). Only
// *os.File values can be terminals.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Bar reports progress of a batch of Total items (and TotalBytes bytes, when
// known) to a writer. Its methods are safe for concurrent use. The zero value
// is not usable; call New.
type Bar struct {
	mu         sync.Mutex
	w          io.Writer
	tty        bool
	width      int
	label      string
	total      int
	totalBytes int64
	start      time.Time
	now        func() time.Time

	done     int
	bytes    int64
	current  string
	lastDraw time.Time
	onScreen bool // a bar line is drawn and not yet ended by a newline
	finished bool
}

// New returns a bar for total items of totalBytes bytes (0 when unknown)
// written to w. It redraws one line when w is a terminal and prints one line
// per Update otherwise. label prefixes every line (e.g. "ingest").
func New(w io.Writer, label string, total int, totalBytes int64) *Bar {
	width := 80
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c >= 40 {
		width = c
	}
	return &Bar{w: w, tty: IsTerminal(w), width: width, label: label, total: total,
		totalBytes: totalBytes, start: time.Now(), now: time.Now}
}

// SetTotal changes the number of items and bytes the bar expects, for work
// that finds more as it goes (the attachments of an e-mail).
func (b *Bar) SetTotal(total int, totalBytes int64) {
	b.mu.Lock()
	b.total, b.totalBytes = total, totalBytes
	b.mu.Unlock()
}

// redrawEvery limits terminal redraws; the last item always redraws.
const redrawEvery = 80 * time.Millisecond

// Update records that done items (bytes bytes) are finished, current being
// the item just finished or being worked on (a file name, optionally with a
// status such as "(added)").
func (b *Bar) Update(done int, bytes int64, current string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.bytes, b.current = done, bytes, current
	if !b.tty {
		fmt.Fprintf(b.w, "%s [%*d/%d] %s\n", b.label, len(strconv.Itoa(b.total)), done, b.total, current)
		return
	}
	now := b.now()
	if done < b.total && now.Sub(b.lastDraw) < redrawEvery {
		return
	}
	b.lastDraw = now
	b.draw()
}

// Note shows a message about the work in progress (e.g. "contract.pdf: OCR
// page 3/12"): on a terminal it replaces the current item on the bar; elsewhere
// it is printed as a line.
func (b *Bar) Note(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.tty {
		fmt.Fprintf(b.w, "%s %s\n", b.label, msg)
		return
	}
	if b.finished {
		return
	}
	b.current = msg
	now := b.now()
	if now.Sub(b.lastDraw) < redrawEvery {
		return
	}
	b.lastDraw = now
	b.draw()
}

// Printf prints a message line (a warning, a failed file) without breaking
// the bar: on a terminal the bar is cleared, the message printed and the bar
// drawn again below it.
func (b *Bar) Printf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	if b.tty && b.onScreen {
		io.WriteString(b.w, "\r\x1b[K")
		b.onScreen = false
	}
	io.WriteString(b.w, msg)
	if b.tty && !b.finished && b.done > 0 {
		b.draw()
	}
}

// Finish draws the final state and ends the bar's line. Later Updates are
// ignored on a terminal.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.tty {
		b.current = ""
		b.draw()
		io.WriteString(b.w, "\n")
		b.onScreen = false
	}
}

// draw writes the bar line; b.mu is held.
func (b *Bar) draw() {
	io.WriteString(b.w, "\r\x1b[K"+b.Line())
	b.onScreen = true
}

// Line returns the bar's current one-line rendering (without control
// characters), cut to the bar's width.
func (b *Bar) Line() string {
	elapsed := b.now().Sub(b.start)
	pct := 100.0
	if b.total > 0 {
		pct = 100 * float64(b.done) / float64(b.total)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s %*d/%d %3.0f%% %s", b.label, len(strconv.Itoa(b.total)), b.done, b.total, pct, bar(pct, 20))
	if secs := elapsed.Seconds(); secs > 0.2 && b.done > 0 {
		fmt.Fprintf(&s, " %.1f/s", float64(b.done)/secs)
		if b.bytes > 0 {
			fmt.Fprintf(&s, " %s/s", Bytes(int64(float64(b.bytes)/secs)))
		}
	}
	if eta, ok := b.eta(elapsed); ok {
		s.WriteString(" ETA " + Duration(eta))
	} else if b.done >= b.total && b.total > 0 {
		s.WriteString(" in " + Duration(elapsed))
	}
	line := s.String()
	if b.current != "" {
		room := b.width - 1 - utf8.RuneCountInString(line) - 2
		if room >= 10 {
			line += "  " + Shorten(b.current, room)
		}
	}
	return line
}

// eta estimates the time left from the share of bytes (or items) done.
func (b *Bar) eta(elapsed time.Duration) (time.Duration, bool) {
	var frac float64
	switch {
	case b.totalBytes > 0 && b.bytes > 0:
		frac = float64(b.bytes) / float64(b.totalBytes)
	case b.total > 0 && b.done > 0:
		frac = float64(b.done) / float64(b.total)
	default:
		return 0, false
	}
	if frac <= 0 || frac >= 1 || b.done >= b.total || elapsed < time.Second/2 {
		return 0, false
	}
	return time.Duration(float64(elapsed) * (1 - frac) / frac), true
}

func bar(pct float64, n int) string {
	full := int(pct / 100 * float64(n))
	full = max(0, min(n, full))
	return "[" + strings.Repeat("#", full) + strings.Repeat(".", n-full) + "]"
}

// Shorten cuts s to at most n characters, keeping its end (the file name of
// a long path) and marking the cut with "…".
func Shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n || n < 2 {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-(n-1):])
}

// Bytes formats a byte count with a binary unit: 512 B, 1.5 KB, 25.8 MB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTP"[exp])
}

// Duration formats d as m:ss (or h:mm:ss), rounded to the second.
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}
