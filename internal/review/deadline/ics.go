package deadline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// ICS writes the dated deadlines of ds as an iCalendar file (RFC 5545) a
// calendar client imports: one all-day event each (DTSTART;VALUE=DATE, and
// DTEND the day after; a window spans its days), its summary the deadline
// and the contract, its description how it was computed and the clauses
// it was read from. Lines end in CRLF and are folded at 75 octets, never
// inside a character; text is escaped. An event's UID is derived from the
// contract and the kind of deadline, so importing a later export again
// updates the events instead of adding copies. Deadlines without a date are
// left out: a calendar cannot hold them. name names the calendar; stamp is
// DTSTAMP (when the file was made).
func ICS(w io.Writer, ds []Deadline, name string, stamp time.Time) error {
	var b bytes.Buffer
	line := func(s string) { writeFolded(&b, s) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//pakton//deadlines//EN")
	line("CALSCALE:GREGORIAN")
	line("METHOD:PUBLISH")
	line("X-WR-CALNAME:" + escapeText(name))
	st := stamp.UTC().Format("20060102T150405Z")
	for _, d := range ds {
		if !d.Dated() {
			continue
		}
		last, err := time.Parse(day, d.Date)
		if err != nil {
			return fmt.Errorf("deadline %q of %s: %w", d.Label, d.DocName, err)
		}
		first := last
		if d.Start != "" {
			if first, err = time.Parse(day, d.Start); err != nil {
				return fmt.Errorf("deadline %q of %s: %w", d.Label, d.DocName, err)
			}
		}
		line("BEGIN:VEVENT")
		line("UID:" + uid(d))
		line("DTSTAMP:" + st)
		line("DTSTART;VALUE=DATE:" + first.Format("20060102"))
		line("DTEND;VALUE=DATE:" + last.AddDate(0, 0, 1).Format("20060102"))
		line("SUMMARY:" + escapeText(d.Label+" — "+contractName(d)))
		line("DESCRIPTION:" + escapeText(description(d)))
		line("CATEGORIES:" + escapeText(string(d.Kind)))
		line("TRANSP:TRANSPARENT")
		if d.Kind == KindNonRenewal || d.Kind == KindOption {
			// a reminder two weeks before the last day to act
			line("BEGIN:VALARM")
			line("ACTION:DISPLAY")
			line("TRIGGER:-P14D")
			line("DESCRIPTION:" + escapeText(d.Label+" — "+contractName(d)))
			line("END:VALARM")
		}
		line("END:VEVENT")
	}
	line("END:VCALENDAR")
	_, err := w.Write(b.Bytes())
	return err
}

// contractName is the contract as people name it, else its file.
func contractName(d Deadline) string {
	if d.Title != "" {
		return d.Title
	}
	return d.DocName
}

// description is an event's description: how the date was computed, the
// file, and each clause with its quote.
func description(d Deadline) string {
	var s strings.Builder
	if d.How != "" {
		s.WriteString(d.How + "\n")
	}
	s.WriteString("File: " + d.DocName + "\n")
	for _, c := range d.Clauses {
		fmt.Fprintf(&s, "\n%s", c.Provision)
		if c.Path != "" {
			fmt.Fprintf(&s, " — %s", c.Path)
		}
		if len(c.Pages) > 0 {
			fmt.Fprintf(&s, " (p. %d)", c.Pages[0])
		}
		fmt.Fprintf(&s, ":\n“%s”\n", c.Quote)
	}
	return strings.TrimRight(s.String(), "\n")
}

// uid identifies a deadline across exports: its contract, kind and label.
func uid(d Deadline) string {
	h := sha256.Sum256([]byte(d.DocID + "\x00" + string(d.Kind) + "\x00" + d.Label))
	return hex.EncodeToString(h[:12]) + "@pakton"
}

// escapeText escapes a TEXT value (RFC 5545 §3.3.11): backslash, semicolon,
// comma and line breaks; other control characters are dropped.
func escapeText(s string) string {
	var b strings.Builder
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == ';':
			b.WriteString(`\;`)
		case r == ',':
			b.WriteString(`\,`)
		case r == '\n' || r == '\r':
			b.WriteString(`\n`)
		case r < 0x20 && r != '\t' || r == 0x7f:
			// not allowed in a TEXT value
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxOctets is the longest a content line may be, CRLF left out.
const maxOctets = 75

// writeFolded writes one content line, folded (RFC 5545 §3.1): no line
// longer than 75 octets, continuation lines starting with a space, never
// splitting a UTF-8 sequence.
func writeFolded(b *bytes.Buffer, s string) {
	limit := maxOctets
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.WriteString(s[:cut])
		b.WriteString("\r\n ")
		s = s[cut:]
		limit = maxOctets - 1 // the leading space counts
	}
	b.WriteString(s)
	b.WriteString("\r\n")
}
