package answer

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// The title of a contract: read from its opening (titleAnswer), a line
// that is a title and nothing else before a running line or a legend.

// reKindWord is a word that names a kind of legal document: a title ends
// with one ("MASTER SERVICES AGREEMENT", "Deed of Guarantee" ends with its
// head noun before "of").
var reKindWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:agreement|contract|licen[cs]e|lease|sublease|deed|amendment|addendum|memorandum|understanding|indenture|guarantee|guaranty|charter|terms|conditions|order|statement of work|plan|note|warrant|undertaking|protocol|letter)\b`)
})

// A title is read from the first maxTitleChars bytes of a text-answer
// cell's best extract, when at most maxTitleLead words come before it
// ("Exhibit 10.1", "CONFIDENTIAL") and it has two words or more ("Supply
// Agreement"; "Agreement" alone names nothing).
const (
	maxTitleChars = 300
	maxTitleLead  = 12
)

// titleCased reports whether most words of a line (60%) start with a
// capital letter, as a title's do.
func titleCased(line string) bool {
	words, caps := 0, 0
	for _, w := range strings.Fields(line) {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLetter(r) {
			continue
		}
		words++
		if unicode.IsUpper(r) {
			caps++
		}
	}
	return words > 0 && 5*caps >= 3*words
}

// titleLines returns s with the breaks a title stands between made line
// breaks, byte for byte: a run of three spaces or more (text whose lines
// were joined) and the space after a sentence's full stop ("… if publicly
// disclosed. SUPPLY AGREEMENT This …"), so that a notice before a title
// is a line of its own.
func titleLines(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == ' ' && b[i+1] == ' ' && b[i+2] == ' ' {
			b[i] = '\n'
			for i+1 < len(b) && b[i+1] == ' ' {
				i++
			}
			continue
		}
		if b[i] == '.' && b[i+1] == ' ' && i > 0 && !abbreviation(s[:i]) && !endsWithForm(s[:i+1]) {
			b[i+1] = '\n'
		}
	}
	return string(b)
}

// startsLine reports whether only white space comes before at on its line
// of s.
func startsLine(s string, at int) bool {
	lo := strings.LastIndexByte(s[:at], '\n') + 1
	return strings.TrimSpace(s[lo:at]) == ""
}

// titleAt finds a document's title in s: on the first line that names a
// kind of document, the run of words in the kind word's case (all capitals,
// or capitalised) that ends with it — "Exhibit 10.1 MASTER SUPPLY
// AGREEMENT" gives "MASTER SUPPLY AGREEMENT". A leading "This"/"The" is
// dropped. Lines of more than 20 words are not titles.
func titleAt(s string) (int, int, bool) {
	at := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		lineAt := at
		at += len(line)
		kinds := reKindWord().FindAllStringIndex(line, -1)
		for ki, m := range kinds {
			kind := line[m[0]:m[1]]
			upper := kind == strings.ToUpper(kind)
			r, _ := utf8.DecodeRuneInString(kind)
			if !upper && !unicode.IsUpper(r) {
				continue
			}
			same := func(w string) bool {
				hasLetter := false
				for _, c := range w {
					if unicode.IsLetter(c) {
						hasLetter = true
						if upper && unicode.IsLower(c) {
							return false
						}
					}
				}
				if !hasLetter {
					return w == "&" || w == "-"
				}
				first, _ := utf8.DecodeRuneInString(w)
				return upper || unicode.IsUpper(first) || w == "of" || w == "and" || w == "for"
			}
			words := strings.Fields(line[:m[0]])
			if len(words) > 20 {
				break
			}
			start := m[0]
			for i := len(words) - 1; i >= 0 && same(words[i]) && !strings.EqualFold(words[i], "this"); i-- {
				start = strings.LastIndex(line[:start], words[i])
			}
			end := m[1]
			// "Deed of Guarantee", "License and Supply Agreement": the title
			// runs on to a later kind word through words of its case.
			for _, m2 := range kinds[ki+1:] {
				// words of the title's case between the two ("Deed of
				// Guarantee"; not "AGREEMENT AGREEMENT SUMMARY", nor
				// "DISTRIBUTOR AGREEMENT Agreement made")
				between := strings.Fields(line[end:m2[0]])
				ok := !strings.Contains(line[end:m2[0]], "\n") && same(line[m2[0]:m2[1]]) &&
					(len(between) > 0 || !strings.EqualFold(line[m2[0]:m2[1]], line[m[0]:end][strings.LastIndexAny(line[m[0]:end], " ")+1:]))
				for _, w := range between {
					ok = ok && same(w) && !strings.EqualFold(w, "this")
				}
				if !ok {
					break
				}
				end = m2[1]
			}
			title := line[start:end]
			for strings.HasPrefix(title, "- ") || strings.HasPrefix(title, "& ") {
				start += 2
				title = title[2:]
			}
			for _, lead := range []string{"THIS ", "This ", "THE ", "The "} {
				if strings.HasPrefix(title, lead) {
					start += len(lead)
					title = title[len(lead):]
				}
			}
			for strings.HasPrefix(title, "of ") || strings.HasPrefix(title, "and ") || strings.HasPrefix(title, "for ") {
				i := strings.IndexByte(title, ' ') + 1
				start += i
				title = title[i:]
			}
			// a kind word that labels a number ("Contract No.: DDCX 2018
			// … Collaboration Agreement") is a reference: the title may
			// follow on the line ("Amendment #3 to the … Agreement" is
			// the amendment's own title, left as it was)
			if strings.TrimSpace(title) == "" || reReference().MatchString(line[end:]) && !reNumberedTo().MatchString(line[end:]) {
				continue
			}
			return lineAt + start, lineAt + end, true
		}
	}
	return 0, 0, false
}

// titleOpening is how much of a contract's opening (code points) holds its
// title: a cover page, a filing legend and a confidentiality notice may
// come before it.
const titleOpening = 4000

// asksForTitle reports whether a text provision asks for the contract's
// own title: its definition says it is the title ("The title the contract
// gives itself"). Its cell reads the opening whatever passage scored first
// — a schedule at the end of the contract ("EXHIBIT A LONG LEAD TIME
// MATERIALS") may; any other text provision is answered from its clauses,
// though its best passage be in the opening (a merger agreement's table of
// contents).
func asksForTitle(p *playbook.Provision) bool {
	return reTitleDefinition().MatchString(p.Definition)
}

var reTitleDefinition = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W*(?:(?:the|a|its)\s+)?(?:(?:contract|agreement|document)['’]s\s+)?(?:own\s+)?title\b`)
})

