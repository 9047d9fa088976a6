package answer

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// Polarity: whether a clause that mentions a provision grants it, grants it
// only under a condition, or excludes it.
//
// A clause is read one segment at a time: a sentence cut at semicolons,
// colons and the words that start another proposition (", and", ", or",
// "but", "provided", "except", "unless", "however"). The segment the
// provision's cue words (cueWordsOf) weigh most in is the focus.
//
// Provisions are of two kinds, told apart by the playbook's own example
// clauses. A right or an obligation — termination for convenience, an
// escrow, liquidated damages — is written positively ("Either party may
// terminate this Agreement for convenience"); a focus that negates it ("no",
// "not", "neither", "nothing", "none", "never", "in no event" before the
// cue words, but not "no less than", "not later than" or "not limited to")
// excludes it. A restriction — non-compete, anti-assignment, a cap — is
// written negatively ("shall not compete"), so a negation is its normal
// form; it is excluded by a liberty: a negated restraint ("nothing …
// restricts", "not limited"), "free(ly)", "without restriction", "without
// … consent" where nothing is negated, "non-exclusive", "not subject to any
// limit". A provision is a restriction when at least half of its examples'
// focus segments are negated.
//
// A kept provision is Conditional when its focus sentence limits it:
// "only if/after/upon/for …", "provided that", "subject to", "unless",
// "after the initial term", "during any renewal term", "with the … consent"
// (a right), or "not unreasonably withheld", "except …", "other than …" (a
// restriction). The condition is the words from the cue to the end of its
// segment. A right one sentence excludes and another sentence of the same
// clause grants as squarely is Conditional too ("may not terminate … during
// the Initial Term. During any Renewal Term, … may terminate …") when the
// exclusion is for a period.
//
// Written from general drafting patterns (English negation and the usual
// ways contracts grant, restrict, exclude and condition), not from any
// labelled contract's strings.

var (
	reNegator = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:no|not|neither|nor|nothing|none|never|cannot|in\s+no\s+event|under\s+no\s+circumstances)\b|n['’]t\b`)
	})
	// reNotNegation are negators that do not negate: comparisons and set
	// phrases.
	reNotNegation = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:no|not)\s+(?:less|more|later|earlier|sooner|longer|shorter|higher|lower|greater|fewer|worse|better|only|merely|limited\s+to|including|as\s+an?\s+penalty)\b|^(?:whether\s+or\s+not|if\s+not)\b`)
	})
	reRestraint = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:restrict\w*|prevent\w*|prohibit\w*|limit\w*|preclud\w*|restrain\w*|refrain\w*|forbid\w*|bar(?:s|red)?|impair\w*|exclud\w*|cap(?:s|ped)?)\b`)
	})
	reLiberty = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bfree(?:ly)?\b|\bwithout\s+(?:any\s+)?(?:restriction|limitation|limit)\b|\bnon[\s-]?exclusive\b|\bnot\s+(?:be\s+)?exclusive\b`)
	})
	reObligation = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\W*(?:\S+\s+){0,4}?(?:obligations?|obliged|obligated|required|bound|duty|duties|undertak\w*)\b`)
	})
	reWithoutConsent = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bwithout\s+(?:\S+\s+){0,4}?(?:consent|approval)\b|\bno\s+(?:\S+\s+){0,2}?(?:consent|approval)\s+(?:\S+\s+){0,5}?(?:is|shall\s+be|will\s+be)\s+(?:needed|required|necessary)\b`)
	})
	reSegmentBreak = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i);|:\s|,\s*(?:and|or)\s|\b(?:but|except|unless|however|whereas|although|save)\b|\bother\s+than\b|\bprovided\s*(?:,\s*however\s*,?\s*)?(?:that|further|always|however)\b`)
	})
	// reSegmentBreakAt is reSegmentBreak anchored at the start of its input,
	// without the word boundary its words begin with (segmentBreaks checks
	// it).
	reSegmentBreakAt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i:;|:\s|,\s*(?:and|or)\s|(?:but|except|unless|however|whereas|although|save)\b|other\s+than\b|provided\s*(?:,\s*however\s*,?\s*)?(?:that|further|always|however)\b)`)
	})
	reRightCondition = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bexcept\s+(?:to|for|as|that|with|where|when|if)\b|\bother\s+than\b|\bonly\s+(?:if|when|after|upon|on|for|with|in|where|to\s+the\s+extent)\b|\bprovided\s*(?:,\s*however,\s*)?that\b|\bsubject\s+to\b|\bunless\b|\b(?:after|following)\s+(?:the\s+)?(?:expiry\s+of\s+the\s+|expiration\s+of\s+the\s+|end\s+of\s+the\s+)?(?:initial|first|minimum)\s+(?:term|period|year)\b|\b(?:during|in)\s+(?:any|each|a|every)\s+(?:renewal|renewed|extension|extended)\s+(?:term|period)\b|\bwith\s+the\s+(?:prior\s+)?(?:written\s+)?(?:consent|approval|agreement)\b|\bupon\s+mutual\b`)
	})
	reRestrictionCondition = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bnot\s+(?:to\s+be\s+)?unreasonably\s+(?:withheld|delayed|conditioned)\b|\bexcept\b|\bother\s+than\b|\bprovided\s*(?:,\s*however,\s*)?that\b|\bsubject\s+to\b`)
	})
	reSentenceEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[.!?]["”’)]?\s+|\n\s*\n`)
	})
)

// segment is a stretch of a sentence (bytes of the text it was cut from).
type segment struct {
	at, end  int
	sentence [2]int
}

// segments cuts s into sentences and their segments. Reading one cell
// cuts the same extracts many times over (the focus, the roles, the
// holders, the polarity), so the cuts of the texts cut last are kept;
// callers must not modify what it returns.
func segments(s string) []segment {
	segMemo.Lock()
	out, ok := segMemo.m[s]
	segMemo.Unlock()
	if ok {
		return out
	}
	out = cutSegments(s)
	segMemo.Lock()
	if len(segMemo.m) >= segMemoSize {
		clear(segMemo.m)
	}
	// a copy: s may be a slice of a whole contract's text
	segMemo.m[strings.Clone(s)] = out
	segMemo.Unlock()
	return out
}

