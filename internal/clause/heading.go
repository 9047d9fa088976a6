package clause

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Short words that stay lower case inside a Title Case heading.
var minorWords = map[string]bool{
	"a": true, "an": true, "and": true, "as": true, "at": true, "by": true, "for": true,
	"from": true, "in": true, "into": true, "of": true, "on": true, "or": true, "the": true,
	"to": true, "with": true, "upon": true, "under": true, "non": true, "vs": true, "etc": true,
	"its": true, "per": true, "not": true, "than": true, "over": true, "between": true,
	"after": true, "before": true, "during": true, "without": true, "via": true, "nor": true,
	"this": true, "such": true, "these": true, "other": true, "certain": true, "all": true,
	"each": true, "any": true, "that": true, "against": true, "within": true, "through": true,
}

// Words that start the sentence after a heading whose line break was lost:
// "2. Maintenance of Records The Administrator agrees ...".
var sentenceStarters = map[string]bool{
	"The": true, "This": true, "Each": true, "Any": true, "All": true, "If": true,
	"Neither": true, "Unless": true, "Subject": true, "Notwithstanding": true, "Upon": true,
	"Except": true, "Either": true, "Nothing": true, "During": true, "Within": true,
	"Such": true, "These": true, "Both": true, "Where": true, "In": true, "No": true,
	"It": true, "Without": true, "A": true, "An": true, "Company": true, "As": true,
}

// isHeadingLine reports whether text reads as a heading: short, no sentence
// inside, ALL CAPS or Title Case.
func isHeadingLine(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || utf8.RuneCountInString(text) > 100 || strings.ContainsAny(text, "\n\"“”") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return false
	}
	t := strings.TrimRight(text, ".:")
	if strings.Contains(t, ". ") || strings.HasSuffix(t, ",") || strings.HasSuffix(t, ";") {
		return false
	}
	words := strings.Fields(t)
	if len(words) == 0 || len(words) > 12 {
		return false
	}
	letters := 0
	for _, w := range words {
		w = strings.Trim(w, "()[],'’-–&/")
		if w == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLetter(r) {
			letters++
		}
		if unicode.IsLower(r) && !minorWords[strings.ToLower(w)] {
			return false
		}
	}
	return letters > 0
}

// cleanHeading trims a heading line of white space and a final period or
// colon.
func cleanHeading(text string) string {
	t := strings.TrimSpace(text)
	t = strings.TrimRight(t, ".:-–— \t")
	return strings.Join(strings.Fields(t), " ")
}

// headingOf finds the heading at the start of a numbered node's text (after
// its label): the first line when it is a short heading-like line followed
// by more text, or an inline heading ending at the first period ("1.
// DEFINITIONS. The following ..."). It returns "" when there is none.
func headingOf(body string, hasChildren, sentenceCase bool) string {
	if body == "" {
		return ""
	}
	// The first line, ended by a newline or a wide run of spaces.
	end := len(body)
	if k := strings.IndexByte(body, '\n'); k >= 0 {
		end = k
	}
	if k := strings.Index(body[:end], "   "); k >= 0 {
		end = k
	}
	if k := strings.Index(body[:end], "\t"); k >= 0 {
		end = k
	}
	line := body[:end]
	rest := strings.TrimSpace(body[end:])
	if isHeadingLine(line) && (rest != "" || hasChildren || !strings.HasSuffix(strings.TrimSpace(line), ".")) {
		if h := cleanHeading(line); h != "" && !(rest == "" && !hasChildren && len(strings.Fields(h)) > 8) {
			return h
		}
	}
	if h := headingBeforeSentence(line); h != "" {
		return h
	}
	// Inline heading: up to the first period, when what precedes reads as a
	// heading and a sentence follows.
	lim := min(len(body), 120)
	for k := 0; k < lim; k++ {
		c := body[k]
		if c == '\n' {
			break
		}
		if c != '.' && c != ':' {
			continue
		}
		if k+1 < len(body) && body[k+1] != ' ' && body[k+1] != '\n' && body[k+1] != '\t' {
			continue // "U.S.", "1.5"
		}
		cand := body[:k]
		if len(strings.Fields(cand)) > 14 {
			break
		}
		// A sentence must follow on the same line.
		after := strings.TrimLeft(body[k+1:], " \t")
		r, _ := utf8.DecodeRuneInString(after)
		if after == "" || after[0] == '\n' || unicode.IsLower(r) {
			break
		}
		if (isHeadingLine(cand) || sentenceCase && isSentenceCaseHeading(cand)) && !endsWithAbbrev(cand) {
			return cleanHeading(cand)
		}
		break
	}
	return ""
}

