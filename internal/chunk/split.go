// Package chunk builds retrieval units from a document: several views of each
// clause of its tree, and the baseline splitters published retrieval systems
// use (fixed-size and recursive character chunks), so they can be measured on
// the same index.
package chunk

import (
	"strings"
	"unicode"

	"github.com/pakton/pakton/internal/document"
)

// Naive splits text into consecutive chunks of size code points (the last
// one shorter), as LegalBench-RAG's "naive" baseline does.
func Naive(text []rune, size int) []document.Span {
	if size <= 0 {
		size = 500
	}
	var out []document.Span
	for i := 0; i < len(text); i += size {
		out = append(out, document.Span{Start: i, End: min(i+size, len(text))})
	}
	return out
}

// RecursiveSeparators are the separators of LegalBench-RAG's recursive
// character text splitter baseline, coarsest first; "" splits anywhere.
var RecursiveSeparators = []string{"\n\n", "\n", "!", "?", ".", ":", ";", ",", " ", ""}

// Recursive splits text the way the recursive character text splitter
// (LangChain's, used by LegalBench-RAG with chunk size 500, no overlap) does:
// split on the coarsest separator present, keep each separator at the start of
// the piece that follows it, merge consecutive pieces while they fit in size,
// and split any piece still too long with the next separator. Chunks are
// whitespace-trimmed, as the original does by default. Lengths are in code
// points, like Python's len.
func Recursive(text []rune, size int, seps []string) []document.Span {
	if size <= 0 {
		size = 500
	}
	if seps == nil {
		seps = RecursiveSeparators
	}
	var out []document.Span
	splitRecursive(text, 0, len(text), size, seps, &out)
	return out
}

type piece struct{ start, end int }

func (p piece) len() int { return p.end - p.start }

func splitRecursive(text []rune, start, end, size int, seps []string, out *[]document.Span) {
	sep := seps[len(seps)-1]
	var next []string
	for i, s := range seps {
		if s == "" {
			sep = s
			break
		}
		if containsRunes(text[start:end], s) {
			sep = s
			next = seps[i+1:]
			break
		}
	}
	if sep == "" {
		// No separator at all: one piece per character would merge into
		// windows of size characters; cut them directly, so a word of
		// millions of characters costs no piece per character.
		for i := start; i < end; i += size {
			emit(text, i, min(i+size, end), out)
		}
		return
	}
	pieces := splitKeepStart(text, start, end, sep)
	var good []piece
	for _, p := range pieces {
		if p.len() < size {
			good = append(good, p)
			continue
		}
		if len(good) > 0 {
			mergePieces(text, good, size, out)
			good = good[:0]
		}
		if len(next) == 0 {
			emit(text, p.start, p.end, out)
		} else {
			splitRecursive(text, p.start, p.end, size, next, out)
		}
	}
	if len(good) > 0 {
		mergePieces(text, good, size, out)
	}
}

// splitKeepStart splits [start,end) at every occurrence of sep, keeping the
// separator at the start of the following piece; empty pieces are dropped.
// sep "" splits into single code points.
func splitKeepStart(text []rune, start, end int, sep string) []piece {
	var out []piece
	if sep == "" {
		for i := start; i < end; i++ {
			out = append(out, piece{i, i + 1})
		}
		return out
	}
	s := []rune(sep)
	cur := start
	for i := start; i+len(s) <= end; {
		if matchAt(text, i, s) {
			if i > cur {
				out = append(out, piece{cur, i})
			}
			cur = i
			i += len(s)
			continue
		}
		i++
	}
	if end > cur {
		out = append(out, piece{cur, end})
	}
	return out
}

// mergePieces joins consecutive pieces into chunks of at most size code
// points (the separator is already part of each piece, so joining adds
// nothing between them).
func mergePieces(text []rune, pieces []piece, size int, out *[]document.Span) {
	var cur []piece
	total := 0
	for _, p := range pieces {
		if total+p.len() > size && len(cur) > 0 {
			emit(text, cur[0].start, cur[len(cur)-1].end, out)
			// No overlap: drop everything already emitted.
			cur = cur[:0]
			total = 0
		}
		cur = append(cur, p)
		total += p.len()
	}
	if len(cur) > 0 {
		emit(text, cur[0].start, cur[len(cur)-1].end, out)
	}
}

// emit appends [start,end) trimmed of surrounding whitespace, if non-empty.
func emit(text []rune, start, end int, out *[]document.Span) {
	for start < end && unicode.IsSpace(text[start]) {
		start++
	}
	for end > start && unicode.IsSpace(text[end-1]) {
		end--
	}
	if end > start {
		*out = append(*out, document.Span{Start: start, End: end})
	}
}

func containsRunes(text []rune, s string) bool {
	if len(s) == 1 {
		c := rune(s[0])
		for _, r := range text {
			if r == c {
				return true
			}
		}
		return false
	}
	return strings.Contains(string(text), s)
}

func matchAt(text []rune, i int, s []rune) bool {
	for k, r := range s {
		if text[i+k] != r {
			return false
		}
	}
	return true
}