// segMemoSize bounds how many texts segments keeps the cuts of: a cell's
// extracts and their sentences, for a few cells read at once.
const segMemoSize = 512

var segMemo = struct {
	sync.Mutex
	m map[string][]segment
}{m: map[string][]segment{}}

// cutSegments is segments without the memo.
func cutSegments(s string) []segment {
	var out []segment
	start := 0
	ends := sentenceEnds(s)
	ends = append(ends, []int{len(s), len(s)})
	for _, e := range ends {
		sent := [2]int{start, e[0]}
		if e[0] > len(s) || sent[1] <= sent[0] {
			start = e[1]
			continue
		}
		if e[0] < len(s) {
			sent[1] = e[0] + 1 // keep the full stop
		}
		at := sent[0]
		for _, b := range segmentBreaks(s[sent[0]:sent[1]]) {
			cut := sent[0] + b[0]
			if cut > at {
				out = append(out, segment{at, cut, sent})
			}
			at = cut
		}
		if sent[1] > at {
			out = append(out, segment{at, sent[1], sent})
		}
		start = e[1]
	}
	return out
}

// sentenceEnds is reSentenceEnd().FindAllStringIndex(s, -1), written out:
// where a sentence ends — a full stop, exclamation or question mark, a
// closing quote or parenthesis after it perhaps, and the white space after
// them; or a blank line (a line break, white space, the last line break of
// it). Cutting every extract into sentences this way costs a tenth of the
// expression's time (TestSentenceEndsLikeExpression).
func sentenceEnds(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			j := i + 1
			switch {
			case j < len(s) && (s[j] == '"' || s[j] == ')'):
				j++
			case strings.HasPrefix(s[j:], "”") || strings.HasPrefix(s[j:], "’"):
				j += len("”")
			}
			if k := spaceRun(s, j); k > j {
				out = append(out, []int{i, k})
				i = k - 1
			}
		case '\n':
			k := spaceRun(s, i+1)
			if nl := strings.LastIndexByte(s[i+1:k], '\n'); nl >= 0 {
				end := i + 1 + nl + 1
				out = append(out, []int{i, end})
				i = end - 1
			}
		}
	}
	return out
}

// segmentBreaks is reSegmentBreak().FindAllStringIndex(s, -1), found by
// trying the expression, anchored, only where one of its alternatives can
// start: a semicolon, colon or comma, or a word that begins as one of its
// words does (case folded, the long s "ſ" for "s") at a word boundary, on a
// window of s that holds any match with the character after it. Tried at
// every position of every sentence the expression was a twentieth of a
// deal-room question's processor time (TestSegmentBreaksLikeExpression).
func segmentBreaks(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ';' || c == ':' || c == ',':
		case c < utf8.RuneSelf:
			// a word that begins as one of the expression's does, after
			// no word character
			if !breakFirst[c] || i > 0 && isWordByte(s[i-1]) || !breakPrefix(s[i:]) {
				continue
			}
		case strings.HasPrefix(s[i:], "ſ"):
			// not a word character itself: a boundary only after one
			if i == 0 || !isWordByte(s[i-1]) {
				continue
			}
		default:
			continue
		}
		if m := reSegmentBreakAt().FindStringIndex(breakWindow(s, i)); m != nil {
			out = append(out, []int{i, i + m[1]})
			i += m[1] - 1
		}
	}
	return out
}

// breakPrefix reports whether s begins, in any case, as one of
// reSegmentBreak's words does (their first three letters hold no "s" but in
// "save", whose first letter a caller checks apart when it is a long s).
func breakPrefix(s string) bool {
	if len(s) < 3 {
		return false
	}
	var p [3]byte
	for k := range p {
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		p[k] = c
	}
	switch string(p[:]) {
	case "but", "exc", "unl", "how", "whe", "alt", "sav", "oth", "pro":
		return true
	}
	return false
}

// breakFirst marks the letters reSegmentBreak's words begin with.
var breakFirst = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "beuhwasop" {
		t[c], t[c-'a'+'A'] = true, true
	}
	return t
}()

// breakWindow returns s from i on as far as a match of reSegmentBreak
// starting at i can reach, and one character more: a match holds at most
// 32 bytes that are not white space (the longest, "provided, however,
// however", and a long s for each "s" it may hold), so the window runs to
// the 48th such byte, white space between them included.
func breakWindow(s string, i int) string {
	n := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\t', '\n', '\f', '\r', ' ':
			continue
		}
		if n++; n > 48 {
			return s[i : j+1]
		}
	}
	return s[i:]
}

// spaceRun returns where the run of white space (\s: tab, line feed, form
// feed, carriage return, space) starting at s[i] ends.
func spaceRun(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\t', '\n', '\f', '\r', ' ':
			i++
			continue
		}
		break
	}
	return i
}

// segWeight is the weight of the cue words in segment sg of s.
func segWeight(s string, sg segment, c cues) float64 {
	w := 0.0
	for _, t := range tokens(s[sg.at:sg.end]) {
		w += c[t.stem]
	}
	return w
}

// minSegmentWords is the fewest words a segment that says something about a
// provision has.
const minSegmentWords = 5

// focusIn returns the segment of s the cue words weigh most in, the place
// of its heaviest cue word, and its weight (0: no cue word in s).
func focusIn(s string, c cues) (segment, int, float64) {
	segs := segments(s)
	var best, short segment
	bestAt, bestW, shortAt, shortW := -1, 0.0, -1, 0.0
	toks := tokens(s)
	for _, sg := range segs {
		w, top, topAt, n := 0.0, 0.0, -1, 0
		for _, t := range toks {
			if t.at < sg.at || t.end > sg.end {
				continue
			}
			n++
			if cw, ok := c[t.stem]; ok {
				w += cw
				if cw > top {
					top, topAt = cw, t.at
				}
			}
		}
		// a heading ("3. Licence Limits.", "Assignment and Change of
		// Control.") names a provision without saying anything about
		// it: it is the focus only when nothing else mentions the
		// provision
		if n < minSegmentWords || headingSegment(s, sg) {
			if w > shortW {
				short, shortAt, shortW = sg, topAt, w
			}
			continue
		}
		if w > bestW {
			best, bestAt, bestW = sg, topAt, w
		}
	}
	if bestW == 0 {
		return short, shortAt, shortW
	}
	return best, bestAt, bestW
}