func endsWithAbbrev(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return true
	}
	last := strings.ToLower(f[len(f)-1])
	switch last {
	case "inc", "co", "corp", "ltd", "no", "mr", "mrs", "ms", "dr", "st", "u.s", "n.v", "s.a", "l.p", "llc":
		return true
	}
	return len(last) == 1 && len(f) > 1
}

// dropTOC removes markers that belong to a table of contents: runs of three
// or more consecutive markers whose text is only a heading (and perhaps a
// page number), when the first of them recurs later in the document.
func dropTOC(s string, ms []marker) []marker {
	ms = dropTOCRegions(s, ms)
	if len(ms) < 4 {
		return ms
	}
	entry := make([]bool, len(ms))
	for i := range ms {
		end := len(s)
		if i+1 < len(ms) {
			end = ms[i+1].pos
		}
		entry[i] = ms[i].fam != famDefinition && ms[i].fam != famClosing && tocEntry(s[ms[i].labelEnd:end])
	}
	drop := make([]bool, len(ms))
	for i := 0; i < len(ms); {
		if !entry[i] {
			i++
			continue
		}
		j := i
		for j < len(ms) && entry[j] {
			j++
		}
		if j-i >= 3 && recurs(ms, i, j) {
			for k := i; k < j; k++ {
				drop[k] = true
			}
		}
		i = j
	}
	out := ms[:0:0]
	for i, m := range ms {
		if !drop[i] {
			out = append(out, m)
		}
	}
	return out
}

// recurs reports whether a label of the run ms[i:j] appears again after it.
// List items do not count: "(a)" recurs in every contract, so a section
// with short headed sub-clauses ("17. Invoicing … 17.1 Reports … (a)
// Invoicing from …") would pass for a table of contents.
func recurs(ms []marker, i, j int) bool {
	labels := map[string]bool{}
	for k := i; k < j; k++ {
		if ms[k].fam != famItem {
			labels[strings.ToLower(strings.Join(strings.Fields(ms[k].label), " "))] = true
		}
	}
	hits := 0
	for k := j; k < len(ms); k++ {
		if ms[k].fam != famItem && labels[strings.ToLower(strings.Join(strings.Fields(ms[k].label), " "))] {
			hits++
			if hits >= 2 || j-i < 4 {
				return true
			}
		}
	}
	return hits > 0
}

// tocEntry reports whether the text after a marker is only a heading with an
// optional page number or dot leader.
func tocEntry(seg string) bool {
	t := strings.TrimSpace(seg)
	if t == "" {
		return true
	}
	if utf8.RuneCountInString(t) > 160 || strings.Count(t, "\n") > 3 {
		return false
	}
	t = strings.Join(strings.Fields(t), " ")
	t = strings.TrimRight(t, "0123456789 .…_-\t")
	t = strings.TrimSuffix(t, " Page")
	t = strings.TrimRight(t, " .")
	if t == "" {
		return true
	}
	return isHeadingLine(t)
}

// Words that show a short phrase is a sentence, not a heading.
var sentenceWords = map[string]bool{
	"shall": true, "will": true, "may": true, "must": true, "is": true, "are": true,
	"was": true, "be": true, "has": true, "have": true, "agrees": true, "agree": true,
	"hereby": true, "can": true, "does": true, "do": true, "should": true, "would": true,
}