// titleAnswer reads a contract's title from its opening, for a provision
// that asks for it (asksForTitle): the first line that is a title and nothing
// else ("Exhibit 10.1" aside) — "CONTENT LICENSE AGREEMENT" over a running
// line "PACIFICAP ENTERTAINMENT Agreement with THE HENRY FILM …" —, else
// the first title within maxTitleLead words of its line's start. Lines in
// page furniture or running lines are skipped, and a kind word followed by
// a number ("TELKOM CONTRACT No. 076C/01") is a reference, not a title. It
// returns the cell's extracts with the title's passage first (added when
// no extract holds it) and the answer; nil when the opening has no title.
func titleAnswer(p *detect.Prepared, ex []detect.Extract, scores []float64) ([]detect.Extract, *Answer) {
	text := p.Doc().Doc.Text
	opening := titleLines(contractOpening(p, titleOpening))
	// the first whole-line title that names a document ("… AGREEMENT"),
	// else the first whole-line title ("GENERAL TERMS AND CONDITIONS"),
	// else the first title near its line's start
	bestLo, bestHi, rank := 0, 0, 0
	at := 0
	for _, line := range strings.SplitAfter(opening, "\n") {
		lineAt := at
		at += len(line)
		lo, hi, ok := titleAt(line)
		if !ok || len(strings.Fields(line[lo:hi])) < 2 || reReference().MatchString(line[hi:]) {
			continue
		}
		if inFurniture(p, p.Index().RuneSpan(lineAt+lo, lineAt+hi)) {
			continue
		}
		lead := strings.Fields(line[:lo])
		rest := strings.TrimSpace(line[hi:])
		// a reference number after the title ("GLOBAL MAINTENANCE AGREEMENT
		// Contract No. DS/CS-3957/14 …") labels it; the line is still
		// the title's own
		isWhole := (rest == "" || reNumberLabel().MatchString(rest)) && (len(lead) == 0 || reExhibitLead().MatchString(strings.TrimSpace(line[:lo])))
		words := strings.Fields(line[lo:hi])
		r := 0
		switch {
		case isWhole && reDocWord().MatchString(strings.Trim(words[len(words)-1], ".,;:")):
			r = 3
		case isWhole:
			r = 2
		case len(lead) <= maxTitleLead:
			r = 1
		}
		if r > rank {
			bestLo, bestHi, rank = lineAt+lo, lineAt+hi, r
		}
		if r == 3 {
			break
		}
	}
	if rank == 0 {
		return nil, nil
	}
	sp := p.Index().RuneSpan(bestLo, bestHi)
	ex, k := extractHolding(p, ex, sp, scores)
	if k < 0 {
		return nil, nil
	}
	a := &Answer{Kind: KindValue, Text: strings.Join(strings.Fields(text[bestLo:bestHi]), " "),
		Spans: []Span{{Extract: k, Span: sp, Role: "value"}}}
	return ex, a
}

var (
	// reReference follows a kind word that labels a reference number.
	reReference = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?i:no\.|number|#)`) })
	// reNumberedTo is a document's number followed by the document it
	// amends or belongs to ("#3 to the Manufacturing Agreement").
	reNumberedTo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?i:no\.|number|#)\s*\S+\s+(?i:to|of)\s`)
	})
	// reNumberLabel is a reference number's label after a title: "No.",
	// "Contract No.", "Ref. #".
	reNumberLabel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[A-Z][a-z]+\.?\s+)?(?i:no\.|number|#)\s*\S`)
	})
	// reExhibitLead is a filing's exhibit label before a title.
	reExhibitLead = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i:exhibit|annex|appendix|schedule)\s+[\w.()\-]+$`)
	})
)