// headingSegment reports whether segment sg of s is the heading of what
// follows it: a whole sentence that opens s (after a clause number at
// most), of at most eight words, written as a heading (role.go
// headingLike), with no verb by which a clause grants or binds, and more
// text after it.
func headingSegment(s string, sg segment) bool {
	if sg.at != sg.sentence[0] || sg.end != sg.sentence[1] || strings.TrimSpace(s[sg.end:]) == "" {
		return false
	}
	if pre := strings.TrimSpace(s[:sg.at]); pre != "" && reSubjectNumber().FindString(pre+" ") != pre+" " {
		return false
	}
	t := s[sg.at:sg.end]
	return len(strings.Fields(t)) <= 8 && headingLike(t) && !reModalOnly().MatchString(t)
}

// negatedBefore reports whether a negator that negates comes in s before
// byte at (or anywhere in s when at < 0).
func negatedBefore(s string, at int) bool {
	for _, m := range reNegator().FindAllStringIndex(s, -1) {
		if at >= 0 && m[0] >= at {
			break
		}
		if !reNotNegation().MatchString(s[m[0]:]) {
			return true
		}
	}
	return false
}

// negates reports whether s holds a negator that negates.
func negates(s string) bool { return negatedBefore(s, -1) }

// liberty reports whether a segment frees the parties from a restriction
// whose own words (normal) are p's keywords: a negated restraint or
// obligation ("nothing … restricts", "not limited", "no obligation to"),
// "free(ly)", "without restriction" (but not "including without
// limitation"), permission "without … consent" in a segment that does not
// make the act void, "no consent is required", or "non-"/"not" before a
// cue word of weight 2 or more (one of the provision's own key words)
// whose negated form is not itself one of the provision's keywords ("non-exclusive" frees from exclusivity; "non-transferable" is
// what a non-transferable licence says).
func liberty(seg string, c cues, normal map[string]bool) bool {
	if reFree().MatchString(seg) || reNothingGrants().MatchString(seg) {
		return true
	}
	// "is not subject to any financial limit", "Neither party's liability
	// … is subject to any cap": a restraint denied by a negator before
	// "subject to"
	for _, m := range reSubjectToLimit().FindAllStringIndex(seg, -1) {
		if negatedBefore(seg, m[0]) {
			return true
		}
	}
	for _, m := range reWithoutRestriction().FindAllStringIndex(seg, -1) {
		if !reIncludingBefore().MatchString(seg[:m[0]]) {
			return true
		}
	}
	if reNoConsentNeeded().MatchString(seg) {
		return true
	}
	// "non-exclusive", and a state denied: "is not exclusive", "shall not
	// be confidential" (but "shall not disclose" is the restriction)
	toks := tokens(seg)
	for k := 0; k+1 < len(toks); k++ {
		if toks[k].stem == "non" && c[toks[k+1].stem] >= 2 && !normal[toks[k+1].stem] {
			return true
		}
		if toks[k].stem == "not" && k > 0 && copula[toks[k-1].stem] && deniedState(seg, toks[k+1], c, normal) {
			return true
		}
		if toks[k].stem == "not" && k+2 < len(toks) && copula[toks[k+1].stem] && deniedState(seg, toks[k+2], c, normal) {
			return true
		}
	}
	if negates(seg) {
		for _, m := range reNegator().FindAllStringIndex(seg, -1) {
			if reNotNegation().MatchString(seg[m[0]:]) {
				continue
			}
			if reNegatedRestraint().MatchString(seg[m[1]:]) {
				return true
			}
		}
		return false
	}
	return rePermission().MatchString(seg) && reWithoutConsent().MatchString(seg) && !reVoid().MatchString(seg)
}

// deniedState reports whether t, after "is not"/"not be", is a state the
// provision's key words name ("exclusive", "confidential"): not a passive
// ("shall not be assigned") nor a capability ("is not assignable"), which
// are how a restriction is written.
func deniedState(seg string, t token, c cues, normal map[string]bool) bool {
	if c[t.stem] < 2 || normal[t.stem] {
		return false
	}
	w := strings.ToLower(seg[t.at:t.end])
	for _, suf := range []string{"ed", "en", "able", "ible"} {
		if strings.HasSuffix(w, suf) {
			return false
		}
	}
	return true
}

// copula are the forms of "to be" a denied state follows ("is not
// exclusive", "not be confidential"), stemmed.
var copula = map[string]bool{}

func init() {
	for _, w := range []string{"is", "are", "be", "was", "were", "been"} {
		copula[detect.StemWord(w)] = true
	}
}

// negatedForms returns the cue words p's keywords themselves negate
// ("non transferable", "not to compete"): their negation is p's normal
// form, not a liberty.
func negatedForms(p *playbook.Provision) map[string]bool {
	out := map[string]bool{}
	for _, k := range p.Keywords {
		w := detect.Analyze(k.Text)
		for i := 0; i+1 < len(w); i++ {
			if w[i] == "non" || w[i] == "not" || w[i] == "no" || w[i] == "without" {
				out[w[i+1]] = true
			}
		}
	}
	return out
}

