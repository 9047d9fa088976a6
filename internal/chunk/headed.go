package chunk

import (
	"strings"
	"unicode"

	"github.com/pakton/pakton/internal/document"
)

// A clause the parser could not divide (a privacy policy saved from a web
// page, its headings kept as lines of their own: "Encryption.", "Social
// Networks", "What happens if you do NOT consent?") is read as runs of
// lines under the heading lines inside it: each run is split on its own, so
// a unit starts where the text turns to a new subject and carries that
// subject's heading, instead of running on across it.

// headedPiece is a piece of a clause's own text and the heading line it
// falls under ("" before the first one).
type headedPiece struct {
	span    document.Span
	heading string
}

// headedPieces splits a span longer than max at the heading lines inside it
// (headingLine), then each run with pieces. A span of at most max code
// points, or one too long to read at once, is split as pieces splits it.
func headedPieces(doc *document.Document, sp document.Span, max int) []headedPiece {
	if sp.Len() <= max || sp.Len() > maxSplitWindow {
		return plainPieces(doc, sp, max, "")
	}
	text := []rune(doc.Masked(sp))
	type line struct {
		start, end int // code points of text, without the line break
	}
	var lines []line
	for s := 0; s <= len(text); {
		e := s
		for e < len(text) && text[e] != '\n' {
			e++
		}
		lines = append(lines, line{s, e})
		s = e + 1
	}
	var out []headedPiece
	runStart, heading := 0, ""
	for i, l := range lines {
		if i == 0 || l.start <= runStart {
			continue
		}
		next := ""
		for j := i + 1; j < len(lines); j++ {
			if t := strings.TrimSpace(string(text[lines[j].start:lines[j].end])); t != "" {
				next = t
				break
			}
		}
		prev := strings.TrimSpace(string(text[lines[i-1].start:lines[i-1].end]))
		h := strings.TrimSpace(string(text[l.start:l.end]))
		if !headingLine(prev, h, next) {
			continue
		}
		out = append(out, plainPieces(doc, document.Span{Start: sp.Start + runStart, End: sp.Start + l.start}, max, heading)...)
		runStart, heading = l.start, strings.TrimRight(h, ".:")
	}
	return append(out, plainPieces(doc, document.Span{Start: sp.Start + runStart, End: sp.End}, max, heading)...)
}

// plainPieces splits a run as pieces does; its first piece, which starts
// with the heading line, carries the heading. Where the subject the heading
// names ends, the text does not say (a policy's next heading may have been
// lost), so the pieces after it carry none.
func plainPieces(doc *document.Document, sp document.Span, max int, heading string) []headedPiece {
	var out []headedPiece
	for i, p := range pieces(doc, sp, max) {
		h := heading
		if i > 0 {
			h = ""
		}
		out = append(out, headedPiece{p, h})
	}
	return out
}

// headingLine reports whether line h, between the lines prev and next (each
// trimmed; the nearest non-empty line after it), reads as a heading: a
// short line that starts with a capital letter or a digit, follows a
// finished sentence, does not end as a sentence runs on (a comma, a
// semicolon, "and"), is at most five words when it ends with a full stop
// ("Legal Retention Requirements.") and eight otherwise, and introduces
// text at least twice its length that starts with a capital letter. Lists
// of short lines ("Apple - https://…") are not headings: what follows each
// is as short.
func headingLine(prev, h, next string) bool {
	if h == "" || prev == "" || next == "" {
		return false
	}
	first := []rune(h)[0]
	if !unicode.IsUpper(first) && !unicode.IsDigit(first) {
		return false
	}
	if n := []rune(next)[0]; !unicode.IsUpper(n) && !unicode.IsDigit(n) {
		return false
	}
	if !strings.ContainsAny(prev[len(prev)-1:], ".!?:") {
		return false
	}
	if len(next) < 2*len(h) || len(next) < 60 {
		return false
	}
	words := strings.Fields(h)
	last := strings.ToLower(strings.TrimRight(words[len(words)-1], ".?"))
	if last == "and" || last == "or" || last == "the" || last == "of" {
		return false
	}
	switch h[len(h)-1] {
	case ',', ';', ':', '-':
		return false
	case '.':
		return len(words) <= 5
	}
	return len(words) <= 8
}