// isSentenceCaseHeading accepts short inline headings in sentence case,
// "No offset", "Governing law", that hold no verb.
func isSentenceCaseHeading(text string) bool {
	words := strings.Fields(text)
	if len(words) == 0 || len(words) > 4 || strings.ContainsAny(text, "\"“”") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(words[0])
	if !unicode.IsUpper(r) {
		return false
	}
	for _, w := range words {
		if sentenceWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// headingBeforeSentence finds a Title Case heading run directly followed by
// a sentence on the same line: "Confidentiality The parties agree ...".
func headingBeforeSentence(line string) string {
	words := strings.Fields(line)
	for k := 1; k < len(words) && k <= 10; k++ {
		w := words[k]
		if sentenceStarters[w] && k+2 < len(words) {
			// The sentence must go on in lower case soon.
			lower := false
			for _, x := range words[k+1 : min(len(words), k+4)] {
				r, _ := utf8.DecodeRuneInString(x)
				if unicode.IsLower(r) && !minorWords[x] {
					lower = true
					break
				}
			}
			cand := strings.Join(words[:k], " ")
			if lower && isHeadingLine(cand) && !endsWithAbbrev(cand) {
				return cleanHeading(cand)
			}
			return ""
		}
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) && !minorWords[w] {
			return ""
		}
	}
	return ""
}

// labelKey normalises a marker's number for comparing a table of contents
// with the body: "ARTICLE I" and "Article 1" match, as do "Section 1.01"
// and "1.1".
func labelKey(m *marker) string {
	var b strings.Builder
	switch m.fam {
	case famArticle:
		b.WriteString("art")
	case famSchedule:
		return "sched " + strings.ToLower(strings.Join(strings.Fields(m.label), " "))
	case famDecimal, famSectionKw:
		b.WriteString("sec")
	default:
		return ""
	}
	for _, v := range m.nums {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// tocHeading reports whether line is the heading of a table of contents.
func tocHeading(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || len(t) > 80 {
		return false
	}
	u := strings.ToUpper(t)
	if strings.Contains(u, "TABLE OF CONTENTS") {
		return true
	}
	f := strings.Fields(u)
	for i, w := range f {
		if (w == "CONTENTS" || w == "INDEX") && strings.ToUpper(t) == t && i >= len(f)-2 {
			return len(f) <= 6
		}
	}
	return false
}

// dropTOCRegions drops the markers of a table of contents that has a
// heading ("TABLE OF CONTENTS", "CONTENTS"): from the heading up to the
// first marker whose number the region has already listed, which is where
// the body starts again. Entries may share lines, as flattened SEC text has
// them.
func dropTOCRegions(s string, ms []marker) []marker {
	drop := make([]bool, len(ms))
	any := false
	for i := 0; i < len(s); {
		e := strings.IndexByte(s[i:], '\n')
		if e < 0 {
			e = len(s) - i
		}
		line := s[i : i+e]
		start := i
		i += e + 1
		if len(line) > 200 || !tocHeading(line) {
			continue
		}
		k := sort.Search(len(ms), func(k int) bool { return ms[k].pos >= start })
		seen := map[string]bool{}
		j := k
		for ; j < len(ms) && ms[j].pos-start < 30000; j++ {
			key := labelKey(&ms[j])
			if key == "" {
				continue
			}
			if seen[key] {
				break
			}
			seen[key] = true
		}
		// The entries must be dense and read as headings; the text between
		// the last entry and the body (often the preamble) does not count.
		if j < len(ms) && ms[j].pos-start < 30000 && len(seen) >= 3 && (ms[j-1].pos-start)/(j-k) < 250 &&
			!prose(s[start:min(ms[j].pos, ms[j-1].pos+200)]) {
			for x := k; x < j; x++ {
				drop[x] = true
				any = true
			}
			if j > 0 {
				i = max(i, ms[j].pos)
			}
		}
	}
	if !any {
		return ms
	}
	out := ms[:0:0]
	for i, m := range ms {
		if !drop[i] {
			out = append(out, m)
		}
	}
	return out
}

// prose reports whether text reads as running sentences rather than a list
// of headings: more than one word in six starts in lower case.
func prose(text string) bool {
	words, lower := 0, 0
	for _, w := range strings.Fields(text) {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLetter(r) {
			continue
		}
		words++
		if unicode.IsLower(r) && !minorWords[w] {
			lower++
		}
	}
	return lower*6 > words
}