var (
	reFree = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bfreely\b|\bfree\s+to\b`)
	})
	reWithoutRestriction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bwithout\s+(?:any\s+)?(?:restriction|limitation|limit)\b`)
	})
	reIncludingBefore = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\binclud\w*[\s,]*$`)
	})
	reNoConsentNeeded = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bno\s+(?:\S+\s+){0,2}?(?:consent|approval)\s+(?:\S+\s+){0,5}?(?:is|shall\s+be|will\s+be)\s+(?:needed|required|necessary)\b|\brequir\w*\s+no\s+(?:\S+\s+){0,4}?(?:consent|approval)\b`)
	})
	// reSubjectToLimit is "subject to any (financial) limit/cap/ceiling":
	// with a negator before it, a liberty from a limit.
	reSubjectToLimit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bsubject\s+to\s+(?:any|a|an)\s+(?:\w+\s+){0,2}?(?:limit|limits|limitation|limitations|cap|caps|ceiling|maximum)\b`)
	})
	// reNothingGrants is the contract saying it gives nothing: "Nothing in
	// this Agreement grants the Agent exclusive rights", "No provision of
	// this Agreement creates …", "this Agreement does not create an
	// exclusive relationship" (not a party that "shall not grant" a
	// licence to others, which is how an exclusivity is written).
	reNothingGrants = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:nothing|no\s+(?:provision|term|part)\s+of)\s+(?:(?:in|contained|herein|hereunder|under|this|agreement|shall|will|be|is|deemed|construed|to|as)\W+){0,6}?(?:grant\w*|confer\w*|give\w*|creat\w*|constitut\w*|impos\w*|establish\w*)\b|\b(?:this|the)\s+agreement\s+(?:does|shall|will)\s+not\s+(?:(?:be|deemed|construed|to|as)\W+){0,4}?(?:grant\w*|confer\w*|give\w*|creat\w*|constitut\w*|impos\w*|establish\w*)\b`)
	})
	// reWaivesRight is a party giving up a right: "waives any right it may
	// have", "irrevocably renounces its rights", "relinquishes the option".
	// Before a right's cue words, the right is excluded: the clause takes it
	// away ("waives any right … to terminate this Agreement without
	// cause"). A waiver after them ("may terminate …; Supplier waives any
	// right to object") or negated ("shall not waive its right") is not.
	reWaivesRight = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:waive[sd]?|waiving|renounce[sd]?|renouncing|relinquish(?:es|ed|ing)?|surrender(?:s|ed|ing)?|give[sn]?\s+up|gave\s+up)\s+(?:\S+\s+){0,5}?(?:rights?|entitlements?|options?|powers?)\b`)
	})
	// reExcludedAfter is a right's own sentence taking it away after naming
	// it: "any right … to terminate … for its convenience is hereby
	// excluded", "… shall not apply".
	reExcludedAfter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:is|are|shall\s+be|will\s+be)\s+(?:hereby\s+)?(?:excluded|waived|disapplied|deleted)\b|\b(?:shall|does|do|will)\s+not\s+apply\b`)
	})
	// reOptional is a party allowed but not bound to act: "may, but shall
	// not be obliged to", "may, but is not required to".
	reOptional = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bmay\s*,?\s*but\s+(?:shall|is|are|will|need)\s+not\s+(?:be\s+)?(?:obliged|obligated|required|bound)\s+to\b`)
	})
	rePermission = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:may|can|is\s+entitled|are\s+entitled|is\s+permitted|are\s+permitted|has\s+the\s+right)\b`)
	})
	reVoid = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:void|null|invalid|ineffective|breach)\b`)
	})
	// reNegatedRestraint is a restraint or an obligation right after a
	// negator, with only function words between: "nothing in this
	// Agreement shall restrict", "not be limited", "no obligation to".
	reNegatedRestraint = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\W*(?:(?:in|this|agreement|herein|hereunder|contained|section|shall|will|be|is|are|been|being|construed|as|to|deemed|either|any|party|parties|the|such|its|has|have|had|an?|under|obliged|undertakes|undertake|owes?|owed|bears?|assumes?|other|each)\W+){0,6}?(?:restrict\w*|prevent\w*|prohibit\w*|limit\w*|preclud\w*|restrain\w*|refrain\w*|forbid\w*|bar(?:s|red)?|impair\w*|exclud\w*|cap(?:s|ped)?|obligations?|obliged|obligated|required|bound|duty|duties)\b`)
	})
)

// clauseOf returns the stretch of seg between commas around byte at.
func clauseOf(seg string, at int) string {
	if at < 0 || at > len(seg) {
		return seg
	}
	lo := strings.LastIndexByte(seg[:at], ',') + 1
	hi := strings.IndexByte(seg[at:], ',')
	if hi < 0 {
		hi = len(seg)
	} else {
		hi += at
	}
	return seg[lo:hi]
}

var polarityKinds sync.Map // provision name + examples → Polarity

// polarityOf returns how p is written: its playbook's polarity, else a
// restriction when more than half of its examples' focus segments are
// negated, else a right.
func polarityOf(p *playbook.Provision, c cues) playbook.Polarity {
	if p.Polarity != "" {
		return p.Polarity
	}
	key := p.Name + "\x00" + strings.Join(p.Examples, "\x00")
	if k, ok := polarityKinds.Load(key); ok {
		return k.(playbook.Polarity)
	}
	neg, n := 0, 0
	for _, e := range p.Examples {
		sg, _, w := focusIn(e, c)
		if w == 0 {
			continue
		}
		n++
		if negates(e[sg.at:sg.end]) {
			neg++
		}
	}
	k := playbook.PolarityRight
	if n > 0 && 2*neg > n {
		k = playbook.PolarityRestriction
	}
	polarityKinds.Store(key, k)
	return k
}

var (
	// reRelief is a word by which a clause relieves a party.
	reRelief = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:excus\w*|exclud\w*|exclusion|reliev\w*|relief|suspend\w*|suspension|waiv\w*|disclaim\w*|apply|applies)\b`)
	})
	// reLiable is a word that makes a party answer for a loss.
	reLiable = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:liable|liability|responsible|recoverable|recover)\b`)
	})
)

