package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Choosing among several values. A clause often writes more than one date,
// period or sum ("an initial term of three (3) years, renewing for
// successive one (1) year periods unless either party gives notice sixty
// (60) days before"): the answer is the one the provision is about. The
// playbook says what the provision is about — its name and its keywords —
// so each candidate is scored by the provision's cue words around it in its
// own sentence, nearer words counting more; the best scored wins, the
// first written on a tie. Nothing here is specific to one provision.

// cues are a provision's cue words (stemmed) and their weights.
type cues map[string]float64

// cueWordsOf returns the words of p's keywords (weighted by their boost)
// and name (weight 1); "near" words weigh half their keyword's boost.
// Words of two letters or fewer and numbers are not cues.
func cueWordsOf(p *playbook.Provision) cues {
	c := cues{}
	add := func(text string, w float64) {
		for _, t := range detect.Analyze(text) {
			if len(t) <= 2 || t == "<num>" || stopCue[t] {
				continue
			}
			c[t] = max(c[t], w)
		}
	}
	add(p.Name, 1)
	for _, k := range p.Keywords {
		b := k.Boost
		if b <= 0 {
			b = 1
		}
		add(k.Text, b)
		for _, n := range k.Near {
			add(n, b/2)
		}
	}
	return c
}

// stopCue are words too common in contracts to point at one value.
var stopCue = map[string]bool{"the": true, "and": true, "this": true, "agreement": true, "shall": true, "such": true, "with": true, "for": true, "any": true, "party": true, "parti": true, "either": true}

// token is one word of a text, with where it is (bytes).
type token struct {
	stem     string
	at, end  int
	sentence int
}

// tokens cuts s into stemmed words, numbering sentences (a sentence ends at
// ". ", ";", ":" followed by a line break, or a blank line).
func tokens(s string) []token {
	var out []token
	sent := 0
	start := -1
	for i := 0; i <= len(s); {
		r, n := rune(0), 1
		if i < len(s) {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if start < 0 {
				start = i
			}
			i += n
			continue
		}
		if start >= 0 {
			w := s[start:i]
			stem := "<num>"
			if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
				stem = detect.StemWord(strings.ToLower(w))
			}
			out = append(out, token{stem: stem, at: start, end: i, sentence: sent})
			start = -1
		}
		if i < len(s) && (r == ';' || (r == '.' || r == ':') && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\n') || r == '\n' && i+1 < len(s) && s[i+1] == '\n') {
			sent++
		}
		i += n
	}
	return out
}

// pickNear returns the index of the candidate (byte ranges of s) that the
// cue words point at, or 0 when there is one or none.
func pickNear(s string, cands [][2]int, c cues) int {
	if len(cands) <= 1 || len(c) == 0 {
		return 0
	}
	toks := tokens(s)
	best, bestScore := 0, -1.0
	for i, cand := range cands {
		// the candidate's first and last word
		first, last := -1, -1
		for k, t := range toks {
			if t.end > cand[0] && t.at < cand[1] {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		if first < 0 {
			continue
		}
		score := cueScore(toks, first, last, c)
		if score > bestScore+1e-9 {
			best, bestScore = i, score
		}
	}
	return best
}

// cueScore is the cue words' score of the candidate whose first and last
// words are toks[first] and toks[last]: every cue word of its sentence,
// weighted by the inverse of its distance in words.
func cueScore(toks []token, first, last int, c cues) float64 {
	score := 0.0
	for k, t := range toks {
		if t.sentence != toks[first].sentence || k >= first && k <= last {
			continue
		}
		w, ok := c[t.stem]
		if !ok {
			continue
		}
		d := first - k
		if k > last {
			d = k - last
		}
		score += w / float64(d)
	}
	return score
}

// Running lines. Besides the page furniture a parser marks (headers and
// footers of paginated formats), plain-text contracts repeat a running line
// on every page (a filing footer, a confidentiality legend, "Page 3 of
// 12"): a short line that occurs three times or more is furniture too, and
// no answer is read from it.

// repeatedLines returns the spans (code points) of the lines of text of at
// most 150 characters that occur, identical after trimming, three times or
// more.
func repeatedLines(ix *document.Index, text string) []document.Span {
	count := map[string]int{}
	type line struct {
		key    string
		lo, hi int // bytes
	}
	var lines []line
	at := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		k := strings.Join(strings.Fields(l), " ")
		if k != "" && len(k) <= 150 && strings.IndexFunc(k, unicode.IsLetter) >= 0 {
			count[k]++
			lines = append(lines, line{k, at, at + len(l)})
		}
		at += len(l)
	}
	var out []document.Span
	for _, l := range lines {
		if count[l.key] >= 3 {
			out = append(out, ix.RuneSpan(l.lo, l.hi))
		}
	}
	return out
}

// opening returns the contract's first n code points (all of it when
// shorter).
func contractOpening(p *detect.Prepared, n int) string {
	return p.Doc().Doc.Text[:p.Index().Byte(min(n, p.Index().Len()))]
}

// passageExtract returns the extract of the first passage that holds sp,
// scored from scores (0 past their end); false when no passage holds it.
func passageExtract(p *detect.Prepared, sp document.Span, scores []float64) (detect.Extract, bool) {
	for k, ps := range p.Passages() {
		if ps.Span.Contains(sp) {
			score := 0.0
			if k < len(scores) {
				score = scores[k]
			}
			return p.Extract(k, score), true
		}
	}
	return detect.Extract{}, false
}

// extractHolding returns ex and the index of the first extract that holds
// sp; when none does, the passage that holds sp is put first
// (passageExtract). The index is -1 when no passage holds sp either.
func extractHolding(p *detect.Prepared, ex []detect.Extract, sp document.Span, scores []float64) ([]detect.Extract, int) {
	for i, e := range ex {
		if e.Span.Contains(sp) {
			return ex, i
		}
	}
	if e, ok := passageExtract(p, sp, scores); ok {
		return append([]detect.Extract{e}, ex...), 0
	}
	return ex, -1
}

// inFurniture reports whether sp (code points) lies in page furniture or in
// a running line.
func inFurniture(p *detect.Prepared, sp document.Span) bool {
	if p.Doc().Doc.InFurniture(sp) {
		return true
	}
	for _, r := range runningLines(p) {
		if r.Contains(sp) {
			return true
		}
	}
	return false
}