// excludes reports whether the focus segment seg (of sentence sent, whose
// other weighted segments are others) excludes a provision of polarity k;
// at is where seg's heaviest cue word is (bytes of seg).
func excludes(k playbook.Polarity, seg string, at int, others []string, c cues, normal map[string]bool, consent bool) bool {
	switch k {
	case playbook.PolarityRestriction:
		if liberty(seg, c, normal) {
			return true
		}
		if negates(seg) {
			return false // the restriction itself
		}
		// another segment that frees, unless it is an exception to the
		// restriction ("provided that nothing …", "except that …"):
		// that makes it Conditional
		for _, o := range others {
			if liberty(o, c, normal) && !reExceptionStart().MatchString(o) {
				return true
			}
		}
		return false
	case playbook.PolarityException:
		if reNoException().MatchString(seg) {
			return true
		}
		for _, o := range others {
			if reNoException().MatchString(o) {
				return true
			}
		}
		return false
	case playbook.PolarityRelief:
		// "not excused", "no exclusion applies", "do not suspend" — or a
		// party that is liable, with nothing negated
		for _, m := range reNegator().FindAllStringIndex(seg, -1) {
			if !reNotNegation().MatchString(seg[m[0]:]) && reRelief().MatchString(seg[m[1]:]) {
				return true
			}
		}
		return !negates(seg) && reLiable().MatchString(seg) && !reRelief().MatchString(seg)
	}
	// a right: negated in the clause (between commas) of its heaviest cue
	// word — "To the extent ownership does not vest …, the Executive
	// hereby assigns" is not negated —, unless the negation only asks for
	// consent ("shall not … without the prior written consent": the right
	// is there, on a condition)
	if consent && reNoConsentNeeded().MatchString(strings.Join(append([]string{seg}, others...), " ")) {
		// the provision is a consent the contract may require ("its
		// consent or notice may be required"): "no consent shall be
		// required for an assignment … pursuant to a merger" denies it
		return true
	}
	if m := reExcludedAfter().FindStringIndex(seg); m != nil && m[0] >= at && !negatedBefore(seg[at:], m[0]-at) {
		return true // "any right … to terminate … for its convenience is hereby excluded"
	}
	if m := reWaivesRight().FindStringIndex(seg); m != nil && m[1] <= at {
		// "each party waives any right … to terminate … without cause"
		// takes the right away; "neither party shall be deemed to waive
		// its right to terminate" negates the waiver, not the right
		return !negatedBefore(seg, m[0])
	}
	if reWithoutConsent().MatchString(seg) {
		return false
	}
	if withoutCue(seg, c, normal) {
		return true // "sold as is … and without any warranty"
	}
	if deniedCue(seg, c, normal) {
		return true // "a revocable, non-perpetual licence"
	}
	for _, cl := range strings.Split(seg, ",") {
		if !reSubordinate().MatchString(cl) && negatesMain(cl, c) && segWeight(cl, segment{0, len(cl), [2]int{}}, c) > 0 {
			return true
		}
	}
	return false
}

// negatedCoordinate reports whether segment sg of s continues, after ", or"
// or ", nor", a verb phrase the segment before it negates ("Neither party
// is required to notify the other of, or obtain consent to, any change in
// its ownership or control"): the negation governs both verbs. Not where
// the sentence asks for consent ("shall not assign, or undergo a change of
// control, without the consent of …" is the right on a condition).
func negatedCoordinate(s string, sg segment) bool {
	if !reOrAfterComma().MatchString(s[sg.at:sg.end]) {
		return false
	}
	var prev *segment
	for _, o := range segments(s) {
		if o.sentence == sg.sentence && o.end <= sg.at {
			o := o
			prev = &o
		}
	}
	if prev == nil {
		return false
	}
	sent := s[sg.sentence[0]:sg.sentence[1]]
	return reSentenceNegated().MatchString(s[prev.at:prev.end]) && !reWithoutConsent().MatchString(sent)
}

var (
	// reOrAfterComma opens a segment cut at ", or"/", nor".
	reOrAfterComma = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*,\s*n?or\b`)
	})
	// reSentenceNegated opens a segment whose subject or verb is negated:
	// "Neither party is required to", "No party shall", "Nothing in this
	// Agreement requires", "The Supplier shall not".
	reSentenceNegated = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\W*(?:(?:neither|no|nothing|none)\b|(?:\S+\s+){1,4}?(?:shall|will|may|is|are|need|does|do)\s+not\b|(?:\S+\s+){1,4}?(?:cannot|can\s*not)\b)`)
	})
)

// isObligation reports whether a provision is a duty rather than a right,
// by its playbook definition ("A requirement that a party take out and
// maintain insurance", "A party's obligation to buy … a minimum
// quantity"): a party that may act but is not obliged to has no such duty.
func isObligation(p *playbook.Provision) bool {
	return reObligationDefinition().MatchString(p.Definition)
}

var reObligationDefinition = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W*(?:(?:an?|the|a\s+party['’]s|each\s+party['’]s)\s+)?(?:requirements?|obligations?|duty|duties)\b`)
})

// consentIsContent reports whether a right's definition makes a party's
// consent part of what the provision is ("its consent or notice may be
// required").
func consentIsContent(p *playbook.Provision) bool {
	return reConsentRequired().MatchString(p.Definition)
}

var reConsentRequired = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bconsent\b(?:\s+\S+){0,4}?\s+(?:is|be|are)\s+required\b|\brequir\w*\s+(?:\S+\s+){0,3}?consent\b`)
})

// withoutCue reports whether seg puts "without" before one of the
// provision's own key words (weight 2 or more): "without any warranty",
// "without warranties of any kind" — unless the provision's keywords say
// it that way themselves ("without cause" is how termination for
// convenience is written).
func withoutCue(seg string, c cues, normal map[string]bool) bool {
	toks := tokens(seg)
	for k, t := range toks {
		if t.stem != "without" {
			continue
		}
		for j := k + 1; j < min(len(toks), k+3); j++ {
			if c[toks[j].stem] >= 2 && !normal[toks[j].stem] {
				return true
			}
			if !filler[toks[j].stem] {
				break
			}
		}
	}
	return false
}

// deniedCue reports whether seg denies one of the provision's own key
// words (weight 2 or more) by its form: "non-" before it ("non-perpetual"),
// or the word without the negating prefix the key word has ("revocable"
// for "irrevocable", "limited" for "unlimited") — unless that form is
// itself how the provision's keywords say it, or seg also states the key
// word outright.
func deniedCue(seg string, c cues, normal map[string]bool) bool {
	toks := tokens(seg)
	denied, stated := false, false
	for k, t := range toks {
		if k > 0 && toks[k-1].stem == "non" {
			if c[t.stem] >= 2 && !normal[t.stem] {
				denied = true
			}
			continue
		}
		if c[t.stem] >= 2 {
			stated = true
			continue
		}
		if c[t.stem] > 0 || normal[t.stem] || len(t.stem) < 4 {
			continue
		}
		for _, pre := range []string{"ir", "in", "un", "non"} {
			if c[pre+t.stem] >= 2 {
				denied = true
			}
		}
	}
	return denied && !stated
}

// filler are the words that may stand between "without" and what it
// denies.
var filler = map[string]bool{"ani": true, "any": true, "all": true, "a": true, "an": true}

// reSubordinate opens a clause that sets a condition or a circumstance, not
// the main statement: a negation inside it does not negate the provision
// ("To the extent that ownership does not vest …, the Executive hereby
// assigns").
var reSubordinate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W*(?:(?:and|or|but)\s+)?(?:if|to\s+the\s+extent|where|whereas|in\s+the\s+event|when|whenever|unless|although|though|which|who|whose|whom|except|save|provided|subject\s+to|in\s+case|so\s+long\s+as|as\s+long\s+as)\b`)
})

// reInnerSubordinate opens a subordinate clause inside a clause: "The
// Company may terminate this Agreement in the event the Agent is in
// material breach … and such breach has not been cured" — the negation
// after "in the event" is part of the cause, not of the right.
var reInnerSubordinate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:if|in\s+the\s+event|in\s+case|where|when|whenever|unless|until|after|once|because|since|which|who|whose)\b`)
})

// reAlternativeBefore ends the words before a negator that states an
// alternative, not a negation: "(whether or not this Agreement is
// terminated)", "if not".
var reAlternativeBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:whether\s+or|if|or)\s*$`)
})

// negatesMain reports whether clause cl holds a negator that negates its
// statement about the provision: one before the first cue word, or one
// after it with no subordinate clause opening between them.
func negatesMain(cl string, c cues) bool {
	cue := -1
	for _, t := range tokens(cl) {
		if c[t.stem] > 0 {
			cue = t.at
			break
		}
	}
	for _, m := range reNegator().FindAllStringIndex(cl, -1) {
		if reNotNegation().MatchString(cl[m[0]:]) || reAlternativeBefore().MatchString(cl[:m[0]]) {
			continue
		}
		if cue < 0 || m[0] < cue || !reInnerSubordinate().MatchString(cl[cue:m[0]]) {
			return true
		}
	}
	return false
}

// reExceptionStart opens a segment that makes an exception.
var reExceptionStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W*(?:provided|except|unless|however|but|save)\b`)
})

// reNoException is a clause that leaves a restriction without exception.
var reNoException = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bno\s+(?:\S+\s+){0,2}?exceptions?\b|\bwithout\s+(?:any\s+)?exception\b|\bappl(?:y|ies)\s+(?:equally\s+)?to\s+(?:all|every|each)\b`)
})

// polarity is the reading of a yes/no provision in a text.
type polarity struct {
	kind      Kind // KindYes, KindNo or KindConditional
	condition string
	focus     [2]int  // the focus segment (bytes)
	weight    float64 // the cue words' weight in it (0: none)
	cond      [2]int  // the condition (bytes), when conditional
}

// readPolarity reads whether s grants, conditions or excludes provision p.
// A text with no cue word of the provision is read as Yes (the finder found
// it; nothing says otherwise).
func readPolarity(p *playbook.Provision, s string) polarity {
	pol := readPolarityOnce(p, s)
	if pol.kind == KindNo && pol.weight > 0 && polarityOf(p, cueWordsOf(p)) == playbook.PolarityRight &&
		reForAPeriod().MatchString(s[pol.focus[0]:pol.focus[1]]) {
		if g, ok := grantedElsewhere(p, s, pol); ok {
			return g
		}
	}
	return pol
}

// reForAPeriod limits an exclusion to a time: "during the Initial Term",
// "before the first anniversary", "until …", "within the first year".
var reForAPeriod = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:during|before|until|prior\s+to|within|for\s+the\s+first)\b`)
})

// grantedElsewhere reads a right that one sentence of s excludes for a
// period (pol, its reading) and another sentence of at least five words
// grants at least as squarely: "Provider may not
// terminate this Agreement for convenience during the Initial Term. During
// any Renewal Term, Provider may terminate this Agreement for convenience"
// is the right on a condition. The condition is the granting sentence's own
// (there, "During any Renewal Term"), else the excluding words.
func grantedElsewhere(p *playbook.Provision, s string, pol polarity) (polarity, bool) {
	seen := map[[2]int]bool{}
	for _, o := range segments(s) {
		if seen[o.sentence] || (o.sentence[0] <= pol.focus[0] && pol.focus[0] < o.sentence[1]) {
			continue
		}
		seen[o.sentence] = true
		lo := o.sentence[0]
		g := readPolarityOnce(p, s[lo:o.sentence[1]])
		if g.kind == KindNo || g.weight < pol.weight || len(strings.Fields(s[lo:o.sentence[1]])) < 5 {
			continue
		}
		out := polarity{kind: KindConditional, focus: [2]int{lo + g.focus[0], lo + g.focus[1]}, weight: g.weight}
		if g.kind == KindConditional {
			out.condition, out.cond = g.condition, [2]int{lo + g.cond[0], lo + g.cond[1]}
		} else {
			out.condition = strings.Join(strings.Fields(s[pol.focus[0]:pol.focus[1]]), " ")
			out.cond = pol.focus
		}
		return out, true
	}
	return polarity{}, false
}

// readPolarityOnce is readPolarity's reading of s's focus alone.
func readPolarityOnce(p *playbook.Provision, s string) polarity {
	c := cueWordsOf(p)
	sg, at, w := focusIn(s, c)
	if w == 0 {
		return polarity{kind: KindYes, focus: [2]int{0, len(s)}}
	}
	seg := s[sg.at:sg.end]
	out := polarity{kind: KindYes, focus: [2]int{sg.at, sg.end}, weight: w}
	k := polarityOf(p, c)
	var others []string
	for _, o := range segments(s) {
		if o.sentence == sg.sentence && o != sg && segWeight(s, o, c) > 0 {
			others = append(others, s[o.at:o.end])
		}
	}
	if k != playbook.PolarityRestriction && isObligation(p) && reOptional().MatchString(s[sg.sentence[0]:max(sg.sentence[0], at)]) {
		// a duty a party may, but need not, perform: "Contoso may, but
		// shall not be obliged to, insure …"
		out.kind = KindNo
		return out
	}
	if k == playbook.PolarityRight && negatedCoordinate(s, sg) {
		// "Neither party is required to notify the other of, or obtain
		// consent to, any change in its ownership or control"
		out.kind = KindNo
		return out
	}
	if excludes(k, seg, at-sg.at, others, c, negatedForms(p), consentIsContent(p)) {
		out.kind = KindNo
		return out
	}
	sent := s[sg.sentence[0]:sg.sentence[1]]
	if m := conditionIn(sent, k == playbook.PolarityRestriction); m != nil {
		lo, hi := sg.sentence[0]+m[0], sg.sentence[1]
		for _, o := range segments(s) {
			// the segment the cue starts or lies in; a cue that is itself a
			// break ("except", "provided") starts its own segment
			if o.at <= lo && lo < o.end {
				hi = o.end
				break
			}
		}
		// a condition ends at the next comma once it has a few words
		// ("EXCEPT UNDER SECTION 13, IN NO EVENT …")
		for k := lo; k < hi; k++ {
			if s[k] == ',' && len(strings.Fields(s[lo:k])) >= 3 {
				hi = k
				break
			}
		}
		hi = lo + len(strings.TrimRight(s[lo:hi], " ,;.:\n\t"))
		for hi > lo && s[hi-1] == ')' && strings.Count(s[lo:hi], ")") > strings.Count(s[lo:hi], "(") {
			// the condition is the inside of a parenthesis ("(subject to
			// the other party's right to cure …)"): not its closing mark
			hi = lo + len(strings.TrimRight(s[lo:hi-1], " ,;.:\n\t"))
		}
		cond := strings.Join(strings.Fields(s[lo:hi]), " ")
		if len(cond) > 200 {
			cut := strings.LastIndexByte(cond[:200], ' ')
			if cut < 0 {
				cut = 200
			}
			cond = cond[:cut] + " …"
		}
		out.kind, out.condition, out.cond = KindConditional, cond, [2]int{lo, hi}
	}
	return out
}

// minExclusionWeight is the cue weight (a keyword of boost 2, or two cue
// words) a candidate below the threshold needs for a cell that was not
// found to show it as excluding the provision, rather than plain "Not
// found".
const minExclusionWeight = 2.0

// exclusionWeight is the weight of p's cue words in the focus of s.
func exclusionWeight(p *playbook.Provision, s string) float64 {
	_, _, w := focusIn(s, cueWordsOf(p))
	return w
}

var (
	// reNoCause says a right needs no cause: "without cause", "for
	// convenience", "for any reason", "at will", "without reason".
	reNoCause = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bwithout\s+(?:\S+\s+){0,3}?(?:cause|reason)\b|\bfor\s+(?:its\s+|their\s+|the\s+)?convenience\b|\bfor\s+any\s+(?:or\s+no\s+)?reason\b|\bat\s+will\b|\bno\s+(?:\S+\s+){0,2}?cause\b`)
	})
	// reStatedCause makes an act depend on an event: "if …", "in the event
	// of/that …", "in case of …", "by reason of …", "upon the occurrence of
	// …", "upon a change of control"; not "if it gives notice", "upon a
	// written notice".
	reStatedCause = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:if|in\s+the\s+event|in\s+case\s+of|by\s+reason\s+of|as\s+a\s+result\s+of|upon\s+(?:the\s+occurrence|a|an|any)|should)\b(?:\s+(?:\S+\s+){0,3}?(?:gives?|giving|notifies|notice)\b)?`)
	})
)

// onStatedCauses reports whether s grants p — a right the playbook defines
// as needing no cause (its definition or keywords say "without cause", "for
// convenience", "for any reason") — only on stated causes: the focus
// segment leads in to a list of occasions (it ends with a colon) or its
// sentence makes the act depend on an event ("if", "in the event"), and
// the sentence does not itself say no cause is needed.
func onStatedCauses(p *playbook.Provision, s string, pol polarity) bool {
	if pol.weight == 0 || pol.kind == KindNo || !needsNoCause(p) {
		return false
	}
	seg := strings.TrimRight(s[pol.focus[0]:pol.focus[1]], " \t\n")
	// the whole sentence: a cause may come before the grant ("If any of
	// the conditions … shall not have been fulfilled …, this Agreement …
	// may be cancelled by the Agent")
	from := pol.focus[0]
	for _, sg := range segments(s) {
		if sg.at <= pol.focus[0] && pol.focus[0] < sg.end {
			from = sg.sentence[0]
			break
		}
	}
	sent := s[from:]
	if k := sentenceEnds(s[pol.focus[0]:]); len(k) > 0 {
		sent = s[from : pol.focus[0]+k[0][0]]
	}
	if saysNoCause(sent) {
		return false
	}
	if strings.HasSuffix(seg, ":") || strings.HasPrefix(strings.TrimLeft(s[pol.focus[1]:], " \t"), ":") {
		return true // "… may terminate this Agreement by written notice:"
	}
	return statesCause(sent)
}

// reNoticeOnly is a condition that only asks for notice ("if it gives 30
// days' notice"): not a cause.
var reNoticeOnly = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:gives?|giving|notifies|notice)$`)
})

// needsNoCause reports whether p's definition or keywords say the right
// needs no cause.
func needsNoCause(p *playbook.Provision) bool {
	if saysNoCause(p.Definition) {
		return true
	}
	for _, k := range p.Keywords {
		if saysNoCause(k.Text) {
			return true
		}
	}
	return false
}

// saysNoCause is reNoCause().MatchString(s), the expression tried only on a
// text its gate admits (TestSaysNoCauseLikeExpression).
func saysNoCause(s string) bool {
	return noCauseGate.admits(lowerASCII(s)) && reNoCause().MatchString(s)
}

var noCauseGate = pieceGate{{"without"}, {"convenience"}, {"any", "rea"}, {"at", "will"}, {"no", "cau"}}

// grantedByItems reads a right that a lead-in ending in a colon grants
// through its list items. onStatedCauses reads such a lead-in ("The Agent
// may terminate this Agreement … as follows:") as a list of occasions,
// and so it is when its items name them ("(a) if any material adverse
// change …"); but an item that only says who may act and on what notice
// ("(a) by the Consultant giving the Company three months' notice") names
// no cause, and through it the lead-in grants the right. a is the
// stated-causes reading of ex; the items, the passages of the lead-in's
// sub-clauses that follow it, are added to the extracts, and the answer is
// read from the first item that grants the right.
func grantedByItems(c *detect.Prepared, p *playbook.Provision, nb []*playbook.Provision, ex []detect.Extract, a *Answer, scores []float64) (*Answer, []detect.Extract, bool) {
	if len(a.Spans) == 0 {
		return nil, nil, false
	}
	k := a.Spans[0].Extract
	if k < 0 || k >= len(ex) || !strings.HasSuffix(strings.TrimSpace(ex[k].Text), ":") {
		return nil, nil, false
	}
	t := c.Tree()
	var items []detect.Extract
	for _, it := range withListItems(c, ex[k:k+1], scores)[1:] {
		if it.Node <= 0 || it.Node >= len(t.Nodes) || it.Node == ex[k].Node || !slices.Contains(t.Ancestors(it.Node), ex[k].Node) {
			break // the list ends where the lead-in's sub-clauses do
		}
		items = append(items, it)
	}
	out := append(append([]detect.Extract(nil), ex...), items...)
	for i, it := range items {
		text, pol, n := readBeside(p, nb, it.Text)
		if pol.weight == 0 || n != nil || pol.kind == KindNo || statesCause(text) {
			continue
		}
		sp, ok := joinExtracts(items[i:i+1]).span(pol.focus[0], pol.focus[1], "value")
		if !ok {
			continue
		}
		sp.Extract = len(ex) + i
		return &Answer{Kind: KindYes, Text: "Yes", Spans: []Span{sp}}, out, true
	}
	return nil, nil, false
}

// statesCause reports whether s makes an act depend on an event ("if",
// "in the event", "upon a breach"), not only on a notice.
func statesCause(s string) bool {
	for _, m := range reStatedCause().FindAllStringIndex(s, -1) {
		if !reNoticeOnly().MatchString(s[m[0]:m[1]]) {
			return true
		}
	}
	return false
}

// listedOccasions marks, for a right that needs no cause, the extracts of c
// that are items of a list whose lead-in allows the act only on stated
// causes ("Either party may terminate this Agreement by notice if the
// other party: … (ii) fails to cure such breach within ninety days"): the
// item is one of the occasions, not a right of its own. nil when c is nil
// or no extract is such an item.
func listedOccasions(c *detect.Prepared, p *playbook.Provision, ex []detect.Extract) []bool {
	if c == nil || !needsNoCause(p) {
		return nil
	}
	t := c.Tree()
	var out []bool
	for i, e := range ex {
		if e.Node <= 0 || e.Node >= len(t.Nodes) {
			continue
		}
		for _, a := range slices.Backward(t.Ancestors(e.Node)) {
			if a <= 0 || t.Nodes[a].Own.Empty() {
				continue
			}
			lead := strings.TrimSpace(c.Index().Slice(t.Nodes[a].Own))
			if !strings.HasSuffix(lead, ":") {
				break // the nearest lead-in only
			}
			// the sentence that leads in names the occasion ("… may
			// terminate … if the other party:"); "as follows:" alone
			// leaves it to the items
			if k := reSentenceEnd().FindAllStringIndex(lead, -1); len(k) > 0 && k[len(k)-1][1] < len(lead) {
				lead = lead[k[len(k)-1][1]:]
			}
			if statesCause(lead) && !reNoCause().MatchString(lead) && readPolarity(p, lead).weight > 0 {
				if out == nil {
					out = make([]bool, len(ex))
				}
				out[i] = true
			}
			break
		}
	}
	return out
}

// conditionIn is the first match in s of reRestrictionCondition, for a
// restriction, or of reRightCondition, the expression tried only on a text
// its gate admits (TestConditionInLikeExpression).
func conditionIn(s string, restriction bool) []int {
	if restriction {
		if !restrictionConditionGate.admits(lowerASCII(s)) {
			return nil
		}
		return reRestrictionCondition().FindStringIndex(s)
	}
	if !rightConditionGate.admits(lowerASCII(s)) {
		return nil
	}
	return reRightCondition().FindStringIndex(s)
}

var (
	rightConditionGate = pieceGate{{"except"}, {"other"}, {"only"}, {"provided"}, {"ubject"}, {"unle"},
		{"after", "initial"}, {"after", "fir"}, {"after", "minimum"}, {"following", "initial"}, {"following", "fir"}, {"following", "minimum"},
		{"renew"}, {"exten"}, {"with", "con"}, {"with", "approval"}, {"with", "agreement"}, {"mutual"}}
	restrictionConditionGate = pieceGate{{"unrea"}, {"except"}, {"other"}, {"provided"}, {"ubject"}}
)

// pieceGate lists, for each alternative of an expression, pieces of text
// every match of that alternative holds in some case: a text that does not
// hold every piece of some alternative, its ASCII capitals lowered, cannot
// match, and the expression need not be tried on it. No piece holds a
// capital, an "s" or a "k": a case-folded match may spell those two with
// the long s or the Kelvin sign, the only letters outside ASCII that fold
// to ASCII ones (TestPieceGatesFoldSafe). Most of the clauses and
// sentences the answer readers read hold no piece of an expression asked of
// them, and looking for the pieces costs a small part of running it.
type pieceGate [][]string

// admits reports whether l, a text with its ASCII capitals lowered, holds
// every piece of one of g's alternatives.
func (g pieceGate) admits(l string) bool {
	for _, alt := range g {
		all := true
		for _, p := range alt {
			if !strings.Contains(l, p) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
